//! Evaluation: material and piece-square tables (every entry a tuned weight:
//! [`super::pst`]), tapered between middle game and end game by the remaining rooks, horses
//! and cannons, plus mobility, palace attacks, cannon files and the king shield. The
//! material and piece-square part is kept incrementally by [`EvalState`] as moves are made
//! and unmade.
//!
//! Every weighted term is written once, against a [`Terms`] sink: the engine's sink adds
//! weight times coefficient (with the tuned weights of [`super::weights`]), the tuner's
//! records the coefficients. The evaluation is linear in the weights, which is what lets
//! the tuner work on coefficient vectors (Texel's method).

use super::params::{PHASE, PHASE_MAX, TEMPO};
use super::pst::{folded, pst_index, PST_LEN, W_PST};
use super::weights::TUNED;
use crate::board::attacks::{cannon_attacks, horse_attacks, rook_attacks, NORTH, RAYS, SOUTH};
use crate::board::{Bitboard, Color, Move, Piece, Position, Role, Square};
use std::sync::LazyLock;

/// The weighted terms of a piece on a square, from its owner's point of view: its material,
/// the pawn's bonus past the river and the piece-square weights (middle game, end game).
fn psq_terms(p: Piece, sq: Square, t: &mut impl Terms) {
    let (r, f) = folded(p.color, sq);
    if p.role != Role::King {
        let v = W_VALUE + 2 * (p.role.index() - 1);
        t.mg(v, 1);
        t.eg(v + 1, 1);
    }
    if p.role == Role::Pawn && r >= 5 {
        let k = W_PASSED + 2 * (r - 5);
        t.mg(k, 1);
        t.eg(k + 1, 1);
    }
    t.mg(pst_index(p.role, false, r, f), 1);
    t.eg(pst_index(p.role, true, r, f), 1);
}

/// (middle game, end game) value of a piece on a square with the tuned weights.
fn psq_value(p: Piece, sq: Square) -> (i32, i32) {
    let mut t = Weighted::default();
    psq_terms(p, sq, &mut t);
    (t.mg, t.eg)
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

    /// What the piece `p` on `sq` adds to its side's evaluation (material and piece-square
    /// weights, tapered by this phase): the gain of capturing it, for delta pruning.
    #[inline]
    pub fn piece_value(&self, p: Piece, sq: Square) -> i32 {
        let (m, e) = PSQ[p.index()][sq.index()];
        let ph = self.phase.clamp(0, PHASE_MAX);
        (m * ph + e * (PHASE_MAX - ph)) / PHASE_MAX
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
/// Number of tuned weights: the 34 named in [`PARAM_NAMES`], then the piece-square tables
/// ([`super::pst`]).
pub const NUM_PARAMS: usize = W_PST + PST_LEN;

/// The name of weight `i`: one of [`PARAM_NAMES`] or a piece-square weight's
/// (`pst_horse_mg_r3c`).
pub fn param_name(i: usize) -> Option<String> {
    PARAM_NAMES
        .get(i)
        .map(|n| n.to_string())
        .or_else(|| super::pst::pst_name(i))
}

/// The least value of weight `i` the tuner gives it: the named weights are kept at 0 or
/// more (each is a bonus of a known sign), the piece-square weights take either sign.
pub fn lower_bound(i: usize) -> f64 {
    if i < W_PST {
        0.0
    } else {
        f64::NEG_INFINITY
    }
}

/// The names of the weights before the piece-square tables, in order (as written in
/// `src/engine/weights.rs`).
pub const PARAM_NAMES: [&str; W_PST] = [
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
        let (q, x) = cannon_attacks(sq, occ);
        let n = (q.count_ones() + (x & !own).count_ones()) as i32;
        t.mg(W_MOBILITY + 4, n - 6);
        t.eg(W_MOBILITY + 5, n - 6);
        if x & zone != 0 {
            attackers += 1;
            kinds[2] += 1;
        }
        if sq.file() == king.file() {
            // the points strictly between the cannon and the king: the cannon's ray towards
            // the king less the king's own ray on, and the king
            let dir = if sq.rank() < king.rank() {
                NORTH
            } else {
                SOUTH
            };
            let gap = RAYS[sq.index()][dir] ^ RAYS[king.index()][dir] ^ king.bit();
            match (gap & occ).count_ones() {
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
    /// The part that does not depend on the tuned weights (the tempo).
    pub fixed: f32,
    /// The weights with a coefficient other than 0 and their coefficients, taper applied,
    /// by increasing weight index.
    pub coef: Vec<(u16, f32)>,
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
    let mut phase = 0;
    for (p, sq) in pos.piece_list() {
        phase += PHASE[p.role.index()];
        if p.color == pos.turn() {
            psq_terms(p, sq, &mut c);
        } else {
            psq_terms(p, sq, &mut Neg(&mut c));
        }
    }
    activity(pos, pos.turn(), &mut c);
    activity(pos, !pos.turn(), &mut Neg(&mut c));
    shield(pos, pos.turn(), &mut c);
    shield(pos, !pos.turn(), &mut Neg(&mut c));
    let ph = phase.clamp(0, PHASE_MAX) as f32 / PHASE_MAX as f32;
    let coef = (0..NUM_PARAMS)
        .filter_map(|w| {
            let x = c.mg[w] * ph + c.eg[w] * (1.0 - ph) + c.flat[w];
            (x != 0.0).then_some((w as u16, x))
        })
        .collect();
    Linear {
        fixed: TEMPO as f32,
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
                    .map(|&(i, c)| c * TUNED[i as usize] as f32)
                    .sum::<f32>();
            let e = evaluate(&pos, &EvalState::new(&pos));
            assert!(
                (v - e as f32).abs() <= 2.0,
                "{fen}: linear {v}, evaluate {e}"
            );
        }
    }
}
