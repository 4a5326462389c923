//! The incremental start of a round (see the parent module, "Incremental rounds"): the
//! previous round's clean-up fixpoint, plus the flags that may come back because positions
//! were decided since, and the worklist of positions to examine.
//!
//! # Incremental rounds
//!
//! Step 2 with [`Pass::Two`](super::Pass::Two) alone computes `G`, the greatest fixpoint below the reset `R` of
//! a monotone rule system (fewer flags never keep a flag; decided positions are constants).
//! When round `k` ended there (no position carried both sides of a pair, so [`Pass::Three`](super::Pass::Three)
//! and the mutual drop did nothing) and few positions were decided in it, round `k + 1`
//! starts from `G_k` instead of `R` ([`Gen::reopen`]) and settles over a worklist.
//!
//! The rules read, for a position `x`, its own flags, its children's and (through open
//! children) its grandchildren's. Which flags help keep which:
//! `CL` <- own `CW`, `ZL`, `ZW`, children's `CW`, `CL`; `CW` <- children's `CL`, `CW`;
//! `ZL` <- own `CL`, `CW`, `ZW`, children's `ZW`, `ZL`, grandchildren's `ZL`;
//! `ZW` <- own `CW`, `ZL`, children's `ZL`, `ZW`, grandchildren's `ZW`, `ZL`. A decided
//! child is a win for its side (a lost one would have decided `x`), which can only help
//! `CL`, `ZL` and `ZW`; a decided grandchild can only help `ZW`.
//!
//! *Candidates.* `C` is the closure of: the flags of `R` \ `G_k` that a position decided in
//! round `k` helps (at its open predecessors, and at the open predecessors of those that may
//! chase), and, for each candidate, the flags of `R` \ `G_k` it helps by the table above; a
//! flag that its position cannot keep in any state of the round (`blocked`: e.g. `CL` of a
//! side that can never be checked, with a move into an open position whose side can never
//! be checked) is left out. The round starts from `G_k` plus `C` on the open positions.
//!
//! *Claim: `G_{k+1}` is contained in `G_k` plus `C`.* Let `N` be the flags of `G_{k+1}`
//! outside `G_k` and `C`, and `W = G_k + N`. A flag of `N` is not blocked and not helped by
//! a decided position (else it would be in `C`), and none of the flags its rule reads in
//! `G_{k+1}` lies in `C` (else it would be in `C` too): they are all in `W`, so its rule holds
//! in `W` in round `k`'s game. Flags of `G_k` keep holding in `W`, which is larger. So `W`
//! is a post-fixpoint of round `k`'s rules below `R`, hence inside `G_k`: `N` is empty.
//!
//! *The worklist.* A flag of `G_k` whose rule still held in round `k` fails only if it is
//! read by a decided position (predecessors and, through open positions that may chase,
//! second predecessors of those decided: marked) or reads a candidate (marked as candidates
//! are added). Removal then only drops flags whose rule fails in a state containing
//! `G_{k+1}`, which by monotonicity are not in `G_{k+1}`; it ends when every marked flag
//! holds, and every change marks what reads it ([`Gen::changed`]): the result is `G_{k+1}`,
//! the same as the full clean-up from `R`. Otherwise (many decided positions, many
//! candidates, a resumed run, or a round that had mutual flags) the round resets.
//!

