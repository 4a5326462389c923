//! Iterative deepening at the root, with aspiration windows that widen on a fail.

use super::{Info, Searcher, MAX_PLY};
use crate::board::Move;
use crate::engine::params::ASPIRATION;
use crate::engine::score::{Score, INF, MATE, MATE_BOUND};

impl Searcher<'_> {
    /// Iterative deepening; `report` is called after every completed iteration. Returns the
    /// best move (None when there is no legal move) and the last report.
    pub fn run(&mut self, mut report: impl FnMut(&Info)) -> (Option<Move>, Option<Info>) {
        if !self.shared {
            self.tt.new_search();
        }
        let max_depth = self
            .limits
            .depth
            .unwrap_or(MAX_PLY as i32 - 10)
            .min(MAX_PLY as i32 - 10);
        let mut best: Option<Move> = None;
        let mut last: Option<Info> = None;
        let mut score = 0;
        let offset = self.depth_offset;
        for depth in (1..=max_depth).map(|d| (d + offset).min(max_depth)) {
            self.seldepth = 0;
            let (mut lo, mut hi) = if depth >= 4 {
                (score - ASPIRATION, score + ASPIRATION)
            } else {
                (-INF, INF)
            };
            let mut delta = ASPIRATION;
            let s = loop {
                let s = self.search(depth, lo, hi, 0, false);
                if self.stopped {
                    break s;
                }
                if s <= lo {
                    lo = (lo - delta).max(-INF);
                } else if s >= hi {
                    hi = (hi + delta).min(INF);
                } else {
                    break s;
                }
                delta *= 2;
            };
            if self.stopped && best.is_some() {
                break;
            }
            if let Some(&m) = self.pv[0].first() {
                best = Some(m);
            }
            score = s;
            let info = Info {
                depth,
                seldepth: self.seldepth,
                score: Score(s),
                nodes: self.nodes,
                time_ms: self.start.elapsed().as_millis() as u64,
                pv: self.pv[0].clone(),
                hashfull: self.tt.hashfull(),
            };
            report(&info);
            last = Some(info);
            if self.stopped {
                break;
            }
            if self.root_moves == 1 && depth >= 4 {
                break;
            }
            if s.abs() > MATE_BOUND && depth > (MATE - s.abs()) + 2 {
                break;
            }
            if self.limits.soft.is_some_and(|t| self.start.elapsed() >= t) {
                break;
            }
        }
        if best.is_none() {
            let mut moves = self.pos.legal_moves();
            moves.retain(|m| !self.banned.contains(m));
            best = moves.first().copied();
        }
        (best, last)
    }
}
