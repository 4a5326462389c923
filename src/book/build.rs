//! Building a book from games.

use super::file::{BookEntry, BookMove};
use crate::board::{Color, Move, Position};
use crate::records::{Game, GameResult};

/// How move weights are computed (`--weight score|games|wins` on the command line).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
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

    /// Weight of a move from its statistics (saturating: never wraps, whatever the counts).
    pub fn weight(self, m: &BookMove) -> u32 {
        let unknown = m
            .games
            .saturating_sub(m.wins)
            .saturating_sub(m.draws)
            .saturating_sub(m.losses);
        match self {
            Weighting::Score => m
                .wins
                .saturating_mul(2)
                .saturating_add(m.draws)
                .saturating_add(unknown),
            Weighting::Games => m.games,
            Weighting::Wins => m.wins,
        }
    }

    /// Its name (as `--weight` takes it).
    pub fn name(self) -> &'static str {
        match self {
            Weighting::Score => "score",
            Weighting::Games => "games",
            Weighting::Wins => "wins",
        }
    }

    /// From its name.
    pub fn from_name(s: &str) -> Option<Weighting> {
        [Weighting::Score, Weighting::Games, Weighting::Wins]
            .into_iter()
            .find(|w| w.name() == s)
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

/// A move as stored: seen from the canonical side. In a symmetric position (its own mirror
/// image) a move and its mirror image are different moves and stay as played, so that the
/// book shows the orientation the games used (`h2e2` for 炮二平五).
#[inline]
pub fn canonical_move(pos: &Position, m: Move) -> (u64, Move) {
    let (key, mirrored) = canonical(pos);
    let m = if mirrored { m.mirror() } else { m };
    (key, m)
}

/// Counts of one (position, move): wins, draws, losses (for the mover), unknown results.
type Tally = [u32; 4];

/// A book under construction, fed one game at a time (memory grows with the distinct
/// positions and moves, never with the games). The result does not depend on the order
/// of the games.
pub struct BookBuilder {
    opts: BookOptions,
    counts: rustc_hash::FxHashMap<(u64, u16), Tally>,
    used: u64,
}

impl BookBuilder {
    /// An empty book with these options.
    pub fn new(opts: &BookOptions) -> BookBuilder {
        BookBuilder {
            opts: *opts,
            counts: Default::default(),
            used: 0,
        }
    }

    /// Add the first `max_ply` moves of a game.
    pub fn add(&mut self, g: &Game) {
        if g.moves.is_empty() || self.opts.max_ply == 0 {
            return;
        }
        self.used += 1;
        let mut pos = g.start.clone();
        for &m in g.moves.iter().take(self.opts.max_ply as usize) {
            let (key, cm) = canonical_move(&pos, m);
            let outcome = match (g.result, pos.turn()) {
                (None, _) => 3,
                (Some(GameResult::Draw), _) => 1,
                (Some(GameResult::RedWins), Color::Red)
                | (Some(GameResult::BlackWins), Color::Black) => 0,
                _ => 2,
            };
            let t = self.counts.entry((key, cm.to_u16())).or_default();
            t[outcome] = t[outcome].saturating_add(1);
            pos.play(m);
        }
    }

    /// Games added that gave at least one move.
    pub fn games_used(&self) -> u64 {
        self.used
    }

    /// Distinct (position, move) pairs so far.
    pub fn pairs(&self) -> usize {
        self.counts.len()
    }

    /// The entries in key order, moves in code order, after the `min_games` filter.
    pub fn finish(self) -> (Vec<BookEntry>, BuildSummary) {
        let mut all: Vec<((u64, u16), Tally)> = self.counts.into_iter().collect();
        all.sort_unstable_by_key(|(k, _)| *k);
        let mut entries: Vec<BookEntry> = Vec::new();
        for ((key, code), t) in all {
            let games = t.iter().fold(0u32, |a, &x| a.saturating_add(x));
            if games < self.opts.min_games {
                continue;
            }
            let Some(mv) = Move::from_u16(code) else {
                continue; // stored from a real move: cannot happen
            };
            let mut bm = BookMove {
                mv,
                games,
                wins: t[0],
                draws: t[1],
                losses: t[2],
                weight: 0,
            };
            bm.weight = self.opts.weighting.weight(&bm);
            match entries.last_mut() {
                Some(e) if e.key == key => e.moves.push(bm),
                _ => entries.push(BookEntry {
                    key,
                    moves: vec![bm],
                }),
            }
        }
        let moves = entries.iter().map(|e| e.moves.len() as u64).sum();
        let summary = BuildSummary {
            games_used: self.used,
            positions: entries.len() as u64,
            moves,
        };
        (entries, summary)
    }
}

/// Build book entries from games (deterministic: the result does not depend on the order of
/// the games).
pub fn build(games: &[Game], opts: &BookOptions) -> (Vec<BookEntry>, BuildSummary) {
    let mut b = BookBuilder::new(opts);
    for g in games {
        b.add(g);
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn weightings_by_name() {
        for &w in Weighting::value_variants() {
            let name = w.to_possible_value().expect("every weighting is named");
            assert_eq!(
                name.get_name(),
                w.name(),
                "the command line's name is the header's"
            );
            assert_eq!(Weighting::from_name(w.name()), Some(w));
            assert_eq!(Weighting::from_str(w.name(), false), Ok(w));
            assert_eq!(Weighting::from_code(w.code()), Some(w));
        }
        assert_eq!(Weighting::value_variants().len(), 3);
        assert!(Weighting::from_str("elo", false).is_err());
        assert_eq!(Weighting::from_name("elo"), None);
    }
}
