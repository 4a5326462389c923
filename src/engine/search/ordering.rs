//! Move ordering: pickers that hand out the best-scored move first, MVV-LVA, killers,
//! counter moves and history with gravity.

use super::Searcher;
use crate::board::{Move, MoveList, Position};
use crate::engine::params::VALUE;
use crate::engine::see::loses_material;

/// Moves with scores, handed out best first by selection (most nodes cut off early, so a
/// full sort would be wasted).
pub(super) struct Picker {
    list: arrayvec::ArrayVec<(i32, Move), 128>,
    next: usize,
}

impl Iterator for Picker {
    type Item = (i32, Move);

    fn next(&mut self) -> Option<(i32, Move)> {
        if self.next >= self.list.len() {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..self.list.len() {
            if self.list[i].0 > self.list[best].0 {
                best = i;
            }
        }
        self.list.swap(self.next, best);
        self.next += 1;
        Some(self.list[self.next - 1])
    }
}

/// Bound of a history entry (the gravity update keeps every entry within it).
pub(super) const HISTORY_MAX: i32 = 16_384;

/// Move `h` towards `bonus`'s sign by `bonus`, less as it nears the bound (history
/// gravity): entries stay within ±[`HISTORY_MAX`] and old successes fade.
fn history_update(h: &mut i32, bonus: i32) {
    let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    *h += b - *h * b.abs() / HISTORY_MAX;
}

fn mvv_lva(pos: &Position, m: Move) -> i32 {
    let victim = pos.piece_at(m.to()).map_or(0, |p| VALUE[p.role.index()].0);
    let attacker = pos
        .piece_at(m.from())
        .map_or(0, |p| VALUE[p.role.index()].0);
    victim * 8 - attacker / 8
}

impl Searcher<'_> {
    /// Captures for quiescence, by MVV-LVA alone (the static exchange test comes later, for
    /// the captures the delta test keeps).
    pub(super) fn order_captures(&self, moves: &MoveList) -> Picker {
        Picker {
            list: moves.iter().map(|&m| (mvv_lva(&self.pos, m), m)).collect(),
            next: 0,
        }
    }

    /// The move that refuted the last move played last time (none after a null move).
    pub(super) fn counter(&self) -> Option<Move> {
        let prev = (*self.moves.last()?)?;
        self.counters[prev.from().index() * 90 + prev.to().index()]
    }

    pub(super) fn order(&self, moves: &mut MoveList, tt_move: Option<Move>, ply: usize) -> Picker {
        let counter = self.counter();
        let scored: arrayvec::ArrayVec<(i32, Move), 128> = moves
            .iter()
            .map(|&m| {
                let s = if Some(m) == tt_move {
                    1 << 30
                } else if self.pos.piece_at(m.to()).is_some() {
                    // captures that lose material by exchange go after the quiet moves
                    if loses_material(&self.pos, m) {
                        -(1 << 22) + mvv_lva(&self.pos, m)
                    } else {
                        (1 << 24) + mvv_lva(&self.pos, m)
                    }
                } else if self.killers[ply][0] == Some(m) {
                    1 << 23
                } else if self.killers[ply][1] == Some(m) {
                    (1 << 23) - 1
                } else if counter == Some(m) {
                    (1 << 23) - 2
                } else {
                    self.history[m.from().index() * 90 + m.to().index()]
                };
                (s, m)
            })
            .collect();
        Picker {
            list: scored,
            next: 0,
        }
    }

    /// A quiet move `m` cut off at `depth`: it becomes the first killer of `ply` and the
    /// counter move of the move before it, its history rises, and the history of the quiet
    /// moves `tried` before it falls by as much.
    pub(super) fn reward_cutoff(&mut self, m: Move, depth: i32, ply: usize, tried: &[Move]) {
        let k = &mut self.killers[ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
        if let Some(Some(prev)) = self.moves.last().copied() {
            self.counters[prev.from().index() * 90 + prev.to().index()] = Some(m);
        }
        // 32·depth², at most 4,096 (s31; was 8·depth²: entries stayed within about ±1,000,
        // too small for the late move reduction's ply per 8,192 to act)
        let bonus = (depth * depth * 32).min(4096);
        history_update(
            &mut self.history[m.from().index() * 90 + m.to().index()],
            bonus,
        );
        for &q in tried {
            history_update(
                &mut self.history[q.from().index() * 90 + q.to().index()],
                -bonus,
            );
        }
    }
}
