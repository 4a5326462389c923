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
/// Bonus for the side to move.
pub const TEMPO: i32 = 10;
/// Aspiration window half width.
pub const ASPIRATION: i32 = 40;
/// Null move: base reduction.
pub const NULL_R: i32 = 2;
/// Null move needs at least this much non-pawn material for the side to move (in phase units).
pub const NULL_MIN_PHASE: i32 = 6;
/// Late move reductions start after this many moves.
pub const LMR_MOVES: usize = 3;
/// Quiescence: skip captures that cannot raise alpha by this margin.
pub const DELTA_MARGIN: i32 = 200;
/// Default transposition table size in MiB.
pub const DEFAULT_HASH_MB: usize = 64;
