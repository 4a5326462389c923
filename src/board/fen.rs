//! FEN reading and writing.
//!
//! Ranks are written from rank 9 down to rank 0. Letters K A B N R C P (upper case Red);
//! E and H are read as aliases of B and N. Side `w` or `r` for Red, `b` for Black. The two
//! dash fields and the two counters of chess FEN are optional.

use super::{Color, Piece, Position, PositionError, Setup, Square};
use std::fmt::Write;

/// Why a FEN could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// Nothing to parse.
    #[error("empty FEN")]
    Empty,
    /// Not 10 ranks.
    #[error("bad FEN board '{board}': {count} ranks, expected 10 separated by '/'")]
    RankCount {
        /// The board field.
        board: String,
        /// Ranks found.
        count: usize,
    },
    /// A rank that does not describe 9 points.
    #[error("bad FEN rank {rank} '{text}': {reason}")]
    Rank {
        /// Board rank 0..9.
        rank: u8,
        /// The rank's text.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// Not w, r or b.
    #[error("bad FEN side to move '{0}': expected 'w' (or 'r') for Red, 'b' for Black")]
    Side(String),
    /// A counter that is not a number.
    #[error("bad FEN {field} '{text}': expected a non-negative number")]
    Counter {
        /// Which counter.
        field: &'static str,
        /// The text found.
        text: String,
    },
    /// Extra fields after the counters.
    #[error("bad FEN: unexpected extra field '{0}'")]
    Extra(String),
    /// Readable FEN but not a legal position.
    #[error("illegal position: {0}")]
    Position(#[from] PositionError),
}

impl Setup {
    /// Read a FEN into an unchecked setup (the placement is not validated).
    pub fn from_fen(fen: &str) -> Result<Setup, FenError> {
        let mut fields = fen.split_ascii_whitespace();
        let board = fields.next().ok_or(FenError::Empty)?;
        let mut setup = Setup::empty();
        let ranks: Vec<&str> = board.split('/').collect();
        if ranks.len() != 10 {
            return Err(FenError::RankCount {
                board: board.to_string(),
                count: ranks.len(),
            });
        }
        for (i, text) in ranks.iter().enumerate() {
            let rank = 9 - i as u8;
            let bad = |reason: String| FenError::Rank {
                rank,
                text: text.to_string(),
                reason,
            };
            let mut file = 0u8;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10) {
                    if d == 0 {
                        return Err(bad("empty-run digit 0".into()));
                    }
                    file = file.saturating_add(d as u8);
                } else if let Some(p) = Piece::from_char(c) {
                    if file >= 9 {
                        return Err(bad("more than 9 points".into()));
                    }
                    let sq = Square::from_coords(file, rank).expect("file < 9, rank < 10");
                    setup.put(sq, p);
                    file += 1;
                } else {
                    return Err(bad(format!("unknown piece letter '{c}'")));
                }
                if file > 9 {
                    return Err(bad("more than 9 points".into()));
                }
            }
            if file != 9 {
                return Err(bad(format!("{file} points, expected 9")));
            }
        }
        match fields.next() {
            None => {}
            Some("w") | Some("W") | Some("r") | Some("R") => setup.turn = Color::Red,
            Some("b") | Some("B") => setup.turn = Color::Black,
            Some(other) => return Err(FenError::Side(other.to_string())),
        }
        let mut rest: Vec<&str> = fields.collect();
        // optional castling / en passant dashes of chess FEN
        while rest.first() == Some(&"-") {
            rest.remove(0);
        }
        let mut it = rest.into_iter();
        if let Some(h) = it.next() {
            setup.halfmoves = h.parse().map_err(|_| FenError::Counter {
                field: "halfmove clock",
                text: h.to_string(),
            })?;
        }
        if let Some(f) = it.next() {
            setup.fullmoves = f.parse().map_err(|_| FenError::Counter {
                field: "fullmove number",
                text: f.to_string(),
            })?;
            if setup.fullmoves == 0 {
                setup.fullmoves = 1;
            }
        }
        if let Some(x) = it.next() {
            return Err(FenError::Extra(x.to_string()));
        }
        Ok(setup)
    }

    /// Board field of the FEN.
    pub fn board_fen(&self) -> String {
        let mut s = String::with_capacity(64);
        for rank in (0..10u8).rev() {
            let mut empty = 0;
            for file in 0..9u8 {
                let sq = Square::from_coords(file, rank).expect("in range");
                match self.piece_at(sq) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            let _ = write!(s, "{empty}");
                            empty = 0;
                        }
                        s.push(p.char());
                    }
                }
            }
            if empty > 0 {
                let _ = write!(s, "{empty}");
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s
    }

    /// Full FEN: board, side, `- -`, halfmove clock, fullmove number.
    pub fn to_fen(&self) -> String {
        format!(
            "{} {} - - {} {}",
            self.board_fen(),
            self.turn.fen_char(),
            self.halfmoves,
            self.fullmoves
        )
    }
}

impl Position {
    /// Read and validate a FEN. `startpos` is accepted for the start position.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fen = fen.trim();
        if fen == "startpos" {
            return Ok(Position::startpos());
        }
        let setup = Setup::from_fen(fen)?;
        Ok(Position::from_setup(&setup)?)
    }

    /// Full FEN of the position.
    pub fn to_fen(&self) -> String {
        self.to_setup().to_fen()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::START_FEN;

    #[test]
    fn round_trip_and_aliases() {
        let p = Position::from_fen(START_FEN).unwrap();
        assert_eq!(p.to_fen(), START_FEN);
        let alias =
            Position::from_fen("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r")
                .unwrap();
        assert_eq!(alias, p);
        assert!(Position::from_fen("4k4/9/9/9/9/9/9/9/9/4K4 w").is_err()); // kings facing
        assert!(Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K4 w").is_ok());
    }

    #[test]
    fn errors_name_the_problem() {
        let e = |s: &str| Position::from_fen(s).unwrap_err().to_string();
        assert!(e("3k5/9/9/9/9/9/9/9/9/4K4 x").contains("side to move"));
        assert!(e("3k5/9/9/9/9/9/9/9/4K4 w").contains("ranks"));
        assert!(e("3k5/9/9/9/9/9/9/9/9/4K5 w").contains("points"));
        assert!(e("3k5/9/9/9/9/9/9/9/9/4X4 w").contains("letter"));
        assert!(e("3k5/9/9/9/9/9/9/9/9/3KK4 w").contains("too much material"));
        assert!(e("9/9/9/9/9/9/9/9/9/4K4 w").contains("no king"));
        assert!(e("3k5/9/9/9/9/9/9/9/9/A3K4 w").contains("never reach"));
        assert!(e("3k5/9/9/9/9/P8/P8/9/9/4K4 w").contains("unpassed"));
        assert!(e("4k4/9/9/9/9/9/9/9/9/4K4 w").contains("face"));
        assert!(e("3k5/9/9/9/9/9/9/9/9/3RK4 w").contains("in check"));
        assert!(e("3k5/9/9/9/9/9/9/9/9/4K4 w - - x 1").contains("halfmove"));
    }
}
