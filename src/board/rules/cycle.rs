//! Ruling a repetition cycle from the moves that make it (rule set 1).
//!
//! A cycle is the sequence of moves between two occurrences of the same position. Each side
//! is judged by what it does with *every one* of its moves in the cycle:
//!
//! * it **checks perpetually** when every one of its moves gives check;
//! * it **chases perpetually** when every one of its moves attacks anew (a chase attack, see
//!   [`super::new_attacks`]) one and the same enemy piece, followed through the cycle, and
//!   that piece has just escaped the attack with the opponent's previous move.
//!
//! Perpetual check loses against a side that does not check perpetually (both: a draw);
//! perpetual chase, ranked below check, loses against a side that neither checks nor chases
//! perpetually; every other cycle is a draw. The engine's search and the match runner rule
//! repetitions here; the tablebase generator applies the same rules to whole classes of
//! positions (see `tablebase::generate::cycles`).

use super::{escape_targets, new_attacks};
use crate::board::{Color, Move, Position, Square};

/// What a side did that loses it the cycle.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Violation {
    /// It gave check with every one of its moves.
    PerpetualCheck,
    /// It chased one piece with every one of its moves.
    PerpetualChase,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Violation::PerpetualCheck => "perpetual check",
            Violation::PerpetualChase => "perpetual chase",
        })
    }
}

/// The ruling of a cycle.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CycleVerdict {
    /// Nobody is the sole violator.
    Draw,
    /// `loser` loses for its violation.
    Loss {
        /// The side that loses.
        loser: Color,
        /// What it did.
        violation: Violation,
    },
}

/// The position before the quiet move `m` that led to `after`.
fn before(after: &Position, m: Move) -> Position {
    let mut p = after.clone();
    p.play_null();
    p.play(Move::new(m.to(), m.from()));
    p.play_null();
    p
}

/// Rule the cycle made of `moves` (oldest first), which ends in `end`, the position that
/// repeats (the position before `moves[0]` equals `end`). Every move of a cycle is quiet:
/// a capture cannot be repeated. A list that is empty, has a capture or does not lead back
/// to `end` is not a cycle and is ruled a draw.
pub fn judge_cycle(end: &Position, moves: &[Move]) -> CycleVerdict {
    let n = moves.len();
    if n < 2 {
        return CycleVerdict::Draw;
    }
    // positions[i]: before moves[i]; positions[n]: end
    let mut positions = vec![end.clone(); n + 1];
    for i in (0..n).rev() {
        if positions[i + 1].piece_at(moves[i].to()).is_none() {
            return CycleVerdict::Draw;
        }
        positions[i] = before(&positions[i + 1], moves[i]);
    }
    if positions[0].key() != end.key() {
        return CycleVerdict::Draw;
    }
    for (p, &m) in positions.iter().zip(moves) {
        if !p.is_legal(m) || p.piece_at(m.to()).is_some() {
            return CycleVerdict::Draw;
        }
    }
    let sides = [positions[0].turn(), !positions[0].turn()];
    let checks = |side: Color| {
        (0..n)
            .filter(|&i| positions[i].turn() == side)
            .all(|i| positions[i + 1].in_check())
    };
    let (a, b) = (checks(sides[0]), checks(sides[1]));
    match (a, b) {
        (true, false) => return loss(sides[0], Violation::PerpetualCheck),
        (false, true) => return loss(sides[1], Violation::PerpetualCheck),
        (true, true) => return CycleVerdict::Draw,
        _ => {}
    }
    let (a, b) = (
        chases(&positions, moves, sides[0]),
        chases(&positions, moves, sides[1]),
    );
    match (a, b) {
        (true, false) => loss(sides[0], Violation::PerpetualChase),
        (false, true) => loss(sides[1], Violation::PerpetualChase),
        _ => CycleVerdict::Draw,
    }
}

fn loss(loser: Color, violation: Violation) -> CycleVerdict {
    CycleVerdict::Loss { loser, violation }
}

/// `side` chases one piece with every one of its moves of the cycle.
fn chases(positions: &[Position], moves: &[Move], side: Color) -> bool {
    let n = moves.len();
    // start at one of the side's moves and go once round the cycle, following each
    // candidate target square through the opponent's moves
    let Some(first) = (0..n).find(|&i| positions[i].turn() == side) else {
        return false;
    };
    let mut targets: Vec<Square> = new_attacks(&positions[first], moves[first])
        .into_iter()
        .collect();
    for step in 1..=n {
        let i = (first + step) % n;
        let (p, m) = (&positions[i], moves[i]);
        if p.turn() == side {
            let attacked = new_attacks(p, m);
            targets.retain(|&t| attacked.contains(t));
        } else {
            // the opponent's move: the target must escape with it
            let escaped = escape_targets(p, m);
            targets = targets
                .into_iter()
                .map(|t| if m.from() == t { m.to() } else { t })
                .filter(|&t| escaped.contains(t))
                .collect();
        }
        if targets.is_empty() {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(s: &str) -> Move {
        s.parse().expect("test move")
    }

    fn play(fen: &str, moves: &[&str]) -> (Position, Vec<Move>) {
        let mut p = Position::from_fen(fen).expect("test FEN");
        let ms: Vec<Move> = moves.iter().map(|s| mv(s)).collect();
        for &m in &ms {
            assert!(p.is_legal(m), "{m} illegal in {}", p.to_fen());
            p.play(m);
        }
        (p, ms)
    }

    #[test]
    fn a_cycle_of_quiet_king_moves_is_a_draw() {
        let (end, ms) = play(
            "3k5/9/9/9/9/9/9/9/9/5K3 w",
            &["f0f1", "d9d8", "f1f0", "d8d9"],
        );
        assert_eq!(judge_cycle(&end, &ms), CycleVerdict::Draw);
    }

    #[test]
    fn a_rook_checking_with_every_move_loses() {
        // red rook a8 checks the king on e9? king on d9 and rook on rank 8 give no check;
        // the rook checks along rank 9 and file d alternately while the king shuffles
        let (end, ms) = play(
            "3k5/9/9/9/9/9/9/9/9/4K2R1 w",
            &[
                "h0h9", "d9d8", "h9h8", "d8d9", "h8h9", "d9d8", "h9h8", "d8d9",
            ],
        );
        assert_eq!(
            judge_cycle(&end, &ms[4..]),
            CycleVerdict::Loss {
                loser: Color::Red,
                violation: Violation::PerpetualCheck
            }
        );
    }

    #[test]
    fn a_capture_or_a_broken_list_is_no_cycle() {
        let (end, ms) = play("3k5/9/9/9/9/9/9/9/9/5K3 w", &["f0f1", "d9d8"]);
        assert_eq!(judge_cycle(&end, &ms), CycleVerdict::Draw);
        assert_eq!(judge_cycle(&end, &[]), CycleVerdict::Draw);
    }
}
