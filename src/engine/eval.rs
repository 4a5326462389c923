//! Evaluation: material and piece-square tables, tapered between middle game and end game
//! by the remaining rooks, horses and cannons, plus king-shield basics. The piece-square
//! part is kept incrementally by [`EvalState`] as moves are made and unmade.

use super::params::{
    HOLLOW_CANNON, KING_ATTACK, KING_SHIELD, MOB_CANNON, MOB_HORSE, MOB_ROOK, PASSED_PAWN, PHASE,
    PHASE_MAX, SCREEN_CANNON, TEMPO, VALUE,
};
use crate::board::attacks::{cannon_captures, cannon_quiets, horse_attacks, rook_attacks};
use crate::board::{Bitboard, Color, Move, Piece, Position, Role, Square};
use std::sync::LazyLock;

/// (middle game, end game) value of a piece on a square, from its owner's point of view.
fn psq_value(p: Piece, sq: Square) -> (i32, i32) {
    // from the owner's side: rank 0 is its back rank
    let r = match p.color {
        Color::Red => sq.rank() as i32,
        Color::Black => 9 - sq.rank() as i32,
    };
    let f = sq.file() as i32;
    let cf = (f - 4).abs();
    let (vm, ve) = VALUE[p.role.index()];
    let (m, e) = match p.role {
        Role::King => (-4 * r - 3 * cf, -2 * r),
        Role::Advisor => (if f == 4 { 6 } else { 0 }, 0),
        Role::Elephant => (if f == 4 && r == 2 { 6 } else { 0 }, 0),
        Role::Horse => {
            let c = 4 - cf;
            let adv = if r >= 5 { 4 * (r - 4).min(3) } else { 2 * r };
            let back = if r == 0 { -12 } else { 0 };
            (
                3 * c + adv + back - if f == 0 || f == 8 { 10 } else { 0 },
                4 * c + adv / 2,
            )
        }
        Role::Rook => {
            let adv = if r >= 5 { 10 } else { 0 };
            (adv + if cf == 1 { 6 } else { 0 }, adv / 2)
        }
        Role::Cannon => {
            let center = if f == 4 && r <= 3 { 16 } else { 0 };
            (center + if r == 2 { 4 } else { 0 }, -5)
        }
        Role::Pawn => {
            if r >= 5 {
                let (pm, pe) = PASSED_PAWN[(r - 5) as usize];
                (pm + 6 * (4 - cf), pe + 4 * (4 - cf))
            } else {
                (
                    if r == 4 {
                        5 + if f == 4 { 8 } else { 0 }
                    } else {
                        0
                    },
                    0,
                )
            }
        }
    };
    (vm + m, ve + e)
}

static PSQ: LazyLock<[[(i32, i32); 90]; 14]> = LazyLock::new(|| {
    let mut t = [[(0, 0); 90]; 14];
    for c in Color::ALL {
        for r in Role::ALL {
            let p = Piece::new(c, r);
            for sq in Square::ALL {
                t[p.index()][sq.index()] = psq_value(p, sq);
            }
        }
    }
    t
});

/// Piece-square sums per side and the game phase, kept along the search.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EvalState {
    mg: [i32; 2],
    eg: [i32; 2],
    phase: i32,
}

impl EvalState {
    /// From scratch.
    pub fn new(pos: &Position) -> EvalState {
        let mut s = EvalState {
            mg: [0; 2],
            eg: [0; 2],
            phase: 0,
        };
        for (p, sq) in pos.piece_list() {
            let (m, e) = PSQ[p.index()][sq.index()];
            s.mg[p.color.index()] += m;
            s.eg[p.color.index()] += e;
            s.phase += PHASE[p.role.index()];
        }
        s
    }

    /// Update for `m` about to be played in `pos` (before the move).
    #[inline]
    pub fn apply(&mut self, pos: &Position, m: Move) {
        let Some(p) = pos.piece_at(m.from()) else {
            return;
        };
        let (fm, fe) = PSQ[p.index()][m.from().index()];
        let (tm, te) = PSQ[p.index()][m.to().index()];
        let c = p.color.index();
        self.mg[c] += tm - fm;
        self.eg[c] += te - fe;
        if let Some(x) = pos.piece_at(m.to()) {
            let (xm, xe) = PSQ[x.index()][m.to().index()];
            self.mg[x.color.index()] -= xm;
            self.eg[x.color.index()] -= xe;
            self.phase -= PHASE[x.role.index()];
        }
    }

    /// Game phase (0 = bare end game, PHASE_MAX = full board).
    pub fn phase(&self) -> i32 {
        self.phase
    }
}

/// Squares around a king that attackers aim at: its palace.
fn palace(c: Color) -> u128 {
    match c {
        Color::Red => Bitboard::RED_PALACE.bits(),
        Color::Black => Bitboard::BLACK_PALACE.bits(),
    }
}

