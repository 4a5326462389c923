//! Opening books: built from game records, keyed by Zobrist keys, one entry per position and
//! its left-right mirror, with per-move statistics. See [`build()`] and [`Book`].

mod build;
mod file;

pub use build::{
    build, canonical, canonical_move, BookBuilder, BookOptions, BuildSummary, Weighting,
};
pub use file::{
    merge, write, Book, BookEntry, BookError, BookMove, MergeError, MergeSummary, PickMode,
};

/// The default opening collection written for the project (main lines of the common
/// openings, ICCS), embedded in the binary.
pub const DEFAULT_OPENINGS: &str = include_str!("../../data/openings.pgn");

/// Read games from PGN text (unreadable games are skipped and counted).
pub fn games_from_text(text: &str, name: &str) -> (Vec<crate::records::Game>, usize) {
    let mut r = crate::records::PgnReader::new(text.as_bytes());
    let mut games = Vec::new();
    let mut skipped = 0;
    while let Ok(Some(raw)) = r.next_game() {
        match crate::records::parse_game(&raw, name) {
            Ok(g) => games.push(g),
            Err(_) => skipped += 1,
        }
    }
    (games, skipped)
}

/// Build the default book (from [`DEFAULT_OPENINGS`], every move kept) into `path`.
pub fn build_default(path: &std::path::Path) -> Result<BuildSummary, BookError> {
    let (games, _) = games_from_text(DEFAULT_OPENINGS, "data/openings.pgn");
    let opts = BookOptions {
        max_ply: 40,
        min_games: 1,
        weighting: Weighting::Score,
    };
    let (entries, summary) = build(&games, &opts);
    write(path, &entries, &opts, summary.games_used)?;
    Ok(summary)
}
