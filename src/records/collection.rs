//! Reading whole collections: files and folders, PGN and XQF, one bad game never stopping
//! the rest.

use super::game::{Game, GameError};
use super::pgn::{parse_game, PgnReader};
use super::xqf::parse_xqf;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

const BATCH: usize = 512;

/// Figures of a read.
#[derive(Clone, Debug, Default)]
pub struct ReadStats {
    /// Files read.
    pub files: usize,
    /// Games read.
    pub games: usize,
    /// Plies of the games read.
    pub plies: usize,
    /// Games read that have no moves (results only, or tags only).
    pub empty: usize,
    /// Games skipped, with why.
    pub skipped: Vec<GameError>,
    /// Bytes of input.
    pub bytes: u64,
    /// Wall time.
    pub seconds: f64,
}

/// Game record files under `paths` (files as given; folders searched for .pgn and .xqf).
pub fn collect_files(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    fn walk(p: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect();
            entries.sort();
            for e in entries {
                if e.is_dir() {
                    walk(&e, out)?;
                } else if e
                    .extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| x.eq_ignore_ascii_case("pgn") || x.eq_ignore_ascii_case("xqf"))
                {
                    out.push(e);
                }
            }
        } else if p.exists() {
            out.push(p.to_path_buf());
        } else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{}: no such file or folder", p.display()),
            ));
        }
        Ok(())
    }
    for p in paths {
        walk(p, &mut out)?;
    }
    Ok(out)
}

/// Read every game of `paths`, calling `visit` with each good game (and its file), and
/// `progress` with the bytes read so far. Unreadable games are counted and skipped.
pub fn read_collection(
    paths: &[PathBuf],
    mut visit: impl FnMut(&Game, &Path),
    mut progress: impl FnMut(u64),
) -> std::io::Result<ReadStats> {
    let start = Instant::now();
    let files = collect_files(paths)?;
    let mut st = ReadStats::default();
    for f in &files {
        let name = f.display().to_string();
        let size = std::fs::metadata(f)?.len();
        st.files += 1;
        let is_xqf = f
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| x.eq_ignore_ascii_case("xqf"));
        if is_xqf {
            let bytes = std::fs::read(f)?;
            match parse_xqf(&bytes) {
                Ok(g) => {
                    st.games += 1;
                    st.plies += g.moves.len();
                    visit(&g, f);
                }
                Err(reason) => st.skipped.push(GameError {
                    file: name.clone(),
                    ordinal: 1,
                    ply: 0,
                    token: String::new(),
                    reason,
                }),
            }
        } else {
            let file = std::fs::File::open(f)?;
            let mut reader = PgnReader::new(std::io::BufReader::with_capacity(1 << 16, file));
            let mut done = 0u64;
            // games are split sequentially, parsed in parallel batches, visited in order
            loop {
                let mut batch = Vec::with_capacity(BATCH);
                while batch.len() < BATCH {
                    match reader.next_game()? {
                        Some(raw) => batch.push(raw),
                        None => break,
                    }
                }
                if batch.is_empty() {
                    break;
                }
                done += batch.iter().map(|r| r.text.len() as u64).sum::<u64>();
                let parsed: Vec<Result<Game, GameError>> =
                    batch.par_iter().map(|raw| parse_game(raw, &name)).collect();
                for r in parsed {
                    match r {
                        Ok(g) => {
                            st.games += 1;
                            st.plies += g.moves.len();
                            st.empty += g.moves.is_empty() as usize;
                            visit(&g, f);
                        }
                        Err(e) => st.skipped.push(e),
                    }
                }
                progress(st.bytes + done.min(size));
            }
        }
        st.bytes += size;
        progress(st.bytes);
    }
    st.seconds = start.elapsed().as_secs_f64();
    Ok(st)
}
