//! Where the games of a match start: the start position, a list of FENs, or lines drawn
//! from an opening book, one per pair of games (each engine plays both colours of it).

use super::{MatchConfig, MatchError};
use crate::board::{Move, Position};
use crate::book::{Book, PickMode};
use rand::SeedableRng;
use std::path::PathBuf;

/// Where games start.
#[derive(Clone, Debug)]
pub enum Openings {
    /// The standard start position.
    Start,
    /// Random weighted book moves up to a number of plies.
    Book {
        /// Book file.
        path: PathBuf,
        /// Plies.
        plies: usize,
    },
    /// Start positions (FEN lines), used in turn.
    Fens(Vec<String>),
}

impl Openings {
    /// Start positions from a file: one FEN per line, blank lines and lines starting with
    /// `#` skipped. Every FEN must give a legal position; an error names the file and line.
    pub fn from_fen_file(path: &std::path::Path) -> Result<Openings, MatchError> {
        let bytes = std::fs::read(path)
            .map_err(|e| MatchError::Openings(format!("{}: {e}", path.display())))?;
        Openings::from_fen_text(&bytes, &path.display().to_string())
    }

    /// Start positions from the bytes of an openings file (see [`Openings::from_fen_file`]);
    /// `name` names it in errors.
    pub fn from_fen_text(bytes: &[u8], name: &str) -> Result<Openings, MatchError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            MatchError::Openings(format!("{name}: not UTF-8 text (byte {})", e.valid_up_to()))
        })?;
        let mut list = Vec::new();
        for (i, l) in text.lines().enumerate() {
            let l = l.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            Position::from_fen(l).map_err(|e| {
                let shown: String = l.chars().take(60).collect();
                MatchError::Openings(format!("{name}: line {}: '{shown}': {e}", i + 1))
            })?;
            list.push(l.to_string());
        }
        if list.is_empty() {
            return Err(MatchError::Openings(format!("{name}: no FEN in the file")));
        }
        Ok(Openings::Fens(list))
    }
}

/// The openings of all pairs, chosen before the first game: book lines are drawn again (up
/// to 50 times, each from its own seed) while they repeat a line an earlier pair plays or
/// leave the book before the plies asked for, so that a book with enough lines gives every
/// pair its own opening.
pub(super) fn all_openings(cfg: &MatchConfig, book: Option<&Book>) -> Vec<(Position, Vec<Move>)> {
    let pairs = cfg.games.div_ceil(2);
    let mut used = std::collections::HashSet::new();
    (0..pairs)
        .map(|pair| {
            let mut o = opening(cfg, pair, 0, book);
            if let Openings::Book { plies, .. } = cfg.openings {
                // the first new line of full length, else the first new line, else the first
                let mut fallback: Option<(Position, Vec<Move>)> = None;
                for attempt in 1..50 {
                    let new = !used.contains(&o.1);
                    if new && o.1.len() >= plies {
                        fallback = None;
                        break;
                    }
                    if new && fallback.is_none() {
                        fallback = Some(o.clone());
                    }
                    o = opening(cfg, pair, attempt, book);
                }
                if let Some(f) = fallback {
                    if used.contains(&o.1) || o.1.len() < plies {
                        o = f;
                    }
                }
                used.insert(o.1.clone());
            }
            o
        })
        .collect()
}

/// The start position and opening moves of each pair of games of a match, as
/// [`super::run_match`] plays them (book lines distinct while the book has enough of them).
pub fn pair_openings(cfg: &MatchConfig) -> Result<Vec<(Position, Vec<Move>)>, MatchError> {
    let book = match &cfg.openings {
        Openings::Book { path, .. } => Some(Book::open(path)?),
        _ => None,
    };
    Ok(all_openings(cfg, book.as_ref()))
}

fn opening(
    cfg: &MatchConfig,
    pair: usize,
    attempt: u64,
    book: Option<&Book>,
) -> (Position, Vec<Move>) {
    match &cfg.openings {
        Openings::Start => (Position::startpos(), Vec::new()),
        Openings::Fens(list) => {
            // checked by run_match before any game
            let pos = list
                .get(pair % list.len().max(1))
                .and_then(|f| Position::from_fen(f).ok())
                .unwrap_or_else(Position::startpos);
            (pos, Vec::new())
        }
        Openings::Book { plies, .. } => {
            let mut rng = rand::rngs::StdRng::seed_from_u64(
                cfg.seed
                    ^ (pair as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    ^ attempt.wrapping_mul(0xD1B5_4A32_D192_ED03),
            );
            let start = Position::startpos();
            let mut pos = start.clone();
            let mut moves = Vec::new();
            if let Some(b) = book {
                for _ in 0..*plies {
                    match b.pick(&pos, &mut rng, PickMode::Weighted) {
                        Some(m) => {
                            pos.play(m);
                            moves.push(m);
                        }
                        None => break,
                    }
                }
            }
            (start, moves)
        }
    }
}
