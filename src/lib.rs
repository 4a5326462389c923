//! xqdb: Xiangqi (Chinese chess) rules, endgame tablebases, opening books and an engine.
//!
//! Module map:
//! * [`board`]: squares, bitboards, pieces, positions, FEN, legal moves, Zobrist keys.
//! * [`display`]: terminal rendering of positions.
//! * [`ffi`]: the C API (`libxqdb.so`, `libxqdb.a`, header `include/xqdb.h`).
//! * [`serve`]: `xqdb serve`, the web explorer and JSON API.

#![warn(missing_docs)]

pub mod arena;
pub mod board;
pub mod book;
pub mod display;
pub mod engine;
pub mod ffi;
pub mod index;
pub mod paths;
pub mod records;
pub mod serve;
pub mod tablebase;
