//! Step 2 of a round (see the parent module): the clean-up fixpoint, by full sweeps over
//! the open positions and then by worklist sweeps over what the last changes affect; the
//! finer passes for positions that carry both sides of a flag pair.
//!
//! A full sweep reads the open bits and the code and flag bytes of 64 positions at a time
//! ([`Gen::busy_bits`], the bytes in slot order with a running slot, no rank per word) and
//! visits only the indices where some side to move is open with a flag of the sweep's kind.
//! This selects the same visits as testing each index when it is reached: a sweep never
//! opens a position and never adds a flag, a visit changes only its own index's flags, and
//! the words of a chunk (a multiple of 64 indices) belong to one thread, so the bytes of an
//! index are the same when its word is read and when it is visited.
//!
//! The first win sweep after a full reset (when the first lose sweep was not tracked, so
//! the worklist is empty) decodes only the parents of the positions left with a lose flag
//! ([`Gen::mark_lose_parents`], marked in the worklist's win bits from their
//! predecessors): a win flag holds only with a move into an open position that carries
//! the matching lose flag (`CW` a child's `CL`; `ZW` an escape into a child's `ZL`), and a
//! win sweep changes no lose flag, so every other position loses its win flags without a
//! visit. The sweep still examines every position with a win flag, so the argument of the
//! tracked sweeps below holds as it is. After a reset the lose flags left are few (KRNKR
//! round 1: 0.4 M of 4.7 M) and the win flags many (3.7 M, 3.4 M of them removed).
//!
//! A visit decodes its placement in place into one node per thread ([`Gen::load_in`]:
//! the piece list, the position and the ranking context rewritten, no node built and moved
//! per visit), once for both sides to move. Where the rule of a flag can be settled by one
//! move (a lose flag dropped, a win flag kept), the moves are generated one at a time and
//! the generation stops there ([`crate::board::Position::quiet_moves_until`], in the
//! order of the list: the same verdict).

use super::{Node, CL, CW, ZL, ZW};
use crate::board::Color;
use crate::tablebase::generate::bytes::Bits;
use crate::tablebase::generate::{params, Gen, CHUNK};
use arrayvec::ArrayVec;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

const _: () = assert!(
    CHUNK.is_multiple_of(64),
    "a full sweep's chunks are whole words of 64 indices"
);

/// The strength of a clean-up pass: how much of the chase analysis it applies (see the
/// module documentation). A weaker first strength, in which an escape into a chaser's
/// position keeps `ZW` without looking further, removes a subset of what [`Pass::Two`]
/// removes in the same state, so it is not run (see [`Gen::clean_up`]).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(super) enum Pass {
    /// The chaser's replies are examined; a chasing side in check is excused when the
    /// opponent checks with every reply.
    Two,
    /// Mutual chases are also undone when the other side has a chasing escape of its own.
    Three,
}

/// Indices to examine in the next clean-up sweep of each kind.
pub(super) struct Dirty {
    pub(super) lose: Bits,
    pub(super) win: Bits,
}

impl Dirty {
    pub(super) fn mark(&self, i: usize) {
        self.lose.set(i);
        self.win.set(i);
    }

    /// Unmark everything.
    pub(super) fn clear(&self) {
        for b in [&self.lose, &self.win] {
            (0..b.words()).into_par_iter().for_each(|w| {
                b.take(w);
            });
        }
    }
}

/// A recorded change: position `i` with `side` to move, its flags changed by `delta`.
fn pack(i: usize, side: Color, delta: u8) -> u64 {
    (i as u64) | ((side.index() as u64) << 40) | ((delta as u64) << 48)
}

fn unpack(e: u64) -> (usize, Color, u8) {
    let side = if (e >> 40) & 1 == 0 {
        Color::Red
    } else {
        Color::Black
    };
    ((e & ((1 << 40) - 1)) as usize, side, (e >> 48) as u8)
}

