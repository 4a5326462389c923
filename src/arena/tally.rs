//! The results of a match from engine 1's point of view: wins, draws, losses, score and
//! Elo difference.

use super::{elo, MatchGame};

/// Wins, draws and losses of engine 1 (the first `--engine`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games engine 1 won.
    pub wins: usize,
    /// Games drawn (or unfinished).
    pub draws: usize,
    /// Games engine 1 lost.
    pub losses: usize,
}

impl Tally {
    /// The tally of `games`.
    pub fn of(games: &[MatchGame]) -> Tally {
        let mut t = Tally::default();
        for g in games {
            t.add(g);
        }
        t
    }

    /// Count one more game.
    pub fn add(&mut self, g: &MatchGame) {
        match g.score0() {
            x if x > 0.75 => self.wins += 1,
            x if x < 0.25 => self.losses += 1,
            _ => self.draws += 1,
        }
    }

    /// Games counted.
    pub fn games(&self) -> usize {
        self.wins + self.draws + self.losses
    }

    /// Engine 1's score (0 to 1), the Elo difference it gives and that difference's 95 %
    /// error bar (see [`elo`]).
    pub fn elo(&self) -> (f64, f64, f64) {
        elo(self.wins, self.draws, self.losses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;
    use crate::records::GameResult;

    fn game(red: usize, result: Option<GameResult>) -> MatchGame {
        MatchGame {
            number: 0,
            red,
            names: ["a".into(), "b".into()],
            start: Position::startpos(),
            moves: Vec::new(),
            opening_plies: 0,
            result,
            termination: String::new(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn results_count_from_engine_1s_side() {
        use GameResult::*;
        let games = [
            game(0, Some(RedWins)),   // engine 1 is Red and wins
            game(1, Some(RedWins)),   // engine 1 is Black and loses
            game(1, Some(BlackWins)), // engine 1 is Black and wins
            game(0, Some(Draw)),
            game(1, None), // unfinished: a draw
            game(0, Some(BlackWins)),
        ];
        let t = Tally::of(&games);
        assert_eq!(
            t,
            Tally {
                wins: 2,
                draws: 2,
                losses: 2
            }
        );
        assert_eq!(t.games(), 6);
        let (score, diff, _) = t.elo();
        assert_eq!(score, 0.5);
        assert!(diff.abs() < 1e-9, "{diff}");
        let (score, diff, _) = Tally::of(&games[..3]).elo();
        assert!((score - 2.0 / 3.0).abs() < 1e-12);
        // 400 log10(2): the Elo difference of a 2:1 score
        assert!((diff - 400.0 * 2f64.log10()).abs() < 1e-9, "{diff}");
    }
}
