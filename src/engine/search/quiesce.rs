//! Quiescence: captures only (every move when in check), with stand-pat, delta pruning
//! (the captured piece valued as the evaluation values it there) and no capture that loses
//! material by static exchange; at its first ply, also every quiet move that gives check
//! (sacrifices included: s23).

use super::{Searcher, MAX_PLY};
use crate::board::Move;
use crate::engine::check_filter::CheckZone;
use crate::engine::params::DELTA_MARGIN;
use crate::engine::score::{INF, MATE};
use crate::engine::see::loses_material;

impl Searcher<'_> {
    /// `checks`: also search the quiet moves that give check, whatever the exchange on their
    /// square (at the first ply of quiescence, entered from the main search).
    pub(super) fn quiesce(&mut self, mut alpha: i32, beta: i32, ply: i32, checks: bool) -> i32 {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.should_stop() {
            return 0;
        }
        let in_check = self
            .checks
            .last()
            .copied()
            .unwrap_or_else(|| self.pos.in_check());
        if ply as usize >= MAX_PLY - 1 {
            return if in_check { 0 } else { self.eval() };
        }
        // no stand-pat when in check: every move is searched
        let stand = if in_check { -INF } else { self.eval() };
        let mut moves = if in_check {
            self.pos.legal_moves_told(true)
        } else {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            self.pos.capture_moves_told(false)
        };
        if in_check && moves.is_empty() {
            return -MATE + ply;
        }
        let mut best = stand;
        let picker = if in_check {
            self.order(&mut moves, None, ply as usize)
        } else {
            self.order_captures(&moves)
        };
        for (_, m) in picker {
            if !in_check {
                let gain = self
                    .pos
                    .piece_at(m.to())
                    .map_or(0, |p| self.ev.piece_value(p, m.to()));
                if stand + gain + DELTA_MARGIN < alpha {
                    continue;
                }
            }
            // a capture that loses material by exchange is not searched (not in check)
            if !in_check && loses_material(&self.pos, m) {
                continue;
            }
            if self.q_move(m, &mut alpha, beta, &mut best, ply) {
                if self.stopped {
                    return 0;
                }
                break;
            }
        }
        if checks && !in_check && best < beta {
            let zone = CheckZone::new(&self.pos);
            for m in zone.candidates(&self.pos) {
                // (legal moves that may check by their squares, then a test on the
                // bitboards, before the full move)
                if !self.pos.gives_check(m) {
                    continue;
                }
                if self.q_move(m, &mut alpha, beta, &mut best, ply) {
                    if self.stopped {
                        return 0;
                    }
                    break;
                }
            }
        }
        best
    }

    /// Search the move `m` one ply deeper in quiescence and raise `best` and `alpha` by its
    /// score: true when the caller's loop ends (a cut-off at `beta`, or the search stopped).
    /// `best <= alpha < beta` holds in the callers, so a score reaching `beta` raises both.
    fn q_move(&mut self, m: Move, alpha: &mut i32, beta: i32, best: &mut i32, ply: i32) -> bool {
        let ev = self.ev;
        let u = self.make(m);
        let s = -self.quiesce(-beta, -*alpha, ply + 1, false);
        self.unmake(m, u, ev);
        if self.stopped {
            return true;
        }
        if s > *best {
            *best = s;
            *alpha = (*alpha).max(s);
        }
        s >= beta
    }
}
