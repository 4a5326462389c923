//! Material signatures, the combinatorial placement index and exact state counting.

pub mod binomial;
mod bucket;
pub mod count;
pub mod div;
mod espace;
pub mod half;
mod material;
mod placement;
mod plain;
mod split;
pub mod tail;

pub use material::{Material, MaterialError, WRITE_ORDER};
pub use placement::{IndexError, PieceList, PlacementIndex, TailCtx};
