//! The rule rounds of rule set 1 over the open positions of a graph (see the module
//! documentation of `slow_reference` for the rules they apply).

use super::attacks;
use super::graph::Graph;
use super::{Kind, Res};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::sync::OnceLock;
use xqdb::board::{Bitboard, Color, Move};

/// What the rounds need of a position open after round 0.
pub struct Open {
    in_check: bool,
    /// A capture into a drawn position.
    cd: bool,
    /// Its quiet moves.
    moves: Vec<Mi>,
    /// The enemy pieces each move attacks anew (worked out when first asked).
    new: OnceLock<Vec<Bitboard>>,
}

/// A quiet move of an open position.
struct Mi {
    mv: Move,
    child: u32,
    /// It gives check.
    check: bool,
    /// The pieces that escape an attack with it.
    escaped: Bitboard,
}

/// Working flags.
const CW: u8 = 1;
const CL: u8 = 2;
const ZW: u8 = 4;
const ZL: u8 = 8;
/// Base marks.
const CHECKED: u8 = 1;
const CHECKER: u8 = 2;
const CHASED: u8 = 4;
const CHASER: u8 = 8;

/// The state of the rule rounds.
pub struct Rounds<'a> {
    g: &'a Graph,
    pub res: Vec<Option<Res>>,
    pub order: Vec<u8>,
    pub ruling: Vec<Option<Kind>>,
    info: Vec<Option<Open>>,
    base: Vec<u8>,
    flags: Vec<u8>,
}

