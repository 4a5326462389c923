//! Alpha-beta search: iterative deepening, principal variation search with aspiration
//! windows, transposition table, quiescence over captures (all moves when in check; captures
//! that lose material by static exchange are skipped), check
//! extension, null-move pruning (not with little material), late move reductions (by
//! history too), move ordering by hash move, MVV-LVA (captures that lose by static exchange
//! last), killers, counter move and history (with gravity and a malus for the quiet moves
//! that did not cut off); static evaluations cached by key.
//!
//! Repetition: when a position repeats, the cycle since its earlier occurrence is ruled by
//! the project's one implementation of Xiangqi's rules ([`crate::board::rules::judge_cycle`]):
//! perpetual check, then perpetual chase, lose; any other repetition is a draw.

use super::eval::{evaluate, EvalState};
use super::params::{
    ASPIRATION, DELTA_MARGIN, FUTILITY_BASE, FUTILITY_DEPTH, FUTILITY_MARGIN, LMP_BASE, LMP_DEPTH,
    LMR_MOVES, NULL_EVAL_STEP, NULL_MIN_PHASE, NULL_R, RAZOR_DEPTH, RAZOR_MARGIN, RFP_DEPTH,
    RFP_MARGIN, VALUE,
};
use super::score::{Score, INF, MATE, MATE_BOUND, TB_WIN};
use super::see::loses_material;
use super::tt::{Bound, Tt};
use crate::board::rules::{judge_cycle, CycleVerdict};
use crate::board::{Move, MoveList, Position, Role};
use crate::index::Material;
use crate::tablebase::{Tablebases, Wdl};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

const MAX_PLY: usize = 128;

/// Limits of one search.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Maximum depth.
    pub depth: Option<i32>,
    /// Maximum nodes.
    pub nodes: Option<u64>,
    /// Soft time: do not start a new iteration after this.
    pub soft: Option<std::time::Duration>,
    /// Hard time: stop the search.
    pub hard: Option<std::time::Duration>,
}

/// One iteration's report.
#[derive(Clone, Debug)]
pub struct Info {
    /// Depth.
    pub depth: i32,
    /// Selective depth.
    pub seldepth: i32,
    /// Score.
    pub score: Score,
    /// Nodes.
    pub nodes: u64,
    /// Milliseconds.
    pub time_ms: u64,
    /// Principal variation.
    pub pv: Vec<Move>,
    /// Hash use in permille.
    pub hashfull: u32,
}

/// The search state.
pub struct Searcher<'a> {
    pos: Position,
    ev: EvalState,
    keys: Vec<u64>,
    checks: Vec<bool>,
    /// The move played from each position of `keys` (None for a null move).
    moves: Vec<Option<Move>>,
    tt: &'a Tt,
    tb: Option<&'a Tablebases>,
    killers: [[Option<Move>; 2]; MAX_PLY],
    history: Vec<i32>,
    /// The quiet move that last refuted each move (by its from and to squares).
    counters: Vec<Option<Move>>,
    pv: Vec<Vec<Move>>,
    /// Nodes searched.
    pub nodes: u64,
    seldepth: i32,
    stop: &'a AtomicBool,
    start: Instant,
    limits: Limits,
    stopped: bool,
    banned: Vec<Move>,
    root_moves: usize,
    /// Part of a Lazy SMP search: the table's age is advanced by the caller, not here.
    shared: bool,
    /// Added to every iteration's depth (helper threads search ahead of the main one).
    depth_offset: i32,
    /// Static evaluations by position key (see [`Searcher::eval`]).
    eval_cache: Vec<(u64, i32)>,
}

/// Entries of each searcher's evaluation cache (a power of two).
const EVAL_CACHE: usize = 1 << 16;

/// Moves with scores, handed out best first by selection (most nodes cut off early, so a
/// full sort would be wasted).
struct Picker {
    list: arrayvec::ArrayVec<(i32, Move), 128>,
    next: usize,
}

