//! Sets of points as plain `u128` masks (bit = square index), the form the index computes
//! with: the board's [`Bitboard`] without its wrapper (see [`mask`] and [`board`]), and
//! tables that take a square as a byte. Square codes 90 and above, which the fast routes
//! may meet on bad input, read harmlessly in every table (no bit, every square below,
//! mirrored to themselves).

use crate::board::{Bitboard, Square};

/// The mask of a board set.
pub(super) const fn mask(b: Bitboard) -> u128 {
    b.bits()
}

/// The board set of a mask of points (bits 0-89).
pub(super) fn board(m: u128) -> Bitboard {
    Bitboard::from_bits(m)
}

/// Ranks 0-4 (Red's half) and 5-9 (Black's half).
pub(super) const RED_HALF: u128 = mask(Bitboard::RED_HALF);
pub(super) const BLACK_HALF: u128 = mask(Bitboard::BLACK_HALF);
/// Files a-d (the left points of the mirror pairs) and file e (the centre points).
pub(super) const LEFT_FILES: u128 = mask(Bitboard::file(0))
    | mask(Bitboard::file(1))
    | mask(Bitboard::file(2))
    | mask(Bitboard::file(3));
pub(super) const CENTRE_FILE: u128 = mask(Bitboard::file(4));

/// Set squares of a mask in increasing order.
#[inline(always)]
pub(super) fn bits(mut m: u128) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let s = m.trailing_zeros() as u8;
            m &= m - 1;
            Some(s)
        }
    })
}

/// The bit of each square (none for the codes 90-127 that are no square).
pub(super) static BIT: [u128; 128] = {
    let mut t = [0u128; 128];
    let mut s = 0;
    while s < 90 {
        t[s] = Square::ALL[s].bit();
        s += 1;
    }
    t
};

/// Squares below each square (256 wide: any byte is looked up without a check; codes
/// of 90 and more have every square below them).
pub(super) static BELOW: [u128; 256] = {
    let mut t = [0u128; 256];
    let mut s = 0;
    while s < 256 {
        t[s] = if s < 90 {
            Square::ALL[s].bit() - 1
        } else {
            mask(Bitboard::FULL)
        };
        s += 1;
    }
    t
};

/// Squares below `s`.
#[inline(always)]
pub(super) fn below(s: u8) -> u128 {
    BELOW[s as usize]
}

/// `MIRROR_IF[m][s]`: square `s` mirrored left-right if `m` is 1 (squares 90-127, which a
/// trailing-zero count of an empty mask can give, map to themselves).
pub(super) static MIRROR_IF: [[u8; 128]; 2] = {
    let mut t = [[0u8; 128]; 2];
    let mut s = 0;
    while s < 128 {
        t[0][s] = s as u8;
        t[1][s] = if s < 90 {
            Square::ALL[s].mirror() as u8
        } else {
            s as u8
        };
        s += 1;
    }
    t
};

/// Square `s` mirrored left-right.
#[inline(always)]
pub(super) fn mirror_sq(s: u8) -> u8 {
    MIRROR_IF[1][s as usize]
}

/// Left-right mirror image of a mask.
#[inline(always)]
pub(super) fn mirror_mask(m: u128) -> u128 {
    mask(board(m).mirror())
}

/// Top-bottom flip of a mask.
pub(super) fn flip_mask(m: u128) -> u128 {
    mask(board(m).flip())
}
