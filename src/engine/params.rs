//! Tunable constants of the engine, in one place; the evaluation's weights, set by the
//! tuner, are in `weights.rs`.

/// Piece values (middle game, end game) in centipawns, by role index
/// (king, advisor, elephant, horse, rook, cannon, pawn), for move ordering, static exchange
/// and quiescence margins (the evaluation's material is tuned: `weights.rs`).
pub const VALUE: [(i32, i32); 7] = [
    (0, 0),
    (120, 110),
    (120, 110),
    (270, 300),
    (600, 650),
    (285, 255),
    (30, 60),
];
/// Phase weight of each role (rooks, horses, cannons count; a full board is 2*(2*6+2*3+2*3)).
pub const PHASE: [i32; 7] = [0, 0, 0, 3, 6, 3, 0];
/// Phase of the full board.
pub const PHASE_MAX: i32 = 48;
/// Bonus for the side to move.
pub const TEMPO: i32 = 10;
/// Aspiration window half width.
pub const ASPIRATION: i32 = 40;
/// Null move: base reduction (plus a ply per 3 of depth and per [`NULL_EVAL_STEP`] of the
/// static evaluation above beta, at most 2 of those).
pub const NULL_R: i32 = 3;
/// Null move: an extra ply of reduction per this many centipawns above beta.
pub const NULL_EVAL_STEP: i32 = 200;
/// Null move needs at least this much non-pawn material for the side to move (in phase units).
pub const NULL_MIN_PHASE: i32 = 6;
/// Reverse futility pruning: up to this depth, a node whose static evaluation is this much
/// per ply above beta returns it.
pub const RFP_DEPTH: i32 = 6;
/// Reverse futility margin per ply (75, was 90: s21).
pub const RFP_MARGIN: i32 = 75;
/// Razoring: up to this depth, a node this much per ply below alpha is tried with captures
/// only. Off (0): at depth 2 it lost forced mates (4 instead of 5 of the 111 ccpd mate records
/// at 300,000 nodes, tests/engine.rs).
pub const RAZOR_DEPTH: i32 = 0;
/// Razoring margin per ply.
pub const RAZOR_MARGIN: i32 = 250;
/// ProbCut from this depth: a capture that holds this far above beta four plies shallower
/// settles the node.
pub const PROBCUT_DEPTH: i32 = 5;
/// ProbCut margin above beta (250, s42; 200 in s41, 150 no better in self-play).
pub const PROBCUT_MARGIN: i32 = 250;
/// Futility pruning of quiet moves up to this depth, counted after the move's late move
/// reduction (s45).
pub const FUTILITY_DEPTH: i32 = 5;
/// Futility margin: base plus per ply. Base 20 (was 80, s20): over the quiet non-checking
/// moves of 125,250 ccpd positions, the best one raises the static evaluation by at most
/// 114 cp in 99 % of them (178 in 99.9 %), so 110 at depth 1 is already a wide margin.
pub const FUTILITY_BASE: i32 = 20;
/// Futility margin per ply.
pub const FUTILITY_MARGIN: i32 = 90;
/// Late move pruning up to this depth: after LMP_BASE + depth^2 quiet moves.
pub const LMP_DEPTH: i32 = 4;
/// Late move pruning base count.
pub const LMP_BASE: usize = 4;
/// Late move reduction table: `LMR_BASE + ln depth · ln move / LMR_DIVISOR`, rounded down.
/// Base 0.25 (was 0.5, s50): a ply less wherever the logarithmic part's fraction lies
/// between 0.5 and 0.75 (at depth 3 the 4th and 5th move and the 23rd to 37th, at depth 4
/// the 4th and the 13th to 18th).
pub const LMR_BASE: f64 = 0.25;
/// Late move reduction divisor (2.25; 1.9 and 2.6 were rejected in self-play).
pub const LMR_DIVISOR: f64 = 2.25;
/// Late move reductions start after this many moves.
pub const LMR_MOVES: usize = 3;
/// Quiescence: skip captures that cannot raise alpha by this margin.
pub const DELTA_MARGIN: i32 = 200;
/// Time kept back on every move for the protocol and process overhead, in milliseconds.
pub const MOVE_OVERHEAD_MS: u64 = 50;
/// The moves to go on a clock that does not say (a thirtieth of the clock per move at the
/// start)...
pub const MOVES_TO_GO: u64 = 30;
/// ...one fewer per this many moves played...
pub const MOVES_TO_GO_STEP: u64 = 4;
/// ...and never fewer than this (from move 72; s46).
pub const MOVES_TO_GO_MIN: u64 = 12;
/// One move never takes more than the remaining clock divided by this.
pub const MAX_SHARE_OF_CLOCK: u64 = 10;
/// The soft time limit in percent, by the number of iterations in a row that ended on the
/// same best move (0, 1, 2, 3, 4 or more): more time while the choice changes.
pub const TIME_STABILITY: [u32; 5] = [150, 115, 100, 85, 70];
/// A score this many centipawns below the last iteration's stretches the soft limit...
pub const TIME_SCORE_DROP: i32 = 30;
/// ...to this percent of itself.
pub const TIME_DROP_PERCENT: u32 = 140;
/// Default transposition table size in MiB.
pub const DEFAULT_HASH_MB: usize = 64;
