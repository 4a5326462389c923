//! The match command.

pub fn tally(games: &[xqdb::arena::MatchGame]) -> (usize, usize, usize) {
    let mut t = (0, 0, 0);
    for g in games {
        match g.score0() {
            x if x > 0.75 => t.0 += 1,
            x if x < 0.25 => t.2 += 1,
            _ => t.1 += 1,
        }
    }
    t
}
