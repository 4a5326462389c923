//! The engine: evaluation, search, transposition table, time management, and the UCI and
//! UCCI protocols. It plays book moves at the root, probes WDL tables inside the search and
//! plays the DTM-best move at the root when the material has tables.

pub mod check_filter;
pub mod commands;
pub mod eval;
pub mod params;
pub mod player;
pub mod protocol;
pub mod pst;
pub mod score;
pub mod search;
pub mod see;
pub mod smp;
pub mod tb_root;
pub mod time;
pub mod tt;
pub mod tune;
pub mod tune_data;
pub mod weights;

pub use player::{Decision, Engine, MAX_HASH_MB};
pub use protocol::run_protocol;
pub use score::Score;
pub use search::{Info, Limits, Memory, Searcher};
pub use smp::MAX_THREADS;
