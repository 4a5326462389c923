//! A game record: tags, start position, main line, result.

use crate::board::{Move, Position};

/// The result of a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// 1-0.
    RedWins,
    /// 0-1.
    BlackWins,
    /// 1/2-1/2.
    Draw,
}

impl GameResult {
    /// PGN token.
    pub fn token(self) -> &'static str {
        match self {
            GameResult::RedWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// Parse a PGN result token.
    pub fn from_token(t: &str) -> Option<Option<GameResult>> {
        match t {
            "1-0" => Some(Some(GameResult::RedWins)),
            "0-1" => Some(Some(GameResult::BlackWins)),
            "1/2-1/2" | "½-½" => Some(Some(GameResult::Draw)),
            "*" => Some(None),
            _ => None,
        }
    }
}

/// An alternative line: instead of the move at index `at` of its parent line, played from
/// the position before that move.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Variation {
    /// Index in the parent line of the move it replaces.
    pub at: usize,
    /// Its moves.
    pub moves: Vec<Move>,
    /// Alternatives inside it.
    pub variations: Vec<Variation>,
}

/// One game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// Tags in file order.
    pub tags: Vec<(String, String)>,
    /// Start position (the FEN tag, else the standard start).
    pub start: Position,
    /// Main line.
    pub moves: Vec<Move>,
    /// Result, when the record gives one.
    pub result: Option<GameResult>,
    /// Alternatives to main-line moves (the variation tree).
    pub variations: Vec<Variation>,
    /// Comments of the main line: (number of moves played before it, text).
    pub comments: Vec<(usize, String)>,
}

impl Game {
    /// Value of a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Number of variations in the tree.
    pub fn variation_count(&self) -> usize {
        fn count(v: &[Variation]) -> usize {
            v.iter().map(|x| 1 + count(&x.variations)).sum()
        }
        count(&self.variations)
    }

    /// Position after the main line.
    pub fn end(&self) -> Position {
        let mut p = self.start.clone();
        for &m in &self.moves {
            p.play(m);
        }
        p
    }
}

/// A game that could not be read, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameError {
    /// File.
    pub file: String,
    /// 1-based game number in the file.
    pub ordinal: usize,
    /// Plies read before the error.
    pub ply: usize,
    /// The offending token.
    pub token: String,
    /// Why.
    pub reason: String,
    /// Its bytes in the file (start, end), when known.
    pub bytes: Option<(u64, u64)>,
}

impl std::fmt::Display for GameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: game {}", self.file, self.ordinal)?;
        if let Some((a, b)) = self.bytes {
            write!(f, " (bytes {a}..{b})")?;
        }
        write!(f, ", ply {}, '{}': {}", self.ply, self.token, self.reason)
    }
}

impl std::error::Error for GameError {}

impl GameError {
    /// A short category of the reason (for grouping).
    pub fn category(&self) -> String {
        let r = &self.reason;
        for key in [
            "matches no legal move",
            "ambiguous",
            "unreadable move",
            "bad FEN",
            "illegal position",
            "no moves",
            "unterminated",
            "no game",
            "longer than",
        ] {
            if r.contains(key) {
                return key.to_string();
            }
        }
        r.split(':').next().unwrap_or(r).to_string()
    }
}
