//! Material signatures, the combinatorial placement index and exact state counting.

/// Dispatch on the number of tail groups to a routine with loops of known length.
macro_rules! by_groups {
    ($n:expr, $f:ident::<N>($($arg:expr),*)) => {
        match $n {
            0 => $f::<0>($($arg),*),
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            3 => $f::<3>($($arg),*),
            4 => $f::<4>($($arg),*),
            5 => $f::<5>($($arg),*),
            6 => $f::<6>($($arg),*),
            7 => $f::<7>($($arg),*),
            _ => $f::<8>($($arg),*),
        }
    };
}

mod binomial;
mod bucket;
pub mod count;
mod espace;
mod forms;
mod half;
mod kinds;
mod masks;
mod material;
mod pairs;
mod placement;
mod plain;
mod split;
mod tail;

pub use material::{Material, MaterialError, WRITE_ORDER};
pub use placement::{IndexError, PieceList, PlacementIndex, TailCtx};
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
