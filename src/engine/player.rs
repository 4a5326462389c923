//! The engine's state between commands: root position and history, options, transposition
//! table, book and tablebases; and the decision of a move (book, then tablebase, then
//! search). Problems that do not stop play (a book that does not open, a tablebase folder
//! that is not there) are kept as notes for the protocol to report, never dropped.

use super::params::DEFAULT_HASH_MB;
use super::search::{Info, Limits, Memory};
use super::smp::{self, Job, MAX_THREADS};
use super::time::{limits_at, Clock};
use super::tt::Tt;
use crate::board::{Move, Position};
use crate::book::{Book, PickMode};
use crate::index::Material;
use crate::tablebase::Tablebases;
use rand::SeedableRng;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// Largest transposition table, in MiB (the `Hash` option's maximum).
pub const MAX_HASH_MB: usize = 4096;

/// The book: not looked at yet, open, or not usable (said once).
enum BookState {
    Unopened,
    Open(Book),
    Unusable,
}

/// Engine state: position, options, table, book, tablebases.
pub struct Engine {
    /// Root position.
    pub pos: Position,
    history: Vec<(u64, Move)>,
    /// Made at the first search (or when the size is set), so that starting costs nothing.
    tt: Option<Tt>,
    hash_mb: usize,
    threads: usize,
    book_path: PathBuf,
    book: BookState,
    /// Play book moves.
    pub use_book: bool,
    /// Best book move instead of weighted random.
    pub book_best: bool,
    tb_path: PathBuf,
    tb: Option<Tablebases>,
    tb_said: bool,
    /// Use tablebases.
    pub use_tb: bool,
    /// The natural limit in plies for the root choice by tables (see `tb_root`).
    pub natural_limit: u32,
    banned: Vec<Move>,
    /// What the search learnt, carried from move to move within a game.
    memory: Memory,
    rng: rand::rngs::StdRng,
    notes: Vec<String>,
}

/// What a search decided.
#[derive(Clone, Debug)]
pub struct Decision {
    /// The move (None: no legal move).
    pub best: Option<Move>,
    /// Where it came from, for `info string`.
    pub source: Option<String>,
    /// The last search report.
    pub info: Option<Info>,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

impl Engine {
    /// Defaults: 64 MiB hash, books/default.xqb, tables/ (both opened on first use).
    pub fn new() -> Engine {
        Engine {
            pos: Position::startpos(),
            history: Vec::new(),
            tt: None,
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            book_path: crate::paths::books_dir().join("default.xqb"),
            book: BookState::Unopened,
            use_book: true,
            book_best: false,
            tb_path: crate::paths::tables_dir(),
            tb: None,
            tb_said: false,
            use_tb: true,
            natural_limit: crate::tablebase::probe_dtc::DEFAULT_NATURAL_LIMIT,
            banned: Vec::new(),
            memory: Memory::default(),
            rng: rand::rngs::StdRng::seed_from_u64(0x5851_4442),
            notes: Vec::new(),
        }
    }

    /// Seed the book's random choice.
    pub fn seed(&mut self, s: u64) {
        self.rng = rand::rngs::StdRng::seed_from_u64(s);
    }

    /// Set the hash size in MiB (1 to [`MAX_HASH_MB`]). On an out-of-range size or when the
    /// memory cannot be had, the table is unchanged and the error says why.
    pub fn set_hash(&mut self, mb: usize) -> Result<(), String> {
        if !(1..=MAX_HASH_MB).contains(&mb) {
            return Err(format!(
                "hash size {mb} MiB out of range 1..={MAX_HASH_MB}; kept {} MiB",
                self.hash_mb
            ));
        }
        // free the old table first so that the two are never held at once
        self.tt = None;
        match Tt::try_new(mb) {
            Ok(t) => {
                self.tt = Some(t);
                self.hash_mb = mb;
                Ok(())
            }
            Err(e) => Err(format!("{e}; kept {} MiB", self.hash_mb)),
        }
    }

    /// Set the number of search threads (1 to [`MAX_THREADS`]); out of range: unchanged,
    /// and the error says why.
    pub fn set_threads(&mut self, n: usize) -> Result<(), String> {
        if !(1..=MAX_THREADS).contains(&n) {
            return Err(format!(
                "{n} threads out of range 1..={MAX_THREADS}; kept {}",
                self.threads
            ));
        }
        self.threads = n;
        Ok(())
    }

    /// Number of search threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Current hash size in MiB.
    pub fn hash_mb(&self) -> usize {
        self.hash_mb
    }

    /// Use another book file, opened and checked now. An empty path turns the book off. On
    /// error the engine plays without a book until another file is given.
    pub fn set_book(&mut self, p: PathBuf) -> Result<(), String> {
        self.book_path = p;
        if self.book_path.as_os_str().is_empty() {
            self.book = BookState::Unusable;
            return Ok(());
        }
        match Book::open(&self.book_path) {
            Ok(b) => {
                self.book = BookState::Open(b);
                Ok(())
            }
            Err(e) => {
                self.book = BookState::Unusable;
                Err(format!("{e}; playing without a book"))
            }
        }
    }