impl<'a> Rounds<'a> {
    /// The state after round 0 (`res`: its wins and losses).
    pub fn new(g: &'a Graph, res: Vec<Option<Res>>) -> Rounds<'a> {
        let n = g.len();
        Rounds {
            g,
            res,
            order: vec![0; n],
            ruling: vec![None; n],
            info: Vec::new(),
            base: vec![0; n],
            flags: vec![0; n],
        }
    }

    fn is_open(&self, i: usize) -> bool {
        self.res[i].is_none()
    }

    /// Run the rounds; true when some position was ruled.
    pub fn run(&mut self) -> bool {
        self.mark();
        let mut done = [false; 2];
        let mut ruled = false;
        let mut round: u8 = 1;
        loop {
            self.reset();
            self.clean_up();
            for benefit in Color::ALL {
                if done[benefit.index()] {
                    continue;
                }
                let seeds = self.rule(round, !benefit);
                if seeds.is_empty() {
                    done[benefit.index()] = true;
                    continue;
                }
                ruled = true;
                self.propagate(round, seeds);
            }
            if done == [true, true] {
                return ruled;
            }
            round += 1;
            assert!(round < 64, "too many rounds");
        }
    }

    /// The moves of every open position, and the base marks.
    fn mark(&mut self) {
        let g = self.g;
        let res = &self.res;
        self.info = (0..g.len())
            .into_par_iter()
            .map(|i| {
                res[i].is_none().then(|| {
                    let pos = g.position(i);
                    let threats = attacks::attacks(&pos, !pos.turn());
                    let mut p = pos.clone();
                    let moves = pos
                        .quiet_moves()
                        .into_iter()
                        .map(|m| {
                            let undo = p.play(m);
                            let (child, check) = (g.id[&p.key()], p.in_check());
                            p.undo(m, undo);
                            Mi {
                                mv: m,
                                child,
                                check,
                                escaped: attacks::escaped(&pos, &threats, m),
                            }
                        })
                        .collect();
                    Open {
                        in_check: pos.in_check(),
                        cd: g.ext[i].draw,
                        moves,
                        new: OnceLock::new(),
                    }
                })
            })
            .collect();
        for i in 0..g.len() {
            let Some(o) = &self.info[i] else { continue };
            for mi in &o.moves {
                let j = mi.child as usize;
                if !self.is_open(j) {
                    continue;
                }
                if o.in_check {
                    self.base[i] |= CHECKED;
                    self.base[j] |= CHECKER;
                } else if !mi.escaped.is_empty() {
                    self.base[i] |= CHASED;
                    self.base[j] |= CHASER;
                }
            }
        }
    }

    /// Working flags from the base marks.
    fn reset(&mut self) {
        for i in 0..self.g.len() {
            let Some(o) = &self.info[i] else { continue };
            if !self.is_open(i) {
                continue;
            }
            let b = self.base[i];
            let mut f = 0;
            for (mark, flag) in [(CHECKED, CW), (CHECKER, CL), (CHASED, ZW), (CHASER, ZL)] {
                if b & mark != 0 {
                    f |= flag;
                }
            }
            if o.cd {
                if f & CW == 0 {
                    f &= !CL;
                }
                if f & ZW == 0 {
                    f &= !ZL;
                }
            }
            self.flags[i] = f;
        }
    }

    /// The moves of open position `i` into open positions, with those positions' flags.
    fn open_moves(&self, i: usize) -> impl Iterator<Item = (&Mi, u8)> {
        self.info[i]
            .as_ref()
            .expect("open position")
            .moves
            .iter()
            .filter(|mi| self.is_open(mi.child as usize))
            .map(|mi| (mi, self.flags[mi.child as usize]))
    }

    /// Every move of `i` into an open position reaches a `zw` position, and they all attack
    /// some point of `target` anew.
    fn only_chases(&self, i: usize, target: Bitboard) -> bool {
        if self.open_moves(i).any(|(_, f)| f & ZW == 0) {
            return false;
        }
        let o = self.info[i].as_ref().expect("open position");
        let new = o.new.get_or_init(|| {
            let pos = self.g.position(i);
            o.moves
                .iter()
                .map(|mi| attacks::new_attacks(&pos, mi.mv))
                .collect()
        });
        let mut common = target;
        for (mi, n) in o.moves.iter().zip(new) {
            if self.is_open(mi.child as usize) {
                common &= *n;
            }
        }
        !common.is_empty()
    }

    /// The flags of open position `i` after one clean-up step (they only ever drop).
    fn step(&self, i: usize) -> u8 {
        let mut f = self.flags[i];
        let o = self.info[i].as_ref().expect("open position");
        if f & CL != 0 && self.open_moves(i).any(|(_, cf)| cf & CW == 0) {
            f &= !CL;
        }
        if f & CW != 0 && !self.open_moves(i).any(|(_, cf)| cf & CL != 0) {
            f &= !CW;
        }
        if f & ZL != 0 {
            // a chaser in check is excused unless the victim can answer every chase with
            // an escape that is not a check
            let keeps = self.only_chases(i, Bitboard::FULL)
                && (!o.in_check
                    || self.open_moves(i).all(|(mi, _)| {
                        self.open_moves(mi.child as usize)
                            .any(|(m2, zf)| zf & ZL != 0 && !m2.check && !m2.escaped.is_empty())
                    }));
            if !keeps {
                f &= !ZL;
            }
        }
        if f & ZW != 0 {
            let keeps = self.open_moves(i).any(|(mi, cf)| {
                cf & ZL != 0
                    && !mi.escaped.is_empty()
                    && self.only_chases(mi.child as usize, mi.escaped)
            });
            if !keeps {
                f &= !ZW;
            }
        }
        f
    }

    /// Clean-up steps until nothing changes, from the positions in `todo` (a change
    /// re-examines the parents and grandparents of the position: they read its flags).
    fn settle(&mut self, todo: impl IntoIterator<Item = u32>) {
        let n = self.g.len();
        let mut queued = vec![false; n];
        let mut queue: VecDeque<u32> = VecDeque::new();
        for i in todo {
            if !queued[i as usize] {
                queued[i as usize] = true;
                queue.push_back(i);
            }
        }
        while let Some(i) = queue.pop_front() {
            let i = i as usize;
            queued[i] = false;
            if !self.is_open(i) || self.flags[i] == 0 {
                continue;
            }
            let f = self.step(i);
            if f == self.flags[i] {
                continue;
            }
            self.flags[i] = f;
            for &p in self.g.parents(i) {
                for q in std::iter::once(p).chain(self.g.parents(p as usize).iter().copied()) {
                    if !queued[q as usize] {
                        queued[q as usize] = true;
                        queue.push_back(q);
                    }
                }
            }
        }
    }

    /// The clean-up fixpoint; then positions with both flags of a pair (mutual check or
    /// chase) lose both, and the clean-up goes on from them.
    fn clean_up(&mut self) {
        let open: Vec<u32> = (0..self.g.len() as u32)
            .filter(|&i| self.is_open(i as usize) && self.flags[i as usize] != 0)
            .collect();
        self.settle(open);
        let mut changed = Vec::new();
        for (i, f) in self.flags.iter_mut().enumerate() {
            let before = *f;
            if *f & (CW | CL) == CW | CL {
                *f &= !(CW | CL);
            }
            if *f & (ZW | ZL) == ZW | ZL {
                *f &= !(ZW | ZL);
            }
            if *f != before {
                changed.push(i as u32);
            }
        }
        let g = self.g;
        let todo: Vec<u32> = changed
            .iter()
            .flat_map(|&i| g.parents(i as usize).iter().copied())
            .flat_map(|p| std::iter::once(p).chain(g.parents(p as usize).iter().copied()))
            .collect();
        self.settle(todo);
    }

    /// Rule the violators among the open positions of `side`: the positions ruled.
    fn rule(&mut self, round: u8, side: Color) -> Vec<u32> {
        let mut ruled = Vec::new();
        for i in 0..self.g.len() {
            if self.g.side[i] != side || !self.is_open(i) {
                continue;
            }
            let Some(o) = &self.info[i] else { continue };
            let f = self.flags[i];
            let kind = if f & (CL | CW) != 0 {
                (f & CL != 0 && f & CW == 0 && !o.cd).then_some(Kind::Check)
            } else if f & (ZL | ZW) != 0 {
                (f & ZL != 0 && f & ZW == 0 && !o.cd).then_some(Kind::Chase)
            } else {
                None
            };
            if let Some(k) = kind {
                self.res[i] = Some(Res::Loss);
                self.order[i] = round;
                self.ruling[i] = Some(k);
                ruled.push(i as u32);
            }
        }
        ruled
    }

    /// Plain propagation from the decided positions `seeds`: an open position with a move
    /// into a loss wins; one whose every move reaches a win for the opponent loses.
    fn propagate(&mut self, round: u8, seeds: Vec<u32>) {
        let mut stack = seeds;
        while let Some(j) = stack.pop() {
            for &p in self.g.parents(j as usize) {
                let p = p as usize;
                if !self.is_open(p) {
                    continue;
                }
                let kids = self.g.kids(p);
                let r = if kids
                    .iter()
                    .any(|&c| self.res[c as usize] == Some(Res::Loss))
                {
                    Some(Res::Win)
                } else if !self.g.ext[p].draw
                    && kids.iter().all(|&c| self.res[c as usize] == Some(Res::Win))
                {
                    Some(Res::Loss)
                } else {
                    None
                };
                if r.is_some() {
                    self.res[p] = r;
                    self.order[p] = round;
                    stack.push(p as u32);
                }
            }
        }
    }
}
