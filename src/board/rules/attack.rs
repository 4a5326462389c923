//! Attacks that count for the chase rule, escapes from them, and the attacks a move creates.
//!
//! These are the predicates of rule set 1 (../shared/reference/rules.md, "Repetition"):
//!
//! * A **chase attack** is a legal capture by a rook, horse, cannon, advisor or elephant
//!   (never a king or a pawn) of a piece that is not a king, which counts as a threat:
//!   - a rook is threatened by a horse or a cannon even when protected; by an advisor or an
//!     elephant only when unprotected; by a rook only when unprotected and unable to take the
//!     attacker back itself;
//!   - a horse is threatened only when unprotected, and by a horse only when it cannot take the
//!     attacker back (a blocked leg, or a pin);
//!   - a cannon only when unprotected, and by a cannon only when it cannot take back (a pin);
//!   - a pawn only after crossing the river, and only when unprotected;
//!   - an advisor or an elephant only when unprotected.
//!
//!   *Protected* means that after the capture the victim's side could legally capture on that
//!   point.
//! * An **escape** is a quiet move of the threatened side after which a chase attack of the
//!   opponent no longer stands: the threatened piece moved away (off the line of a line attack),
//!   or another move blocked the attack, protected the target or pinned the attacker.
//! * The **new attacks** of a quiet move are the enemy pieces it leaves under chase attack
//!   that were not under that attack before: attacks by the moved piece (except along the line
//!   it moved on), attacks it discovered by leaving a line, a horse leg or an elephant eye
//!   (or by becoming a cannon's screen), and any other attack that did not stand before.
//!
//! The generator, the verifier, the engine and the match runner all use these functions.

use crate::board::{Bitboard, Color, Move, MoveList, Position, Role, Square};

fn same_file(a: Square, b: Square) -> bool {
    a.file() == b.file()
}

fn same_rank(a: Square, b: Square) -> bool {
    a.rank() == b.rank()
}

/// True when `x` lies strictly between `a` and `b` on their common file or rank.
fn between(x: Square, a: Square, b: Square) -> bool {
    let inside = |v: u8, p: u8, q: u8| (p.min(q) < v) && (v < p.max(q));
    if same_file(a, b) {
        same_file(x, a) && inside(x.rank(), a.rank(), b.rank())
    } else if same_rank(a, b) {
        same_rank(x, a) && inside(x.file(), a.file(), b.file())
    } else {
        false
    }
}

/// The leg of a horse move `from`-`to` (None when the squares are not a horse step apart).
fn horse_leg(from: Square, to: Square) -> Option<Square> {
    let df = to.file() as i8 - from.file() as i8;
    let dr = to.rank() as i8 - from.rank() as i8;
    match (df.abs(), dr.abs()) {
        (2, 1) => from.offset(df / 2, 0),
        (1, 2) => from.offset(0, dr / 2),
        _ => None,
    }
}

/// The eye of an elephant move `from`-`to` (None when not two diagonal steps apart).
fn elephant_eye(from: Square, to: Square) -> Option<Square> {
    let df = to.file() as i8 - from.file() as i8;
    let dr = to.rank() as i8 - from.rank() as i8;
    if df.abs() == 2 && dr.abs() == 2 {
        from.offset(df / 2, dr / 2)
    } else {
        None
    }
}

/// `pos` with `side` to move (a null move when it is the other side's turn).
fn with_turn(pos: &Position, side: Color) -> Position {
    let mut p = pos.clone();
    if p.turn() != side {
        p.play_null();
    }
    p
}

/// After the capture `m`, the captured side could legally take back on `m.to()`.
fn protected(pos: &Position, m: Move) -> bool {
    let after = pos.after(m);
    // one of its legal captures lands there: each of its pieces asked for that one move
    // (no generation of every capture)
    let to = m.to();
    Iterator::any(&mut after.by_color(after.turn()), |a| {
        after.is_legal(Move::new(a, to))
    })
}

/// The victim of the capture `m` could legally capture the attacker back from where it
/// stands (before `m` is played).
fn can_take_back(pos: &Position, m: Move) -> bool {
    with_turn(pos, !pos.turn()).is_legal_ignoring_check(Move::new(m.to(), m.from()))
}

/// True when `m`, a move of the side to move in `pos`, is a legal capture that counts as a
/// chase attack (see the module documentation).
pub fn is_chase_attack(pos: &Position, m: Move) -> bool {
    let (Some(attacker), Some(target)) = (pos.piece_at(m.from()), pos.piece_at(m.to())) else {
        return false;
    };
    if attacker.color != pos.turn()
        || target.color == attacker.color
        || matches!(attacker.role, Role::King | Role::Pawn)
        || target.role == Role::King
        || !pos.is_legal_ignoring_check(m)
    {
        return false;
    }
    counts_as_threat(pos, m, attacker.role, target.role)
}

