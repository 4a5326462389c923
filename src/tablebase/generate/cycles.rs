//! Rule set 1 in the generator: positions whose only way to avoid loss is a perpetual check
//! or a perpetual chase are lost.
//!
//! # The positions and moves involved
//!
//! After plain retrograde analysis (round 0) every position is decided (won, lost, illegal)
//! or *open*. Only moves between open positions can make a cycle; every other move either
//! loses (it reaches a position won for the opponent: *bad*) or saves its mover (a position
//! lost for the opponent: *good*; or a capture into a drawn position of a smaller table:
//! *capture-draw*, a flag of the position).
//!
//! Marks, set once on the open positions after round 0 (the "base" flags):
//! * `IN_CHECK` on a position whose side to move is in check and has a quiet reply to an open
//!   position; `CHECK` on every such reply's result: there the side to move has just given
//!   check and may be a perpetual checker.
//! * `IN_CHASE` on a position (not in check) with a quiet move that escapes a chase attack
//!   ([`crate::board::rules`]) to an open position; `CHASE` on each such result: there the
//!   side to move may be a perpetual chaser.
//!
//! # One round
//!
//! Working flags, per open position: `CW`/`ZW` "the side to move wins if the opponent keeps
//! checking/chasing", `CL`/`ZL` "the side to move loses if it keeps checking/chasing". A round:
//!
//! 1. Reset: `CW = IN_CHECK`, `ZW = IN_CHASE`, `CL = CHECK`, `ZL = CHASE`; a capture-draw
//!    clears `CL` (`ZL`) unless the position also has `CW` (`ZW`).
//! 2. Clean-up to a fixpoint (the "fake" violations are removed). A position keeps `CL` only
//!    while every move of its side is bad or reaches an open position with `CW` (a check the
//!    opponent must answer); it keeps `ZL` only while every such move reaches a position with
//!    `ZW` and all of them attack a common target anew; it keeps `CW` while some move reaches
//!    a position with `CL`, `ZW` while some escape reaches a position with `ZL` whose side can
//!    only chase the escaped piece again. Positions carrying both sides of a flag (mutual
//!    check or chase) are resolved by the finer rules of [`Pass`]: three strengths of the
//!    chase tests in turn, then both flags of a still mutual position are dropped and the
//!    clean-up runs again.
//! 3. Ruling: for Red's benefit first, every open Black position with `CL` and not `CW` (or,
//!    when it has neither, `ZL` and not `ZW`) and no capture-draw is lost *by ruling*; plain
//!    propagation follows (its wins and losses belong to this round). Then the same for
//!    Black's benefit. A side for which a round rules nothing is done for good.
//!
//! Rounds repeat until both sides are done; what is still open is a draw.
//!
//! # Incremental rounds
//!
//! Rounds after a small one start from the previous clean-up fixpoint: see [`reopen`]
//! (the argument is there).
//!
//! # Why it ends and why the values are right (proof sketch)
//!
//! *Termination.* Each round either rules at least one open position (the open set shrinks
//! strictly; there are finitely many positions) or marks a side done; the clean-up only ever
//! clears flags of a finite set, so each of its loops ends; propagation decides only open
//! positions. Hence at most (open positions + 2) rounds, each finite.
//!
//! *Soundness.* By induction over the order of decisions. Round 0 is exact retrograde
//! analysis. A position ruled in round `k` carries `CL` after the clean-up: each of its moves
//! either loses by the values known so far (induction) or gives a check that the opponent
//! answers inside the open set while keeping `CW`, i.e. with a reply that puts the ruled side
//! back in a `CL` position; so the ruled side can avoid loss only by checking forever while
//! the opponent (not `CL`: it is not itself forced to check) does not, which rule set 1 calls
//! a loss; a capture-draw would be a non-checking way out, so it prevents the ruling. The
//! same holds for chases with `ZL`/`ZW`, where the clean-up also demands that all the
//! chasing moves attack one target that has just escaped it, and the check pair is examined
//! first (check ranks above chase: a side that is itself checked is not ruled for chasing).
//! Propagation then applies the ordinary game rules to these new losses, so every win and
//! loss it adds is forced.
//!
//! *Completeness (relative to the rule as stated).* A position left open at the end had, in
//! the last round, no flag combination that marks its side as the sole violator, and no
//! move into a lost position: neither side can force a win, nor a ruling; a draw.
//!
//! This is the rule as the largest public Xiangqi tablebase applies it (its WDL agrees with
//! ours on every reference position); the finer points of [`Pass`] follow its behaviour.