    /// Use another tablebase folder; an error when it is not a folder (the engine then
    /// plays without tables until another folder is given).
    pub fn set_tables(&mut self, p: PathBuf) -> Result<(), String> {
        self.tb_path = p;
        self.tb = None;
        self.tb_said = true;
        if self.tb_path.is_dir() {
            self.tb = Some(Tablebases::open(&self.tb_path));
            Ok(())
        } else {
            Err(format!(
                "{}: no such folder; playing without tablebases",
                self.tb_path.display()
            ))
        }
    }

    /// Forget the game (new game).
    pub fn new_game(&mut self) {
        self.memory = Memory::default();
        if let Some(t) = &mut self.tt {
            t.clear();
        }
    }

    /// Set the position: a FEN or `startpos`, then moves in ICCS.
    pub fn set_position(&mut self, fen: &str, moves: &[&str]) -> Result<(), String> {
        let mut pos = Position::from_fen(fen).map_err(|e| e.to_string())?;
        let mut history = Vec::new();
        for t in moves {
            let m: Move = t
                .parse()
                .map_err(|e: crate::board::ParseMoveError| e.to_string())?;
            if !pos.is_legal(m) {
                return Err(format!("illegal move {m} in {}", pos.to_fen()));
            }
            history.push((pos.key(), m));
            pos.play(m);
        }
        self.pos = pos;
        self.history = history;
        self.banned.clear();
        Ok(())
    }

    /// Moves not to play in the next search (UCCI `banmoves`).
    pub fn ban(&mut self, moves: Vec<Move>) {
        self.banned = moves;
    }

    /// Notes gathered since the last call (problems that did not stop play).
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    fn tables(&mut self) -> Option<&Tablebases> {
        if !self.use_tb {
            return None;
        }
        if self.tb.is_none() && !self.tb_said {
            self.tb_said = true;
            if self.tb_path.is_dir() {
                self.tb = Some(Tablebases::open(&self.tb_path));
            } else {
                self.notes.push(format!(
                    "no tablebase folder at {}; playing without tablebases",
                    self.tb_path.display()
                ));
            }
        }
        self.tb.as_ref()
    }

    fn book(&mut self) -> Option<&Book> {
        if let BookState::Unopened = self.book {
            self.book = match Book::open(&self.book_path) {
                Ok(b) => BookState::Open(b),
                Err(e) => {
                    self.notes.push(format!("{e}; playing without a book"));
                    BookState::Unusable
                }
            };
        }
        match &self.book {
            BookState::Open(b) => Some(b),
            _ => None,
        }
    }

    /// The book move for the root, if any.
    fn book_move(&mut self) -> Option<Move> {
        if !self.use_book || !self.banned.is_empty() {
            return None;
        }
        let mode = if self.book_best {
            PickMode::Best
        } else {
            PickMode::Weighted
        };
        self.book()?;
        let BookState::Open(b) = &self.book else {
            return None;
        };
        b.pick(&self.pos, &mut self.rng, mode)
    }

    /// Decide a move: book, then tablebase (natural limit by DTC, then DTM), then search.
    pub fn think(
        &mut self,
        clock: &Clock,
        stop: &AtomicBool,
        mut report: impl FnMut(&Info),
    ) -> Decision {
        if let Some(m) = self.book_move() {
            return Decision {
                best: Some(m),
                source: Some(format!("book move {m}")),
                info: None,
            };
        }
        let pos = self.pos.clone();
        let banned = self.banned.clone();
        let mut note = None;
        // the plies already played without a capture (the game's moves, or the FEN's
        // counter) use up the limit
        let limit = self.natural_limit.saturating_sub(pos.halfmoves());
        if let Some(tb) = self.tables() {
            let m = Material::of_position(&pos);
            if tb.has_table(&m) {
                match super::tb_root::choose(tb, &pos, &banned, limit) {
                    Ok(Some(c)) => {
                        return Decision {
                            best: Some(c.mv),
                            source: Some(format!("tablebase move {}: {}", c.mv, c.why)),
                            info: None,
                        };
                    }
                    Ok(None) => {}
                    Err(e) => note = Some(format!("tablebase: {e}; searching instead")),
                }
            }
        }
        self.notes.extend(note);
        let lim: Limits = limits_at(clock, pos.fullmoves());
        let tb = if self.use_tb { self.tb.as_ref() } else { None };
        let tt = self.tt.get_or_insert_with(|| Tt::new(self.hash_mb));
        let job = Job {
            pos: &pos,
            history: &self.history,
            tt,
            tb,
            stop,
            limits: lim,
            banned,
            memory: Some(&mut self.memory),
        };
        let out = smp::search(job, self.threads, &mut report);
        Decision {
            best: out.best,
            source: None,
            info: out.info,
        }
    }

    /// Where the book is looked for.
    pub fn book_path(&self) -> &Path {
        &self.book_path
    }
}
