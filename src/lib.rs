//! xqdb: Xiangqi (Chinese chess) rules, endgame tablebases, opening books and an engine.
//!
//! Module map (each module depends only on those above it):
//! * [`paths`]: default folders (`XQDB_HOME`).
//! * [`progress`]: how long jobs report their progress (the library never draws).
//! * [`board`]: squares, bitboards, pieces, setups and positions, FEN, legal moves and
//!   un-moves, Zobrist keys, move notation.
//! * [`index`]: material signatures, the placement index of the tablebases, exact counts.
//! * [`tablebase`]: retrograde generation, table files, probing, verification.
//! * [`records`]: game records (PGN in any notation and encoding, XQF).
//! * [`book`]: opening books built from game records.
//! * [`engine`]: evaluation, search, UCI and UCCI; uses books and tablebases.
//! * [`arena`]: matches between engines, adjudicated by the rules and the tablebases.
//! * [`display`]: terminal rendering of positions.
//! * [`ffi`]: the C API (`libxqdb.so`, `libxqdb.a`, header `include/xqdb.h`).
//! * [`serve`]: `xqdb serve`, the web explorer and JSON API.
//!
//! The command line (`src/main.rs`, `src/cli/`) sits on top of them.

#![warn(missing_docs)]

pub mod arena;
pub mod board;
pub mod book;
pub mod display;
pub mod engine;
pub mod ffi;
pub mod index;
pub mod paths;
pub mod progress;
pub mod records;
pub mod serve;
pub mod tablebase;
