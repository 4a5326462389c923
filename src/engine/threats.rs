//! Threats against the side to move: its rooks, horses and cannons that the other side
//! attacks with a cheaper piece, or attacks while they are undefended. One such piece can
//! usually step away; two at once usually cost one of them. (Threats against the side not
//! to move are what quiescence searches: a quiet position has none that win by exchange.)

use super::eval::{Terms, W_THREAT};
use crate::board::attacks::{
    elephant_attacks, pawn_attacks, ADVISOR_MOVES, KING_MOVES,
};
use crate::board::{Color, Position, Role};

/// The squares one side attacks, by the kind of attacker.
#[derive(Clone, Copy, Default)]
pub struct Attacks {
    /// Pawns, advisors and elephants.
    pub low: u128,
    /// Horses and cannons.
    pub mid: u128,
    /// Rooks and the king.
    pub high: u128,
}

impl Attacks {
    /// Every square attacked.
    #[inline]
    pub fn all(&self) -> u128 {
        self.low | self.mid | self.high
    }
}

/// The squares `c` attacks with pawns, advisors, elephants and its king (the rooks', horses'
/// and cannons' come from the evaluation's mobility pass).
pub fn low_and_king(pos: &Position, c: Color, occ: u128, a: &mut Attacks) {
    for sq in pos.pieces(c, Role::Pawn) {
        a.low |= pawn_attacks(c, sq);
    }
    for sq in pos.pieces(c, Role::Advisor) {
        a.low |= ADVISOR_MOVES[sq.index()];
    }
    for sq in pos.pieces(c, Role::Elephant) {
        a.low |= elephant_attacks(sq, occ);
    }
    a.high |= KING_MOVES[pos.king(c).index()];
}

/// The threat terms of the side to move `us` (flat, as penalties): its rooks attacked by
/// a cheaper piece, its horses and cannons attacked by a pawn, advisor or elephant, and any
/// of them attacked and undefended; the first such piece and the second (or more) weigh
/// apart.
pub fn threats(pos: &Position, us: Color, ours: &Attacks, theirs: &Attacks, t: &mut impl Terms) {
    let undefended = theirs.all() & !ours.all();
    let rooks = pos.pieces(us, Role::Rook).bits();
    let minors = pos.pieces(us, Role::Horse).bits() | pos.pieces(us, Role::Cannon).bits();
    let hit = (rooks & (theirs.low | theirs.mid | undefended))
        | (minors & (theirs.low | undefended));
    let n = hit.count_ones() as i32;
    if n >= 1 {
        t.flat(W_THREAT, -1);
    }
    if n >= 2 {
        t.flat(W_THREAT + 1, -(n - 1));
    }
}