/// Activity of `c`'s pieces (middle game, end game): mobility of rooks, horses (legs
/// checked) and cannons, attackers of the enemy palace, and cannons on the enemy king's file
/// with no screen (hollow cannon) or one.
fn activity(pos: &Position, c: Color) -> (i32, i32) {
    let occ = pos.occupied().bits();
    let own = pos.by_color(c).bits();
    let zone = palace(!c);
    let king = pos.king(!c);
    let (mut mg, mut eg) = (0, 0);
    let mut attackers = 0;
    let mut weight = 0;
    for sq in pos.pieces(c, Role::Rook) {
        let a = rook_attacks(sq, occ);
        let n = (a & !own).count_ones() as i32;
        mg += MOB_ROOK.0 * (n - 7);
        eg += MOB_ROOK.1 * (n - 7);
        if a & zone != 0 {
            attackers += 1;
            weight += KING_ATTACK[Role::Rook.index()];
        }
    }
    for sq in pos.pieces(c, Role::Horse) {
        let a = horse_attacks(sq, occ);
        let n = (a & !own).count_ones() as i32;
        mg += MOB_HORSE.0 * (n - 3);
        eg += MOB_HORSE.1 * (n - 3);
        if a & zone != 0 {
            attackers += 1;
            weight += KING_ATTACK[Role::Horse.index()];
        }
    }
    for sq in pos.pieces(c, Role::Cannon) {
        let q = cannon_quiets(sq, occ);
        let x = cannon_captures(sq, occ);
        let n = (q.count_ones() + (x & !own).count_ones()) as i32;
        mg += MOB_CANNON.0 * (n - 6);
        eg += MOB_CANNON.1 * (n - 6);
        if x & zone != 0 {
            attackers += 1;
            weight += KING_ATTACK[Role::Cannon.index()];
        }
        if sq.file() == king.file() {
            let (lo, hi) = if sq.rank() < king.rank() {
                (sq.rank(), king.rank())
            } else {
                (king.rank(), sq.rank())
            };
            let between = (lo + 1..hi)
                .filter(|&r| {
                    Square::from_coords(sq.file(), r).is_some_and(|s| pos.piece_at(s).is_some())
                })
                .count();
            match between {
                0 => mg += HOLLOW_CANNON,
                2 => mg += SCREEN_CANNON,
                _ => {}
            }
        }
    }
    if attackers >= 2 {
        mg += weight * attackers / 4;
    }
    (mg, eg)
}

/// Evaluation from the side to move's point of view, in centipawns.
pub fn evaluate(pos: &Position, st: &EvalState) -> i32 {
    let us = pos.turn().index();
    let them = 1 - us;
    let ph = st.phase.clamp(0, PHASE_MAX);
    let (am, ae) = activity(pos, pos.turn());
    let (bm, be) = activity(pos, !pos.turn());
    let mg = st.mg[us] - st.mg[them] + am - bm;
    let eg = st.eg[us] - st.eg[them] + ae - be;
    let mut v = (mg * ph + eg * (PHASE_MAX - ph)) / PHASE_MAX;
    // king shield: missing advisors and elephants count against enemy attackers
    for (c, sign) in [(pos.turn(), 1), (!pos.turn(), -1)] {
        let shield = pos.pieces(c, Role::Advisor).count() + pos.pieces(c, Role::Elephant).count();
        let enemy = !c;
        let attackers = pos.pieces(enemy, Role::Rook).count() * 2
            + pos.pieces(enemy, Role::Horse).count()
            + pos.pieces(enemy, Role::Cannon).count();
        v -= sign * (4 - shield as i32) * attackers as i32 * KING_SHIELD / 2;
    }
    v + TEMPO
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_is_balanced_and_incremental_matches_scratch() {
        let pos = Position::startpos();
        let st = EvalState::new(&pos);
        assert_eq!(evaluate(&pos, &st), TEMPO);
        // a hollow cannon (nothing between it and the enemy king) is worth more than the
        // same cannon a file away
        let hollow = Position::from_fen("4k4/9/9/9/9/9/9/4C4/9/3K5 w - - 0 1").unwrap();
        let off = Position::from_fen("4k4/9/9/9/9/9/9/5C3/9/3K5 w - - 0 1").unwrap();
        let (h, o) = (
            activity(&hollow, Color::Red).0,
            activity(&off, Color::Red).0,
        );
        assert!(h >= o + HOLLOW_CANNON - 2 * MOB_CANNON.0 * 4, "{h} {o}");
        let mut p = pos.clone();
        let mut s = st;
        for m in ["h2e2", "h9g7", "e2e6", "g6g5", "e6a6"] {
            let m: Move = m.parse().unwrap();
            s.apply(&p, m);
            p.play(m);
            assert_eq!(s, EvalState::new(&p));
        }
        // the mirror image evaluates the same
        assert_eq!(
            evaluate(&p, &s),
            evaluate(&p.mirror(), &EvalState::new(&p.mirror()))
        );
    }
}
