//! Ranking the tail among the points left empty by both sides' own-half pieces.
//!
//! Red's own-half pieces stand in ranks 0-4 and Black's in ranks 5-9, so the empty points of
//! the board, in square order, are the empty points of Red's entry followed by those of
//! Black's. Numbering them 0, 1, 2, ... gives each empty point an *E-rank*: a list kept per
//! entry ([`super::half::Empties`]) turns an E-rank into a square, and a popcount turns a square into
//! its E-rank. The tail groups are then ranked and unranked with small integers only: a
//! group's relative index is its E-rank minus the start of its region and minus the tail
//! pieces placed before it in that region. This is the path of every placement whose own
//! halves fix the orientation; the folded (symmetric) case stays in [`super::tail`].

use super::masks::BELOW;
use super::tail::Tail;
use crate::board::Square;

/// The empty points of one pair of own-half entries (Black's possibly mirrored).
pub struct Space<'a> {
    /// Empty points of Red's entry, in square order.
    pub red: &'a [Square; 64],
    /// Empty points of Black's entry, in square order.
    pub black: &'a [Square; 64],
    /// Number of empty points of Red's entry.
    pub n_red: usize,
}

impl Space<'_> {
    /// The square with E-rank `e`.
    #[inline(always)]
    pub fn square(&self, e: u8) -> Square {
        let e = e as usize;
        // both halves looked up and one picked without a branch: which half an empty
        // point lies in is a coin toss (the rows are read anywhere, masked)
        let red = self.red[e & 63];
        let black = self.black[e.wrapping_sub(self.n_red) & 63];
        std::hint::select_unpredictable(e < self.n_red, red, black)
    }
}

/// E-rank of the empty square `s` given the own-half occupancy.
#[inline(always)]
fn e_rank(own: u128, s: u8) -> u8 {
    s - (own & BELOW[s as usize]).count_ones() as u8
}

/// Placed E-ranks below `e`.
#[inline(always)]
fn count_below(placed: &[u8], e: u8) -> u8 {
    placed.iter().map(|&q| (q < e) as u8).sum()
}

/// [`rank`] for a tail of single pieces given by their squares.
#[inline(always)]
pub fn rank_singles(tail: &Tail, base: &[u8; 8], own: u128, sq: &[u8; 8]) -> u64 {
    // loops of known length, unrolled per group count
    by_groups!(
        tail.groups.len(),
        rank_single::<N>(tail, base, own, sq, None)
    )
}

/// [`rank_singles`] from the E-ranks `e` of the pieces (the first as many as there are
/// groups; distinct empty points).
#[inline(always)]
pub fn rank_singles_eranks(tail: &Tail, base: &[u8; 8], e: &[u8; 8]) -> u64 {
    by_groups!(tail.groups.len(), rank_eranks_of::<N>(tail, base, e))
}

/// [`rank_eranks`] of the first `N` E-ranks of `e`.
#[inline(always)]
fn rank_eranks_of<const N: usize>(tail: &Tail, base: &[u8; 8], e: &[u8; 8]) -> u64 {
    let mut first = [0u8; N];
    first.copy_from_slice(&e[..N]);
    rank_eranks::<N>(tail, base, &first, None)
}

/// E-ranks of the first `n` squares of `sq` given the own-half occupancy (0 past them).
#[inline(always)]
pub fn eranks(own: u128, sq: &[u8; 8], n: usize) -> [u8; 8] {
    let mut e = [0u8; 8];
    for (k, ek) in e[..n.min(8)].iter_mut().enumerate() {
        *ek = e_rank(own, sq[k]);
    }
    e
}

/// E-rank of the empty square `s` given the own-half occupancy (public form).
#[inline(always)]
pub fn erank_of(own: u128, s: u8) -> u8 {
    e_rank(own, s)
}

/// Rank of a tail of `N` single pieces on squares `sq` (canonical orientation). With
/// `first`, group 0's digit is that number instead of its relative index (the folded
/// numbering, see [`super::plain`]); its square still counts as taken for the others.
///
/// `base[j]` is group `j`'s first E-rank less the earlier pieces that lie wholly below its
/// region (`Split::single_base`): a piece's relative index is then its E-rank less that
/// base and less every earlier piece below it, with no test of regions.
#[inline(always)]
pub(super) fn rank_single<const N: usize>(
    tail: &Tail,
    base: &[u8; 8],
    own: u128,
    sq: &[u8],
    first: Option<u64>,
) -> u64 {
    let e: [u8; N] = std::array::from_fn(|j| e_rank(own, sq[j]));
    rank_eranks::<N>(tail, base, &e, first)
}

/// [`rank_single`] from the E-ranks `e` of the pieces (distinct empty points).
#[inline(always)]
pub(super) fn rank_eranks<const N: usize>(
    tail: &Tail,
    base: &[u8; 8],
    e: &[u8; N],
    first: Option<u64>,
) -> u64 {
    let mut x = 0u64;
    for j in 0..N {
        let r = (e[j] - base[j] - count_below(&e[..j], e[j])) as u64;
        let r = if j == 0 { first.unwrap_or(r) } else { r };
        x = x * tail.radix(j) + r;
    }
    x
}

/// The mixed-radix digits of a tail rank `x` (below the full size). Digit `j` is
/// `x / suffix[j + 1] - x / suffix[j] * radix[j]`: the quotients are independent
/// divisions, so the digits do not wait on one another.
#[inline(always)]
pub(super) fn digits<const N: usize>(tail: &Tail, x: u64) -> [u64; N] {
    // q[j] = x / suffix[j]: 0 for j = 0 (x is below the full size), x for j = N
    let q: [u64; N] = std::array::from_fn(|j| if j == 0 { 0 } else { tail.rank_before(x, j) });
    std::array::from_fn(|j| {
        let hi = if j + 1 < N { q[(j + 1) % N] } else { x };
        hi - q[j] * tail.radix(j)
    })
}

/// Inverse of [`rank_single`] from the digits: hands each group's E-rank and square
/// (`square` of that E-rank) to `put`. With `first_e`, group 0 stands on that E-rank
/// whatever its digit.
#[inline(always)]
pub(super) fn unrank_single_digits<const N: usize>(
    base: &[u8; 8],
    d: &[u64; N],
    first_e: Option<u8>,
    square: impl Fn(u8) -> Square,
    mut put: impl FnMut(usize, u8, Square),
) {
    // E-ranks of the earlier groups, kept in increasing order
    let mut sorted = [0u8; N];
    for j in 0..N {
        let b = base[j];
        // the d-th point of the region not taken by earlier groups: every earlier point
        // up to the candidate moves it on (those wholly below the region are in `b`)
        let mut e = b + d[j] as u8;
        for &q in &sorted[..j] {
            e += (q <= e) as u8;
        }
        if j == 0 {
            e = first_e.unwrap_or(e);
        }
        put(j, e, square(e));
        // insert by one branch-free bubble pass
        sorted[j] = e;
        for k in (0..j).rev() {
            let (a, c) = (sorted[k], sorted[k + 1]);
            sorted[k] = a.min(c);
            sorted[k + 1] = a.max(c);
        }
    }
}
