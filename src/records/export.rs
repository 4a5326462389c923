//! Exporting collections: every readable game of files and folders written as normalised
//! UTF-8 PGN in one notation.

use super::collection::{collect_files, read_collection, ReadStats};
use super::pgn::{write_game, Notation};
use super::Game;
use crate::progress::{Phase, Progress};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a collection cannot be read or exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// An input cannot be read.
    #[error("{0}")]
    Read(#[from] std::io::Error),
    /// The output is one of the inputs (see [`crate::paths::check_output_not_input`]).
    #[error("{0}")]
    OutputIsInput(String),
    /// The output (or its temporary file) cannot be created or put in place.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// Writing the export failed.
    #[error("writing the export: {0}")]
    Write(std::io::Error),
}

/// [`read_collection`] with a `reading` phase on `progress`, one step per byte of input.
pub fn read_reporting(
    paths: &[PathBuf],
    visit: impl FnMut(&Game, &Path),
    progress: &dyn Progress,
) -> std::io::Result<ReadStats> {
    let total: u64 = collect_files(paths)?
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let phase = Phase::begin(progress, "", "reading", total);
    let mut done = 0;
    let st = read_collection(paths, visit, |b| {
        phase.inc(b.saturating_sub(done));
        done = done.max(b);
    })?;
    phase.end();
    Ok(st)
}

/// Write every readable game of `paths` to `output` as UTF-8 PGN in `notation` (tags and
/// results kept; see [`write_game`]). The export goes to a temporary file renamed at the
/// end: the output is never half written, and never one of the inputs (refused).
pub fn export_collection(
    paths: &[PathBuf],
    output: &Path,
    notation: Notation,
    progress: &dyn Progress,
) -> Result<ReadStats, ExportError> {
    let files = collect_files(paths)?;
    crate::paths::check_output_not_input(output, &files).map_err(ExportError::OutputIsInput)?;
    let tmp = crate::tablebase::file::temp_path(output);
    let written = write_through(paths, &tmp, output, notation, progress);
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The export into `tmp`, renamed `output` when complete.
fn write_through(
    paths: &[PathBuf],
    tmp: &Path,
    output: &Path,
    notation: Notation,
    progress: &dyn Progress,
) -> Result<ReadStats, ExportError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| ExportError::File { path, source }
    };
    let f = std::fs::File::create(tmp).map_err(io(tmp))?;
    let mut out = std::io::BufWriter::new(f);
    let mut write_err = None;
    let st = read_reporting(
        paths,
        |g, _| {
            if write_err.is_none() {
                if let Err(e) = out.write_all(write_game(g, notation).as_bytes()) {
                    write_err = Some(e);
                }
            }
        },
        progress,
    )?;
    let written = match write_err {
        Some(e) => Err(e),
        None => out.flush(),
    };
    written.map_err(ExportError::Write)?;
    drop(out);
    std::fs::rename(tmp, output).map_err(io(output))?;
    Ok(st)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;

    const TWO_GAMES: &str = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n\n[Event \"b\"]\n[Result \"*\"]\n\n1. c3c4 *\n";

    #[test]
    fn an_export_reads_back_as_the_same_games() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.pgn");
        std::fs::write(&input, TWO_GAMES).unwrap();
        let out = dir.path().join("out.pgn");
        let st = export_collection(
            std::slice::from_ref(&input),
            &out,
            Notation::Chinese,
            &Silent,
        )
        .unwrap();
        assert_eq!((st.files, st.games, st.plies), (1, 2, 3));
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(
            text.contains("炮二平五") && text.contains("[Format \"Chinese\"]"),
            "{text}"
        );
        let mut back = Vec::new();
        read_collection(
            std::slice::from_ref(&out),
            |g, _| back.push(g.moves.clone()),
            |_| {},
        )
        .unwrap();
        let mut orig = Vec::new();
        read_collection(&[input], |g, _| orig.push(g.moves.clone()), |_| {}).unwrap();
        assert_eq!(back, orig);
        // only the output is left in the folder: no temporary file
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn bad_inputs_and_outputs_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.pgn");
        std::fs::write(&input, TWO_GAMES).unwrap();
        // the output is the input: refused, the input intact
        let e = export_collection(
            std::slice::from_ref(&input),
            &input,
            Notation::Iccs,
            &Silent,
        )
        .unwrap_err();
        assert!(matches!(e, ExportError::OutputIsInput(_)), "{e}");
        assert!(e.to_string().contains("the output is also an input"), "{e}");
        assert_eq!(std::fs::read_to_string(&input).unwrap(), TWO_GAMES);
        // a missing input is named
        let missing = dir.path().join("nope.pgn");
        let out = dir.path().join("out.pgn");
        let e = export_collection(
            std::slice::from_ref(&missing),
            &out,
            Notation::Iccs,
            &Silent,
        )
        .unwrap_err();
        assert!(
            e.to_string().contains(&missing.display().to_string()),
            "{e}"
        );
        // an output in a missing folder is named, and nothing is left behind
        let out = dir.path().join("no/such/folder/out.pgn");
        let e = export_collection(&[input], &out, Notation::Iccs, &Silent).unwrap_err();
        assert!(matches!(e, ExportError::File { .. }), "{e}");
        assert!(e.to_string().contains("no/such/folder"), "{e}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
