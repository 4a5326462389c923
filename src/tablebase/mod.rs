//! Endgame tablebases: retrograde generation, storage, probing and verification.

pub mod checkpoint;
pub mod commit;
pub mod file;
pub mod generate;
pub mod lock;
pub mod pipeline;
pub mod plan;
pub mod probe;
pub mod sets;
pub mod status;
pub mod table;
pub mod values;
pub mod verify;

pub use generate::generate;
pub use probe::{MoveOutcome, ProbeError, Tablebases};
pub use table::{Table, TableSet, TbError};
pub use values::Wdl;
