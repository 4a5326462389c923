//! Step 1, the start: every position decoded once, illegal placements marked, a counter of
//! distinct successors for every other position (mirror images counted once), and under
//! the rules the capture-draw flag.

use super::{code, compact, Gen};
use crate::board::{Color, Move, MoveList, Piece, Position, Square};
use crate::index::PieceList;
use arrayvec::ArrayVec;

/// Number of points where a position differs from its mirror image. Two moves (or
/// un-moves) of a position reach mirror images of each other only when this is at most 4:
/// the two results differ from the position in at most two points each.
pub fn asymmetry(pos: &Position) -> u32 {
    let mut d = 0;
    for s in pos.occupied() {
        let p = pos.piece_at(s);
        let q = pos.piece_at(s.mirror());
        if p != q {
            // s differs; its mirror point differs too, and is counted here when empty
            d += if q.is_none() { 2 } else { 1 };
        }
    }
    d
}

/// [`asymmetry`] of the position with these pieces (on distinct points).
pub(super) fn asymmetry_of(pieces: &[(Piece, Square)]) -> u32 {
    let mut d = 0;
    for &(p, s) in pieces {
        let m = s.mirror();
        if m == s {
            continue;
        }
        d += match pieces.iter().find(|e| e.1 == m) {
            None => 2,
            Some(&(q, _)) => (q != p) as u32,
        };
    }
    d
}

impl Gen<'_> {
    /// The number of distinct successors of `pos` (legal `moves`) among those `keep`
    /// accepts (by table and index: two moves give one successor only when they give mirror
    /// images, which needs a position nearly symmetric).
    pub(super) fn distinct_children(
        &self,
        pos: &Position,
        moves: &MoveList,
        mut keep: impl FnMut(Move, Option<Piece>) -> bool,
    ) -> usize {
        if asymmetry(pos) > 4 {
            return moves
                .iter()
                .filter(|&&m| keep(m, pos.piece_at(m.to())))
                .count();
        }
        // the successors by mirror class: the smaller of the Zobrist keys of a move's result
        // and of its mirror image (the two moves of a mirror pair share it; a hash
        // collision is told apart by comparing the boards)
        let mut keys: ArrayVec<(u64, Move), 128> = ArrayVec::new();
        for &m in moves {
            if !keep(m, pos.piece_at(m.to())) {
                continue;
            }
            let (k, mk) = pos.keys_after(m);
            keys.push((k.min(mk), m));
        }
        keys.sort_unstable_by_key(|e| e.0);
        let mut n = keys.len();
        for a in 0..keys.len() {
            for b in a + 1..keys.len() {
                if keys[b].0 != keys[a].0 {
                    break;
                }
                // (a result has at most one mirror partner among the others)
                if pos.mirror_results(keys[a].1, keys[b].1) {
                    n -= 1;
                }
            }
        }
        n
    }

    /// The number of distinct successors of `pos` (see
    /// [`Gen::distinct_children`](super::Gen::distinct_children)), given its [`asymmetry`]: a
    /// position far from symmetric has as many as it has legal moves, counted without a move list.
    pub(super) fn count_children(&self, pos: &Position, asym: u32) -> usize {
        if asym > 4 {
            pos.count_legal()
        } else {
            self.distinct_children(pos, &pos.legal_moves(), |_, _| true)
        }
    }

    /// Step 1 for the indices `start..end`.
    pub(super) fn init_chunk(&self, start: usize, end: usize) {
        let mut pieces = PieceList::new();
        // one position and one move list for the chunk, loaded in place (the list holds
        // what the capture-draw test reads: every legal move, or the captures alone)
        let mut pos = Position::unloaded();
        let mut list = MoveList::new();
        for i in start..end {
            if !self.index.unrank_into(i as u64, &mut pieces) {
                continue;
            }
            if pos.load_pieces(&pieces, Color::Red).is_err() {
                continue;
            }
            let facing = pos.kings_facing();
            let asym = asymmetry_of(&pieces);
            // each king attacked or not, tested once: with one side to move, the other
            // side's king attacked makes the placement illegal, its own king is in check
            let attacked = Color::ALL.map(|c| !facing && pos.is_attacked(pos.king(c), !c));
            for side in Color::ALL {
                if side == Color::Black {
                    pos.play_null();
                }
                let s = side.index();
                if facing || attacked[(!side).index()] {
                    self.val[s].set(i, self.illegal_byte());
                    continue;
                }
                // under the rules the capture-draw test needs the captures: of the whole
                // move list when it is built anyway (a nearly symmetric position), else
                // alone (the other moves are only counted)
                let (n, moves) = match (self.rule_rounds, asym <= 4) {
                    (true, true) => {
                        list = pos.legal_moves();
                        (
                            self.distinct_children(&pos, &list, |_, _| true),
                            Some(&list),
                        )
                    }
                    // one generation counts the moves and lists the captures
                    (true, false) => (
                        pos.count_legal_with_captures(Some(attacked[s]), &mut list),
                        Some(&list),
                    ),
                    (false, _) => (self.count_children(&pos, asym), None),
                };
                if n == 0 {
                    // lost at level 0
                    self.val[s].set(i, compact::level_byte(0));
                    continue;
                }
                if n > self.counter_mask() as usize {
                    self.fail(format!(
                        "{} has {n} distinct successors, more than a counter holds",
                        pos.to_fen()
                    ));
                    continue;
                }
                let mut b = code::OPEN | n as u8;
                if let Some(moves) = moves {
                    if self.has_capture_draw(&pos, &pieces, moves) {
                        match &self.capdraw {
                            Some(cd) => cd[s].set(i),
                            None => b |= code::CAPDRAW,
                        }
                    }
                }
                self.val[s].set(i, b);
            }
        }
    }
}
