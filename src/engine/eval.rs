//! Evaluation: material and piece-square tables, tapered between middle game and end game
//! by the remaining rooks, horses and cannons, plus king-shield basics. The piece-square
//! part is kept incrementally by [`EvalState`] as moves are made and unmade.
//!
//! Every weighted term is written once, against a [`Terms`] sink: the engine's sink adds
//! weight times coefficient (with the tuned weights of [`super::weights`]), the tuner's
//! records the coefficients. The evaluation is linear in the weights, which is what lets
//! the tuner work on coefficient vectors (Texel's method).

use super::params::{PHASE, PHASE_MAX, TEMPO};
use super::weights::TUNED;
use crate::board::attacks::{cannon_captures, cannon_quiets, horse_attacks, rook_attacks};
use crate::board::{Bitboard, Color, Move, Piece, Position, Role, Square};
use std::sync::LazyLock;

/// The weighted terms of a piece on a square, from its owner's point of view: its material
/// and the pawn's bonus past the river into `t`; returns the fixed (not tuned) shape of the
/// piece-square table (middle game, end game).
fn psq_terms(p: Piece, sq: Square, t: &mut impl Terms) -> (i32, i32) {
    // from the owner's side: rank 0 is its back rank
    let r = match p.color {
        Color::Red => sq.rank() as i32,
        Color::Black => 9 - sq.rank() as i32,
    };
    let f = sq.file() as i32;
    let cf = (f - 4).abs();
    if p.role != Role::King {
        let v = W_VALUE + 2 * (p.role.index() - 1);
        t.mg(v, 1);
        t.eg(v + 1, 1);
    }
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
                let k = W_PASSED + 2 * (r - 5) as usize;
                t.mg(k, 1);
                t.eg(k + 1, 1);
                (6 * (4 - cf), 4 * (4 - cf))
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
    (m, e)
}

/// (middle game, end game) value of a piece on a square with the tuned weights.
fn psq_value(p: Piece, sq: Square) -> (i32, i32) {
    let mut t = Weighted::default();
    let (m, e) = psq_terms(p, sq, &mut t);
    (m + t.mg, e + t.eg)
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

/// Index of the first tuned weight of each kind (see [`PARAM_NAMES`]): material of the
/// advisor, elephant, horse, rook, cannon and pawn (middle game, end game each).
pub const W_VALUE: usize = 0;
/// Pawn past the river, by how far it went (0 = just crossed), middle game and end game.
pub const W_PASSED: usize = 12;
/// King shield: per missing advisor or elephant and enemy attacking piece (rooks twice).
pub const W_SHIELD: usize = 22;
/// Mobility per square of rooks, horses (legs checked), cannons (middle game, end game each),
/// counted from a typical number (rook 7, horse 3, cannon 6).
pub const W_MOBILITY: usize = 23;
/// Attack weight on the enemy palace of horses, rooks and cannons: with two or more
/// attackers the sum times their number / 4 counts in the middle game.
pub const W_KING_ATTACK: usize = 29;
/// Cannon on the enemy king's file with nothing between (空头炮).
pub const W_HOLLOW_CANNON: usize = 32;
/// Cannon on the enemy king's file with two pieces between (the central cannon's pressure).
pub const W_SCREEN_CANNON: usize = 33;
/// Number of tuned weights.
pub const NUM_PARAMS: usize = 34;

/// The tuned weights' names, in order (as written in `src/engine/weights.rs`).
pub const PARAM_NAMES: [&str; NUM_PARAMS] = [
    "advisor_mg",
    "advisor_eg",
    "elephant_mg",
    "elephant_eg",
    "horse_mg",
    "horse_eg",
    "rook_mg",
    "rook_eg",
    "cannon_mg",
    "cannon_eg",
    "pawn_mg",
    "pawn_eg",
    "passed0_mg",
    "passed0_eg",
    "passed1_mg",
    "passed1_eg",
    "passed2_mg",
    "passed2_eg",
    "passed3_mg",
    "passed3_eg",
    "passed4_mg",
    "passed4_eg",
    "king_shield",
    "mob_rook_mg",
    "mob_rook_eg",
    "mob_horse_mg",
    "mob_horse_eg",
    "mob_cannon_mg",
    "mob_cannon_eg",
    "king_attack_horse",
    "king_attack_rook",
    "king_attack_cannon",
    "hollow_cannon",
    "screen_cannon",
];

/// Receives the weighted terms of an evaluation: weight `w` times `num / den`, into the
/// middle game, the end game, or after the taper (flat).
pub trait Terms {
    /// A middle-game term.
    fn mg(&mut self, w: usize, coef: i32);
    /// An end-game term.
    fn eg(&mut self, w: usize, coef: i32);
    /// A middle-game term with a fractional coefficient `num / den`.
    fn mg_frac(&mut self, w: usize, num: i32, den: i32);
    /// A term added after the taper.
    fn flat(&mut self, w: usize, coef: i32);
}

/// Adds the tuned weights times their coefficients.
#[derive(Default)]
struct Weighted {
    mg: i32,
    eg: i32,
    flat: i32,
}

impl Terms for Weighted {
    #[inline(always)]
    fn mg(&mut self, w: usize, coef: i32) {
        self.mg += TUNED[w] * coef;
    }
    #[inline(always)]
    fn eg(&mut self, w: usize, coef: i32) {
        self.eg += TUNED[w] * coef;
    }
    #[inline(always)]
    fn mg_frac(&mut self, w: usize, num: i32, den: i32) {
        self.mg += TUNED[w] * num / den;
    }
    #[inline(always)]
    fn flat(&mut self, w: usize, coef: i32) {
        self.flat += TUNED[w] * coef;
    }
}

/// Squares around a king that attackers aim at: its palace.
fn palace(c: Color) -> u128 {
    match c {
        Color::Red => Bitboard::RED_PALACE.bits(),
        Color::Black => Bitboard::BLACK_PALACE.bits(),
    }
}

/// A sink that negates the coefficients (the other side's terms).
struct Neg<'a, T: Terms>(&'a mut T);

