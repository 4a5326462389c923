//! Reading whole collections: files and folders, PGN and XQF, one bad game never stopping
//! the rest.

use super::game::{Game, GameError};
use super::pgn::{parse_stretch, Parsed, PgnReader};
use super::xqf::parse_xqf;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

const BATCH: usize = 512;
/// Text held in one batch of games at most (games are parsed in parallel batches).
const BATCH_BYTES: usize = 32 << 20;

/// Bytes of a file that were not part of any game read, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedBytes {
    /// File.
    pub file: String,
    /// Offset of the first byte.
    pub offset: u64,
    /// Number of bytes.
    pub len: u64,
    /// Why.
    pub why: String,
}

impl std::fmt::Display for SkippedBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: bytes {}..{} ({} bytes): {}",
            self.file,
            self.offset,
            self.offset + self.len,
            self.len,
            self.why
        )
    }
}

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
    /// Stretches of bytes that were not part of any game (junk between games, text after a
    /// result), with where and why. Skipped games are in `skipped`.
    pub skipped_bytes: Vec<SkippedBytes>,
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
                Err(e) => st.skipped.push(GameError {
                    file: name.clone(),
                    ordinal: 1,
                    ply: e.ply(),
                    token: String::new(),
                    reason: e.to_string(),
                    bytes: Some((0, bytes.len() as u64)),
                }),
            }
        } else {
            let file = std::fs::File::open(f)?;
            let mut reader = PgnReader::new(file);
            // games are split sequentially, parsed in parallel batches, visited in order
            loop {
                let mut batch = Vec::with_capacity(BATCH);
                let mut held = 0;
                while batch.len() < BATCH && held < BATCH_BYTES {
                    match reader.next_game()? {
                        Some(raw) => {
                            held += raw.text.len();
                            batch.push(raw);
                        }
                        None => break,
                    }
                }
                let Some(last) = batch.last() else {
                    break;
                };
                let done = last.end();
                let ordinals: Vec<usize> = batch.iter().map(|r| r.ordinal).collect();
                let parsed: Vec<Result<Parsed, GameError>> = batch
                    .par_iter()
                    .map(|raw| parse_stretch(raw, &name))
                    .collect();
                drop(batch);
                for (r, ordinal) in parsed.into_iter().zip(ordinals) {
                    match r {
                        Ok(Parsed::Game(g, junk)) => {
                            st.games += 1;
                            st.plies += g.moves.len();
                            st.empty += g.moves.is_empty() as usize;
                            for j in junk {
                                st.skipped_bytes.push(SkippedBytes {
                                    file: name.clone(),
                                    offset: j.offset,
                                    len: j.len,
                                    why: format!("{} of game {ordinal}", j.why),
                                });
                            }
                            visit(&g, f);
                        }
                        Ok(Parsed::Junk(j)) => st.skipped_bytes.push(SkippedBytes {
                            file: name.clone(),
                            offset: j.offset,
                            len: j.len,
                            why: j.why.to_string(),
                        }),
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
