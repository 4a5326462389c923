//! Points of the board: 9 files (a..i, left to right as Red sees it) x 10 ranks (0..9 from
//! Red's back rank). The index of a square is `rank * 9 + file`.

use std::fmt;
use std::str::FromStr;

macro_rules! define_squares {
    ($($name:ident,)*) => {
        /// One of the 90 points, named by its ICCS coordinate (`E0` is Red's king's start).
        #[repr(u8)]
        #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        #[rustfmt::skip]
        #[allow(missing_docs)]
        pub enum Square { $($name,)* }

        impl Square {
            /// Every square in index order.
            #[rustfmt::skip]
            pub const ALL: [Square; 90] = [$(Square::$name,)*];
        }
    };
}

#[rustfmt::skip]
define_squares!(
    A0, B0, C0, D0, E0, F0, G0, H0, I0,
    A1, B1, C1, D1, E1, F1, G1, H1, I1,
    A2, B2, C2, D2, E2, F2, G2, H2, I2,
    A3, B3, C3, D3, E3, F3, G3, H3, I3,
    A4, B4, C4, D4, E4, F4, G4, H4, I4,
    A5, B5, C5, D5, E5, F5, G5, H5, I5,
    A6, B6, C6, D6, E6, F6, G6, H6, I6,
    A7, B7, C7, D7, E7, F7, G7, H7, I7,
    A8, B8, C8, D8, E8, F8, G8, H8, I8,
    A9, B9, C9, D9, E9, F9, G9, H9, I9,
);

/// Number of points on the board.
pub const NUM_SQUARES: usize = 90;

impl Square {
    /// The square with index `index` (`rank * 9 + file`), if it is on the board.
    #[inline]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 90 {
            Some(Square::ALL[index as usize])
        } else {
            None
        }
    }

    /// The square with index `index`.
    ///
    /// # Safety
    /// `index` must be below 90.
    #[inline]
    pub const unsafe fn new_unchecked(index: u8) -> Square {
        debug_assert!(index < 90);
        // SAFETY: Square is repr(u8) with contiguous discriminants 0..90 and the caller
        // guarantees index < 90.
        unsafe { std::mem::transmute::<u8, Square>(index) }
    }

    /// The square on `file` (0 = a .. 8 = i) and `rank` (0..9), if both are in range.
    #[inline]
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 9 && rank < 10 {
            Some(Square::ALL[(rank * 9 + file) as usize])
        } else {
            None
        }
    }

    /// Index `rank * 9 + file`.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// File 0 (a) .. 8 (i).
    #[inline]
    pub const fn file(self) -> u8 {
        self as u8 % 9
    }

    /// Rank 0 (Red's back rank) .. 9 (Black's back rank).
    #[inline]
    pub const fn rank(self) -> u8 {
        self as u8 / 9
    }

    /// Left-right mirror image (file a <-> i).
    #[inline]
    pub const fn mirror(self) -> Square {
        Square::ALL[(self.rank() * 9 + 8 - self.file()) as usize]
    }

    /// Top-bottom flip (rank 0 <-> 9), used by the colour flip.
    #[inline]
    pub const fn flip(self) -> Square {
        Square::ALL[((9 - self.rank()) * 9 + self.file()) as usize]
    }

    /// The square `df` files and `dr` ranks away, if it is on the board.
    #[inline]
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f < 0 || f > 8 || r < 0 || r > 9 {
            None
        } else {
            Some(Square::ALL[(r * 9 + f) as usize])
        }
    }

    /// Bit mask of this square in a [`crate::board::Bitboard`].
    #[inline]
    pub const fn bit(self) -> u128 {
        1u128 << (self as u8)
    }

    /// Bit mask of the mirror image (`self.mirror().bit()`), read from a table: no
    /// division by the file count and no 128-bit shift.
    #[inline]
    pub fn mirror_bit(self) -> u128 {
        MIRROR_BITS[self as usize]
    }
}

/// [`Square::mirror_bit`] of each square.
static MIRROR_BITS: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut i = 0;
    while i < 90 {
        t[i] = Square::ALL[i].mirror().bit();
        i += 1;
    }
    t
};

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank())
    }
}

/// Error for a square name that is not an ICCS coordinate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseSquareError {
    /// Not a file letter a-i followed by a rank digit.
    #[error("invalid square '{0}': expected a file a-i and a rank 0-9, e.g. 'e0'")]
    Invalid(String),
    /// A rank 10: the 1..10 convention of some tools (Fairy-Stockfish), not ICCS.
    #[error("invalid square '{0}': rank 10 belongs to the 1-10 rank convention (Fairy-Stockfish); ICCS ranks run 0-9")]
    RankTen(String),
}

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let b = s.as_bytes();
        if b.len() == 3
            && b[1] == b'1'
            && b[2] == b'0'
            && b[0].to_ascii_lowercase().is_ascii_lowercase()
        {
            return Err(ParseSquareError::RankTen(s.to_string()));
        }
        if b.len() != 2 {
            return Err(ParseSquareError::Invalid(s.to_string()));
        }
        let f = b[0].to_ascii_lowercase();
        let r = b[1];
        if !(b'a'..=b'i').contains(&f) || !r.is_ascii_digit() {
            return Err(ParseSquareError::Invalid(s.to_string()));
        }
        Ok(Square::from_coords(f - b'a', r - b'0').expect("file and rank checked in range"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_round_trip() {
        for sq in Square::ALL {
            assert_eq!(Square::from_coords(sq.file(), sq.rank()), Some(sq));
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
            assert_eq!(sq.mirror().mirror(), sq);
            assert_eq!(sq.flip().flip(), sq);
            assert_eq!(sq.mirror_bit(), sq.mirror().bit());
        }
        assert_eq!(Square::E0.to_string(), "e0");
        assert_eq!(Square::H2.mirror(), Square::B2);
        assert!(matches!(
            "h10".parse::<Square>(),
            Err(ParseSquareError::RankTen(_))
        ));
        assert!("j1".parse::<Square>().is_err());
    }
}