impl<T: Terms> Terms for Neg<'_, T> {
    #[inline(always)]
    fn mg(&mut self, w: usize, coef: i32) {
        self.0.mg(w, -coef);
    }
    #[inline(always)]
    fn eg(&mut self, w: usize, coef: i32) {
        self.0.eg(w, -coef);
    }
    #[inline(always)]
    fn mg_frac(&mut self, w: usize, num: i32, den: i32) {
        self.0.mg_frac(w, -num, den);
    }
    #[inline(always)]
    fn flat(&mut self, w: usize, coef: i32) {
        self.0.flat(w, -coef);
    }
}

/// Activity of `c`'s pieces: mobility of rooks, horses (legs checked) and cannons,
/// attackers of the enemy palace, and cannons on the enemy king's file with no screen
/// (hollow cannon) or two.
fn activity(pos: &Position, c: Color, t: &mut impl Terms) {
    let occ = pos.occupied().bits();
    let own = pos.by_color(c).bits();
    let zone = palace(!c);
    let king = pos.king(!c);
    let mut attackers = 0;
    // attackers of the palace by kind: horse, rook, cannon
    let mut kinds = [0i32; 3];
    for sq in pos.pieces(c, Role::Rook) {
        let a = rook_attacks(sq, occ);
        let n = (a & !own).count_ones() as i32;
        t.mg(W_MOBILITY, n - 7);
        t.eg(W_MOBILITY + 1, n - 7);
        if a & zone != 0 {
            attackers += 1;
            kinds[1] += 1;
        }
    }
    for sq in pos.pieces(c, Role::Horse) {
        let a = horse_attacks(sq, occ);
        let n = (a & !own).count_ones() as i32;
        t.mg(W_MOBILITY + 2, n - 3);
        t.eg(W_MOBILITY + 3, n - 3);
        if a & zone != 0 {
            attackers += 1;
            kinds[0] += 1;
        }
    }
    for sq in pos.pieces(c, Role::Cannon) {
        let q = cannon_quiets(sq, occ);
        let x = cannon_captures(sq, occ);
        let n = (q.count_ones() + (x & !own).count_ones()) as i32;
        t.mg(W_MOBILITY + 4, n - 6);
        t.eg(W_MOBILITY + 5, n - 6);
        if x & zone != 0 {
            attackers += 1;
            kinds[2] += 1;
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
                0 => t.mg(W_HOLLOW_CANNON, 1),
                2 => t.mg(W_SCREEN_CANNON, 1),
                _ => {}
            }
        }
    }
    if attackers >= 2 {
        for (k, &n) in kinds.iter().enumerate() {
            if n > 0 {
                t.mg_frac(W_KING_ATTACK + k, n * attackers, 4);
            }
        }
    }
}

/// The king-shield terms of `c` (after the taper): missing advisors and elephants count
/// against the enemy's attacking pieces.
fn shield(pos: &Position, c: Color, t: &mut impl Terms) {
    let kept = pos.pieces(c, Role::Advisor).count() + pos.pieces(c, Role::Elephant).count();
    let enemy = !c;
    let attackers = pos.pieces(enemy, Role::Rook).count() * 2
        + pos.pieces(enemy, Role::Horse).count()
        + pos.pieces(enemy, Role::Cannon).count();
    t.flat(W_SHIELD, -(4 - kept as i32) * attackers as i32);
}

