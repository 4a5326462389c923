//! Endgame tablebases: retrograde generation, storage, probing and verification.

mod block_cache;
pub mod block_code;
pub mod checkpoint;
pub mod commit;
pub mod dtc_code;
pub mod file;
pub mod generate;
pub mod header;
pub mod lock;
pub mod pipeline;
pub mod pipeline_dtc;
pub mod plan;
pub mod probe;
pub mod probe_dtc;
pub mod reader;
pub mod sets;
pub mod status;
pub mod table;
pub mod values;
pub mod verify;
pub mod workfile;

pub use generate::generate;
pub use probe::{MoveOutcome, ProbeError, Tablebases};
pub use table::{Table, TableSet, TbError};
pub use values::Wdl;