use super::{Dirty, BASE, CHASE, CHECK, CL, CW, IN_CHASE, IN_CHECK, WORK, ZL, ZW};
use crate::board::rules::escape_targets;
use crate::board::Color;
use crate::tablebase::generate::{code, params, Gen, CHUNK};
use arrayvec::ArrayVec;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The working flags of the reset (step 1 of a round) of a position with flags `f` (only
/// its base flags are read) and capture-draw `cd`.
pub(super) fn reset_work(f: u8, cd: bool) -> u8 {
    let mut w = 0;
    if f & IN_CHECK != 0 {
        w |= CW;
    }
    if f & IN_CHASE != 0 {
        w |= ZW;
    }
    if f & CHECK != 0 {
        w |= CL;
    }
    if f & CHASE != 0 {
        w |= ZL;
    }
    if cd {
        if w & CL != 0 && w & CW == 0 {
            w &= !CL;
        }
        if w & ZL != 0 && w & ZW == 0 {
            w &= !ZL;
        }
    }
    w
}

/// The flags of a position that its own flags `h` make easier to keep (see the table in
/// the parent module), closed over, within `missing`, starting from `h`.
fn own_closure(h: u8, missing: u8) -> u8 {
    let mut h = h & missing;
    loop {
        let mut e = 0;
        if h & CW != 0 {
            e |= CL | ZL | ZW;
        }
        if h & CL != 0 {
            e |= ZL;
        }
        if h & ZL != 0 {
            e |= CL | ZW;
        }
        if h & ZW != 0 {
            e |= CL | ZL;
        }
        let next = h | (e & missing);
        if next == h {
            return h;
        }
        h = next;
    }
}

/// The flags of a position that a child's gained flags `g` make easier to keep.
fn from_child(g: u8) -> u8 {
    let mut e = 0;
    if g & (CL | CW) != 0 {
        e |= CL | CW;
    }
    if g & (ZL | ZW) != 0 {
        e |= ZL | ZW;
    }
    e
}

/// The flags of a position that a grandchild's gained flags `g` make easier to keep.
fn from_grandchild(g: u8) -> u8 {
    if g & (ZL | ZW) != 0 {
        ZL | ZW
    } else {
        0
    }
}

/// A worklist entry: position `i` with `side` to move gained the flags `g`.
fn pack(side: Color, i: usize, g: u8) -> u64 {
    (i as u64) | ((side.index() as u64) << 40) | ((g as u64) << 48)
}

fn unpack(e: u64) -> (Color, usize, u8) {
    let side = if (e >> 40) & 1 == 0 {
        Color::Red
    } else {
        Color::Black
    };
    ((side), (e & ((1 << 40) - 1)) as usize, (e >> 48) as u8)
}

impl Gen<'_> {
    /// The flags of the reset that position `i` (`side` to move) lacks now.
    fn missing(&self, side: Color, i: usize) -> u8 {
        let f = self.aux[side.index()].get(i);
        reset_work(f, self.capture_draw(side, i)) & !f & WORK
    }

    /// Add the candidate flags `h` (a child or grandchild gained flags, or was decided) to
    /// the open position `i` of `side`, with what they make easier in turn; the flags newly
    /// added.
    fn add_candidates(&self, side: Color, i: usize, h: u8) -> u8 {
        let missing = self.missing(side, i);
        let mut c = own_closure(h, missing);
        if c == 0 {
            return 0;
        }
        c &= !self.blocked(side, i);
        if c == 0 {
            return 0;
        }
        match self.aux[side.index()].update(i, |b| (b | c != b).then_some(b | c)) {
            Ok(old) => c & !old,
            Err(_) => 0,
        }
    }

    /// The flags of the reset that the open position `i` (`side` to move) cannot keep in
    /// any state of this round, whatever the other flags: `CL` when its side can never be
    /// checked (no `CW`) and a move reaches an open position whose side can never be
    /// checked; `ZL` likewise for chases (unless both `CL` and `CW` may be there, which
    /// leaves `ZL` alone); `ZW` when no `CW` is possible and no escape reaches an open
    /// position that may carry `ZL`.
    fn blocked(&self, side: Color, i: usize) -> u8 {
        let f = self.aux[side.index()].get(i);
        let r = reset_work(f, self.capture_draw(side, i));
        let Some(x) = self.node(i, side) else {
            return 0;
        };
        let (mut no_cw, mut no_zw, mut zl_escape) = (false, false, false);
        for m in x.pos.quiet_moves() {
            let Some(j) = self.quiet_child(&x, m) else {
                continue;
            };
            if !self.is_open(!side, j) {
                continue;
            }
            let cf = self.aux[(!side).index()].get(j);
            no_cw |= cf & IN_CHECK == 0;
            no_zw |= cf & IN_CHASE == 0;
            if !zl_escape && cf & CHASE != 0 && !escape_targets(&x.pos, m).is_empty() {
                zl_escape = true;
            }
        }
        let mut b = 0;
        if r & CW == 0 && no_cw {
            b |= CL;
        }
        if r & ZW == 0 && (r & (CL | CW) != CL | CW) && no_zw {
            b |= ZL;
        }
        if r & CW == 0 && !zl_escape {
            b |= ZW;
        }
        b
    }

    /// Whether the reset can give the position chase flags (then its predecessors read
    /// its children's chase flags).
    fn may_chase(&self, side: Color, i: usize) -> bool {
        self.aux[side.index()].get(i) & (CHASE | IN_CHASE) != 0
    }

    /// The predecessors of position `i` (`side` to move) that are open (the other side to
    /// move), into `out`.
    fn open_preds(&self, i: usize, side: Color, out: &mut ArrayVec<u64, 512>) {
        out.clear();
        let mut all: ArrayVec<u64, 512> = ArrayVec::new();
        if self.predecessors(i as u64, side, &mut all).is_none() {
            return;
        }
        for &q in &all {
            if self.is_open(!side, q as usize) {
                out.push(q);
            }
        }
    }

    /// Prepare round `order + 1` from the fixpoint of round `order` (left in the flags), in
    /// which `decided` positions were decided (its rulings, plain losses and wins, counted
    /// as they were made): add the candidate flags, mark what to examine in `dirty`. False
    /// when the positions decided in round `order` or the candidates are too many (then the
    /// round starts from the reset; `dirty` and the flags may hold anything).
    pub(super) fn reopen(&self, order: u8, decided: u64, dirty: &Dirty) -> bool {
        let n = self.size();
        let cap = (n as f64 * params::REOPEN_BELOW) as usize;
        let new_win = code::make(order, code::WIN);
        let phases = super::super::phases();
        if decided as usize > cap {
            if phases {
                eprintln!("  reopen: {decided} decided, full reset");
            }
            return false;
        }
        let total = AtomicU64::new(0);
        // seeds: what reads a decided position directly or through an open child; an open
        // predecessor of a decided position has a move to it: the position is a win for its
        // side to move (a loss would have made the predecessor a win)
        let mut front: Vec<u64> = (0..self.chunks())
            .into_par_iter()
            .flat_map_iter(|c| {
                let mut out = Vec::new();
                let (mut preds, mut pp) = (ArrayVec::new(), ArrayVec::new());
                let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
                for side in Color::ALL {
                    let mut wins = Vec::new();
                    self.codes(side.index())
                        .scan(start, end, new_win, |d| wins.push(d));
                    for d in wins {
                        self.open_preds(d, side, &mut preds);
                        for &p in &preds {
                            let p = p as usize;
                            dirty.mark(p);
                            let g = self.add_candidates(!side, p, CL | ZL | ZW);
                            if g != 0 {
                                out.push(pack(!side, p, g));
                            }
                            if !self.may_chase(!side, p) {
                                continue;
                            }
                            self.open_preds(p, !side, &mut pp);
                            for &r in &pp {
                                let r = r as usize;
                                dirty.mark(r);
                                let g = self.add_candidates(side, r, ZW);
                                if g != 0 {
                                    out.push(pack(side, r, g));
                                }
                            }
                        }
                    }
                }
                out
            })
            .collect();
        // what the candidates make easier to keep, to closure
        let mut kinds = [0usize; 5];
        kinds[4] = front.len();
        for &e in &front {
            let g = unpack(e).2;
            for (k, f) in [CW, CL, ZW, ZL].into_iter().enumerate() {
                if g & f != 0 {
                    kinds[k] += 1;
                }
            }
        }
        while !front.is_empty() {
            let t = total.fetch_add(front.len() as u64, Relaxed) as usize + front.len();
            if t > cap {
                if phases {
                    eprintln!(
                        "  reopen: more than {t} candidates ({:?} seeds), full reset",
                        kinds
                    );
                }
                return false;
            }
            front = front
                .par_iter()
                .flat_map_iter(|&e| {
                    let (side, x, g) = unpack(e);
                    let mut out = Vec::new();
                    let (mut preds, mut pp) = (ArrayVec::new(), ArrayVec::new());
                    self.open_preds(x, side, &mut preds);
                    let (near, far) = (from_child(g), from_grandchild(g));
                    for &p in &preds {
                        let p = p as usize;
                        let h = self.add_candidates(!side, p, near);
                        if h != 0 {
                            dirty.mark(p);
                            out.push(pack(!side, p, h));
                        }
                        if far == 0 || !self.may_chase(!side, p) {
                            continue;
                        }
                        self.open_preds(p, !side, &mut pp);
                        for &r in &pp {
                            let r = r as usize;
                            let h = self.add_candidates(side, r, far);
                            if h != 0 {
                                dirty.mark(r);
                                out.push(pack(side, r, h));
                            }
                        }
                    }
                    out
                })
                .collect();
        }
        if phases {
            eprintln!(
                "  reopen: {} candidates, CPU {:.2} s",
                total.into_inner(),
                super::super::cpu_seconds()
            );
        }
        let _ = BASE;
        true
    }
}
