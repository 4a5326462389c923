//! Book files (see FORMAT.md): header, position table sorted by key, move table.

use super::build::{canonical, BookOptions, Weighting};
use crate::board::zobrist::ZOBRIST_VERSION;
use crate::board::{Move, Position};
use byteorder::{ByteOrder, LittleEndian as LE};
use rand::Rng;
use std::path::{Path, PathBuf};

const MAGIC: [u8; 8] = *b"XQDBBOOK";
/// Book format version.
pub const BOOK_VERSION: u32 = 1;
const HEADER: usize = 64;
const POS_REC: usize = 16;
const MOVE_REC: usize = 24;

/// Statistics of one book move, from the mover's side.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move (in the probed position's orientation when returned by [`Book::moves`]).
    pub mv: Move,
    /// Games that played it.
    pub games: u32,
    /// Of those, won by the mover.
    pub wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Lost by the mover (games with an unknown result are in none of the three).
    pub losses: u32,
    /// Weight for picking.
    pub weight: u32,
}

impl BookMove {
    /// Score in percent from the mover's side over games with a known result.
    pub fn score_percent(&self) -> Option<f64> {
        let known = self.wins + self.draws + self.losses;
        (known > 0).then(|| 100.0 * (self.wins as f64 + 0.5 * self.draws as f64) / known as f64)
    }
}

/// One stored position: its canonical key and moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookEntry {
    /// Canonical Zobrist key.
    pub key: u64,
    /// Moves.
    pub moves: Vec<BookMove>,
}

/// Errors of book files.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// Reading or writing.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// Not a valid book.
    #[error("{path}: corrupt book: {reason}")]
    Corrupt {
        /// File.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// How [`Book::pick`] chooses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PickMode {
    /// At random, in proportion to the weights.
    Weighted,
    /// The move with the highest weight.
    Best,
}

/// A memory-mapped book.
pub struct Book {
    path: PathBuf,
    map: memmap2::Mmap,
    positions: usize,
    moves: usize,
    /// Options it was built with.
    pub options: BookOptions,
    /// Games that gave it moves.
    pub games: u64,
}

impl std::fmt::Debug for Book {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Book")
            .field("path", &self.path)
            .field("positions", &self.positions)
            .finish()
    }
}

