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

use crate::board::attacks::move_targets;
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
///
/// Read on `pos`'s bitboards as they would stand after `m`, without playing it: each piece
/// of the captured side is asked whether it reaches `m.to()` (as [`Position::is_legal`] asks
/// a capture) and whether its king is then safe, with the attacker that `m` moved there
/// taken off. The role bitboards need no update: the attack test reads only the capturing
/// side's pieces still on the board, whose roles `m` does not change.
fn protected(pos: &Position, m: Move) -> bool {
    let (from, to) = (m.from(), m.to());
    let (fb, tb) = (from.bit(), to.bit());
    let (us, them) = (pos.turn(), !pos.turn());
    let occ = (pos.occupied().bits() & !fb) | tb;
    // after the take-back the attacker that stood on `to` is gone
    let attackers = pos.by_color(us).bits() & !fb;
    let ksq = pos.king(them);
    for a in Bitboard::from_bits(pos.by_color(them).bits() & !tb) {
        let Some(p) = pos.piece_at(a) else {
            continue;
        };
        // a take-back is a capture
        let reach = move_targets(them, p.role, a, occ, true);
        if reach & tb == 0 {
            continue;
        }
        let k = if a == ksq { to } else { ksq };
        if !pos.attacked_with(k, us, occ & !a.bit(), attackers) {
            return true;
        }
    }
    false
}

/// [`protected`] by playing the moves on copies (the plain form it is tested against).
#[cfg(test)]
fn protected_by_copy(pos: &Position, m: Move) -> bool {
    let after = pos.after(m);
    // one of its legal captures lands there: each of its pieces asked for that one move
    // (no generation of every capture)
    let to = m.to();
    Iterator::any(&mut after.by_color(after.turn()), |a| {
        after.is_legal(Move::new(a, to))
    })
}

/// The victim of the capture `m` could legally capture the attacker back from where it
/// stands (before `m` is played): asked of `pos` for the victim's side, without turning a
/// copy.
fn can_take_back(pos: &Position, m: Move) -> bool {
    pos.is_legal_ignoring_check_for(!pos.turn(), Move::new(m.to(), m.from()))
}

/// [`can_take_back`] on a copy turned by a null move (the plain form it is tested against).
#[cfg(test)]
fn can_take_back_by_copy(pos: &Position, m: Move) -> bool {
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
    chase_attacks_to_move(&with_turn(pos, by))
}

/// [`chase_attacks`] of the side to move in `p`.
fn chase_attacks_to_move(p: &Position) -> MoveList {
    let mut out = MoveList::new();
    chase_attacks_into(p, &mut out);
    out
}

/// [`chase_attacks_to_move`] into `out` (cleared first): the legal captures listed there
/// and those that are no chase attack dropped in place, with no list moved.
fn chase_attacks_into(p: &Position, out: &mut MoveList) {
    p.capture_moves_into(out);
    out.retain(|m| {
        let attacker = p.piece_at(m.from()).map(|x| x.role);
        let target = p.piece_at(m.to()).map(|x| x.role);
        match (attacker, target) {
            (Some(a), Some(t)) => {
                !matches!(a, Role::King | Role::Pawn)
                    && t != Role::King
                    && counts_as_threat(p, *m, a, t)
            }
            _ => false,
        }
    });
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
    let mut out = MoveList::new();
    for_each_escape(pos, |m| keep(m).then_some(()), |m, ()| out.push(m));
    out
}

