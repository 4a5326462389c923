//! Opening books: built from game records, keyed by Zobrist keys, one entry per position and
//! its left-right mirror, with per-move statistics. See [`build()`] and [`Book`].

mod build;
mod file;
pub mod repertoire;

pub use build::{
    build, canonical, canonical_move, BookBuilder, BookOptions, BuildSummary, Weighting,
};
pub use file::{
    merge, write, Book, BookEntry, BookError, BookMove, MergeError, MergeSummary, PickMode,
};

/// A small opening collection written for the project (main lines of the common openings,
/// ICCS), embedded in the binary as sample games.
pub const DEFAULT_OPENINGS: &str = include_str!("../../data/openings.pgn");

/// The default book's repertoire, derived from the Chinese Chess Practical Dataset's games
/// by `xqdb book repertoire` (see [`repertoire`] and the file's header), embedded.
pub const DEFAULT_REPERTOIRE: &str = include_str!("../../data/repertoire.txt");

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

/// Build the default book (from [`DEFAULT_REPERTOIRE`]) into `path`.
pub fn build_default(path: &std::path::Path) -> Result<BuildSummary, BookError> {
    let rep =
        repertoire::Repertoire::parse(DEFAULT_REPERTOIRE).map_err(|e| BookError::Corrupt {
            path: "data/repertoire.txt (embedded)".into(),
            reason: e.to_string(),
        })?;
    let opts = repertoire::book_options(&repertoire::RepertoireOptions::default());
    let entries = rep.entries(opts.weighting);
    let summary = BuildSummary {
        games_used: entries
            .iter()
            .find(|e| e.key == canonical(&crate::board::Position::startpos()).0)
            .map_or(0, |e| e.moves.iter().map(|m| u64::from(m.games)).sum()),
        positions: entries.len() as u64,
        moves: entries.iter().map(|e| e.moves.len() as u64).sum(),
    };
    write(path, &entries, &opts, summary.games_used)?;
    Ok(summary)
}

/// What [`build_files`] read and wrote.
#[derive(Clone, Debug)]
pub struct FilesBuild {
    /// The book's figures.
    pub summary: BuildSummary,
    /// What was read (skipped games and bytes included).
    pub read: crate::records::collection::ReadStats,
    /// Size of the book file in bytes.
    pub bytes: u64,
}

/// Why [`build_files`] fails.
#[derive(Debug, thiserror::Error)]
pub enum BuildFilesError {
    /// An input cannot be read.
    #[error("{0}")]
    Read(#[from] std::io::Error),
    /// The output is one of the inputs (see [`crate::paths::check_output_not_input`]).
    #[error("{0}")]
    OutputIsInput(String),
    /// The book cannot be written.
    #[error(transparent)]
    Write(#[from] BookError),
}

/// Build a book from the game records of `paths` (files, or folders searched for .pgn and
/// .xqf) into `output`, reporting a `reading` phase (one step per byte) on `progress`.
/// Games go into the builder one by one: memory follows the book, not the input. An output
/// that is one of the inputs is refused.
pub fn build_files(
    paths: &[std::path::PathBuf],
    output: &std::path::Path,
    opts: &BookOptions,
    progress: &dyn crate::progress::Progress,
) -> Result<FilesBuild, BuildFilesError> {
    let files = crate::records::collection::collect_files(paths)?;
    crate::paths::check_output_not_input(output, &files).map_err(BuildFilesError::OutputIsInput)?;
    let mut builder = BookBuilder::new(opts);
    let read = crate::records::export::read_reporting(paths, |g, _| builder.add(g), progress)?;
    let (entries, summary) = builder.finish();
    let bytes = write(output, &entries, opts, summary.games_used)?;
    Ok(FilesBuild {
        summary,
        read,
        bytes,
    })
}
