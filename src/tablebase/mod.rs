//! Endgame tablebases: retrograde generation, storage, probing and verification.

pub mod file;
pub mod generate;
pub mod pipeline;
pub mod table;
pub mod values;
pub mod verify;

pub use generate::generate;
pub use table::{Table, TableSet, TbError};
pub use values::Wdl;
