//! The kinds a kind-ordered piece list must hold, and the list's bytes.
//!
//! A list entry `(Piece, Square)` is three one-byte values with no padding (asserted), so a
//! list is a run of initialized bytes whose squares the fast paths read in place. The
//! expected kinds are checked entry by entry on the piece bytes alone ([`KindPattern`]).

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
    /// The expected piece of each slot (as [`piece_word`]; beyond the material, Red's
    /// king).
    kinds: [u16; MAX_PIECES],
}

impl KindPattern {
    /// The pattern of the lists holding `pieces` in this order (at most 32 are used).
    pub(super) fn new(pieces: impl Iterator<Item = Piece>) -> KindPattern {
        let mut kinds = [piece_word(Piece::new(Color::Red, Role::King)); MAX_PIECES];
        for (slot, p) in kinds.iter_mut().zip(pieces) {
            *slot = piece_word(p);
        }
        KindPattern { kinds }
    }

    /// Every piece of `pieces` is the expected one (the list has the material's length,
    /// which the caller checks).
    ///
    /// The pieces are compared entry by entry, two bytes each, never reading a square:
    /// callers often rank a list right after writing one square into it, and a wide load
    /// over that narrow store would wait for it to reach the cache (no store forwarding).
    #[inline(always)]
    pub(super) fn matches(&self, pieces: &[(Piece, Square)]) -> bool {
        if pieces.len() > MAX_PIECES {
            return false;
        }
        let mut differ = 0u16;
        for (k, &(p, _)) in pieces.iter().enumerate() {
            differ |= piece_word(p) ^ self.kinds[k & (MAX_PIECES - 1)];
        }
        differ == 0
    }
}

/// A piece as one 16-bit value (colour and role).
#[inline(always)]
fn piece_word(p: Piece) -> u16 {
    p.color.index() as u16 | (p.role.index() as u16) << 8
}

#[cfg(test)]
mod tests {
    use super::KindPattern;
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
            assert!(pattern.matches(&list), "{n} pieces");
            for k in 0..n {
                let mut other = list.clone();
                other[k].1 = Square::ALL[89 - k];
                assert!(pattern.matches(&other), "{n} pieces, square {k}");
                let p = list[k].0;
                for q in [
                    Piece::new(p.color.other(), p.role),
                    Piece::new(p.color, Role::ALL[(p.role.index() + 1) % 7]),
                ] {
                    other[k].0 = q;
                    assert!(!pattern.matches(&other), "{n} pieces, piece {k}");
                }
            }
        }
    }
}
