//! The pieces placed after the own-half groups: passed pawns (each side's in the enemy half)
//! and then rooks, horses and cannons anywhere on the remaining points.
//!
//! A tail is ranked in mixed radix over its groups, each group as a combination of the
//! points still empty in its region. When everything before the tail is left-right
//! symmetric, the tail itself is folded: the first group that is not symmetric picks the
//! canonical member of the mirror pair, and fully symmetric tails are counted once. For that
//! the empty points of a region are seen as centre points (file e) and mirror pairs.

use super::binomial::{binom, comb_unrank};

mod fold;
use super::masks::{below, bits, BLACK_HALF, RED_HALF};
use rustc_hash::FxHashMap;
use strength_reduce::StrengthReducedU64;

/// Most tail groups: passed pawns of each side, then rooks, horses and cannons of each.
pub const MAX_GROUPS: usize = 8;

/// Where a group's pieces stand.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Region {
    /// Ranks 0-4 (Black's passed pawns).
    RedHalf,
    /// Ranks 5-9 (Red's passed pawns).
    BlackHalf,
    /// Anywhere (rooks, horses, cannons).
    Board,
}

impl Region {
    #[inline(always)]
    fn start(self) -> u8 {
        match self {
            Region::BlackHalf => 45,
            _ => 0,
        }
    }

    #[inline(always)]
    fn mask(self) -> u128 {
        match self {
            Region::RedHalf => RED_HALF,
            Region::BlackHalf => BLACK_HALF,
            Region::Board => RED_HALF | BLACK_HALF,
        }
    }
}

/// One group of identical pieces.
#[derive(Copy, Clone, Debug)]
pub struct Group {
    /// Pieces in the group.
    pub count: u8,
    /// Where they stand.
    pub region: Region,
}

/// Empty centre points and mirror pairs of the two halves, when the occupancy is symmetric.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SymState {
    /// Empty centre points per half (Red's, Black's); merged into entry 0 for board groups.
    pub e: [u8; 2],
    /// Empty mirror pairs per half.
    pub p: [u8; 2],
}

/// A sequence of groups with their fixed radices.
#[derive(Clone, Debug)]
pub struct Tail {
    /// Groups in ranking order.
    pub groups: Vec<Group>,
    /// Radix of each group (1 beyond the groups).
    radix: [u64; MAX_GROUPS],
    /// The radices as reciprocals for fast division.
    radix_div: [StrengthReducedU64; MAX_GROUPS],
    /// `suffix[j]` (the product of the radices from group `j` on) as reciprocals, for
    /// the digits of a rank by independent divisions.
    suffix_div: [StrengthReducedU64; MAX_GROUPS],
    suffix: Vec<u64>,
    /// Weight of each group's digit (the product of the later groups' radices, wrapping:
    /// exact within a rank below 2^64).
    weight: [u64; MAX_GROUPS],
    /// Folded sizes already computed, by packed (group, state).
    memo: FxHashMap<u32, u64>,
    all_single: bool,
}

/// Squares of each tail group as a board mask (group `j` in entry `j`).
pub type TailMasks = [u128; 8];

/// The r-th (0-based) empty square of `region`, branch-free over the occupied squares.
#[inline(always)]
fn select_empty(region: Region, occ: u128, r: u8) -> u8 {
    let mut s = region.start() + r;
    for q in bits(occ & region.mask()) {
        s += (q <= s) as u8;
    }
    s
}

/// Index of `s` among the empty squares of `region`.
#[inline(always)]
fn rel_index(region: Region, occ: u128, s: u8) -> u8 {
    s - region.start() - (occ & region.mask() & below(s)).count_ones() as u8
}