/// The target conditions of a legal capture `m` (attacker and target given).
fn counts_as_threat(pos: &Position, m: Move, attacker: Role, target: Role) -> bool {
    match target {
        Role::Rook => match attacker {
            Role::Horse | Role::Cannon => true,
            Role::Rook => !can_take_back(pos, m) && !protected(pos, m),
            _ => !protected(pos, m),
        },
        Role::Horse | Role::Cannon => {
            (attacker != target || !can_take_back(pos, m)) && !protected(pos, m)
        }
        Role::Pawn => {
            let victim = !pos.turn();
            let crossed = match victim {
                Color::Red => m.to().rank() >= 5,
                Color::Black => m.to().rank() <= 4,
            };
            crossed && !protected(pos, m)
        }
        Role::Advisor | Role::Elephant => !protected(pos, m),
        Role::King => false,
    }
}

/// The chase attacks `by` has in `pos` (whoever is to move).
pub fn chase_attacks(pos: &Position, by: Color) -> MoveList {
    let p = with_turn(pos, by);
    let mut out = MoveList::new();
    for m in p.capture_moves() {
        let attacker = p.piece_at(m.from()).map(|x| x.role);
        let target = p.piece_at(m.to()).map(|x| x.role);
        if let (Some(a), Some(t)) = (attacker, target) {
            if !matches!(a, Role::King | Role::Pawn)
                && t != Role::King
                && counts_as_threat(&p, m, a, t)
            {
                out.push(m);
            }
        }
    }
    out
}

/// Whether the move `m` (of the threatened side; `after` is the position it leads to) gets
/// away from the chase attack `a`, as the marking of cycle positions sees it: the attacked
/// piece leaves the attack's line (or moves along it out of reach), or another move makes
/// the attack stop counting.
fn escapes_marking(after: &Position, a: Move, m: Move) -> bool {
    if m.from() == a.to() {
        let along = (same_file(a.from(), a.to()) && same_file(m.from(), m.to()))
            || (same_rank(a.from(), a.to()) && same_rank(m.from(), m.to()));
        !along || !is_chase_attack(after, Move::new(a.from(), m.to()))
    } else {
        !is_chase_attack(after, a)
    }
}

/// The legal quiet moves of the side to move (which must not be in check) that escape a chase
/// attack of the opponent. Used to mark the positions of possible chase cycles.
pub fn escaping_moves(pos: &Position) -> MoveList {
    escaping_moves_with(pos, |_| true)
}

/// The moves of [`escaping_moves`] that `keep` accepts. `keep` is asked first, once for each
/// legal quiet move, and only the moves it accepts are tested for an escape (a caller with a
/// cheaper test than the escape's, such as "the move reaches an open position", saves the
/// rest); nothing is asked when the opponent has no chase attack.
pub fn escaping_moves_with(pos: &Position, mut keep: impl FnMut(Move) -> bool) -> MoveList {
    let attacks = chase_attacks(pos, !pos.turn());
    let mut out = MoveList::new();
    if attacks.is_empty() {
        return out;
    }
    // each move played and taken back on one copy
    let mut after = pos.clone();
    for m in pos.quiet_moves() {
        if !keep(m) {
            continue;
        }
        let undo = after.play(m);
        if attacks.iter().any(|&a| escapes_marking(&after, a, m)) {
            out.push(m);
        }
        after.undo(m, undo);
    }
    out
}

/// True when the second move continues the first: the moved piece (now on `pre.to()`) makes
/// `next` off the line it came along (any `next` after a horse or diagonal step).
fn continues(pre: Move, next: Move) -> bool {
    let rank = same_rank(pre.from(), pre.to());
    let file = same_file(pre.from(), pre.to());
    (rank && !same_rank(next.from(), next.to()))
        || (file && !same_file(next.from(), next.to()))
        || (!rank && !file)
}

/// If the quiet move `m` of the side to move escapes a chase attack of the opponent, the
/// points of the pieces that escaped (where they stand after `m`); empty otherwise.
pub fn escape_targets(pos: &Position, m: Move) -> Bitboard {
    let attacks = chase_attacks(pos, !pos.turn());
    let mut out = Bitboard::EMPTY;
    if attacks.is_empty() {
        return out;
    }
    let after = pos.after(m);
    for a in attacks {
        if a.to() == m.from() {
            if continues(a, m) {
                out |= Bitboard::from_square(m.to());
            }
        } else if !is_chase_attack(&after, a) {
            out |= Bitboard::from_square(a.to());
        }
    }
    out
}

