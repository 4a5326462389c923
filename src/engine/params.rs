//! Tunable constants of the engine, in one place.

/// Piece values (middle game, end game) in centipawns, by role index
/// (king, advisor, elephant, horse, rook, cannon, pawn).
pub const VALUE: [(i32, i32); 7] = [
    (0, 0),
    (120, 110),
    (120, 110),
    (270, 300),
    (600, 650),
    (285, 255),
    (30, 60),
];
/// Extra for a pawn that has crossed the river, by how far it went (0 = just crossed).
pub const PASSED_PAWN: [(i32, i32); 5] = [(40, 60), (55, 80), (60, 90), (45, 70), (10, 30)];
/// Phase weight of each role (rooks, horses, cannons count; a full board is 2*(2*6+2*3+2*3)).
pub const PHASE: [i32; 7] = [0, 0, 0, 3, 6, 3, 0];
/// Phase of the full board.
pub const PHASE_MAX: i32 = 48;
/// Penalty per missing advisor or elephant, per enemy attacking piece (rook, horse, cannon).
pub const KING_SHIELD: i32 = 12;
/// Mobility per square (middle game, end game), counted from a typical number (rook 7,
/// horse 3, cannon 6).
pub const MOB_ROOK: (i32, i32) = (4, 5);
/// Horse mobility per square (legs checked).
pub const MOB_HORSE: (i32, i32) = (9, 8);
/// Cannon mobility per square.
pub const MOB_CANNON: (i32, i32) = (2, 2);
/// King attack weight of each attacker of the enemy palace, by role index; with two or more
/// attackers the sum times their number / 4 counts in the middle game.
pub const KING_ATTACK: [i32; 7] = [0, 0, 0, 20, 25, 18, 0];
/// Cannon on the enemy king's file with nothing between (空头炮).
pub const HOLLOW_CANNON: i32 = 60;
/// Cannon on the enemy king's file with two pieces between (the central cannon's pressure:
/// one piece moving off gives check).
pub const SCREEN_CANNON: i32 = 15;
/// Bonus for the side to move.
pub const TEMPO: i32 = 10;
/// Aspiration window half width.
pub const ASPIRATION: i32 = 40;
/// Null move: base reduction.
pub const NULL_R: i32 = 2;
/// Null move needs at least this much non-pawn material for the side to move (in phase units).
pub const NULL_MIN_PHASE: i32 = 6;
/// Reverse futility pruning: up to this depth, a node whose static evaluation is this much
/// per ply above beta returns it.
pub const RFP_DEPTH: i32 = 6;
/// Reverse futility margin per ply.
pub const RFP_MARGIN: i32 = 90;
/// Razoring: up to this depth, a node this much per ply below alpha is tried with captures
/// only. Off (0): at depth 2 it lost forced mates (4 instead of 5 of the 111 ccpd mate records
/// at 300,000 nodes, tests/engine.rs).
pub const RAZOR_DEPTH: i32 = 0;
/// Razoring margin per ply.
pub const RAZOR_MARGIN: i32 = 250;
/// Futility pruning of quiet moves up to this depth.
pub const FUTILITY_DEPTH: i32 = 4;
/// Futility margin: base plus per ply.
pub const FUTILITY_BASE: i32 = 80;
/// Futility margin per ply.
pub const FUTILITY_MARGIN: i32 = 90;
/// Late move pruning up to this depth: after LMP_BASE + depth^2 quiet moves.
pub const LMP_DEPTH: i32 = 4;
/// Late move pruning base count.
pub const LMP_BASE: usize = 4;
/// Late move reductions start after this many moves.
pub const LMR_MOVES: usize = 3;
/// Quiescence: skip captures that cannot raise alpha by this margin.
pub const DELTA_MARGIN: i32 = 200;
/// Time kept back on every move for the protocol and process overhead, in milliseconds.
pub const MOVE_OVERHEAD_MS: u64 = 50;
/// One move never takes more than the remaining clock divided by this.
pub const MAX_SHARE_OF_CLOCK: u64 = 10;
/// Default transposition table size in MiB.
pub const DEFAULT_HASH_MB: usize = 64;