mod marks;
mod position;
mod reopen;
mod settle;

use super::bytes::Bits;
use super::{code, tail_move, Gen, CHUNK};
use crate::board::{Color, Move, Position, Role};
use crate::index::{PieceList, TailCtx};
use crate::progress::{Phase, Progress};
use crate::tablebase::table::TbError;
use arrayvec::ArrayVec;
use rayon::prelude::*;
use settle::{Dirty, Pass};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// Base flags (set once after round 0).
const CHECK: u8 = 1;
const CHASE: u8 = 2;
const IN_CHECK: u8 = 4;
const IN_CHASE: u8 = 8;
/// Working flags (reset each round).
const CW: u8 = 16;
const CL: u8 = 32;
const ZW: u8 = 64;
const ZL: u8 = 128;
const _: () = assert!(
    code::OPEN == 0x80,
    "the open words read OPEN as each byte's high bit"
);
const BASE: u8 = CHECK | CHASE | IN_CHECK | IN_CHASE;
const WORK: u8 = CW | CL | ZW | ZL;

/// What one move of a position reaches, for the clean-up.
#[derive(Copy, Clone)]
enum Child {
    /// Lost for its side to move: a saving move.
    Good,
    /// Won for its side to move, or illegal: a losing move.
    Bad,
    /// Open, with its flags.
    Open(u8),
}

/// A position of the table with what ranks its quiet successors without playing them.
struct Node {
    pos: Position,
    pieces: PieceList,
    ctx: Option<TailCtx>,
}

