//! Subcommand implementations of the command-line interface (printing only; the work is in
//! the library).

pub mod arena;
pub mod book;
pub mod engine;
pub mod records;
pub mod tables;
pub mod ui;
