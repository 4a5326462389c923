//! Retro moves (un-moves) for retrograde analysis: from where a piece could have come.

use super::attacks::{
    elephant_attacks, nearest_on_ray, reachable, rook_attacks, ADVISOR_MOVES, HORSE_ATTACKER_LEG,
    HORSE_ATTACKER_SRC, KING_MOVES, PAWN_ATTACKERS, RAYS,
};
use super::{Piece, Role, Square};

/// Empty points `a` from which `piece`, now on `b`, could have moved to `b`. With `capture`
/// the move captured (a piece stood on `b`); otherwise it did not. `occ` is the occupancy
/// now (with `piece` on `b`). Only points the piece can stand on are returned.
#[inline]
pub fn unmove_sources(piece: Piece, b: Square, occ: u128, capture: bool) -> u128 {
    let empty = !occ & ((1u128 << 90) - 1);
    let bi = b.index();
    let t = match piece.role {
        Role::King => KING_MOVES[bi],
        Role::Advisor => ADVISOR_MOVES[bi],
        Role::Elephant => elephant_attacks(b, occ),
        Role::Horse => {
            let mut s = 0u128;
            for i in 0..4 {
                if HORSE_ATTACKER_LEG[bi][i] & occ == 0 {
                    s |= HORSE_ATTACKER_SRC[bi][i];
                }
            }
            s
        }
        Role::Rook => rook_attacks(b, occ),
        Role::Cannon => {
            if capture {
                // exactly one screen between the source and b
                let mut s = 0u128;
                for (dir, &ray) in RAYS[bi].iter().enumerate() {
                    let b1 = ray & occ;
                    if b1 == 0 {
                        continue;
                    }
                    let screen = nearest_on_ray(b1, dir) as usize;
                    let beyond = RAYS[screen][dir];
                    let b2 = beyond & occ;
                    s |= if b2 == 0 {
                        beyond
                    } else {
                        beyond ^ RAYS[nearest_on_ray(b2, dir) as usize][dir]
                    };
                }
                s
            } else {
                rook_attacks(b, occ)
            }
        }
        Role::Pawn => PAWN_ATTACKERS[piece.color.index()][bi],
    };
    t & empty & reachable(piece.color, piece.role).bits()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Color, Move, Position};

    /// Every legal move a->b of a position appears among the retro sources of its result.
    #[test]
    fn retro_sources_cover_forward_moves() {
        let fens = [
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
            "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w",
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w",
        ];
        for fen in fens {
            let pos = Position::from_fen(fen).unwrap();
            for m in pos.legal_moves() {
                let capture = pos.piece_at(m.to()).is_some();
                let after = pos.after(m);
                let piece = after.piece_at(m.to()).unwrap();
                let src = unmove_sources(piece, m.to(), after.occupied().bits(), capture);
                assert!(
                    src & m.from().bit() != 0,
                    "{fen}: {m} not found by retro generation"
                );
                // and every retro source gives a real move back
                for a in super::super::Bitboard::from_bits(src) {
                    let mut setup = after.to_setup();
                    setup.remove(m.to());
                    if capture {
                        setup.put(m.to(), pos.piece_at(m.to()).unwrap());
                    }
                    setup.put(a, piece);
                    setup.turn = !after.turn();
                    let q = Position::from_setup_unchecked(&setup).unwrap();
                    let mv = Move::new(a, m.to());
                    // legal unless it leaves the mover's own king attacked in q
                    let ok = q.legal_moves().contains(&mv) || {
                        let r = q.after(mv);
                        r.is_attacked(r.king(q.turn()), !q.turn()) || r.kings_facing()
                    };
                    assert!(ok, "{fen}: retro {mv} is not a move of {}", q.to_fen());
                }
            }
        }
        let _ = Color::Red;
    }
}