/// The indices a clean-up sweep examines.
#[derive(Copy, Clone)]
enum Scope<'a> {
    /// Every open position; while they are fewer than the bound, the changes are recorded
    /// (see [`pack`]) so that what they affect can be marked afterwards.
    All(&'a Mutex<Vec<u64>>, u64),
    /// A win sweep over every open position as [`Scope::All`], where only the indices
    /// marked in the bits (those with a child that carries a lose flag: see
    /// [`Gen::mark_lose_parents`]) are decoded: the others lose their win flags unvisited.
    Parents(&'a Mutex<Vec<u64>>, u64, &'a Bits),
    /// The marked positions (taken from the worklist; changes mark more).
    Marked(&'a Dirty),
}

impl Gen<'_> {
    /// One clean-up sweep over both sides, over every open position or the indices marked
    /// in the worklist (then a position whose flags change marks itself, its predecessors
    /// and, when a flag its grandparents read changed, theirs, for both kinds of sweep):
    /// `lose` examines the `CL`/`ZL` flags, otherwise the `CW`/`ZW` flags. Returns how many
    /// positions changed.
    fn sweep(&self, lose: bool, pass: Pass, scope: Scope) -> u64 {
        let n = self.size();
        let changes = AtomicU64::new(0);
        let want = if lose { CL | ZL } else { CW | ZW };
        let visit = |i: usize, scratch: &mut Option<Node>| {
            // without a child that carries a lose flag no win flag holds (see
            // [`Gen::mark_lose_parents`]): such an index is not decoded
            let unread = matches!(scope, Scope::Parents(_, _, p) if !p.get(i));
            // the placement is decoded once for both sides to move, in place
            let mut here = false;
            for side in Color::ALL {
                let Some((k, v)) = self.open_slot(side, i) else {
                    continue;
                };
                let aux = &self.aux[side.index()];
                let f = aux.flag_at(k);
                if f & want == 0 {
                    continue;
                }
                let g = if unread {
                    f & !want
                } else {
                    let Some(x) = self.side_in(scratch, &mut here, i, side) else {
                        continue;
                    };
                    self.examine(x, f, self.capture_draw_in(side, i, v), lose, pass)
                };
                if g != f {
                    aux.set_flag_at(k, g);
                    let before = changes.fetch_add(1, Relaxed);
                    match scope {
                        Scope::Marked(d) => self.changed(i, side, f ^ g, d),
                        Scope::All(log, bound) | Scope::Parents(log, bound, _) => {
                            if before < bound {
                                log.lock().unwrap_or_else(|e| e.into_inner()).push(pack(
                                    i,
                                    side,
                                    f ^ g,
                                ));
                            }
                        }
                    }
                }
            }
        };
        match scope {
            Scope::All(..) | Scope::Parents(..) => self.each_busy(want, || None, visit),
            Scope::Marked(d) => {
                let todo = if lose { &d.lose } else { &d.win };
                (0..todo.words()).into_par_iter().for_each_init(
                    || None,
                    |scratch, w| {
                        let mut bits = todo.take(w);
                        while bits != 0 {
                            let i = w * 64 + bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            if i < n {
                                visit(i, scratch);
                            }
                        }
                    },
                );
            }
        }
        changes.into_inner()
    }

    /// The clean-up of one position `x` with flags `f` and capture-draw `cd`: its lose flags
    /// (`lose`) or its win flags.
    fn examine(&self, x: &Node, f: u8, cd: bool, lose: bool, pass: Pass) -> u8 {
        if lose {
            self.remove_lose(x, f, cd, pass)
        } else {
            self.remove_win(x, f, cd, pass)
        }
    }

    /// Mark in `parents` the predecessors of every open position with a lose flag: a win
    /// flag holds only at a position with a move into an open position that carries the
    /// matching lose flag (`CW` a child's `CL`; `ZW` an escape into a child's `ZL`), so an
    /// unmarked index keeps no win flag. Cheaper than decoding every position with a win
    /// flag when the lose flags are few (after the first lose sweep of a reset).
    fn mark_lose_parents(&self, parents: &Bits) {
        self.each_busy(CL | ZL, ArrayVec::<u64, 512>::new, |i, preds| {
            for side in Color::ALL {
                let lose = self
                    .open_slot(side, i)
                    .is_some_and(|(k, _)| self.aux[side.index()].flag_at(k) & (CL | ZL) != 0);
                preds.clear();
                if lose && self.predecessors(i as u64, side, preds).is_some() {
                    for &q in preds.iter() {
                        parents.set(q as usize);
                    }
                }
            }
        });
    }

    /// Call `visit` on every index with an open position of either side that carries a flag
    /// of `want`, chunk by chunk in parallel (64 positions per word of
    /// [`Gen::busy_bits`]), with a scratch value made by `init` once per chunk.
    fn each_busy<T>(
        &self,
        want: u8,
        init: impl Fn() -> T + Sync,
        visit: impl Fn(usize, &mut T) + Sync,
    ) {
        let n = self.size();
        (0..self.chunks()).into_par_iter().for_each(|c| {
            let mut scratch = init();
            let start = c * CHUNK;
            let mut next = [self.aux[0].slot(start), self.aux[1].slot(start)];
            for w in start / 64..((c + 1) * CHUNK).min(n).div_ceil(64) {
                let mut bits = self.busy_bits(w, want, &mut next);
                while bits != 0 {
                    let i = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if i < n {
                        visit(i, &mut scratch);
                    }
                }
            }
        });
    }

    /// Mark for re-examination what reads the flags of position `i` (side `x`) that just
    /// changed by `delta`.
    pub(super) fn changed(&self, i: usize, x: Color, delta: u8, dirty: &Dirty) {
        dirty.mark(i);
        let mut preds: ArrayVec<u64, 512> = ArrayVec::new();
        if self.predecessors(i as u64, x, &mut preds).is_none() {
            return;
        }
        // grandparents read a position's ZW, ZL and CW (the chaser's replies, the checked
        // side's other chases), always through an open child with ZL or ZW (the escape
        // into a chaser's position, the chasing move): only through such a predecessor
        // (flags are only removed in a clean-up, so one without them now never gets them)
        let far = delta & (ZW | ZL | CW) != 0;
        for &q in &preds {
            dirty.mark(q as usize);
            if far
                && self.is_open(!x, q as usize)
                && self.aux[(!x).index()].get(q as usize) & (ZL | ZW) != 0
            {
                let mut pp: ArrayVec<u64, 512> = ArrayVec::new();
                if self.predecessors(q, !x, &mut pp).is_some() {
                    for &r in &pp {
                        dirty.mark(r as usize);
                    }
                }
            }
        }
    }

    /// Run a clean-up pass to its fixpoint: full sweeps (alternating kinds) while they change
    /// many flags; a full sweep that changes few ([`params::SETTLE_TRACK_BELOW`] of the
    /// table, at most [`params::SETTLE_LOG_CAP`]) has recorded its changes, and what they affect is marked in `dirty` after it
    /// (a *tracked* sweep). After two tracked full sweeps in a row (one of each kind) the
    /// fixpoint is finished over the marked indices only: each kind's positions were all
    /// examined after the last untracked change (the sweep before those two, of the second
    /// one's kind, or earlier), and every change since is marked, so the marked sweeps
    /// reach the same fixpoint as full ones would, at a fraction of the cost (the last
    /// sweeps of a round change a few thousand flags among millions).
    fn settle_full(&self, pass: Pass, dirty: &Dirty) {
        // (a sweep without changes is tracked in any table)
        let few = ((self.size() as f64 * params::SETTLE_TRACK_BELOW) as u64)
            .clamp(1, params::SETTLE_LOG_CAP);
        let log = Mutex::new(Vec::new());
        let (mut lose, mut tracked) = (true, 0);
        let mut sweeps = 0;
        while tracked < 2 {
            // the first win sweep (the second sweep) after an untracked lose sweep (the
            // worklist still empty): only the parents of the few lose flags left are decoded
            let parents = sweeps == 1 && tracked == 0;
            sweeps += 1;
            let changes = if parents {
                self.mark_lose_parents(&dirty.win);
                let c = self.sweep(lose, pass, Scope::Parents(&log, few, &dirty.win));
                dirty.clear();
                c
            } else {
                self.sweep(lose, pass, Scope::All(&log, few))
            };
            let changed = std::mem::take(&mut *log.lock().unwrap_or_else(|e| e.into_inner()));
            if changes < few {
                tracked += 1;
                changed.par_iter().for_each(|&e| {
                    let (i, side, delta) = unpack(e);
                    self.changed(i, side, delta, dirty);
                });
            } else {
                tracked = 0;
            }
            if super::super::phases() {
                eprintln!(
                    "    full sweep {} {pass:?}: {changes} changes, tracked {}, CPU {:.2} s",
                    if lose { "lose" } else { "win" },
                    changes < few,
                    super::super::cpu_seconds()
                );
            }
            lose = !lose;
        }
        self.settle_marked(pass, dirty);
    }

    /// Run a clean-up pass to its fixpoint over the marked indices (and what their changes
    /// mark): sweeps of both kinds until nothing is marked.
    pub(super) fn settle_marked(&self, pass: Pass, dirty: &Dirty) {
        let mut lose = true;
        while !(dirty.lose.is_empty() && dirty.win.is_empty()) {
            let c = self.sweep(lose, pass, Scope::Marked(dirty));
            if super::super::phases() {
                eprintln!(
                    "    marked sweep {} {pass:?}: {c} changes, CPU {:.2} s",
                    if lose { "lose" } else { "win" },
                    super::super::cpu_seconds()
                );
            }
            lose = !lose;
        }
    }

    /// Mark every index with a position that carries both sides of a flag pair; true when
    /// there is one.
    fn mark_mutual(&self, dirty: &Dirty) -> bool {
        let mut any = false;
        for side in Color::ALL {
            any |= self.each_open(side, |i, k| {
                let f = self.aux[side.index()].flag_at(k);
                let mutual = (f & CW != 0 && f & CL != 0) || (f & ZW != 0 && f & ZL != 0);
                if mutual {
                    dirty.mark(i);
                }
                mutual
            });
        }
        any
    }

    /// Step 2 of a round: the clean-up fixpoint.
    ///
    /// The weak first strength of the public generator is not run: its flag removals are a
    /// subset of those of [`Pass::Two`] in the same state, and [`Pass::Two`] is monotone (fewer flags never keep
    /// a flag), so its greatest fixpoint is the same from either start. [`Pass::Three`] can
    /// only decide differently where a position carries both sides of a flag pair, so it
    /// starts from those; the final [`Pass::Two`] from what changed since and from those.
    pub(super) fn clean_up(&self, dirty: &Dirty, incremental: bool) -> bool {
        if incremental {
            self.settle_marked(Pass::Two, dirty);
        } else {
            self.settle_full(Pass::Two, dirty);
        }
        if !self.mark_mutual(dirty) {
            return true;
        }
        self.settle_marked(Pass::Three, dirty);
        // mutual flags left: neither side is the sole violator
        let mut mutual = false;
        for side in Color::ALL {
            let aux = &self.aux[side.index()];
            mutual |= self.each_open(side, |i, k| {
                let mut f = aux.flag_at(k);
                let before = f;
                if f & CW != 0 && f & CL != 0 {
                    f &= !(CW | CL);
                }
                if f & ZW != 0 && f & ZL != 0 {
                    f &= !(ZW | ZL);
                }
                if f != before {
                    aux.set_flag_at(k, f);
                    self.changed(i, side, f ^ before, dirty);
                    true
                } else {
                    false
                }
            });
        }
        if mutual {
            self.mark_mutual(dirty);
            self.settle_marked(Pass::Two, dirty);
        }
        false
    }
}
