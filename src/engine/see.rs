//! Static exchange evaluation: the material a capture wins or loses when both sides keep
//! recapturing on its square with their least valuable piece, each free to stop.
//!
//! Xiangqi's attacks are recomputed on the occupancy after every capture, so a cannon that
//! gains a screen (a piece moving onto the square between it and the target does not happen
//! here, but a piece leaving can turn a second piece into its screen) or loses one, a rook
//! behind a piece that captured, and a horse whose leg was freed all come and go as they
//! would on the board. Advisors, elephants (eyes checked) and the king (palace steps; it
//! never captures onto a square the other side still attacks) take part. Pins are ignored,
//! as usual for SEE.

use super::params::VALUE;
use crate::board::attacks::{elephant_attacks, ADVISOR_MOVES, KING_MOVES};
use crate::board::{Color, Move, Position, Role};

/// Value of the king in an exchange: more than everything else together.
const KING_VALUE: i32 = 20_000;

fn value(r: Role) -> i32 {
    if r == Role::King {
        KING_VALUE
    } else {
        VALUE[r.index()].0
    }
}

/// Every piece of `by` (within `occ`) that attacks `sq` on the occupancy `occ`.
fn attackers(pos: &Position, sq: crate::board::Square, by: Color, occ: u128) -> u128 {
    let theirs = pos.by_color(by).bits() & occ;
    let mut a = pos.attackers_with(sq, by, occ, theirs);
    let i = sq.index();
    a |= ADVISOR_MOVES[i] & pos.pieces(by, Role::Advisor).bits() & occ;
    a |= elephant_attacks(sq, occ) & pos.pieces(by, Role::Elephant).bits() & occ;
    a |= KING_MOVES[i] & pos.pieces(by, Role::King).bits() & occ;
    a
}

/// The least valuable piece in `set` (pawns first, the king last): its square and role.
fn least_valuable(pos: &Position, set: u128, by: Color) -> Option<(u128, Role)> {
    const ORDER: [Role; 7] = [
        Role::Pawn,
        Role::Advisor,
        Role::Elephant,
        Role::Horse,
        Role::Cannon,
        Role::Rook,
        Role::King,
    ];
    for r in ORDER {
        let b = set & pos.pieces(by, r).bits();
        if b != 0 {
            return Some((b & b.wrapping_neg(), r));
        }
    }
    None
}

/// The static exchange value of `m` in `pos` for the side to move, in centipawns (middle
/// game piece values). A quiet move counts what the mover loses if it is taken.
pub fn see(pos: &Position, m: Move) -> i32 {
    let (from, to) = (m.from(), m.to());
    let Some(mover) = pos.piece_at(from) else {
        return 0;
    };
    let mut gain = [0i32; 40];
    gain[0] = pos.piece_at(to).map_or(0, |p| value(p.role));
    let mut occ = pos.occupied().bits() | to.bit();
    let mut from_bit = from.bit();
    let mut role = mover.role;
    let mut side = mover.color;
    let mut d = 0;
    loop {
        d += 1;
        // what the side that just captured stands at if the other side takes back
        gain[d] = value(role) - gain[d - 1];
        if d + 1 >= gain.len() {
            break;
        }
        occ ^= from_bit;
        side = !side;
        let set = attackers(pos, to, side, occ);
        let Some((bit, r)) = least_valuable(pos, set, side) else {
            break;
        };
        // the king may not capture onto a square the other side still attacks
        if r == Role::King && attackers(pos, to, !side, occ ^ bit) != 0 {
            break;
        }
        from_bit = bit;
        role = r;
    }
    while d > 1 {
        d -= 1;
        gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
    }
    gain[0]
}

/// Whether `m` loses material by exchange (a capture whose SEE is below zero). Cheap when
/// the victim is worth at least the attacker: such a capture never loses.
pub fn loses_material(pos: &Position, m: Move) -> bool {
    let victim = pos.piece_at(m.to()).map_or(0, |p| value(p.role));
    let attacker = pos.piece_at(m.from()).map_or(0, |p| value(p.role));
    attacker > victim && see(pos, m) < 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see_of(fen: &str, m: &str) -> i32 {
        let pos = Position::from_fen(fen).expect("test FEN is legal");
        let m: Move = m.parse().expect("test move parses");
        assert!(pos.is_legal(m), "{m} legal in {fen}");
        see(&pos, m)
    }

    #[test]
    fn exchanges_on_one_square() {
        let (pawn, horse, rook, cannon) = (
            VALUE[Role::Pawn.index()].0,
            VALUE[Role::Horse.index()].0,
            VALUE[Role::Rook.index()].0,
            VALUE[Role::Cannon.index()].0,
        );
        // an undefended pawn: the rook wins it
        assert_eq!(see_of("3k5/9/9/9/4p4/9/9/9/9/4RK3 w - - 0 1", "e0e5"), pawn);
        // the pawn defended by a horse (leg free): the rook is lost for a pawn
        assert_eq!(
            see_of("3k5/9/3n5/9/4p4/9/9/9/9/4RK3 w - - 0 1", "e0e5"),
            pawn - rook
        );
        // the same horse with its leg blocked does not defend
        assert_eq!(
            see_of("3k5/9/3n5/3P5/4p4/9/9/9/9/4RK3 w - - 0 1", "e0e5"),
            pawn
        );
        // a cannon defends through a screen: the elephant on e7 is the screen of the cannon on
        // e9
        assert_eq!(
            see_of("3kc4/9/4b4/9/4p4/9/9/9/9/4RK3 w - - 0 1", "e0e5"),
            pawn - rook
        );
        // without the screen the cannon does not defend
        assert_eq!(
            see_of("3kc4/9/9/9/4p4/9/9/9/9/4RK3 w - - 0 1", "e0e5"),
            pawn
        );
        // a cannon capture over a screen, taken back by the rook behind the victim
        assert_eq!(
            see_of("3k5/9/9/4r4/4r4/9/4P4/9/4C4/5K3 w - - 0 1", "e1e5"),
            rook - cannon
        );
        // a rook behind the capturing rook (x-ray) keeps the exchange going: rook takes
        // horse, rook takes rook, rook takes rook
        assert_eq!(
            see_of("3k5/9/4r4/9/4n4/9/9/9/4R4/4RK3 w - - 0 1", "e1e5"),
            horse
        );
        // the king takes back an undefended rook, but not one a horse defends
        let advisor = VALUE[Role::Advisor.index()].0;
        assert_eq!(
            see_of("9/3k5/3a5/9/9/9/9/9/9/3RK4 w - - 0 1", "d0d7"),
            advisor - rook
        );
        assert_eq!(
            see_of("9/3k5/3a5/9/2N6/9/9/9/9/3RK4 w - - 0 1", "d0d7"),
            advisor
        );
    }
}
