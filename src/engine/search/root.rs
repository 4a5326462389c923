//! Iterative deepening at the root, with aspiration windows that widen on a fail (a fail low
//! also brings the upper bound down to the middle of the window).

use super::{Info, Searcher, MAX_PLY};
use crate::board::Move;
use crate::engine::params::{ASPIRATION, TIME_DROP_PERCENT, TIME_SCORE_DROP, TIME_STABILITY};
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
        // iterations in a row that ended on the same best move, for the time limit below
        let mut stable = 0usize;
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
                    // a fail low also brings the upper bound down to the middle of the
                    // window (s51): the wider search that follows is cheaper, and it returns
                    // sooner when the score only fell a little
                    hi = (lo + hi) / 2;
                    lo = (lo - delta).max(-INF);
                } else if s >= hi {
                    hi = (hi + delta).min(INF);
                } else {
                    break s;
                }
                delta *= 2;
            };
            if self.stopped && best.is_some() {
                // a root move of the unfinished iteration is in the principal variation only
                // when its search ended and raised alpha: better at this depth than the last
                // iteration's choice
                if let Some(&m) = self.pv[0].first() {
                    if best != Some(m) {
                        // the line that made the change is reported, so that the last line
                        // shown always starts with the move played (its score is a lower bound:
                        // the other root moves of this depth were not all searched)
                        let info = self.info(depth, s);
                        report(&info);
                        last = Some(info);
                    }
                    best = Some(m);
                }
                break;
            }
            if let Some(&m) = self.pv[0].first() {
                stable = if best == Some(m) { stable + 1 } else { 0 };
                best = Some(m);
            }
            let dropped = depth > 1 && s + TIME_SCORE_DROP < score;
            score = s;
            let info = self.info(depth, s);
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
            // the soft limit, longer while the best move changes or the score falls, shorter
            // once the best move has held for a few iterations
            let mut percent = TIME_STABILITY[stable.min(TIME_STABILITY.len() - 1)];
            if dropped {
                percent = percent * TIME_DROP_PERCENT / 100;
            }
            if self
                .limits
                .soft
                .is_some_and(|t| self.start.elapsed() * 100 >= t * percent)
            {
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

    /// The report of an iteration at `depth` that scored `s`, with the root's line.
    fn info(&self, depth: i32, s: i32) -> Info {
        Info {
            depth,
            seldepth: self.seldepth,
            score: Score(s),
            nodes: self.nodes,
            time_ms: self.start.elapsed().as_millis() as u64,
            pv: self.pv[0].clone(),
            hashfull: self.tt.hashfull(),
        }
    }
}