/// True when the move `first` opened or made the way for the capture `second` by another
/// piece: it left the line between `second`'s squares (or stepped onto it across the line,
/// becoming a cannon screen), or it left the leg of a horse or the eye of an elephant.
fn opened(first: Move, second: Move) -> bool {
    let (af, at, bf, bt) = (first.from(), first.to(), second.from(), second.to());
    for eq in [same_file as fn(Square, Square) -> bool, same_rank] {
        if !eq(bf, bt) {
            continue;
        }
        let hit = if eq(af, at) {
            eq(bf, af) && between(af, bf, bt) && !between(at, bf, bt)
        } else {
            (eq(bf, af) && between(af, bf, bt)) || (eq(bf, at) && between(at, bf, bt))
        };
        if hit {
            return true;
        }
    }
    horse_leg(bf, bt) == Some(af) || elephant_eye(bf, bt) == Some(af)
}

/// The enemy points the quiet move `m` of the side to move leaves under a new chase attack
/// (see the module documentation).
pub fn new_attacks(pos: &Position, m: Move) -> Bitboard {
    let us = pos.turn();
    let after = pos.after(m);
    let mut out = Bitboard::EMPTY;
    for a in chase_attacks(&after, us) {
        let new = if a.from() == m.to() {
            continues(m, a)
        } else {
            opened(m, a) || !is_chase_attack(pos, a)
        };
        if new {
            out |= Bitboard::from_square(a.to());
        }
    }
    out
}

/// True when the move `m` gives check.
pub fn gives_check(pos: &Position, m: Move) -> bool {
    pos.after(m).in_check()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).expect("test FEN")
    }

    fn mv(s: &str) -> Move {
        s.parse().expect("test move")
    }

    #[test]
    fn horse_threatens_a_protected_rook() {
        let p = pos("3k5/9/9/9/4r4/9/3N5/9/9/4K4 w");
        assert!(is_chase_attack(&p, mv("d3e5")));
        let p = pos("3k5/9/9/4r4/4r4/9/3N5/9/9/5K3 w");
        // e5 is protected by the rook on e6: a horse attack still counts on a rook
        assert!(is_chase_attack(&p, mv("d3e5")));
    }

    #[test]
    fn rook_against_rook_counts_only_when_it_cannot_take_back() {
        // rooks face each other on rank 5: the black rook can take back, no threat
        let p = pos("3k5/9/9/9/r7R/9/9/9/9/4K4 w");
        assert!(!is_chase_attack(&p, mv("i5a5")));
    }

    #[test]
    fn unprotected_horse_is_threatened_protected_one_is_not() {
        let p = pos("3k5/9/9/9/9/4n4/9/9/9/4RK3 w");
        assert!(is_chase_attack(&p, mv("e0e4")));
        // the black king's file protects? put a black rook behind the horse on e8
        let p = pos("3k5/4r4/9/9/9/4n4/9/9/9/4RK3 w");
        assert!(!is_chase_attack(&p, mv("e0e4")));
    }

    #[test]
    fn kings_and_pawns_never_chase_and_unpassed_pawns_are_not_chased() {
        // a red pawn on e5 (crossed) can capture the horse on e6: pawns never chase
        let p = pos("3k5/9/9/4n4/4P4/9/9/9/9/5K3 w");
        assert!(!is_chase_attack(&p, mv("e5e6")));
        // a black pawn on its own half (e6, not crossed) attacked by a red rook: not a threat
        let p = pos("3k5/9/9/4p4/9/9/9/9/9/4RK3 w");
        assert!(!is_chase_attack(&p, mv("e0e6")));
        // a crossed black pawn (e3) is
        let p = pos("3k5/9/9/9/9/9/4p4/9/9/4RK3 w");
        assert!(is_chase_attack(&p, mv("e0e3")));
    }

    #[test]
    fn escapes_and_new_attacks() {
        // black horse e4 attacked by the rook e0; moving it off the file escapes
        let p = pos("3k5/9/9/9/9/4n4/9/9/9/4RK3 b");
        let esc = escaping_moves(&p);
        assert!(esc.contains(&mv("e4c3")));
        // filtered: only the accepted moves, each still tested for the escape
        let only = escaping_moves_with(&p, |m| m == mv("e4c3") || m == mv("d9d8"));
        assert_eq!(only.as_slice(), &[mv("e4c3")]);
        assert_eq!(
            escape_targets(&p, mv("e4c3")),
            Bitboard::from_square("c3".parse().unwrap())
        );
        // the rook following it to c0 attacks it again: a new attack on c3
        let q = p.after(mv("e4c3"));
        assert_eq!(
            new_attacks(&q, mv("e0c0")),
            Bitboard::from_square("c3".parse().unwrap())
        );
        // a king move attacks nothing
        assert!(new_attacks(&q, mv("f0f1")).is_empty());
    }
}