/// [`escaping_moves_with`] with no list: `keep` is asked first of each legal quiet move (in
/// the same order), and `found` is called, in that order, with each move `keep` answered
/// `Some` that escapes, and that answer (a caller keeps what its test found, such as the
/// position the move reaches).
pub fn for_each_escape<T>(
    pos: &Position,
    mut keep: impl FnMut(Move) -> Option<T>,
    mut found: impl FnMut(Move, T),
) {
    // one copy: the opponent's attacks read on it turned by a null move (turned back after:
    // two null moves restore every key), then each move played and taken back on it
    let mut after = pos.clone();
    after.play_null();
    let mut attacks = MoveList::new();
    chase_attacks_into(&after, &mut attacks);
    after.play_null();
    if attacks.is_empty() {
        return;
    }
    for &m in &pos.quiet_moves() {
        let Some(t) = keep(m) else {
            continue;
        };
        let undo = after.play(m);
        let escapes = attacks.iter().any(|&a| escapes_marking(&after, a, m));
        after.undo(m, undo);
        if escapes {
            found(m, t);
        }
    }
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
    use crate::board::games::each_game_position;

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

    /// The bitboard test of protection answers as playing the capture and asking every
    /// piece of the captured side for a legal take-back, and the take-back test of the
    /// attacker as asking a copy turned by a null move, on every capture of positions
    /// with pins, cannon screens, facing kings and checks, for both sides.
    #[test]
    fn protected_as_by_copy() {
        let fens = [
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
            "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w",
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
            "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w",
            "3k5/9/9/4r4/4r4/9/3N5/9/9/5K3 w",
            "3k5/4r4/9/9/9/4n4/9/9/9/4RK3 w",
            "4k4/9/9/4n4/9/9/9/9/9/3RK4 w",
            "3k5/9/4n4/9/4R4/9/9/9/9/5K3 w",
            "3akr3/4n4/9/9/4c4/9/4R4/9/4A4/3K5 w",
            "2bk5/4a4/4r4/9/9/9/4N4/4C4/9/4K4 w",
        ];
        let mut tested = 0;
        each_game_position(&fens, 80, 0x9E37_79B9_7F4A_7C15u64, |game| {
            for side in [Color::Red, Color::Black] {
                let mut p = game.clone();
                if p.turn() != side {
                    p.play_null();
                }
                for m in p.capture_moves() {
                    if p.piece_at(m.to()).is_some_and(|t| t.role == Role::King) {
                        continue;
                    }
                    let fen = p.to_fen();
                    assert_eq!(protected(&p, m), protected_by_copy(&p, m), "{fen} {m}");
                    assert_eq!(
                        can_take_back(&p, m),
                        can_take_back_by_copy(&p, m),
                        "{fen} {m}"
                    );
                    tested += 1;
                }
            }
        });
        assert!(tested > 1000, "{tested} captures");
    }

    /// The escapes found in place (one copy, each move played and taken back, the attacks
    /// filtered in their list) are those of the plain form: every capture of the opponent
    /// weighed on a copy turned by a null move, every quiet move played on a copy of its
    /// own; and a filtered walk hands back what its test found for the same moves, on the
    /// positions of pseudo-random games, both sides to move (in check too).
    #[test]
    fn escapes_as_by_copy() {
        let fens = [
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
            "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w",
            "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w",
            "3akr3/4n4/9/9/4c4/9/4R4/9/4A4/3K5 w",
            "3k5/9/9/4r4/4r4/9/3N5/9/9/5K3 w",
            "2r1k4/9/9/9/4n4/9/2R6/9/4N4/4K4 w",
        ];
        let (mut seen, mut with_escapes) = (0usize, 0usize);
        each_game_position(&fens, 100, 0x9E37_79B9_7F4A_7C15u64, |game| {
            for side in [Color::Red, Color::Black] {
                let p = with_turn(game, side);
                let fen = p.to_fen();
                // the plain form
                let turned = with_turn(&p, !side);
                let attacks: Vec<Move> = turned
                    .capture_moves()
                    .into_iter()
                    .filter(|&a| is_chase_attack(&turned, a))
                    .collect();
                assert_eq!(chase_attacks(&p, !side).as_slice(), &attacks[..], "{fen}");
                let plain: Vec<Move> = if attacks.is_empty() {
                    Vec::new()
                } else {
                    p.quiet_moves()
                        .into_iter()
                        .filter(|&m| {
                            let after = p.after(m);
                            attacks.iter().any(|&a| escapes_marking(&after, a, m))
                        })
                        .collect()
                };
                assert_eq!(escaping_moves(&p).as_slice(), &plain[..], "{fen}");
                // every other quiet move asked, with its number handed back
                let quiet = p.quiet_moves();
                let mut asked = Vec::new();
                let mut found = Vec::new();
                for_each_escape(
                    &p,
                    |m| {
                        asked.push(m);
                        let k = quiet.iter().position(|&q| q == m).unwrap();
                        (k % 2 == 0).then_some(k)
                    },
                    |m, k| found.push((m, k)),
                );
                if !attacks.is_empty() {
                    assert_eq!(asked.as_slice(), quiet.as_slice(), "{fen}");
                }
                let want: Vec<(Move, usize)> = plain
                    .iter()
                    .map(|&m| (m, quiet.iter().position(|&q| q == m).unwrap()))
                    .filter(|&(_, k)| k % 2 == 0)
                    .collect();
                assert_eq!(found, want, "{fen}");
                seen += 1;
                with_escapes += !plain.is_empty() as usize;
            }
        });
        assert!(seen > 500 && with_escapes > 50, "{seen} {with_escapes}");
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