impl Iterator for Picker {
    type Item = (i32, Move);

    fn next(&mut self) -> Option<(i32, Move)> {
        if self.next >= self.list.len() {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..self.list.len() {
            if self.list[i].0 > self.list[best].0 {
                best = i;
            }
        }
        self.list.swap(self.next, best);
        self.next += 1;
        Some(self.list[self.next - 1])
    }
}

/// Late move reduction for the `i`-th move (0-based) at `depth`: logarithmic in both.
fn lmr(depth: i32, i: usize) -> i32 {
    static TABLE: std::sync::LazyLock<[[i32; 64]; 64]> = std::sync::LazyLock::new(|| {
        let mut t = [[0; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (n, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.5 + (d as f64).ln() * (n as f64).ln() / 2.25) as i32;
            }
        }
        t
    });
    TABLE[(depth as usize).min(63)][i.min(63)]
}

/// Bound of a history entry (the gravity update keeps every entry within it).
const HISTORY_MAX: i32 = 16_384;

/// Move `h` towards `bonus`'s sign by `bonus`, less as it nears the bound (history
/// gravity): entries stay within ±[`HISTORY_MAX`] and old successes fade.
fn history_update(h: &mut i32, bonus: i32) {
    let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    *h += b - *h * b.abs() / HISTORY_MAX;
}

fn mvv_lva(pos: &Position, m: Move) -> i32 {
    let victim = pos.piece_at(m.to()).map_or(0, |p| VALUE[p.role.index()].0);
    let attacker = pos
        .piece_at(m.from())
        .map_or(0, |p| VALUE[p.role.index()].0);
    victim * 8 - attacker / 8
}

impl<'a> Searcher<'a> {
    /// A search of `pos`, reached through `history` (the earlier positions' keys, oldest
    /// first, each with the move played from it), with `tt`, optional tablebases, a stop flag
    /// and limits. `banned` moves are not played at the root.
    pub fn new(
        pos: &Position,
        history: &[(u64, Move)],
        tt: &'a Tt,
        tb: Option<&'a Tablebases>,
        stop: &'a AtomicBool,
        limits: Limits,
        banned: Vec<Move>,
    ) -> Searcher<'a> {
        Searcher {
            ev: EvalState::new(pos),
            pos: pos.clone(),
            keys: history.iter().map(|h| h.0).collect(),
            // whether each move gave check: only the last one is read (for the position now)
            checks: history
                .iter()
                .enumerate()
                .map(|(i, _)| i + 1 == history.len() && pos.in_check())
                .collect(),
            moves: history.iter().map(|h| Some(h.1)).collect(),
            tt,
            tb,
            killers: [[None; 2]; MAX_PLY],
            history: vec![0; 90 * 90],
            counters: vec![None; 90 * 90],
            pv: vec![Vec::new(); MAX_PLY + 1],
            nodes: 0,
            seldepth: 0,
            stop,
            start: Instant::now(),
            limits,
            stopped: false,
            banned,
            root_moves: 0,
            shared: false,
            depth_offset: 0,
            eval_cache: vec![(0, 0); EVAL_CACHE],
        }
    }

    /// Make this searcher one of several sharing its table (Lazy SMP): `run` leaves the
    /// table's age alone, and every iteration searches `depth_offset` plies deeper.
    pub fn share(&mut self, depth_offset: i32) {
        self.shared = true;
        self.depth_offset = depth_offset;
    }

