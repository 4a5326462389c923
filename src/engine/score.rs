//! Scores as a newtype: centipawns, or mate distance in plies.

use std::fmt;

/// A search score from the side to move's point of view.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub struct Score(pub i32);

/// Mate now.
pub const MATE: i32 = 30000;
/// Scores above this are mates.
pub const MATE_BOUND: i32 = MATE - 1000;
/// A tablebase win found in the search (below mate scores, above any evaluation).
pub const TB_WIN: i32 = 20000;
/// Infinity for windows.
pub const INF: i32 = 32000;

impl Score {
    /// Mate in `ply` plies for the side to move.
    pub fn mate_in(ply: i32) -> Score {
        Score(MATE - ply)
    }

    /// Mated in `ply` plies.
    pub fn mated_in(ply: i32) -> Score {
        Score(-MATE + ply)
    }

    /// Moves to mate (positive: the side to move mates), if a mate score.
    pub fn mate_moves(self) -> Option<i32> {
        if self.0 > MATE_BOUND {
            Some((MATE - self.0 + 1) / 2)
        } else if self.0 < -MATE_BOUND {
            Some(-(MATE + self.0) / 2)
        } else {
            None
        }
    }

    /// UCI form: `cp N` or `mate N`.
    pub fn uci(self) -> String {
        match self.mate_moves() {
            Some(m) => format!("mate {m}"),
            None => format!("cp {}", self.0),
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mate_moves() {
            Some(m) => write!(f, "mate {m}"),
            // a decided result without a mate distance (tablebase, perpetual check)
            None if self.0 > TB_WIN - 1000 => write!(f, "win"),
            None if self.0 < -(TB_WIN - 1000) => write!(f, "loss"),
            None => write!(f, "{:+.2}", self.0 as f64 / 100.0),
        }
    }
}