/// Evaluation from the side to move's point of view, in centipawns.
pub fn evaluate(pos: &Position, st: &EvalState) -> i32 {
    let us = pos.turn().index();
    let them = 1 - us;
    let ph = st.phase.clamp(0, PHASE_MAX);
    let mut t = Weighted::default();
    activity(pos, pos.turn(), &mut t);
    activity(pos, !pos.turn(), &mut Neg(&mut t));
    shield(pos, pos.turn(), &mut t);
    shield(pos, !pos.turn(), &mut Neg(&mut t));
    let mg = st.mg[us] - st.mg[them] + t.mg;
    let eg = st.eg[us] - st.eg[them] + t.eg;
    (mg * ph + eg * (PHASE_MAX - ph)) / PHASE_MAX + t.flat + TEMPO
}

/// The evaluation as a linear function of the weights, from the side to move's point of
/// view: `evaluate ≈ fixed + Σ coef[w] × weight[w]` (equal up to the integer roundings of
/// the engine's sum). For the tuner.
#[derive(Clone, Debug, PartialEq)]
pub struct Linear {
    /// The part that does not depend on the tuned weights (piece-square shapes, tempo).
    pub fixed: f32,
    /// The coefficient of each weight, taper applied.
    pub coef: [f32; NUM_PARAMS],
}

/// Records coefficients, split into middle game, end game and flat.
struct Coefs {
    mg: [f32; NUM_PARAMS],
    eg: [f32; NUM_PARAMS],
    flat: [f32; NUM_PARAMS],
}

impl Terms for Coefs {
    fn mg(&mut self, w: usize, coef: i32) {
        self.mg[w] += coef as f32;
    }
    fn eg(&mut self, w: usize, coef: i32) {
        self.eg[w] += coef as f32;
    }
    fn mg_frac(&mut self, w: usize, num: i32, den: i32) {
        self.mg[w] += num as f32 / den as f32;
    }
    fn flat(&mut self, w: usize, coef: i32) {
        self.flat[w] += coef as f32;
    }
}

/// The evaluation of `pos` as a linear function of the weights (see [`Linear`]).
pub fn linear(pos: &Position) -> Linear {
    let mut c = Coefs {
        mg: [0.0; NUM_PARAMS],
        eg: [0.0; NUM_PARAMS],
        flat: [0.0; NUM_PARAMS],
    };
    let (mut fm, mut fe) = (0, 0);
    let mut phase = 0;
    for (p, sq) in pos.piece_list() {
        phase += PHASE[p.role.index()];
        let (m, e) = if p.color == pos.turn() {
            psq_terms(p, sq, &mut c)
        } else {
            let (m, e) = psq_terms(p, sq, &mut Neg(&mut c));
            (-m, -e)
        };
        fm += m;
        fe += e;
    }
    activity(pos, pos.turn(), &mut c);
    activity(pos, !pos.turn(), &mut Neg(&mut c));
    shield(pos, pos.turn(), &mut c);
    shield(pos, !pos.turn(), &mut Neg(&mut c));
    let ph = phase.clamp(0, PHASE_MAX) as f32 / PHASE_MAX as f32;
    let mut coef = [0.0; NUM_PARAMS];
    for (w, x) in coef.iter_mut().enumerate() {
        *x = c.mg[w] * ph + c.eg[w] * (1.0 - ph) + c.flat[w];
    }
    Linear {
        fixed: fm as f32 * ph + fe as f32 * (1.0 - ph) + TEMPO as f32,
        coef,
    }
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
        let act = |p: &Position| {
            let mut t = Weighted::default();
            activity(p, Color::Red, &mut t);
            t.mg
        };
        let (h, o) = (act(&hollow), act(&off));
        assert!(
            h >= o + TUNED[W_HOLLOW_CANNON] - 2 * TUNED[W_MOBILITY + 4] * 4,
            "{h} {o}"
        );
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

    /// The linear form the tuner uses gives the engine's evaluation with the tuned weights,
    /// up to the engine's integer roundings, on positions of every phase and both sides to
    /// move.
    #[test]
    fn linear_form_matches_the_evaluation() {
        let mut fens: Vec<String> = super::super::search::BENCH_FENS
            .iter()
            .map(|f| f.to_string())
            .collect();
        fens.push("4k4/9/9/9/9/9/9/4C4/9/3K5 w - - 0 1".into());
        fens.push("3akab2/9/4b4/p3C3p/2R3p2/9/P5n1P/4B4/4A4/3K1ABc1 b - - 0 1".into());
        for fen in fens {
            let pos = Position::from_fen(&fen).expect("test FEN is legal");
            let l = linear(&pos);
            let v: f32 = l.fixed
                + l.coef
                    .iter()
                    .zip(TUNED)
                    .map(|(c, w)| c * w as f32)
                    .sum::<f32>();
            let e = evaluate(&pos, &EvalState::new(&pos));
            assert!(
                (v - e as f32).abs() <= 2.0,
                "{fen}: linear {v}, evaluate {e}"
            );
        }
    }
}
