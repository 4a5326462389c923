//! Pruning of a whole node before its moves are searched (reverse futility, razoring,
//! null move), and the late-move reduction table.

use super::Searcher;
use crate::board::Role;
use crate::engine::params::{
    LMR_BASE, LMR_DIVISOR, NULL_EVAL_STEP, NULL_MIN_PHASE, NULL_R, PROBCUT_DEPTH, PROBCUT_MARGIN,
    RAZOR_DEPTH, RAZOR_MARGIN, RFP_DEPTH, RFP_MARGIN,
};
use crate::engine::score::MATE_BOUND;
use crate::engine::see::see;
use crate::engine::tt::Hit;

/// Late move reduction for the `i`-th move (0-based) at `depth`: logarithmic in both,
/// `LMR_BASE + ln depth · ln i / LMR_DIVISOR`, rounded down.
pub(super) fn lmr(depth: i32, i: usize) -> i32 {
    static TABLE: std::sync::LazyLock<[[i32; 64]; 64]> = std::sync::LazyLock::new(|| {
        let mut t = [[0; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (n, r) in row.iter_mut().enumerate().skip(1) {
                *r = (LMR_BASE + (d as f64).ln() * (n as f64).ln() / LMR_DIVISOR) as i32;
            }
        }
        t
    });
    TABLE[(depth as usize).min(63)][i.min(63)]
}

impl Searcher<'_> {
    /// Pruning of the whole node before its moves: the score to return when reverse futility,
    /// razoring or the null move settles the node, or None to search its moves. Returns 0 when
    /// the search was stopped inside (the caller checks `stopped`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn prune_node(
        &mut self,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: i32,
        static_eval: i32,
        pv_node: bool,
        in_check: bool,
        null_ok: bool,
    ) -> Option<i32> {
        if !pv_node && !in_check && beta.abs() < MATE_BOUND {
            // reverse futility: far enough above beta that a quiet move will not fall below it
            if depth <= RFP_DEPTH && static_eval - RFP_MARGIN * depth >= beta {
                return Some(static_eval);
            }
            // razoring: far below alpha near the leaves: only captures can help
            if depth <= RAZOR_DEPTH && static_eval + RAZOR_MARGIN * depth < alpha {
                let q = self.quiesce(alpha, beta, ply, false);
                if self.stopped {
                    return Some(0);
                }
                if q < alpha {
                    return Some(q);
                }
            }
        }
        let us = self.pos.turn();
        let non_pawn = self.pos.pieces(us, Role::Rook).count() * 6
            + (self.pos.pieces(us, Role::Horse).count()
                + self.pos.pieces(us, Role::Cannon).count())
                * 3;
        if null_ok
            && !pv_node
            && !in_check
            && depth >= 3
            && non_pawn as i32 >= NULL_MIN_PHASE
            && beta.abs() < MATE_BOUND
        {
            let stand = static_eval;
            if stand >= beta {
                // deeper when far above beta
                let r = NULL_R + depth / 3 + ((stand - beta) / NULL_EVAL_STEP).min(2);
                let key_before = self.pos.key();
                self.pos.play_null();
                self.keys.push(key_before);
                self.checks.push(false);
                self.moves.push(None);
                let s = -self.search(depth - 1 - r, -beta, -beta + 1, ply + 1, false);
                self.keys.pop();
                self.checks.pop();
                self.moves.pop();
                self.pos.play_null();
                if self.stopped {
                    return Some(0);
                }
                if s >= beta {
                    return Some(if s > MATE_BOUND { beta } else { s });
                }
            }
        }
        None
    }

    /// ProbCut: at depth ≥ [`PROBCUT_DEPTH`] off the principal variation, a capture whose
    /// static exchange can lift the static evaluation to [`PROBCUT_MARGIN`] above beta and
    /// that holds there, first in quiescence and then in a search four plies shallower,
    /// settles the node (the score to return, or None). Skipped when the table already says
    /// from nearly that depth that the node stays below that bound.
    pub(super) fn probcut(
        &mut self,
        depth: i32,
        beta: i32,
        ply: i32,
        static_eval: i32,
        hit: Option<Hit>,
    ) -> Option<i32> {
        if depth < PROBCUT_DEPTH || beta.abs() >= MATE_BOUND {
            return None;
        }
        let pb = beta + PROBCUT_MARGIN;
        if hit.is_some_and(|h| h.depth >= depth - 3 && h.score < pb) {
            return None;
        }
        let moves = self.pos.capture_moves();
        let picker = self.order_captures(&moves);
        for (_, m) in picker {
            if see(&self.pos, m) < pb - static_eval {
                continue;
            }
            let ev = self.ev;
            let u = self.make(m);
            let mut s = -self.quiesce(-pb, -pb + 1, ply + 1, false);
            if s >= pb && !self.stopped {
                s = -self.search(depth - 4, -pb, -pb + 1, ply + 1, true);
            }
            self.unmake(m, u, ev);
            if self.stopped {
                return Some(0);
            }
            if s >= pb {
                return Some(s);
            }
        }
        None
    }
}
