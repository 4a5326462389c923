//! Building a book from games.

use super::file::{BookEntry, BookMove};
use crate::board::{Color, Move, Position};
use crate::records::{Game, GameResult};
use rayon::prelude::*;

/// How move weights are computed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Weighting {
    /// 2 x wins + draws from the mover's side; a game with an unknown result counts as a draw.
    Score,
    /// Number of games.
    Games,
    /// Number of wins.
    Wins,
}

impl Weighting {
    /// Code stored in the book header.
    pub fn code(self) -> u8 {
        match self {
            Weighting::Score => 0,
            Weighting::Games => 1,
            Weighting::Wins => 2,
        }
    }

    /// From a header code or a name.
    pub fn from_code(c: u8) -> Option<Weighting> {
        Some(match c {
            0 => Weighting::Score,
            1 => Weighting::Games,
            2 => Weighting::Wins,
            _ => return None,
        })
    }

    /// Weight of a move from its statistics.
    pub fn weight(self, m: &BookMove) -> u32 {
        let unknown = m.games - m.wins - m.draws - m.losses;
        match self {
            Weighting::Score => 2 * m.wins + m.draws + unknown,
            Weighting::Games => m.games,
            Weighting::Wins => m.wins,
        }
    }
}

/// Build options.
#[derive(Copy, Clone, Debug)]
pub struct BookOptions {
    /// Plies of each game that enter the book.
    pub max_ply: u32,
    /// Moves seen in fewer games are dropped.
    pub min_games: u32,
    /// Weighting.
    pub weighting: Weighting,
}

impl Default for BookOptions {
    fn default() -> BookOptions {
        BookOptions {
            max_ply: 40,
            min_games: 2,
            weighting: Weighting::Score,
        }
    }
}

/// Figures of a build.
#[derive(Clone, Debug, Default)]
pub struct BuildSummary {
    /// Games that gave at least one book move.
    pub games_used: u64,
    /// Positions in the book.
    pub positions: u64,
    /// Moves in the book.
    pub moves: u64,
}

/// The canonical form of a position for the book: the key of whichever of the position and
/// its mirror image has the smaller key, and whether that is the mirror image.
#[inline]
pub fn canonical(pos: &Position) -> (u64, bool) {
    let (k, mk) = (pos.key(), pos.mirror_key());
    if mk < k {
        (mk, true)
    } else {
        (k, false)
    }
}

/// A move as stored: seen from the canonical side; in a symmetric position a move and its
/// mirror image are one move (the smaller code).
#[inline]
pub fn canonical_move(pos: &Position, m: Move) -> (u64, Move) {
    let (key, mirrored) = canonical(pos);
    let m = if mirrored { m.mirror() } else { m };
    let m = if pos.key() == pos.mirror_key() && m.mirror().to_u16() < m.to_u16() {
        m.mirror()
    } else {
        m
    };
    (key, m)
}

/// (key, move, outcome for the mover: 0 loss, 1 draw, 2 win, 3 unknown)
type Occurrence = (u64, u16, u8);

fn occurrences(g: &Game, max_ply: u32) -> Vec<Occurrence> {
    let mut pos = g.start.clone();
    let mut out = Vec::with_capacity(g.moves.len().min(max_ply as usize));
    for &m in g.moves.iter().take(max_ply as usize) {
        let (key, cm) = canonical_move(&pos, m);
        let outcome = match (g.result, pos.turn()) {
            (None, _) => 3,
            (Some(GameResult::Draw), _) => 1,
            (Some(GameResult::RedWins), Color::Red)
            | (Some(GameResult::BlackWins), Color::Black) => 2,
            _ => 0,
        };
        out.push((key, cm.to_u16(), outcome));
        pos.play(m);
    }
    out
}

/// Build book entries from games (deterministic: the result does not depend on the order of
/// work or the number of threads).
pub fn build(games: &[Game], opts: &BookOptions) -> (Vec<BookEntry>, BuildSummary) {
    let mut all: Vec<Occurrence> = games
        .par_iter()
        .flat_map_iter(|g| occurrences(g, opts.max_ply))
        .collect();
    all.par_sort_unstable();
    let mut entries: Vec<BookEntry> = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let key = all[i].0;
        let mut moves = Vec::new();
        while i < all.len() && all[i].0 == key {
            let code = all[i].1;
            let mut bm = BookMove {
                mv: Move::from_u16(code).expect("stored from a real move"),
                games: 0,
                wins: 0,
                draws: 0,
                losses: 0,
                weight: 0,
            };
            while i < all.len() && all[i].0 == key && all[i].1 == code {
                bm.games += 1;
                match all[i].2 {
                    0 => bm.losses += 1,
                    1 => bm.draws += 1,
                    2 => bm.wins += 1,
                    _ => {}
                }
                i += 1;
            }
            if bm.games >= opts.min_games {
                bm.weight = opts.weighting.weight(&bm);
                moves.push(bm);
            }
        }
        if !moves.is_empty() {
            entries.push(BookEntry { key, moves });
        }
    }
    let moves = entries.iter().map(|e| e.moves.len() as u64).sum();
    let used = games
        .iter()
        .filter(|g| !g.moves.is_empty() && opts.max_ply > 0)
        .count() as u64;
    let summary = BuildSummary {
        games_used: used,
        positions: entries.len() as u64,
        moves,
    };
    (entries, summary)
}