/// Write a book file.
pub fn write_book(
    path: &Path,
    entries: &[BookEntry],
    opts: &BookOptions,
    games: u64,
) -> Result<u64, BookError> {
    let io = |e| BookError::Io {
        path: path.display().to_string(),
        source: e,
    };
    let nmoves: usize = entries.iter().map(|e| e.moves.len()).sum();
    let mut buf = vec![0u8; HEADER + entries.len() * POS_REC + nmoves * MOVE_REC];
    buf[0..8].copy_from_slice(&MAGIC);
    LE::write_u32(&mut buf[8..12], BOOK_VERSION);
    LE::write_u32(&mut buf[12..16], ZOBRIST_VERSION);
    LE::write_u64(&mut buf[16..24], entries.len() as u64);
    LE::write_u64(&mut buf[24..32], nmoves as u64);
    LE::write_u32(&mut buf[32..36], opts.max_ply);
    LE::write_u32(&mut buf[36..40], opts.min_games);
    buf[40] = opts.weighting.code();
    LE::write_u64(&mut buf[48..56], games);
    let mut m = 0usize;
    let moves_at = HEADER + entries.len() * POS_REC;
    for (i, e) in entries.iter().enumerate() {
        let o = HEADER + i * POS_REC;
        LE::write_u64(&mut buf[o..o + 8], e.key);
        LE::write_u32(&mut buf[o + 8..o + 12], m as u32);
        LE::write_u32(&mut buf[o + 12..o + 16], e.moves.len() as u32);
        for bm in &e.moves {
            let o = moves_at + m * MOVE_REC;
            LE::write_u16(&mut buf[o..o + 2], bm.mv.to_u16());
            LE::write_u32(&mut buf[o + 4..o + 8], bm.games);
            LE::write_u32(&mut buf[o + 8..o + 12], bm.wins);
            LE::write_u32(&mut buf[o + 12..o + 16], bm.draws);
            LE::write_u32(&mut buf[o + 16..o + 20], bm.losses);
            LE::write_u32(&mut buf[o + 20..o + 24], bm.weight);
            m += 1;
        }
    }
    let mut crc = crc32fast::Hasher::new();
    crc.update(&buf[..56]);
    crc.update(&buf[HEADER..]);
    let c = crc.finalize();
    LE::write_u32(&mut buf[56..60], c);
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
    }
    let tmp = crate::tablebase::file::temp_path(path);
    if let Err(e) = std::fs::write(&tmp, &buf).and_then(|()| std::fs::rename(&tmp, path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    Ok(buf.len() as u64)
}

impl Book {
    /// Open and check a book file (magic, version, Zobrist scheme, sizes, checksum).
    pub fn open(path: impl AsRef<Path>) -> Result<Book, BookError> {
        let path = path.as_ref();
        let corrupt = |r: String| BookError::Corrupt {
            path: path.display().to_string(),
            reason: r,
        };
        let file = std::fs::File::open(path).map_err(|e| BookError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        // SAFETY: read-only map; books are replaced by rename, never written in place.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| BookError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        if map.len() < HEADER || map[0..8] != MAGIC {
            return Err(corrupt("not an xqdb book (bad magic or too short)".into()));
        }
        let v = LE::read_u32(&map[8..12]);
        if v != BOOK_VERSION {
            return Err(corrupt(format!(
                "format version {v}, this build reads {BOOK_VERSION}"
            )));
        }
        let z = LE::read_u32(&map[12..16]);
        if z != ZOBRIST_VERSION {
            return Err(corrupt(format!(
                "Zobrist scheme {z}, this build uses {ZOBRIST_VERSION}"
            )));
        }
        let positions = LE::read_u64(&map[16..24]) as usize;
        let moves = LE::read_u64(&map[24..32]) as usize;
        let want = positions
            .checked_mul(POS_REC)
            .and_then(|a| moves.checked_mul(MOVE_REC).and_then(|b| a.checked_add(b)))
            .and_then(|x| x.checked_add(HEADER));
        if want != Some(map.len()) {
            return Err(corrupt(format!(
                "size {} does not match {positions} positions and {moves} moves",
                map.len()
            )));
        }
        let mut crc = crc32fast::Hasher::new();
        crc.update(&map[..56]);
        crc.update(&map[HEADER..]);
        if crc.finalize() != LE::read_u32(&map[56..60]) {
            return Err(corrupt("checksum mismatch".into()));
        }
        let weighting = Weighting::from_code(map[40])
            .ok_or_else(|| corrupt(format!("unknown weighting {}", map[40])))?;
        for (range, what) in [(41..48, "41..48"), (60..64, "60..64")] {
            if map[range].iter().any(|&b| b != 0) {
                return Err(corrupt(format!(
                    "reserved header bytes {what} are not zero"
                )));
            }
        }
        let book = Book {
            path: path.to_path_buf(),
            positions,
            moves,
            options: BookOptions {
                max_ply: LE::read_u32(&map[32..36]),
                min_games: LE::read_u32(&map[36..40]),
                weighting,
            },
            games: LE::read_u64(&map[48..56]),
            map,
        };
        // every position's move range must lie in the move table, keys strictly increasing
        let mut last = None;
        for i in 0..positions {
            let (k, first, n) = book.record(i);
            if last.is_some_and(|l| l >= k) || first as usize + n as usize > moves {
                return Err(corrupt(format!(
                    "position record {i} out of order or out of range"
                )));
            }
            last = Some(k);
        }
        // every move record: a move on the board, results within its games
        for j in 0..moves {
            let o = HEADER + positions * POS_REC + j * MOVE_REC;
            let r = &book.map[o..o + MOVE_REC];
            let code = LE::read_u16(&r[0..2]);
            let (games, w, d, l) = (
                LE::read_u32(&r[4..8]) as u64,
                LE::read_u32(&r[8..12]) as u64,
                LE::read_u32(&r[12..16]) as u64,
                LE::read_u32(&r[16..20]) as u64,
            );
            if Move::from_u16(code).is_none() || r[2..4] != [0, 0] {
                return Err(corrupt(format!(
                    "move record {j}: bad move code {code:#06x}"
                )));
            }
            if w + d + l > games {
                return Err(corrupt(format!(
                    "move record {j}: {w} wins, {d} draws and {l} losses in {games} games"
                )));
            }
        }
        Ok(book)
    }

    fn record(&self, i: usize) -> (u64, u32, u32) {
        let o = HEADER + i * POS_REC;
        let r = &self.map[o..o + POS_REC];
        (
            LE::read_u64(&r[0..8]),
            LE::read_u32(&r[8..12]),
            LE::read_u32(&r[12..16]),
        )
    }

    fn move_at(&self, j: usize) -> Option<BookMove> {
        let o = HEADER + self.positions * POS_REC + j * MOVE_REC;
        let r = self.map.get(o..o + MOVE_REC)?;
        Some(BookMove {
            mv: Move::from_u16(LE::read_u16(&r[0..2]))?,
            games: LE::read_u32(&r[4..8]),
            wins: LE::read_u32(&r[8..12]),
            draws: LE::read_u32(&r[12..16]),
            losses: LE::read_u32(&r[16..20]),
            weight: LE::read_u32(&r[20..24]),
        })
    }

    /// Number of positions.
    pub fn positions(&self) -> usize {
        self.positions
    }

    /// Number of moves.
    pub fn move_count(&self) -> usize {
        self.moves
    }

    /// Size of the file.
    pub fn file_size(&self) -> u64 {
        self.map.len() as u64
    }

    /// Every entry in key order.
    pub fn entries(&self) -> impl Iterator<Item = BookEntry> + '_ {
        (0..self.positions).map(move |i| {
            let (key, first, n) = self.record(i);
            BookEntry {
                key,
                moves: (first..first + n)
                    .filter_map(|j| self.move_at(j as usize))
                    .collect(),
            }
        })
    }

    /// The moves stored for a position, turned to its orientation, not checked.
    pub fn stored_moves(&self, pos: &Position) -> Option<Vec<BookMove>> {
        let (key, mirrored) = canonical(pos);
        let (mut lo, mut hi) = (0usize, self.positions);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.record(mid).0 < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo >= self.positions || self.record(lo).0 != key {
            return None;
        }
        let (_, first, n) = self.record(lo);
        Some(
            (first..first + n)
                .filter_map(|j| self.move_at(j as usize))
                .map(|mut b| {
                    if mirrored {
                        b.mv = b.mv.mirror();
                    }
                    b
                })
                .collect(),
        )
    }

    /// Book moves of a position, best (highest weight) first, in the position's orientation;
    /// only legal moves are returned (a key collision cannot produce an illegal move).
    pub fn moves(&self, pos: &Position) -> Vec<BookMove> {
        let symmetric = pos.key() == pos.mirror_key();
        let Some(stored) = self.stored_moves(pos) else {
            return Vec::new();
        };
        let mut out: Vec<BookMove> = stored
            .into_iter()
            .filter_map(|mut b| {
                if pos.is_legal(b.mv) {
                    Some(b)
                } else if symmetric && pos.is_legal(b.mv.mirror()) {
                    b.mv = b.mv.mirror();
                    Some(b)
                } else {
                    None
                }
            })
            .collect();
        out.sort_by(|a, b| {
            b.weight
                .cmp(&a.weight)
                .then(b.games.cmp(&a.games))
                .then(a.mv.cmp(&b.mv))
        });
        out
    }

    /// Choose a book move (None when the position is not in the book).
    pub fn pick<R: Rng>(&self, pos: &Position, rng: &mut R, mode: PickMode) -> Option<Move> {
        let moves = self.moves(pos);
        let m = match mode {
            PickMode::Best => moves.first()?.mv,
            PickMode::Weighted => {
                let total: u64 = moves.iter().map(|m| m.weight as u64).sum();
                if total == 0 {
                    moves.first()?.mv
                } else {
                    let mut x = rng.gen_range(0..total);
                    let mut chosen = moves[0].mv;
                    for m in &moves {
                        if x < m.weight as u64 {
                            chosen = m.mv;
                            break;
                        }
                        x -= m.weight as u64;
                    }
                    chosen
                }
            }
        };
        Some(m)
    }
}