impl Gen<'_> {
    /// Position `i` with `side` to move (None for an undecodable index).
    fn node(&self, i: usize, side: Color) -> Option<Node> {
        let mut pieces = PieceList::new();
        // the placement and its tail context in one pass
        let ctx = self.index.unrank_tail(i as u64, &mut pieces)?;
        let pos = Position::from_pieces(&pieces, side).ok()?;
        Some(Node { pos, pieces, ctx })
    }

    /// Position `i` with `side` to move, decoded into `slot` in place (its position, piece
    /// list and context rewritten; a new node when the slot is empty); None, with the slot
    /// emptied, for an undecodable index.
    fn load_in<'a>(&self, slot: &'a mut Option<Node>, i: usize, side: Color) -> Option<&'a Node> {
        let ok = match slot {
            None => {
                *slot = self.node(i, side);
                slot.is_some()
            }
            Some(x) => match self.index.unrank_tail(i as u64, &mut x.pieces) {
                Some(ctx) => {
                    x.ctx = ctx;
                    x.pos.load_pieces(&x.pieces, side).is_ok()
                }
                None => false,
            },
        };
        if !ok {
            *slot = None;
        }
        slot.as_ref()
    }

    /// Position `i` with `side` to move in `slot`, its placement decoded once for both sides
    /// to move: when `*here` (the slot holds it for the other side) turned by a null move,
    /// else decoded in place ([`Gen::load_in`]); `*here` is set once it is decoded.
    fn side_in<'a>(
        &self,
        slot: &'a mut Option<Node>,
        here: &mut bool,
        i: usize,
        side: Color,
    ) -> Option<&'a Node> {
        let x = if *here {
            slot.as_mut().map(|x| {
                x.pos.play_null();
                &*x
            })
        } else {
            self.load_in(slot, i, side)
        };
        *here |= x.is_some();
        x
    }

    /// The result of the quiet move `m` of `x`, as a node.
    fn node_after(&self, x: &Node, m: Move) -> Node {
        let pos = x.pos.after(m);
        let mut pieces = x.pieces.clone();
        if let Some(e) = pieces.iter_mut().find(|e| e.1 == m.from()) {
            e.1 = m.to();
        }
        let ctx = self.index.prepare_tail(&pieces);
        Node { pos, pieces, ctx }
    }

    /// Index of the result of the quiet move `m` of `x` (ranked from `x`'s tail when only
    /// the tail moves).
    fn quiet_child(&self, x: &Node, m: Move) -> Option<usize> {
        let (from, to) = (m.from(), m.to());
        let k = x.pieces.iter().position(|e| e.1 == from)?;
        let p = x.pieces[k].0;
        let in_copy = || {
            let mut q = x.pieces.clone();
            q[k].1 = to;
            self.index.rank_pieces(&q).ok()
        };
        match (&x.ctx, p.role) {
            // a king: its new pair of squares read from the pair tables
            (Some(ctx), Role::King) => self.index.rank_king_move(ctx, from, to).or_else(in_copy),
            (Some(ctx), _) if tail_move(p, from, to) => self.index.rank_tail_move(ctx, from, to),
            _ => in_copy(),
        }
        .map(|j| j as usize)
    }

    /// What the quiet move `m` of `x` reaches.
    fn child(&self, x: &Node, m: Move) -> Child {
        let Some(j) = self.quiet_child(x, m) else {
            return Child::Bad;
        };
        let s = (!x.pos.turn()).index();
        let (v, flags) = self.codes(s).get_with_flags(j);
        if v & code::OPEN != 0 {
            Child::Open(flags)
        } else if code::is_loss(v) {
            Child::Good
        } else {
            Child::Bad
        }
    }

    fn is_open(&self, side: Color, i: usize) -> bool {
        self.codes(side.index()).is_open(i)
    }

    /// Indices `64 w .. 64 w + 64` of the table: bit `b` is set when index `64 w + b` is
    /// open with a flag of `want` for either side to move. `next[s]` is the slot of index
    /// `64 w` for side `s` (the first slot at or after it), advanced past the word: a scan
    /// of consecutive words reads the open bits and the code and flag bytes in order, with
    /// no rank.
    #[inline(always)]
    fn busy_bits(&self, w: usize, want: u8, next: &mut [usize; 2]) -> u64 {
        let mut busy = 0;
        for (s, k) in next.iter_mut().enumerate() {
            let (slots, val) = (&self.aux[s], self.codes(s));
            let mut bits = slots.open.word(w);
            // only a position with a slot can be open: it is while its code says so
            while bits != 0 {
                let b = bits.trailing_zeros();
                bits &= bits - 1;
                if val.open_at(*k) && slots.flag_at(*k) & want != 0 {
                    busy |= 1 << b;
                }
                *k += 1;
            }
        }
        busy
    }

    /// The capture-draw flag of the open position `i` of `side` (in its value byte, or in
    /// the bit arrays of a table with seven-bit counters).
    fn capture_draw(&self, side: Color, i: usize) -> bool {
        self.capture_draw_in(side, i, self.codes(side.index()).get(i))
    }

    /// [`Gen::capture_draw`] of position `i` of `side`, whose value byte is `v`.
    fn capture_draw_in(&self, side: Color, i: usize, v: u8) -> bool {
        match &self.capdraw {
            Some(c) => c[side.index()].get(i),
            None => v & code::OPEN != 0 && v & code::CAPDRAW != 0,
        }
    }

    /// When position `i` of `side` is open: its slot (where its value and flag bytes are)
    /// and its value byte; one rank for both.
    #[inline(always)]
    fn open_slot(&self, side: Color, i: usize) -> Option<(usize, u8)> {
        let s = &self.aux[side.index()];
        if !s.has(i) {
            return None;
        }
        let k = s.slot(i);
        let v = s.code(k);
        (v & code::OPEN != 0).then_some((k, v))
    }

    /// Run `f(i, k)` on every open position `i` of `side` in parallel, `k` its slot (where
    /// its code and flags are); true when some call said so. The slots are walked in order
    /// over the open bits with a running slot number (one rank per chunk, none per
    /// position), the open state read per slot: `f(i, k)` may change no code of `side` but
    /// slot `k`'s, so a slot open when it is reached is still open when `f` runs.
    fn each_open(&self, side: Color, f: impl Fn(usize, usize) -> bool + Sync) -> bool {
        let n = self.size();
        let any = AtomicBool::new(false);
        let slots = &self.aux[side.index()];
        let val = self.codes(side.index());
        (0..self.chunks()).into_par_iter().for_each(|c| {
            let mut hit = false;
            slots.each_slot(c * CHUNK, ((c + 1) * CHUNK).min(n), |i, k| {
                if val.open_at(k) && f(i, k) {
                    hit = true;
                }
            });
            if hit {
                any.store(true, Relaxed);
            }
        });
        any.load(Relaxed)
    }

    /// Step 1 of a round: working flags from the base flags.
    fn reset_flags(&self) {
        for side in Color::ALL {
            let aux = &self.aux[side.index()];
            self.each_open(side, |i, k| {
                let f = aux.flag_at(k) & BASE;
                if f != 0 {
                    let cd = self.capture_draw_in(side, i, aux.code(k));
                    aux.set_flag_at(k, f | reopen::reset_work(f, cd));
                }
                false
            });
        }
    }

    /// Step 3 for the benefit of the other side: rule the violators among the open positions
    /// of `side`, each marked in `front` (the first frontier of the propagation). Returns
    /// how many.
    fn rule(&self, order: u8, side: Color, front: &Bits) -> u64 {
        let count = AtomicU64::new(0);
        let aux = &self.aux[side.index()];
        self.each_open(side, |i, k| {
            let f = aux.flag_at(k);
            // the capture-draw flag only read for a possible violator
            let cd = || self.capture_draw_in(side, i, aux.code(k));
            let kind = if f & (CL | CW) != 0 {
                (f & CL != 0 && f & CW == 0 && !cd()).then_some(code::RULE_CHECK)
            } else if f & (ZL | ZW) != 0 {
                (f & ZL != 0 && f & ZW == 0 && !cd()).then_some(code::RULE_CHASE)
            } else {
                None
            };
            if let Some(kind) = kind {
                self.codes(side.index()).set_at(k, code::make(order, kind));
                aux.set_flag_at(k, 0);
                front.set(i);
                count.fetch_add(1, Relaxed);
            }
            false
        });
        count.into_inner()
    }

    /// Plain propagation of the rulings of `loser` in round `order` (marked in `fronts[0]`,
    /// `fronts[1]` empty): step `t` un-moves the positions decided at step `t` (losses of
    /// `loser` at even `t`, wins of the other side at odd `t`), taken from one bit array
    /// while the positions they decide are marked in the other (both are empty at the end).
    /// A step visits its frontier only, not the whole table. Returns how many positions it
    /// decided.
    fn propagate(&self, order: u8, loser: Color, fronts: [&Bits; 2]) -> Result<u64, TbError> {
        let n = self.size();
        let [mut now, mut next] = fronts;
        let mut t: u8 = 0;
        let mut decided = 0;
        loop {
            let x = if t.is_multiple_of(2) { loser } else { !loser };
            self.assigned.store(0, Relaxed);
            let stamp = t
                .checked_add(1)
                .ok_or(TbError::DtmOverflow(self.material))?;
            let words = now.words();
            (0..self.chunks()).into_par_iter().for_each(|c| {
                let mut preds: ArrayVec<u64, 512> = ArrayVec::new();
                for w in c * CHUNK / 64..((c + 1) * CHUNK / 64).min(words) {
                    let mut bits = now.take(w);
                    while bits != 0 {
                        let i = w * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if i < n {
                            self.retro_front(i, x, order, stamp, next, &mut preds);
                        }
                    }
                }
            });
            self.drop_code_pages();
            let step = self.assigned.load(Relaxed);
            if step == 0 {
                return self.check_fault().map(|()| decided);
            }
            decided += step;
            std::mem::swap(&mut now, &mut next);
            t = stamp;
        }
    }

    /// Un-move the position `i` (side `x` to move) decided in the propagation of round
    /// `order` into its predecessors; those it decides are marked in `next`.
    fn retro_front(
        &self,
        i: usize,
        x: Color,
        order: u8,
        stamp: u8,
        next: &Bits,
        preds: &mut ArrayVec<u64, 512>,
    ) {
        preds.clear();
        let Some(dedupe) = self.predecessors(i as u64, x, preds) else {
            return;
        };
        let loss = code::is_loss(self.codes(x.index()).get(i));
        let y = !x;
        let val = self.codes(y.index());
        for &q in preds.iter() {
            val.prefetch(q as usize);
        }
        super::retro::each_distinct(preds, dedupe, |q| {
            if self.apply_counting(q as usize, y, loss, order, stamp) {
                next.set(q as usize);
            }
        });
    }
}

