//! The base flags (see the parent module's "marks"): set once on the open positions after
//! round 0, from each open position's quiet replies to a check and its escapes from a chase.

use super::{Node, CHASE, CHECK, IN_CHASE, IN_CHECK};
use crate::board::rules::for_each_escape;
use crate::board::Color;
use crate::tablebase::generate::{Gen, CHUNK};
use rayon::prelude::*;

impl Gen<'_> {
    /// Set the base flags on the open positions (once, after round 0). Each index is
    /// decoded once for both sides to move.
    pub(super) fn mark(&self) {
        for side in Color::ALL {
            self.each_open(side, |_, k| {
                self.aux[side.index()].set_flag_at(k, 0);
                false
            });
        }
        let n = self.size();
        (0..self.chunks()).into_par_iter().for_each(|c| {
            // one node per chunk, each index decoded into it in place
            let mut scratch = None;
            for w in c * CHUNK / 8..((c + 1) * CHUNK).min(n).div_ceil(8) {
                let mut open = self.codes(0).open_word(w) | self.codes(1).open_word(w);
                while open != 0 {
                    let i = w * 8 + (open.trailing_zeros() / 8) as usize;
                    open &= open - 1;
                    if i < n {
                        self.mark_index(i, &mut scratch);
                    }
                }
            }
        });
    }

    /// The base flags that the open positions of index `i` set (on themselves and on their
    /// open children), decoded in `scratch` ([`Gen::load_in`]) once for both sides to move.
    fn mark_index(&self, i: usize, scratch: &mut Option<Node>) {
        let mut here = false;
        for side in Color::ALL {
            if !self.is_open(side, i) {
                continue;
            }
            let Some(x) = self.side_in(scratch, &mut here, i, side) else {
                continue;
            };
            // a move counts when it reaches an open position: that test (a rank and a bit)
            // comes before the escape's, which plays the move and weighs the attacks again;
            // the child it found is flagged as it is
            let opens = |m| self.quiet_child(x, m).filter(|&j| self.is_open(!side, j));
            let mut found = false;
            let mut flag = |j: usize, child_flag: u8| {
                self.aux[(!side).index()].or(j, child_flag);
                found = true;
            };
            let in_check = x.pos.in_check();
            let own_flag = if in_check {
                for &m in &x.pos.quiet_moves_told(true) {
                    if let Some(j) = opens(m) {
                        flag(j, CHECK);
                    }
                }
                IN_CHECK
            } else {
                for_each_escape(&x.pos, opens, |_, j| flag(j, CHASE));
                IN_CHASE
            };
            if found {
                self.aux[side.index()].or(i, own_flag);
            }
        }
    }
}
