//! One node of the principal variation search: table cut-offs, node pruning, then the
//! moves (hash move first) with futility and late-move pruning, late move reductions and
//! the history, killer and counter-move updates of a cut-off.

use super::ordering::{Picker, HISTORY_MAX};
use super::pruning::lmr;
use super::{Searcher, MAX_PLY};
use crate::board::Move;
use crate::engine::params::{
    FUTILITY_BASE, FUTILITY_DEPTH, FUTILITY_MARGIN, LMP_BASE, LMP_DEPTH, LMR_MOVES,
};
use crate::engine::score::{INF, MATE, MATE_BOUND};
use crate::engine::tt::Bound;

impl Searcher<'_> {
    pub(super) fn search(
        &mut self,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: i32,
        null_ok: bool,
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        let root = ply == 0;
        self.pv[ply as usize].clear();
        if !root {
            if let Some(r) = self.repetition() {
                return r;
            }
            // mate distance pruning
            alpha = alpha.max(-MATE + ply);
            beta = beta.min(MATE - ply - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let in_check = if root || self.keys.is_empty() {
            self.pos.in_check()
        } else {
            self.checks.last().copied().unwrap_or(false)
        };
        if in_check {
            depth += 1;
        }
        if depth <= 0 || ply as usize >= MAX_PLY - 2 {
            return self.quiesce(alpha, beta, ply, true);
        }
        self.nodes += 1;
        if self.should_stop() {
            return 0;
        }
        if !root {
            if let Some(v) = self.probe_tb(ply) {
                return v;
            }
        }
        let key = self.pos.key();
        let hit = self.tt.probe(key, ply);
        let tt_move = hit.and_then(|h| h.mv);
        if let Some(h) = hit {
            if !pv_node && h.depth >= depth {
                match h.bound {
                    Bound::Exact => return h.score,
                    Bound::Lower if h.score >= beta => return h.score,
                    Bound::Upper if h.score <= alpha => return h.score,
                    _ => {}
                }
            }
        }
        // the static evaluation, for the pruning below (not in check: no stand-pat then)
        let mut static_eval = if in_check { -INF } else { self.eval() };
        // a table bound on the side of the static evaluation's error refines it (s25)
        if let Some(h) = hit {
            if !in_check && h.score.abs() < MATE_BOUND {
                let tighter = match h.bound {
                    Bound::Exact => true,
                    Bound::Lower => h.score > static_eval,
                    Bound::Upper => h.score < static_eval,
                };
                if tighter {
                    static_eval = h.score;
                }
            }
        }
        if let Some(v) = self.prune_node(
            depth,
            alpha,
            beta,
            ply,
            static_eval,
            pv_node,
            in_check,
            null_ok,
        ) {
            return v;
        }
        if !pv_node && !in_check {
            if let Some(v) = self.probcut(depth, beta, ply, static_eval, hit) {
                return v;
            }
        }
        let mut best = -INF;
        let mut best_move = None;
        let alpha0 = alpha;
        let mut searched = 0usize;
        let mut quiets = 0usize;
        // the quiet moves searched here, to lower their history when another move cuts off
        let mut tried: arrayvec::ArrayVec<Move, 128> = arrayvec::ArrayVec::new();
        // futility and late-move pruning of quiet moves near the leaves
        let prune_ok = !pv_node && !in_check && !root && alpha.abs() < MATE_BOUND;
        let lmp_limit = LMP_BASE + (depth * depth) as usize;
        // a node the table saw exact (a principal-variation node before) is reduced like one
        let pv_like = pv_node || hit.is_some_and(|h| h.bound == Bound::Exact);
        // the hash move first, before generating the others
        let first =
            tt_move.filter(|&m| self.pos.is_legal(m) && !(root && self.banned.contains(&m)));
        let mut generated = false;
        let mut picker: Option<Picker> = None;
        loop {
            let hash_first = if searched == 0 { first } else { None };
            let m = if let Some(m) = hash_first {
                m
            } else {
                if !generated {
                    generated = true;
                    let mut moves = self.pos.legal_moves_told(in_check);
                    if root && !self.banned.is_empty() {
                        moves.retain(|m| !self.banned.contains(m));
                    }
                    if moves.is_empty() {
                        // no legal move loses, whether in check or not
                        return -MATE + ply;
                    }
                    if root {
                        self.root_moves = moves.len();
                    }
                    picker = Some(self.order(&mut moves, None, ply as usize));
                }
                match picker.as_mut().and_then(|p| p.next()) {
                    Some((_, m)) if Some(m) == first => continue,
                    Some((_, m)) => m,
                    None => break,
                }
            };
            let capture = self.pos.piece_at(m.to()).is_some();
            let ev = self.ev;
            let u = self.make(m);
            let gives_check = *self.checks.last().unwrap_or(&false);
            let i = searched;
            let hist = if capture {
                0
            } else {
                self.history[m.from().index() * 90 + m.to().index()]
            };
            // the late move reduction of a late quiet move that gives no check (not in
            // check): a move whose quiet tries cut off often is reduced less, and more when
            // they rarely do
            let reduction = if i >= LMR_MOVES && depth >= 3 && !capture && !in_check && !gives_check
            {
                (lmr(depth, i) + if pv_like { 0 } else { 1 } - hist / (HISTORY_MAX / 2)).max(0)
            } else {
                0
            };
            if i > 0 && !capture && !gives_check && prune_ok {
                let late = depth <= LMP_DEPTH && quiets >= lmp_limit;
                // futility by the depth the move's reduction would leave (s45; was the
                // node's depth, so a late move deeper than FUTILITY_DEPTH can be futile now)
                let d = (depth - reduction).max(1);
                let futile = d <= FUTILITY_DEPTH
                    && static_eval + FUTILITY_BASE + FUTILITY_MARGIN * d <= alpha;
                if futile || late {
                    self.unmake(m, u, ev);
                    continue;
                }
            }
            searched += 1;
            if !capture {
                quiets += 1;
            }
            let mut s;
            if i == 0 {
                s = -self.search(depth - 1, -beta, -alpha, ply + 1, true);
            } else {
                let r = reduction.min(depth - 2).max(0);
                s = -self.search(depth - 1 - r, -alpha - 1, -alpha, ply + 1, true);
                if s > alpha && (r > 0 || pv_node) {
                    s = -self.search(depth - 1, -beta, -alpha, ply + 1, true);
                }
            }
            self.unmake(m, u, ev);
            if self.stopped {
                return if best > -INF { best } else { 0 };
            }
            if s > best {
                best = s;
                best_move = Some(m);
                if s > alpha {
                    alpha = s;
                    let (head, tail) = self.pv.split_at_mut(ply as usize + 1);
                    head[ply as usize].clear();
                    head[ply as usize].push(m);
                    head[ply as usize].extend_from_slice(&tail[0]);
                    if s >= beta {
                        if !capture {
                            self.reward_cutoff(m, depth, ply as usize, &tried);
                        }
                        break;
                    }
                }
            }
            if !capture {
                // the list holds every move of the position at most once
                let _ = tried.try_push(m);
            }
        }
        if root && !generated {
            self.root_moves = 2;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(key, ply, best_move, best, depth, bound);
        best
    }
}
