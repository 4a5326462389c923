//! Subcommand implementations of the command-line interface: each command's arguments and
//! one function that calls the library and prints (the work is in the library).

pub mod arena;
pub mod board;
pub mod book;
pub mod engine;
pub mod plan;
pub mod probe;
pub mod records;
pub mod serve;
pub mod setup;
pub mod status;
pub mod tables;
pub mod ui;