impl Tail {
    /// A tail whose group `j` has `avail[j]` empty points in its region when it is placed.
    pub fn new(groups: Vec<Group>, avail: &[u8]) -> Tail {
        assert!(
            groups.len() <= MAX_GROUPS,
            "at most 8 tail groups by construction"
        );
        let mut radix = [1u64; MAX_GROUPS];
        for (j, (g, &a)) in groups.iter().zip(avail).enumerate() {
            radix[j] = binom(a as usize, g.count as usize);
        }
        let mut suffix = vec![1u64; groups.len() + 1];
        for j in (0..groups.len()).rev() {
            suffix[j] = suffix[j + 1].saturating_mul(radix[j]);
        }
        let suffix_at = |j: usize| suffix.get(j).copied().unwrap_or(1).max(1);
        let mut weight = [1u64; MAX_GROUPS];
        let mut acc = 1u64;
        for k in (0..groups.len()).rev() {
            weight[k] = acc;
            acc = acc.wrapping_mul(radix[k]);
        }
        Tail {
            all_single: groups.iter().all(|g| g.count == 1),
            radix_div: radix.map(|r| StrengthReducedU64::new(r.max(1))),
            suffix_div: std::array::from_fn(|j| StrengthReducedU64::new(suffix_at(j))),
            groups,
            radix,
            suffix,
            weight,
            memo: FxHashMap::default(),
        }
    }

    /// Weight of group `j`'s digit in a rank: the product of the later groups' radices.
    #[inline(always)]
    pub fn weight(&self, j: usize) -> u64 {
        self.weight[j & 7]
    }

    /// Number of placements of group `j` (its radix).
    #[inline(always)]
    pub fn radix(&self, j: usize) -> u64 {
        self.radix[j & 7]
    }

    /// `x / suffix[j]` for a rank `x` below the full size: the rank of groups `..j`.
    #[inline(always)]
    pub fn rank_before(&self, x: u64, j: usize) -> u64 {
        x / self.suffix_div[j & 7]
    }

    /// Treat every group as a set (tests of the routes).
    #[cfg(test)]
    pub(crate) fn force_masks(&mut self) {
        self.all_single = false;
    }

    /// Every group holds one piece.
    #[inline(always)]
    pub fn all_single(&self) -> bool {
        self.all_single
    }

    /// Number of unfolded tail placements.
    pub fn full_size(&self) -> u64 {
        self.suffix[0]
    }

    /// Mixed-radix rank of groups `from..` given the occupancy before them.
    #[inline(always)]
    pub fn full_rank(&self, from: usize, mut occ: u128, masks: &TailMasks) -> u64 {
        let mut x = 0u64;
        for (j, g) in self.groups.iter().enumerate().skip(from) {
            let r = if g.count == 1 {
                rel_index(g.region, occ, masks[j].trailing_zeros() as u8) as u64
            } else {
                let mut r = 0;
                for (i, s) in bits(masks[j]).enumerate() {
                    r += binom(rel_index(g.region, occ, s) as usize, i + 1);
                }
                r
            };
            x = x * self.radix[j] + r;
            occ |= masks[j];
        }
        x
    }

    /// Inverse of [`Tail::full_rank`].
    #[inline(always)]
    pub fn full_unrank(&self, from: usize, mut x: u64, mut occ: u128, masks: &mut TailMasks) {
        let n = self.groups.len();
        let mut digits = [0u64; 8];
        for j in (from + 1..n).rev() {
            let q = x / self.radix_div[j];
            digits[j] = x - q * self.radix[j];
            x = q;
        }
        if from < n {
            digits[from] = x;
        }
        for (j, g) in self.groups.iter().enumerate().skip(from) {
            let m = g.count as usize;
            let mut gm = 0u128;
            if m == 1 {
                gm = 1u128 << select_empty(g.region, occ, digits[j] as u8);
            } else {
                let mut rel = [0u8; 5];
                comb_unrank(digits[j], m, &mut rel);
                for &r in &rel[..m] {
                    gm |= 1u128 << select_empty(g.region, occ, r);
                }
            }
            masks[j] = gm;
            occ |= gm;
        }
    }
}