    fn should_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes & 1023 == 0 {
            if self.stop.load(Ordering::Relaxed) {
                self.stopped = true;
            }
            if let Some(h) = self.limits.hard {
                if self.start.elapsed() >= h {
                    self.stopped = true;
                }
            }
        }
        if self.limits.nodes.is_some_and(|n| self.nodes >= n) {
            self.stopped = true;
        }
        self.stopped
    }

    /// Repetition verdict for the current position (score for the side to move): the cycle
    /// since its last occurrence, ruled by the rules module.
    fn repetition(&self) -> Option<i32> {
        let n = self.keys.len();
        let key = self.pos.key();
        let limit = (self.pos.halfmoves() as usize).min(n);
        let mut i = 2;
        while i <= limit {
            if self.keys[n - i] == key {
                let cycle: Option<Vec<Move>> = self.moves[n - i..].iter().copied().collect();
                // a null move inside the cycle: no real repetition to rule, call it a draw
                let Some(cycle) = cycle else {
                    return Some(0);
                };
                return Some(match judge_cycle(&self.pos, &cycle) {
                    CycleVerdict::Draw => 0,
                    CycleVerdict::Loss { loser, .. } if loser == self.pos.turn() => -TB_WIN + 1,
                    CycleVerdict::Loss { .. } => TB_WIN - 1,
                });
            }
            i += 2;
        }
        None
    }

    /// The static evaluation of the current position, from the cache when it was computed
    /// before (the evaluation depends on the position alone, which the key stands for).
    fn eval(&mut self) -> i32 {
        let key = self.pos.key();
        let slot = &mut self.eval_cache[key as usize & (EVAL_CACHE - 1)];
        if slot.0 == key && key != 0 {
            return slot.1;
        }
        let v = evaluate(&self.pos, &self.ev);
        *slot = (key, v);
        v
    }

    /// Captures for quiescence, by MVV-LVA alone (the static exchange test comes later, for
    /// the captures the delta test keeps).
    fn order_captures(&self, moves: &MoveList) -> Picker {
        Picker {
            list: moves.iter().map(|&m| (mvv_lva(&self.pos, m), m)).collect(),
            next: 0,
        }
    }

    /// The move that refuted the last move played last time (none after a null move).
    fn counter(&self) -> Option<Move> {
        let prev = (*self.moves.last()?)?;
        self.counters[prev.from().index() * 90 + prev.to().index()]
    }

    fn order(&self, moves: &mut MoveList, tt_move: Option<Move>, ply: usize) -> Picker {
        let counter = self.counter();
        let scored: arrayvec::ArrayVec<(i32, Move), 128> = moves
            .iter()
            .map(|&m| {
                let s = if Some(m) == tt_move {
                    1 << 30
                } else if self.pos.piece_at(m.to()).is_some() {
                    // captures that lose material by exchange go after the quiet moves
                    if loses_material(&self.pos, m) {
                        -(1 << 22) + mvv_lva(&self.pos, m)
                    } else {
                        (1 << 24) + mvv_lva(&self.pos, m)
                    }
                } else if self.killers[ply][0] == Some(m) {
                    1 << 23
                } else if self.killers[ply][1] == Some(m) {
                    (1 << 23) - 1
                } else if counter == Some(m) {
                    (1 << 23) - 2
                } else {
                    self.history[m.from().index() * 90 + m.to().index()]
                };
                (s, m)
            })
            .collect();
        Picker {
            list: scored,
            next: 0,
        }
    }

    fn make(&mut self, m: Move) -> crate::board::Undo {
        let key = self.pos.key();
        self.ev.apply(&self.pos, m);
        let u = self.pos.play(m);
        self.keys.push(key);
        self.checks.push(self.pos.in_check());
        self.moves.push(Some(m));
        u
    }

    fn unmake(&mut self, m: Move, u: crate::board::Undo, ev: EvalState) {
        self.pos.undo(m, u);
        self.ev = ev;
        self.keys.pop();
        self.checks.pop();
        self.moves.pop();
    }

    fn probe_tb(&self, ply: i32) -> Option<i32> {
        let tb = self.tb?;
        let m = Material::of_position(&self.pos);
        if m.pieces_besides_kings() > 6 || !tb.has_table(&m) {
            return None;
        }
        match tb.probe_wdl(&self.pos).ok()? {
            Wdl::Win => Some(TB_WIN - ply),
            Wdl::Loss => Some(-TB_WIN + ply),
            Wdl::Draw => Some(0),
        }
    }

    fn quiesce(&mut self, mut alpha: i32, beta: i32, ply: i32) -> i32 {
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
            self.pos.legal_moves()
        } else {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            self.pos.capture_moves()
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
                    .map_or(0, |p| VALUE[p.role.index()].1);
                if stand + gain + DELTA_MARGIN < alpha {
                    continue;
                }
            }
            // a capture that loses material by exchange is not searched (not in check)
            if !in_check && loses_material(&self.pos, m) {
                continue;
            }
            let ev = self.ev;
            let u = self.make(m);
            let s = -self.quiesce(-beta, -alpha, ply + 1);
            self.unmake(m, u, ev);
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn search(
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
            return self.quiesce(alpha, beta, ply);
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
        let static_eval = if in_check { -INF } else { self.eval() };
        if !pv_node && !in_check && beta.abs() < MATE_BOUND {
            // reverse futility: far enough above beta that a quiet move will not fall below it
            if depth <= RFP_DEPTH && static_eval - RFP_MARGIN * depth >= beta {
                return static_eval;
            }
            // razoring: far below alpha near the leaves: only captures can help
            if depth <= RAZOR_DEPTH && static_eval + RAZOR_MARGIN * depth < alpha {
                let q = self.quiesce(alpha, beta, ply);
                if self.stopped {
                    return 0;
                }
                if q < alpha {
                    return q;
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
                    return 0;
                }
                if s >= beta {
                    return if s > MATE_BOUND { beta } else { s };
                }
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
        let futile = prune_ok
            && depth <= FUTILITY_DEPTH
            && static_eval + FUTILITY_BASE + FUTILITY_MARGIN * depth <= alpha;
        let lmp_limit = LMP_BASE + (depth * depth) as usize;
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
                    let mut moves = self.pos.legal_moves();
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
            if searched > 0 && !capture && !gives_check && prune_ok {
                let late = depth <= LMP_DEPTH && quiets >= lmp_limit;
                if futile || late {
                    self.unmake(m, u, ev);
                    continue;
                }
            }
            let i = searched;
            searched += 1;
            if !capture {
                quiets += 1;
            }
            let hist = if capture {
                0
            } else {
                self.history[m.from().index() * 90 + m.to().index()]
            };
            let mut s;
            if i == 0 {
                s = -self.search(depth - 1, -beta, -alpha, ply + 1, true);
            } else {
                let mut r = 0;
                if i >= LMR_MOVES && depth >= 3 && !capture && !in_check && !gives_check {
                    r = lmr(depth, i) + if pv_node { 0 } else { 1 };
                    // a move whose quiet tries cut off often is reduced less, and more
                    // when they rarely do
                    r -= hist / (HISTORY_MAX / 2);
                    r = r.min(depth - 2).max(0);
                }
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
                            let k = &mut self.killers[ply as usize];
                            if k[0] != Some(m) {
                                k[1] = k[0];
                                k[0] = Some(m);
                            }
                            if let Some(Some(prev)) = self.moves.last().copied() {
                                self.counters[prev.from().index() * 90 + prev.to().index()] =
                                    Some(m);
                            }
                            let bonus = (depth * depth).min(400) * 8;
                            history_update(
                                &mut self.history[m.from().index() * 90 + m.to().index()],
                                bonus,
                            );
                            for &q in &tried {
                                history_update(
                                    &mut self.history[q.from().index() * 90 + q.to().index()],
                                    -bonus,
                                );
                            }
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

/// Positions searched by `xqdb bench`.
pub const BENCH_FENS: [&str; 8] = [
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w - - 0 1",
    "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1",
    "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w - - 0 1",
    "r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKABR1 w - - 0 1",
    "2bakab2/9/2n1c1n2/p3p3p/2p3p2/9/P1P1P1P1P/2N1C1N2/9/2BAKAB2 b - - 0 1",
    "3k5/4a4/4b4/9/9/4R4/9/9/4A4/3AK4 w - - 0 1",
];
