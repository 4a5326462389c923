//! A set of squares as a 128-bit integer (bits 0..90 used, bit = square index).

use super::Square;
use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// Set of squares. Bits above 89 are always zero.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(u128);

/// Mask of the 90 board bits.
pub const FULL_MASK: u128 = (1u128 << 90) - 1;

impl Bitboard {
    /// The set of the squares whose bits are set in `bits` (bit = square index); bits above
    /// 89 are dropped, so every `Bitboard` only holds squares of the board.
    #[inline]
    pub const fn from_bits(bits: u128) -> Bitboard {
        Bitboard(bits & FULL_MASK)
    }

    /// The set as an integer (bit = square index, bits above 89 zero).
    #[inline]
    pub const fn bits(self) -> u128 {
        self.0
    }

    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 90 squares.
    pub const FULL: Bitboard = Bitboard(FULL_MASK);
    /// Ranks 0-4 (Red's side of the river).
    pub const RED_HALF: Bitboard = Bitboard((1u128 << 45) - 1);
    /// Ranks 5-9 (Black's side of the river).
    pub const BLACK_HALF: Bitboard = Bitboard(FULL_MASK ^ ((1u128 << 45) - 1));
    /// Red's palace d0-f2.
    pub const RED_PALACE: Bitboard = Bitboard(palace_mask(0));
    /// Black's palace d7-f9.
    pub const BLACK_PALACE: Bitboard = Bitboard(palace_mask(7));

    /// The single square `sq`.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(sq.bit())
    }

    /// All squares of rank `r` (0..9).
    #[inline]
    pub const fn rank(r: u8) -> Bitboard {
        Bitboard(0x1FFu128 << (r as u32 * 9))
    }

    /// All squares of file `f` (0..8).
    #[inline]
    pub const fn file(f: u8) -> Bitboard {
        Bitboard(FILE_A << f)
    }

    /// True when no square is set.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True when at least one square is set.
    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// Number of squares set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// True when `sq` is set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & sq.bit() != 0
    }

    /// Lowest square, if any.
    #[inline]
    pub fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            // SAFETY: a nonzero Bitboard only has bits below 90.
            Some(unsafe { Square::new_unchecked(self.0.trailing_zeros() as u8) })
        }
    }

    /// Highest square, if any.
    #[inline]
    pub fn last(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            // SAFETY: a nonzero Bitboard only has bits below 90.
            Some(unsafe { Square::new_unchecked(127 - self.0.leading_zeros() as u8) })
        }
    }

    /// The set with `sq` added.
    #[inline]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | sq.bit())
    }

    /// The set with `sq` removed.
    #[inline]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !sq.bit())
    }

    /// Toggle `sq`.
    #[inline]
    pub fn toggle(&mut self, sq: Square) {
        self.0 ^= sq.bit();
    }

    /// Left-right mirror image of the set.
    pub fn mirror(self) -> Bitboard {
        let mut out = 0u128;
        for sq in self {
            out |= sq.mirror().bit();
        }
        Bitboard(out)
    }

    /// Top-bottom flip of the set.
    pub fn flip(self) -> Bitboard {
        let mut out = 0u128;
        for r in 0..10u32 {
            let row = (self.0 >> (r * 9)) & 0x1FF;
            out |= row << ((9 - r) * 9);
        }
        Bitboard(out)
    }
}

const FILE_A: u128 = {
    let mut m = 0u128;
    let mut r = 0;
    while r < 10 {
        m |= 1u128 << (r * 9);
        r += 1;
    }
    m
};

const fn palace_mask(bottom: u32) -> u128 {
    let mut m = 0u128;
    let mut r = bottom;
    while r < bottom + 3 {
        let mut f = 3;
        while f < 6 {
            m |= 1u128 << (r * 9 + f);
            f += 1;
        }
        r += 1;
    }
    m
}

impl Iterator for Bitboard {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        // SAFETY: set bits are below 90 by the type's invariant.
        Some(unsafe { Square::new_unchecked(i) })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

impl From<Square> for Bitboard {
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        let mut b = 0u128;
        for sq in iter {
            b |= sq.bit();
        }
        Bitboard(b)
    }
}

macro_rules! bitop {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bitop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bitop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bitop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & FULL_MASK)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in (0..10).rev() {
            for file in 0..9 {
                let sq = Square::from_coords(file, r).expect("in range");
                f.write_str(if self.contains(sq) { "1" } else { "." })?;
            }
            f.write_str("\n")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert_eq!(Bitboard::RED_PALACE.count(), 9);
        assert!(Bitboard::RED_PALACE.contains(Square::E1));
        assert!(Bitboard::BLACK_PALACE.contains(Square::D9));
        assert_eq!(Bitboard::RED_HALF.count(), 45);
        assert_eq!((Bitboard::RED_HALF | Bitboard::BLACK_HALF), Bitboard::FULL);
        assert_eq!(Bitboard::file(4).count(), 10);
        assert_eq!(Bitboard::rank(9).count(), 9);
        let b: Bitboard = [Square::A0, Square::I9, Square::E4].into_iter().collect();
        assert_eq!(
            b.collect::<Vec<_>>(),
            vec![Square::A0, Square::E4, Square::I9]
        );
        assert_eq!(b.mirror().mirror(), b);
        assert_eq!(
            b.flip(),
            [Square::A9, Square::I0, Square::E5].into_iter().collect()
        );
        assert_eq!(!Bitboard::EMPTY, Bitboard::FULL);
    }

    #[test]
    fn bits_off_the_board_never_make_a_square() {
        // the field is private: the only way in masks the bits above 89
        assert!(Bitboard::from_bits(1 << 100).is_empty());
        let all = Bitboard::from_bits(u128::MAX);
        assert_eq!(all, Bitboard::FULL);
        assert_eq!(all.count(), 90);
        assert_eq!(all.last(), Some(Square::I9));
        assert_eq!(all.bits(), FULL_MASK);
        assert!(all.into_iter().all(|sq| (sq as u8) < 90));
    }
}