/// Steps 3 of the generation (see the module documentation), from the start or, with
/// `from`, resumed at a round (its number, the sides done, whether a position was ruled).
/// Returns true when a position was ruled (then the distances to mate must be computed
/// again).
pub(super) fn run(
    g: &mut Gen<'_>,
    progress: &dyn Progress,
    from: Option<(u8, [bool; 2], bool)>,
    flags_path: &std::path::Path,
) -> Result<bool, TbError> {
    let pb = Phase::begin(progress, &g.material.to_string(), "repetition rules", 0);
    // beside the state: in its work file out of core
    let backing = g.codes(0).backing();
    let dirty = Dirty {
        lose: Bits::with(&backing, g.size())?,
        win: Bits::with(&backing, g.size())?,
    };
    let t = std::time::Instant::now();
    if from.is_none() {
        g.mark();
        if super::phases() {
            eprintln!("  marks set, CPU {:.2} s", super::cpu_seconds());
        }
        // most open positions get no flag: only the others keep a byte
        g.sparse_flags(flags_path)?;
    }
    if super::phases() {
        eprintln!(
            "  marks {:.2} s, CPU {:.2} s",
            t.elapsed().as_secs_f64(),
            super::cpu_seconds()
        );
    }
    let (mut order, mut done, mut any) = from.unwrap_or((1, [false; 2], false));
    // the flags hold the previous round's clean-up fixpoint of [`Pass::Two`]
    let mut pure = false;
    // the positions decided in the previous round (its rulings and what they decided)
    let mut decided = 0;
    loop {
        if order > code::MAX_ORDER {
            return Err(TbError::TooManyRounds(g.material));
        }
        g.safe_point(super::Step::Rules {
            round: order,
            done,
            ruled: any,
        })?;
        pb.status(&format!("round {order}"));
        let t = std::time::Instant::now();
        let incremental = pure && g.reopen(order - 1, decided, &dirty);
        if !incremental {
            dirty.clear();
            g.reset_flags();
            if super::phases() {
                eprintln!("  round {order}: reset, CPU {:.2} s", super::cpu_seconds());
            }
        }
        pure = g.clean_up(&dirty, incremental);
        if super::phases() {
            eprintln!(
                "  round {order}: clean-up {:.2} s, CPU {:.2} s",
                t.elapsed().as_secs_f64(),
                super::cpu_seconds()
            );
        }
        g.check_fault()?;
        // the worklist bits carry the propagation's frontiers (empty again after it)
        dirty.clear();
        decided = 0;
        for root in Color::ALL {
            if done[root.index()] {
                continue;
            }
            let ruled = g.rule(order, !root, &dirty.lose);
            if super::phases() {
                eprintln!("  round {order}: {ruled} positions of {} ruled", !root);
            }
            if ruled == 0 {
                done[root.index()] = true;
                continue;
            }
            any = true;
            decided += ruled + g.propagate(order, !root, [&dirty.lose, &dirty.win])?;
        }
        if super::phases() {
            eprintln!(
                "  round {order}: rulings and propagation, CPU {:.2} s",
                super::cpu_seconds()
            );
        }
        pb.inc(1);
        if done[0] && done[1] {
            break;
        }
        order += 1;
    }
    // what is still open is a draw
    for side in Color::ALL {
        g.each_open(side, |_, k| {
            g.codes(side.index()).set_at(k, code::DRAW);
            g.aux[side.index()].set_flag_at(k, 0xFF);
            false
        });
    }
    pb.end();
    let _ = WORK;
    Ok(any)
}

