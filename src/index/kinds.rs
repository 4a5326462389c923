//! The kinds a kind-ordered piece list must hold, checked a machine word at a time.
//!
//! A list entry `(Piece, Square)` is three one-byte values with no padding (asserted), so a
//! list is a run of initialized bytes. The expected kinds are the same bytes for an expected
//! list, and a mask keeps the piece bytes and drops the squares: eight bytes of the list
//! are then checked with one load, one exclusive or and one and.

use crate::board::{Color, Piece, Role, Square};
use std::mem::{offset_of, size_of};

/// Bytes of one list entry.
const ENTRY: usize = size_of::<(Piece, Square)>();
// a piece (colour and role, one-byte enums) and a square (one-byte enum): no padding byte
const _: () = assert!(ENTRY == 3 && size_of::<Piece>() == 2 && size_of::<Square>() == 1);
/// Offset of the square within an entry.
const SQUARE: usize = offset_of!((Piece, Square), 1);

/// Where the square of list slot `slot` (below 32) lies in the bytes of a piece list.
pub(super) const fn square_at(slot: u8) -> u8 {
    slot * ENTRY as u8 + SQUARE as u8
}

/// Most pieces on a board.
const MAX_PIECES: usize = 32;

/// The bytes of a piece list.
#[inline(always)]
pub(super) fn list_bytes(pieces: &[(Piece, Square)]) -> &[u8] {
    // SAFETY: an entry is `ENTRY` bytes, all of them values of its one-byte fields (no
    // padding, asserted above), so the list's memory is `pieces.len() * ENTRY` initialized
    // bytes, aligned for `u8`, borrowed for as long as `pieces`
    unsafe { std::slice::from_raw_parts(pieces.as_ptr().cast::<u8>(), pieces.len() * ENTRY) }
}

/// The expected kinds of a kind-ordered list of one material.
#[derive(Clone, Debug)]
pub(super) struct KindPattern {
    /// The bytes of the expected list (every square a0).
    bytes: [u8; MAX_PIECES * ENTRY],
    /// 0xFF on the bytes of the pieces, 0 on those of the squares.
    mask: [u8; MAX_PIECES * ENTRY],
}

impl KindPattern {
    /// The pattern of the lists holding `pieces` in this order (at most 32 are used).
    pub(super) fn new(pieces: impl Iterator<Item = Piece>) -> KindPattern {
        let mut list = [(Piece::new(Color::Red, Role::King), Square::ALL[0]); MAX_PIECES];
        for (slot, p) in list.iter_mut().zip(pieces) {
            slot.0 = p;
        }
        let mut pattern = KindPattern {
            bytes: [0; MAX_PIECES * ENTRY],
            mask: [0xFF; MAX_PIECES * ENTRY],
        };
        pattern.bytes.copy_from_slice(list_bytes(&list));
        for i in 0..MAX_PIECES {
            pattern.mask[i * ENTRY + SQUARE] = 0;
        }
        pattern
    }

    /// Every piece of the list with bytes `bytes` is the expected one (the list has the
    /// material's length, which the caller checks).
    #[inline(always)]
    pub(super) fn matches(&self, bytes: &[u8]) -> bool {
        let n = bytes.len();
        if n > self.bytes.len() {
            return false;
        }
        let differ = |o: usize, w: usize| {
            let word = |b: &[u8]| {
                let mut x = [0u8; 8];
                x[..w].copy_from_slice(&b[o..o + w]);
                u64::from_ne_bytes(x)
            };
            (word(bytes) ^ word(&self.bytes)) & word(&self.mask)
        };
        if n < 8 {
            return (0..n).all(|i| differ(i, 1) == 0);
        }
        // whole words, the last one overlapping the one before
        let mut acc = differ(n - 8, 8);
        let mut o = 0;
        while o + 8 < n {
            acc |= differ(o, 8);
            o += 8;
        }
        acc == 0
    }
}

#[cfg(test)]
mod tests {
    use super::{list_bytes, KindPattern};
    use crate::board::{Color, Piece, Role, Square};

    /// Every list length, word-sized or not: squares may be anything, and a list with any
    /// one piece of another colour or role is refused.
    #[test]
    fn pattern_checks_every_piece_and_no_square() {
        let pieces: Vec<Piece> = (0..32)
            .map(|i| Piece::new(Color::ALL[i / 16], Role::ALL[i % 7]))
            .collect();
        for n in 1..=32 {
            let pattern = KindPattern::new(pieces[..n].iter().copied());
            let list: Vec<_> = (0..n)
                .map(|i| (pieces[i], Square::ALL[(i * 37) % 90]))
                .collect();
            assert!(pattern.matches(list_bytes(&list)), "{n} pieces");
            for k in 0..n {
                let mut other = list.clone();
                other[k].1 = Square::ALL[89 - k];
                assert!(
                    pattern.matches(list_bytes(&other)),
                    "{n} pieces, square {k}"
                );
                let p = list[k].0;
                for q in [
                    Piece::new(p.color.other(), p.role),
                    Piece::new(p.color, Role::ALL[(p.role.index() + 1) % 7]),
                ] {
                    other[k].0 = q;
                    assert!(
                        !pattern.matches(list_bytes(&other)),
                        "{n} pieces, piece {k}"
                    );
                }
            }
        }
    }
}