/// Why books cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// Reading or writing a book.
    #[error(transparent)]
    Book(#[from] BookError),
    /// The books weigh moves differently and no weighting was chosen.
    #[error("the books weigh moves differently ({0}); choose the weighting of the merged book")]
    Weightings(String),
}

/// What [`merge`] wrote.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MergeSummary {
    /// Positions in the merged book.
    pub positions: usize,
    /// Moves in the merged book.
    pub moves: usize,
    /// Size of the file in bytes.
    pub bytes: u64,
    /// The weighting of the merged book (the one chosen, else the books' common one).
    pub weighting: Weighting,
}

/// Add the statistics of several books (same key and move: counts summed, saturating) and
/// recompute every weight with `weighting`, else with the books' common weighting (books
/// with different weightings and no `weighting` are refused). Options of the result: the
/// largest max ply, the smallest min games.
pub fn merge(
    books: &[&Book],
    path: &Path,
    weighting: Option<Weighting>,
) -> Result<MergeSummary, MergeError> {
    let weighting = match weighting {
        Some(w) => w,
        None => {
            let first = books
                .first()
                .map_or(Weighting::Score, |b| b.options.weighting);
            if books.iter().any(|b| b.options.weighting != first) {
                let names: Vec<String> = books
                    .iter()
                    .map(|b| format!("{}: {}", b.path.display(), b.options.weighting.name()))
                    .collect();
                return Err(MergeError::Weightings(names.join(", ")));
            }
            first
        }
    };
    let mut all: Vec<(u64, BookMove)> = Vec::new();
    for b in books {
        for e in b.entries() {
            for m in e.moves {
                all.push((e.key, m));
            }
        }
    }
    all.sort_by_key(|(k, m)| (*k, m.mv.to_u16()));
    let mut entries: Vec<BookEntry> = Vec::new();
    for (k, m) in all {
        match entries.last_mut() {
            Some(e) if e.key == k => match e.moves.last_mut() {
                Some(last) if last.mv == m.mv => {
                    last.games = last.games.saturating_add(m.games);
                    last.wins = last.wins.saturating_add(m.wins);
                    last.draws = last.draws.saturating_add(m.draws);
                    last.losses = last.losses.saturating_add(m.losses);
                }
                _ => e.moves.push(m),
            },
            _ => entries.push(BookEntry {
                key: k,
                moves: vec![m],
            }),
        }
    }
    for e in &mut entries {
        for m in &mut e.moves {
            m.weight = weighting.weight(m);
        }
    }
    let opts = BookOptions {
        max_ply: books.iter().map(|b| b.options.max_ply).max().unwrap_or(0),
        min_games: books.iter().map(|b| b.options.min_games).min().unwrap_or(0),
        weighting,
    };
    let games = books.iter().fold(0u64, |a, b| a.saturating_add(b.games));
    let bytes = write_book(path, &entries, &opts, games)?;
    Ok(MergeSummary {
        positions: entries.len(),
        moves: entries.iter().map(|e| e.moves.len()).sum(),
        bytes,
        weighting,
    })
}

pub use write_book as write;
