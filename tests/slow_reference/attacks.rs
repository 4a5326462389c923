//! Check and chase detection for the reference, written from ../shared/reference/rules.md
//! ("Repetition: rule set 1") without the project's `board::rules` helpers. Only the board's
//! move legality (`is_legal`, `is_legal_ignoring_check`, `legal_moves`) and `Position` are
//! used.
//!
//! * An **attack that counts** (for the chase rule): the piece on `a` (a rook, horse, cannon,
//!   advisor or elephant: kings and pawns never chase) could capture the enemy piece on `t`
//!   (not a king) by a move that is legal apart from a check its own king is already in (a
//!   piece keeps attacking while its king is in check), and the target is one that counts:
//!   - a rook attacked by a horse or a cannon counts even when protected; attacked by a rook
//!     only when unprotected and unable to take the attacker back (two rooks attacking each
//!     other are a pair of one type); by an advisor or an elephant only when unprotected;
//!   - a horse or a cannon counts only when unprotected, and against an attacker of its own
//!     type only when it cannot take the attacker back;
//!   - a pawn counts only once it has crossed the river, and only when unprotected;
//!   - an advisor or an elephant only when unprotected.
//!
//!   *Protected*: after the capture, the target's side could legally capture on `t`.
//! * An **escape** (a quiet move of the attacked side): an attacked piece that moves off the
//!   line of the attack (any move, for a horse's, advisor's or elephant's attack), or any
//!   other move after which the attack no longer counts (blocked, protected, attacker
//!   pinned). The escaped pieces are named by where they stand after the move.
//! * The **new attacks** of a quiet move: the enemy pieces it leaves under an attack that
//!   counts and that did not stand before, where an attack by the moved piece is new unless
//!   it runs along the line the piece just moved on (a rook moving up a file does not attack
//!   anew what stands further up that file).

use xqdb::board::{Bitboard, Color, Move, Position, Role, Square};

/// `pos` with `side` to move.
fn turned(pos: &Position, side: Color) -> Position {
    let mut p = pos.clone();
    if p.turn() != side {
        p.play_null();
    }
    p
}

fn crossed(color: Color, sq: Square) -> bool {
    match color {
        Color::Red => sq.rank() >= 5,
        Color::Black => sq.rank() <= 4,
    }
}

/// After the capture `a`x`t` (legal apart from a standing check, `p` with the attacker to
/// move), the target's side could legally capture on `t`.
fn protected(p: &Position, a: Square, t: Square) -> bool {
    let after = p.after(Move::new(a, t));
    after.capture_moves().iter().any(|m| m.to() == t)
}

/// The piece on `t` could take the attacker on `a` back from where it stands.
fn takes_back(pos: &Position, a: Square, t: Square, victim: Color) -> bool {
    turned(pos, victim).is_legal_ignoring_check(Move::new(t, a))
}

/// A piece of this kind could capture from `a` on `t` on some board (a quick filter before
/// the move generator's legality test).
fn in_reach(role: Role, a: Square, t: Square) -> bool {
    let df = (a.file() as i8 - t.file() as i8).abs();
    let dr = (a.rank() as i8 - t.rank() as i8).abs();
    match role {
        Role::Rook | Role::Cannon => df == 0 || dr == 0,
        Role::Horse => (df, dr) == (1, 2) || (df, dr) == (2, 1),
        Role::Advisor => (df, dr) == (1, 1),
        Role::Elephant => (df, dr) == (2, 2),
        Role::King | Role::Pawn => false,
    }
}

/// The piece on `a` attacks the piece on `t` in a way the chase rule counts (whoever is to
/// move in `pos`).
pub fn counts(pos: &Position, a: Square, t: Square) -> bool {
    let (Some(att), Some(tgt)) = (pos.piece_at(a), pos.piece_at(t)) else {
        return false;
    };
    if att.color == tgt.color
        || matches!(att.role, Role::King | Role::Pawn)
        || tgt.role == Role::King
    {
        return false;
    }
    if !in_reach(att.role, a, t) {
        return false;
    }
    let p = turned(pos, att.color);
    if !p.is_legal_ignoring_check(Move::new(a, t)) {
        return false;
    }
    let unprotected = || !protected(&p, a, t);
    let one_way = || !takes_back(pos, a, t, tgt.color);
    match tgt.role {
        Role::Rook => match att.role {
            Role::Horse | Role::Cannon => true,
            Role::Rook => one_way() && unprotected(),
            _ => unprotected(),
        },
        Role::Horse | Role::Cannon => (att.role != tgt.role || one_way()) && unprotected(),
        Role::Pawn => crossed(tgt.color, t) && unprotected(),
        Role::Advisor | Role::Elephant => unprotected(),
        Role::King => false,
    }
}

/// Every counting attack of `by`: (attacker point, target point).
pub fn attacks(pos: &Position, by: Color) -> Vec<(Square, Square)> {
    let mut out = Vec::new();
    for a in pos.by_color(by) {
        for t in pos.by_color(!by) {
            if counts(pos, a, t) {
                out.push((a, t));
            }
        }
    }
    out
}

/// The move `m` runs along the file or rank of the attack `a`-`t`.
fn along(a: Square, t: Square, m: Move) -> bool {
    (a.file() == t.file() && m.from().file() == m.to().file())
        || (a.rank() == t.rank() && m.from().rank() == m.to().rank())
}

/// The pieces that escape an attack of the opponent (`threats`, its attacks in `pos`) with
/// the quiet move `m` of the side to move (their points after `m`); empty when `m` escapes
/// nothing.
pub fn escaped(pos: &Position, threats: &[(Square, Square)], m: Move) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    if threats.is_empty() {
        return out;
    }
    let after = pos.after(m);
    for &(a, t) in threats {
        if t == m.from() {
            if !along(a, t, m) {
                out = out.with(m.to());
            }
        } else if !counts(&after, a, t) {
            out = out.with(t);
        }
    }
    out
}

/// The enemy pieces the quiet move `m` of the side to move attacks anew.
pub fn new_attacks(pos: &Position, m: Move) -> Bitboard {
    let us = pos.turn();
    let after = pos.after(m);
    let mut out = Bitboard::EMPTY;
    for (a, t) in attacks(&after, us) {
        let new = if a == m.to() {
            !along(a, t, m)
        } else {
            !counts(pos, a, t)
        };
        if new {
            out = out.with(t);
        }
    }
    out
}
