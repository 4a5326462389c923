//! A cheap necessary condition for a quiet move to give check, so that quiescence plays on
//! the board only the few quiet moves that can (s24: a speed change, the same tree).
//!
//! A move from `f` to `t` can check the enemy king on `k` only
//! - directly: a rook, cannon, pawn or the king arriving on `k`'s rank or file (a pawn
//!   attacks orthogonally, the king by facing), or a horse arriving a horse's jump from `k`;
//! - by discovery: `f` on `k`'s rank or file (a rook or cannon line opened, a cannon's two
//!   screens made one), or `f` diagonally next to `k` (the leg of a horse freed);
//! - by a new screen: `t` on `k`'s rank or file (a cannon behind gets its screen).
//!
//! Advisors and elephants never attack the king themselves, so every case is covered by
//! "`f` or `t` on `k`'s lines, `f` on a diagonal neighbour, or a horse arriving on a square
//! from which a horse can attack `k`".
//!
//! [`CheckZone::candidates`] generates only the quiet moves that pass this test, and
//! [`Position::gives_check`] tells on the bitboards whether one of them checks, without
//! playing it (s48: a speed change, the same tree).

use crate::board::attacks::{HORSE_ATTACKER_LEG, HORSE_ATTACKER_SRC};
use crate::board::{Bitboard, Move, MoveList, Position, Role};

/// The squares that matter for checks against one king.
#[derive(Copy, Clone, Debug)]
pub struct CheckZone {
    /// The king's rank and file.
    line: u128,
    /// Squares a moving piece may leave to give check: the lines and the horse legs.
    from: u128,
    /// Squares from which a horse attacks the king when its leg is free.
    horse: u128,
}

impl CheckZone {
    /// The zone of the king the side to move would check.
    pub fn new(pos: &Position) -> CheckZone {
        let k = pos.king(!pos.turn());
        let line = Bitboard::rank(k.rank()).bits() | Bitboard::file(k.file()).bits();
        let legs = HORSE_ATTACKER_LEG[k.index()].iter().fold(0, |a, &b| a | b);
        let horse = HORSE_ATTACKER_SRC[k.index()].iter().fold(0, |a, &b| a | b);
        CheckZone {
            line,
            from: line | legs,
            horse,
        }
    }

    /// The quiet legal moves that [`CheckZone::may_check`] passes, in the order of
    /// [`Position::quiet_moves`], generated without the others (whether one gives check is
    /// then [`Position::gives_check`]).
    pub fn candidates(&self, pos: &Position) -> MoveList {
        pos.quiet_moves_within(self.from, self.line, self.horse)
    }

    /// False when the quiet move `m` of the side to move surely does not give check; true
    /// when it may (the caller plays it to know).
    #[inline]
    pub fn may_check(&self, pos: &Position, m: Move) -> bool {
        if m.from().bit() & self.from != 0 || m.to().bit() & self.line != 0 {
            return true;
        }
        m.to().bit() & self.horse != 0
            && pos
                .piece_at(m.from())
                .is_some_and(|p| p.role == Role::Horse)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::search::BENCH_FENS;

    /// Every quiet move that gives check passes the filter, over random games from the
    /// bench positions (a small linear congruential generator picks the moves).
    #[test]
    fn every_checking_quiet_move_passes() {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut checks = 0;
        let mut filtered = 0;
        let mut quiets = 0;
        for fen in BENCH_FENS {
            for _ in 0..40 {
                let mut pos = Position::from_fen(fen).expect("bench FENs are valid");
                for _ in 0..120 {
                    let zone = CheckZone::new(&pos);
                    let passed: Vec<Move> = pos
                        .quiet_moves()
                        .into_iter()
                        .filter(|&m| zone.may_check(&pos, m))
                        .collect();
                    assert_eq!(zone.candidates(&pos).to_vec(), passed, "{}", pos.to_fen());
                    for m in pos.legal_moves() {
                        assert_eq!(pos.gives_check(m), pos.after(m).in_check(), "{m:?}");
                    }
                    for m in pos.quiet_moves() {
                        quiets += 1;
                        let gives = pos.after(m).in_check();
                        let may = zone.may_check(&pos, m);
                        assert!(
                            !gives || may,
                            "{m:?} checks in {} but was filtered",
                            pos.to_fen()
                        );
                        checks += gives as usize;
                        filtered += (!may) as usize;
                    }
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let m = moves[(seed >> 33) as usize % moves.len()];
                    pos.play(m);
                }
            }
        }
        assert!(checks > 100, "only {checks} checking quiet moves seen");
        // the filter is worth having: most quiet moves are passed over
        assert!(filtered * 2 > quiets, "{filtered} of {quiets} filtered");
    }
}