#[cfg(test)]
mod tests {
    use super::super::{capdraw_in_value, max_moves};
    use super::*;
    use crate::board::rules::RuleSet;
    use crate::index::{Material, PlacementIndex};
    use crate::tablebase::generate::bytes::Bytes;
    use crate::tablebase::generate::slots::Slots;
    use crate::tablebase::workfile::Backing;
    use std::sync::atomic::AtomicU64;
    use std::sync::Mutex;

    /// A slot for every index.
    fn full(n: usize) -> Slots {
        let mut s = Slots::empty(&Backing::Heap, n, true).expect("heap");
        for i in 0..n {
            s.open.set(i);
        }
        s.allocate(&Backing::Heap, 0xFF).expect("heap");
        s.codes = Bytes::new(n, code::ILLEGAL);
        s
    }

    fn wide_gen(index: &PlacementIndex, capdraw: Option<[Bits; 2]>) -> Gen<'_> {
        let n = index.size() as usize;
        Gen {
            material: "KRKN".parse::<Material>().expect("a material"),
            index,
            val: [Bytes::new(n, code::ILLEGAL), Bytes::new(n, code::ILLEGAL)],
            aux: [full(n), full(n)],
            high: Some([Bits::new(n), Bits::new(n)]),
            rule_rounds: true,
            capdraw,
            subs: Vec::new(),
            rules: RuleSet::CheckChase,
            ck: None,
            assigned: AtomicU64::new(0),
            overflow: AtomicBool::new(false),
            fault: Mutex::new(None),
        }
    }

    /// The capture-draw flag in the value byte: counters count down below it, a decision
    /// replaces it, and the tables of up to four pieces keep it there.
    #[test]
    fn capture_draw_flag_in_the_value_byte() {
        let m = "KRKN".parse::<Material>().expect("a material");
        let index = PlacementIndex::new(m).expect("an index");
        let g = wide_gen(&index, None);
        let red = Color::Red;
        let val = g.codes(red.index());
        val.set(5, code::OPEN | code::CAPDRAW | 2);
        val.set(6, code::OPEN | code::CAPDRAW | 3);
        val.set(7, code::OPEN | 2);
        assert!(g.capture_draw(red, 5) && !g.capture_draw(red, 7));
        // two successors turn out wins for the opponent: a loss at the second
        let win = code::make(2, code::WIN);
        g.apply_counting(5, red, false, 2, 9);
        assert_eq!(val.get(5), code::OPEN | code::CAPDRAW | 1);
        assert!(g.capture_draw(red, 5), "the flag stays while open");
        g.apply_counting(5, red, false, 2, 9);
        assert_eq!(val.get(5), code::make(2, code::LOSS));
        assert_eq!(g.aux[red.index()].get(5), 9);
        assert!(!g.capture_draw(red, 5), "a decided position has no flag");
        // a lost successor: a win, whatever the counter
        g.apply_counting(6, red, true, 2, 9);
        assert_eq!(val.get(6), win);
        g.apply_counting(7, red, false, 2, 9);
        assert_eq!(val.get(7), code::OPEN | 1);
        assert_eq!(g.assigned.load(Relaxed), 2);
        // with the bit arrays the counters keep seven bits
        let n = index.size() as usize;
        let g = wide_gen(&index, Some([Bits::new(n), Bits::new(n)]));
        g.codes(red.index()).set(5, code::OPEN | 65);
        g.apply_counting(5, red, false, 2, 9);
        assert_eq!(g.codes(red.index()).get(5), code::OPEN | 64);
        assert!(!g.capture_draw(red, 5));
        g.capdraw.as_ref().expect("bit arrays")[red.index()].set(5);
        assert!(g.capture_draw(red, 5));
        let bound = |s: &str| max_moves(s.parse::<Material>().expect("a material"));
        assert_eq!((bound("KRNKR"), bound("KRABKRA")), (29, 29));
        assert_eq!(bound("KRRCCKR"), 72);
        assert!(capdraw_in_value("KRRCKAABB".parse().expect("a material")));
        assert!(!capdraw_in_value("KRRCCKR".parse().expect("a material")));
    }
}
