//! Game records: PGN in ICCS, WXF and Chinese notation (any encoding) and XQF.

pub mod collection;
pub mod encoding;
pub mod export;
pub mod game;
pub mod pgn;
pub mod reader;
pub mod xqf;

pub use game::{Game, GameError, GameResult, Variation};
pub use pgn::{parse_game, parse_game_full, write_game, Notation, Parsed, Skipped};
pub use reader::{PgnReader, RawGame};
