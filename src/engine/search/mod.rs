//! Alpha-beta search: iterative deepening, principal variation search with aspiration
//! windows, transposition table, quiescence over captures (all moves when in check; captures
//! that lose material by static exchange are skipped; quiet checks at its first ply), check
//! extension, null-move pruning (not with little material), ProbCut, late move reductions (by
//! history too), move ordering by hash move, MVV-LVA (captures that lose by static exchange
//! last), killers, counter move and history (with gravity and a malus for the quiet moves
//! that did not cut off); static evaluations cached by key.
//!
//! Repetition: when a position repeats, the cycle since its earlier occurrence is ruled by
//! the project's one implementation of Xiangqi's rules ([`crate::board::rules::judge_cycle`]):
//! perpetual check, then perpetual chase, lose; any other repetition is a draw.
//!
//! The parts, one per file: `ordering` (move pickers, history, killers, counter moves),
//! `quiesce` (the capture search), `pruning` (node-level pruning before the moves:
//! reverse futility, razoring, null move; the late-move reduction table), `alphabeta` (one
//! node of the principal variation search) and `root` (iterative deepening with aspiration
//! windows).

mod alphabeta;
mod ordering;
mod pruning;
mod quiesce;
mod root;

use super::eval::{evaluate, EvalState};
use super::score::{Score, TB_WIN};
use super::tt::Tt;
use crate::board::rules::{judge_cycle, CycleVerdict};
use crate::board::{Move, Position};
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

/// What one search of a game hands to the next: the quiet-move history and the counter
/// moves (empty at the start of a game).
#[derive(Clone, Debug, Default)]
pub struct Memory {
    history: Vec<i32>,
    counters: Vec<Option<Move>>,
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

/// The evaluation cache's entry for the position of `key` (probed in the search, fetched
/// ahead when a move is made).
#[inline(always)]
fn eval_slot(key: u64) -> usize {
    key as usize & (EVAL_CACHE - 1)
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

    /// Start from what an earlier search (the game's previous move) learnt: its history,
    /// each entry halved so that old successes weigh less (s27), and its counter moves
    /// (s29). An empty memory changes nothing.
    pub fn load_memory(&mut self, m: &Memory) {
        if m.history.len() == self.history.len() {
            for (d, &s) in self.history.iter_mut().zip(&m.history) {
                *d = s / 2;
            }
        }
        if m.counters.len() == self.counters.len() {
            self.counters.copy_from_slice(&m.counters);
        }
    }

    /// Keep what this search learnt for the next one (see [`Searcher::load_memory`]).
    pub fn save_memory(&self, m: &mut Memory) {
        m.history.clone_from(&self.history);
        m.counters.clone_from(&self.counters);
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
        let slot = &mut self.eval_cache[eval_slot(key)];
        if slot.0 == key && key != 0 {
            return slot.1;
        }
        let v = evaluate(&self.pos, &self.ev);
        *slot = (key, v);
        v
    }

    fn make(&mut self, m: Move) -> crate::board::Undo {
        let key = self.pos.key();
        self.ev.apply(&self.pos, m);
        let u = self.pos.play(m);
        self.tt.prefetch(self.pos.key());
        super::tt::prefetch(&self.eval_cache[eval_slot(self.pos.key())]);
        self.keys.push(key);
        self.checks.push(self.pos.in_check_after(m));
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
