//! Material signatures, the combinatorial placement index and exact state counting.
//!
//! A table stores one value per index; [`PlacementIndex`] turns a placement of a material
//! into its index (*rank*) and back (*unrank*), densely (every index is a placement) and
//! folded (a placement and its left-right mirror image share one index). The numbering is
//! fixed: table files depend on it. It is written out plainly, slow and with no shortcut,
//! in `reference.rs` (test only), which every fast route below is tested against
//! (`tests.rs`: property tests with each route switched off in turn).
//!
//! # Glossary
//!
//! - *own half*: the pieces a side keeps on its own half of the river: king, advisors,
//!   elephants and *unpassed* pawns (on ranks 3-4 of their files, not yet across).
//! - *entry*: one joint placement of a side's own-half pieces, in Red's orientation
//!   (Black's are flipped top to bottom), listed once per mirror pair: the asymmetric
//!   entries first, then the symmetric ones (`half.rs`). A placement is its entry or the
//!   entry's mirror image.
//! - *tail*: everything placed after the own halves, in *groups* of identical pieces:
//!   Black's passed pawns (in Red's half), Red's passed pawns (in Black's half), then rooks,
//!   horses and cannons (Red's then Black's of each kind) anywhere empty (`tail/`).
//! - *split*: the block of indexes of one count of unpassed pawns per side; pawnless
//!   materials have one (`split.rs`).
//! - *E-rank*: the number of an empty point among the points the two own halves leave
//!   empty, in square order; tails of single pieces are ranked with E-ranks, small
//!   integers, instead of board masks (`espace.rs`).
//! - *fold*: when both own halves are symmetric, the tail decides which mirror image is
//!   canonical: its first asymmetric group, by its lowest *single* (a point whose mirror
//!   image the group does not take); such tails are ranked among mirror classes
//!   (`tail/fold.rs`). Elsewhere the first asymmetric own half fixes the orientation
//!   and the tail is ranked in full, in mixed radix over its groups.
//! - *plain*: a split whose tail pieces are each alone of their kind (KRNKR; KCPKA with
//!   its pawn across): its pieces have fixed slots (`plain.rs`).
//! - *flat*: a pawnless material with a single plain split: a piece list in kind order
//!   is read and written in place (`plain.rs`, `kinds.rs`).
//! - *pairs*: tables per pair of Red's entry and Black's placement, for flat materials
//!   with at most 1,024 such pairs: a tail piece is then one table read (`pairs.rs`).
//! - *kind order*: Red's K A B N R C P, then Black's ([`crate::board::Piece::index`]): the
//!   order of the lists unranking gives and ranking reads fastest (`bucket.rs`).
//!
//! # Map
//!
//! | file | what |
//! |---|---|
//! | `material.rs` | material signatures (`KRNKR`) |
//! | `placement.rs` | [`PlacementIndex`]: construction, the general path (locate, rank, unrank), tail moves |
//! | `forms.rs` | the forms ranked and unranked: piece lists, `Setup`, `Position` |
//! | `split.rs` | one split: sizes, offsets, decoding an index into entries and tail rank |
//! | `half.rs` | own-half entries, their lookup from squares, empty points per entry |
//! | `tail/mod.rs`, `tail/fold.rs` | tail ranking in full and folded, over masks |
//! | `espace.rs` | tails of single pieces by E-ranks |
//! | `plain.rs`, `pairs.rs`, `kinds.rs`, `bucket.rs` | the fast routes (below) |
//! | `masks.rs` | point sets as `u128` masks, from the board's `Bitboard` and `Square` |
//! | `binomial.rs` | binomial coefficients, colex ranks |
//! | `count.rs` | exact counts of placements, per material and for the whole game |
//! | `reference.rs` (with `reference/half.rs`), `tests.rs` | the plain reference and the tests of every route (test only) |
//!
//! # Routes
//!
//! Every placement can take the general path (locate the own-half entries, fix the
//! orientation, rank the tail by masks or folded). The fast routes below take the common
//! cases, with the same numbering, and hand anything else to the general path, which
//! also names the error of a bad placement. Each was kept because switching it off makes
//! `xqdb gen` measurably slower: the figure is the rise in instructions executed by the
//! generation of the material named (subtables present, one thread, counted by
//! `valgrind --tool=cachegrind --cache-sim=no`; the machine's wall clock drifts too much
//! to see a few percent).
//!
//! | route | taken by | switched off, `gen` executes |
//! |---|---|---|
//! | pair tables (`pairs.rs`) | flat materials with few own-half pairs (KRNKR, KRKAA) | KRNK +5.9%, KRKR +3.8%, KRKAA +4.5% |
//! | their king-pair table | the same, when both sides keep only their king at home | KRNK +1.1%, KRKR +0.6% |
//! | flat lists read and written in place (`plain.rs`, `kinds.rs`) | flat materials | KRNK +5.6%, KRKR +3.5%, KRKAA +6.5% |
//! | plain splits: fixed slots, unrolled per group count (`plain.rs`) | plain splits (pawn materials too) | KRPK +5.3%, KCPKA +4.1%, KPKP +3.4% (KRNK +13.6% with the two above) |
//! | lists in kind order read without sorting (`bucket.rs`) | every piece list unranking gives | KRPK +1.4%, KCPKA +1.5% |
//! | single-piece tails by E-ranks in the general path (`espace.rs`) and folded (`tail/fold.rs`) | tails of single pieces, tail moves | KRNK +21.5%, KRPK +18.8%, KCPKA +10.9% (folded part alone: KRPK +1.8%, KPKP +1.2%) |
//! | tail moves (`prepare_tail`, `rank_tail_move`) | the generator's un-moves of tail pieces | KRPK +25.4%, KCPKA +21.3%, KRKAA +16.3%, KRNK +7.6% |
//! | king moves and tail contexts from the king-pair table (`rank_king_move`, `prepare_tail` through `PairRows::tail_parts`) | flat materials whose own halves are the kings alone: the generator's king un-moves and moves, every decoded node's context | KRKN +6.8% (4.46 G to 4.18 G instructions, `gen --no-deps`, 1 thread) |
//! | one table read for a lone king (`half.rs`) | every side whose own half is its king | about 1% (KRNK, KRPK) |
//!
//! Retired, for making no measurable difference: division in 32 bits for splits below 2^32
//! (+0.2-0.3% without it), and the E-rank ranking and unranking of tails held as masks
//! (groups of several pieces), which no benchmark material takes: the general path ranks
//! those with the folded path's mask routine (`Tail::full_rank`, `Tail::full_unrank`).

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
mod tail_move;

pub use material::{Material, MaterialError, WRITE_ORDER};
pub use placement::{IndexError, PieceList, PlacementIndex};
pub use tail_move::{TailCtx, TailPiece};

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
