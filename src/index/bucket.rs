//! A placement as the squares of its pieces grouped by kind: the form the index reads.
//! Grouping by kind takes one pass over a piece list in any order, with no board masks.

use super::masks::BIT;
use crate::board::{Piece, Square};

/// A placement as the squares of its pieces grouped by kind in [`crate::board::Piece::index`] order
/// (kind `k` in `kind_start[k]..kind_start[k + 1]`, see [`bucket`]).
pub(super) struct Bucketed {
    pub(super) sq: [u8; 32],
    /// Sum of the kinds' [`KIND_WEIGHT`]s.
    pub(super) signature: u64,
    /// Number of pieces.
    pub(super) n: usize,
    /// All squares as a mask.
    pub(super) all: u128,
}

/// Weight of each piece kind in a count signature: 4 bits per kind.
pub(super) static KIND_WEIGHT: [u64; 14] = {
    let mut t = [0u64; 14];
    let mut k = 0;
    while k < 14 {
        t[k] = 1 << (4 * k);
        k += 1;
    }
    t
};

/// An own-half entry and whether the placement is its mirror image.
pub(super) type Own = (usize, bool);

/// Group the pieces (kind by [`crate::board::Piece::index`], square) by kind, kind `k`
/// from slot `kind_start[k]` on. Kinds beyond the material's counts overwrite other
/// slots; [`Bucketed::fits`] rejects them by the signature.
#[inline(always)]
pub(super) fn bucket(kind_start: &[u8; 15], pieces: impl Iterator<Item = (usize, u8)>) -> Bucketed {
    let mut next = [0u8; 14];
    next.copy_from_slice(&kind_start[..14]);
    let mut b = Bucketed {
        sq: [0; 32],
        signature: 0,
        n: 0,
        all: 0,
    };
    for (k, s) in pieces {
        let k = k.min(13);
        b.sq[next[k] as usize & 31] = s;
        next[k] = next[k].wrapping_add(1);
        b.all |= BIT[s as usize & 127];
        b.signature = b.signature.wrapping_add(KIND_WEIGHT[k]);
        b.n += 1;
    }
    b
}

/// A piece as a two-byte code for comparing whole pieces at once.
#[inline(always)]
pub(super) fn piece_code(p: Piece) -> u16 {
    p.color as u16 | (p.role as u16) << 8
}

impl Bucketed {
    /// No pieces.
    pub(super) const EMPTY: Bucketed = Bucketed {
        sq: [0; 32],
        signature: 0,
        n: 0,
        all: 0,
    };

    /// Read a piece list already in kind order with exactly the material's counts
    /// (`order[i]` is the [`piece_code`] expected at slot `i`): it is its own bucketed
    /// form, the squares are copied as they stand. False for any other list, which
    /// [`bucket`] then sorts.
    #[inline(always)]
    pub(super) fn read_ordered(
        &mut self,
        order: &[u16; 32],
        signature: u64,
        pieces: &[(Piece, Square)],
    ) -> bool {
        // one pass without early exit: the kinds are compared and the squares copied together
        let mut other = 0u16;
        for (i, &(p, s)) in pieces.iter().take(32).enumerate() {
            other |= piece_code(p) ^ order[i & 31];
            self.sq[i & 31] = s as u8;
            self.all |= BIT[s as usize & 127];
        }
        self.signature = signature;
        self.n = pieces.len();
        other == 0
    }

    /// The placement has the material of this signature and piece total, and one piece
    /// per point. Equal signatures and piece totals mean equal counts: with every count
    /// of the material below 16, any other count vector with the same base-16 value has
    /// a larger digit sum (each borrow adds 15 pieces).
    #[inline(always)]
    pub(super) fn fits(&self, signature: u64, total: usize) -> bool {
        self.signature == signature && self.n == total && self.all.count_ones() as usize == total
    }
}
