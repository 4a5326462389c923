//! Rules core: squares, bitboards, pieces, positions, FEN, move generation, Zobrist keys and
//! move notation.

pub mod attacks;
mod bitboard;
mod color;
mod fen;
#[cfg(test)]
pub(crate) mod games;
mod movegen;
mod mv;
pub mod notation;
mod piece;
mod position;
pub mod retro;
pub mod rules;
mod setup;
mod sink;
mod square;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use color::Color;
pub use fen::FenError;
pub use movegen::{perft, perft_divide, MoveList, MAX_MOVES};
pub use mv::{Move, ParseMoveError};
pub use piece::{Piece, Role};
pub use position::{Position, Undo};
pub use setup::{PositionError, Setup, START_FEN};
pub use square::{ParseSquareError, Square, NUM_SQUARES};
