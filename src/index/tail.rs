//! The pieces placed after the own-half groups: passed pawns (each side's in the enemy half)
//! and then rooks, horses and cannons anywhere on the remaining points.
//!
//! A tail is ranked in mixed radix over its groups, each group as a combination of the
//! points still empty in its region. When everything before the tail is left-right
//! symmetric, the tail itself is folded: the first group that is not symmetric picks the
//! canonical member of the mirror pair, and fully symmetric tails are counted once. For that
//! the empty points of a region are seen as centre points (file e) and mirror pairs.

use super::binomial::{binom, comb_rank, comb_unrank};
use arrayvec::ArrayVec;

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
            Region::RedHalf => (1u128 << 45) - 1,
            Region::BlackHalf => ((1u128 << 90) - 1) ^ ((1u128 << 45) - 1),
            Region::Board => (1u128 << 90) - 1,
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
    /// Empty centre points per half (Red's, Black's); merged into [0] for board groups.
    pub e: [u8; 2],
    /// Empty mirror pairs per half.
    pub p: [u8; 2],
}

/// A sequence of groups with their fixed radices.
#[derive(Clone, Debug)]
pub struct Tail {
    /// Groups in ranking order.
    pub groups: Vec<Group>,
    radix: Vec<u64>,
    suffix: Vec<u64>,
    /// Folded sizes already computed, by (group, state).
    memo: std::collections::HashMap<(usize, SymState), u64>,
}

/// Squares of each tail group (sorted within a group).
pub type TailSquares = [[u8; 5]; 8];

/// The r-th (0-based) empty square of `region`.
#[inline(always)]
fn select_empty(region: Region, occ: u128, r: u8) -> u8 {
    let mut s = region.start() + r;
    let mut o = occ & region.mask();
    while o != 0 {
        let q = o.trailing_zeros() as u8;
        if q <= s {
            s += 1;
            o &= o - 1;
        } else {
            break;
        }
    }
    s
}

/// Index of `s` among the empty squares of `region`.
#[inline(always)]
fn rel_index(region: Region, occ: u128, s: u8) -> u8 {
    s - region.start() - (occ & region.mask() & ((1u128 << s) - 1)).count_ones() as u8
}

/// Empty centre points and pair left points of a region, for a symmetric occupancy,
/// as bit masks (ranks and selects by popcount).
struct SymAvail {
    centers: u128,
    pairs: u128,
}

const fn region_masks(lo: u32, hi: u32) -> (u128, u128) {
    let mut c = 0u128;
    let mut l = 0u128;
    let mut r = lo;
    while r < hi {
        c |= 1u128 << (r * 9 + 4);
        let mut f = 0;
        while f < 4 {
            l |= 1u128 << (r * 9 + f);
            f += 1;
        }
        r += 1;
    }
    (c, l)
}

const RED_MASKS: (u128, u128) = region_masks(0, 5);
const BLACK_MASKS: (u128, u128) = region_masks(5, 10);
const BOARD_MASKS: (u128, u128) = region_masks(0, 10);

#[inline(always)]
fn select_bit(mut b: u128, r: u32) -> u8 {
    for _ in 0..r {
        b &= b - 1;
    }
    b.trailing_zeros() as u8
}

impl SymAvail {
    #[inline(always)]
    fn new(region: Region, occ: u128) -> SymAvail {
        let (c, l) = match region {
            Region::RedHalf => RED_MASKS,
            Region::BlackHalf => BLACK_MASKS,
            Region::Board => BOARD_MASKS,
        };
        SymAvail {
            centers: c & !occ,
            pairs: l & !occ,
        }
    }

    #[inline(always)]
    fn center_rel(&self, s: u8) -> u8 {
        (self.centers & ((1u128 << s) - 1)).count_ones() as u8
    }

    #[inline(always)]
    fn pair_rel(&self, left: u8) -> u8 {
        (self.pairs & ((1u128 << left) - 1)).count_ones() as u8
    }

    #[inline(always)]
    fn center(&self, r: u8) -> u8 {
        select_bit(self.centers, r as u32)
    }

    #[inline(always)]
    fn pair(&self, r: u8) -> u8 {
        select_bit(self.pairs, r as u32)
    }

    fn n_pairs(&self) -> u8 {
        self.pairs.count_ones() as u8
    }
}

#[inline(always)]
fn mirror_sq(s: u8) -> u8 {
    (s / 9) * 9 + 8 - s % 9
}

/// A group's placement seen in centre/pair coordinates.
struct Decomposed {
    centers: ArrayVec<u8, 5>,
    doubles: ArrayVec<u8, 5>,
    /// (index among the pairs that are not doubles, chose the right square)
    singles: ArrayVec<(u8, bool), 5>,
}

fn decompose(av: &SymAvail, squares: &[u8]) -> Decomposed {
    let mut centers = ArrayVec::<u8, 5>::new();
    let mut left = ArrayVec::<u8, 5>::new();
    let mut right = ArrayVec::<u8, 5>::new();
    for &s in squares {
        let f = s % 9;
        if f == 4 {
            centers.push(av.center_rel(s));
        } else if f < 4 {
            left.push(av.pair_rel(s));
        } else {
            right.push(av.pair_rel(mirror_sq(s)));
        }
    }
    let mut doubles: ArrayVec<u8, 5> = left.iter().copied().filter(|x| right.contains(x)).collect();
    doubles.sort_unstable();
    let mut singles: ArrayVec<(u8, bool), 5> = left
        .iter()
        .filter(|x| !doubles.contains(x))
        .map(|&x| (x, false))
        .chain(
            right
                .iter()
                .filter(|x| !doubles.contains(x))
                .map(|&x| (x, true)),
        )
        .collect();
    singles.sort_unstable();
    for s in singles.iter_mut() {
        s.0 -= doubles.iter().filter(|&&d| d < s.0).count() as u8;
    }
    centers.sort_unstable();
    Decomposed {
        centers,
        doubles,
        singles,
    }
}

fn sym_ways(e: usize, p: usize, m: usize) -> u64 {
    (0..=m / 2).map(|d| binom(e, m - 2 * d) * binom(p, d)).sum()
}

impl Tail {
    /// A tail whose group `j` has `avail[j]` empty points in its region when it is placed.
    pub fn new(groups: Vec<Group>, avail: &[u8]) -> Tail {
        let radix: Vec<u64> = groups
            .iter()
            .zip(avail)
            .map(|(g, &a)| binom(a as usize, g.count as usize))
            .collect();
        let mut suffix = vec![1u64; groups.len() + 1];
        for j in (0..groups.len()).rev() {
            suffix[j] = suffix[j + 1].saturating_mul(radix[j]);
        }
        Tail {
            groups,
            radix,
            suffix,
            memo: std::collections::HashMap::new(),
        }
    }

    /// Remember the folded sizes of every state reachable from `st` (call before ranking).
    pub fn prepare(&mut self, st: SymState) {
        self.prepare_from(0, st);
    }

    /// Fill the memo bottom-up: the states one group further first, then this one by
    /// [`Tail::fold_size`] (which then finds the children in the memo).
    fn prepare_from(&mut self, j: usize, st: SymState) {
        if j == self.groups.len() || self.memo.contains_key(&(j, st)) {
            return;
        }
        let (e, p) = self.ep(j, st);
        let m = self.groups[j].count as usize;
        for d in 0..=m / 2 {
            if binom(e, m - 2 * d) * binom(p, d) > 0 {
                self.prepare_from(j + 1, self.after(j, st, m - 2 * d, d));
            }
        }
        let n = self.fold_size(j, st);
        self.memo.insert((j, st), n);
    }

    /// Number of unfolded tail placements.
    pub fn full_size(&self) -> u64 {
        self.suffix[0]
    }

    /// Mixed-radix rank of groups `from..` given the occupancy before them.
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    pub fn full_rank(&self, from: usize, mut occ: u128, sq: &TailSquares) -> u64 {
        let mut x = 0u64;
        for j in from..self.groups.len() {
            let g = self.groups[j];
            let m = g.count as usize;
            let mut rel = [0u8; 5];
            for i in 0..m {
                rel[i] = rel_index(g.region, occ, sq[j][i]);
            }
            x = x * self.radix[j] + comb_rank(&rel[..m]);
            for &s in &sq[j][..m] {
                occ |= 1u128 << s;
            }
        }
        x
    }

    /// Inverse of [`Tail::full_rank`].
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    pub fn full_unrank(&self, from: usize, mut x: u64, mut occ: u128, sq: &mut TailSquares) {
        let mut digits = [0u64; 8];
        for j in (from + 1..self.groups.len()).rev() {
            let q = x / self.radix[j];
            digits[j] = x - q * self.radix[j];
            x = q;
        }
        if from < self.groups.len() {
            digits[from] = x;
        }
        for j in from..self.groups.len() {
            let g = self.groups[j];
            let m = g.count as usize;
            let mut rel = [0u8; 5];
            comb_unrank(digits[j], m, &mut rel);
            for i in 0..m {
                sq[j][i] = select_empty(g.region, occ, rel[i]);
            }
            for &s in &sq[j][..m] {
                occ |= 1u128 << s;
            }
        }
    }

    fn ep(&self, j: usize, st: SymState) -> (usize, usize) {
        match self.groups[j].region {
            Region::RedHalf => (st.e[0] as usize, st.p[0] as usize),
            Region::BlackHalf => (st.e[1] as usize, st.p[1] as usize),
            Region::Board => ((st.e[0] + st.e[1]) as usize, (st.p[0] + st.p[1]) as usize),
        }
    }

    fn after(&self, j: usize, st: SymState, c: usize, d: usize) -> SymState {
        let mut s = st;
        match self.groups[j].region {
            Region::RedHalf => {
                s.e[0] -= c as u8;
                s.p[0] -= d as u8;
            }
            Region::BlackHalf => {
                s.e[1] -= c as u8;
                s.p[1] -= d as u8;
            }
            Region::Board => {
                s = SymState {
                    e: [st.e[0] + st.e[1] - c as u8, 0],
                    p: [st.p[0] + st.p[1] - d as u8, 0],
                };
            }
        }
        s
    }

    fn asym_classes(&self, j: usize, st: SymState) -> u64 {
        let (e, p) = self.ep(j, st);
        let m = self.groups[j].count as usize;
        (binom(e + 2 * p, m) - sym_ways(e, p, m)) / 2
    }

    /// Number of mirror classes of tails from group `j` on, all earlier pieces symmetric.
    pub fn fold_size(&self, j: usize, st: SymState) -> u64 {
        if j == self.groups.len() {
            return 1;
        }
        if let Some(&v) = self.memo.get(&(j, st)) {
            return v;
        }
        let (e, p) = self.ep(j, st);
        let m = self.groups[j].count as usize;
        let mut n = self.asym_classes(j, st) * self.suffix[j + 1];
        for d in 0..=m / 2 {
            let ways = binom(e, m - 2 * d) * binom(p, d);
            if ways > 0 {
                n += ways * self.fold_size(j + 1, self.after(j, st, m - 2 * d, d));
            }
        }
        n
    }

    /// Number of fully symmetric tails from group `j` on, all earlier pieces symmetric.
    pub fn sym_size(&self, j: usize, st: SymState) -> u64 {
        if j == self.groups.len() {
            return 1;
        }
        let (e, p) = self.ep(j, st);
        let m = self.groups[j].count as usize;
        (0..=m / 2)
            .map(|d| {
                let ways = binom(e, m - 2 * d) * binom(p, d);
                if ways == 0 {
                    0
                } else {
                    ways * self.sym_size(j + 1, self.after(j, st, m - 2 * d, d))
                }
            })
            .sum()
    }

    /// With a symmetric occupancy before the tail: true when the tail's first asymmetric
    /// group is in its non-canonical orientation (the whole placement must be mirrored).
    pub fn needs_mirror(&self, mut occ: u128, sq: &TailSquares) -> bool {
        for (j, g) in self.groups.iter().enumerate() {
            let m = g.count as usize;
            let av = SymAvail::new(g.region, occ);
            let dec = decompose(&av, &sq[j][..m]);
            if let Some(&(_, right)) = dec.singles.first() {
                return right;
            }
            for &s in &sq[j][..m] {
                occ |= 1u128 << s;
            }
        }
        false
    }

    /// Folded rank of groups `j..` (symmetric before `j`, canonical orientation).
    pub fn fold_rank(&self, j: usize, st: SymState, occ: u128, sq: &TailSquares) -> u64 {
        if j == self.groups.len() {
            return 0;
        }
        let g = self.groups[j];
        let m = g.count as usize;
        let (e, p) = self.ep(j, st);
        let av = SymAvail::new(g.region, occ);
        let dec = decompose(&av, &sq[j][..m]);
        let mut occ2 = occ;
        for &s in &sq[j][..m] {
            occ2 |= 1u128 << s;
        }
        if !dec.singles.is_empty() {
            let r = asym_rank(e, p, m, &dec);
            return r * self.suffix[j + 1] + self.full_rank(j + 1, occ2, sq);
        }
        let mut off = self.asym_classes(j, st) * self.suffix[j + 1];
        let d = dec.doubles.len();
        for d2 in 0..d {
            let ways = binom(e, m - 2 * d2) * binom(p, d2);
            if ways > 0 {
                off += ways * self.fold_size(j + 1, self.after(j, st, m - 2 * d2, d2));
            }
        }
        let st2 = self.after(j, st, m - 2 * d, d);
        let sub = self.fold_size(j + 1, st2);
        off += (comb_rank(&dec.centers) * binom(p, d) + comb_rank(&dec.doubles)) * sub;
        off + self.fold_rank(j + 1, st2, occ2, sq)
    }

    /// Inverse of [`Tail::fold_rank`].
    pub fn fold_unrank(&self, j: usize, st: SymState, mut x: u64, occ: u128, sq: &mut TailSquares) {
        if j == self.groups.len() {
            return;
        }
        let g = self.groups[j];
        let m = g.count as usize;
        let (e, p) = self.ep(j, st);
        let av = SymAvail::new(g.region, occ);
        let asym = self.asym_classes(j, st) * self.suffix[j + 1];
        if x < asym {
            let r = x / self.suffix[j + 1];
            let rest = x % self.suffix[j + 1];
            asym_unrank(e, p, m, r, &av, &mut sq[j]);
            let mut occ2 = occ;
            for &s in &sq[j][..m] {
                occ2 |= 1u128 << s;
            }
            self.full_unrank(j + 1, rest, occ2, sq);
            return;
        }
        x -= asym;
        for d in 0..=m / 2 {
            let ways = binom(e, m - 2 * d) * binom(p, d);
            if ways == 0 {
                continue;
            }
            let st2 = self.after(j, st, m - 2 * d, d);
            let sub = self.fold_size(j + 1, st2);
            if x >= ways * sub {
                x -= ways * sub;
                continue;
            }
            let which = x / sub;
            x %= sub;
            let mut cbuf = [0u8; 5];
            let mut dbuf = [0u8; 5];
            comb_unrank(which / binom(p, d), m - 2 * d, &mut cbuf);
            comb_unrank(which % binom(p, d), d, &mut dbuf);
            let mut out = ArrayVec::<u8, 5>::new();
            for &c in &cbuf[..m - 2 * d] {
                out.push(av.center(c));
            }
            for &q in &dbuf[..d] {
                let l = av.pair(q);
                out.push(l);
                out.push(mirror_sq(l));
            }
            out.sort_unstable();
            sq[j][..m].copy_from_slice(&out);
            let mut occ2 = occ;
            for &s in &out {
                occ2 |= 1u128 << s;
            }
            self.fold_unrank(j + 1, st2, x, occ2, sq);
            return;
        }
        debug_assert!(false, "fold_unrank: index beyond the folded size");
    }
}

fn asym_types(m: usize) -> impl Iterator<Item = (usize, usize, usize)> {
    (0..=m).flat_map(move |c| {
        (0..=(m - c) / 2).filter_map(move |d| {
            let s = m - c - 2 * d;
            (s >= 1).then_some((c, d, s))
        })
    })
}

fn type_count(e: usize, p: usize, c: usize, d: usize, s: usize) -> u64 {
    if p < d {
        return 0;
    }
    (binom(e, c) * binom(p, d) * binom(p - d, s)) << (s - 1)
}

fn asym_rank(e: usize, p: usize, m: usize, dec: &Decomposed) -> u64 {
    let (c, d, s) = (dec.centers.len(), dec.doubles.len(), dec.singles.len());
    let mut off = 0;
    for (c2, d2, s2) in asym_types(m) {
        if (c2, d2) == (c, d) {
            break;
        }
        off += type_count(e, p, c2, d2, s2);
    }
    let singles: ArrayVec<u8, 5> = dec.singles.iter().map(|x| x.0).collect();
    let mut bits = 0u64;
    for (i, &(_, right)) in dec.singles.iter().enumerate().skip(1) {
        bits |= (right as u64) << (i - 1);
    }
    let r = ((comb_rank(&dec.centers) * binom(p, d) + comb_rank(&dec.doubles)) * binom(p - d, s)
        + comb_rank(&singles))
        << (s - 1);
    off + (r | bits)
}

fn asym_unrank(e: usize, p: usize, m: usize, mut x: u64, av: &SymAvail, out: &mut [u8; 5]) {
    for (c, d, s) in asym_types(m) {
        let n = type_count(e, p, c, d, s);
        if x >= n {
            x -= n;
            continue;
        }
        let bits = x & ((1u64 << (s - 1)) - 1);
        x >>= s - 1;
        let sg = x % binom(p - d, s);
        x /= binom(p - d, s);
        let dr = x % binom(p, d);
        let cr = x / binom(p, d);
        let (mut cb, mut db, mut sb) = ([0u8; 5], [0u8; 5], [0u8; 5]);
        comb_unrank(cr, c, &mut cb);
        comb_unrank(dr, d, &mut db);
        comb_unrank(sg, s, &mut sb);
        let mut v = ArrayVec::<u8, 5>::new();
        for &q in &cb[..c] {
            v.push(av.center(q));
        }
        for &q in &db[..d] {
            let l = av.pair(q);
            v.push(l);
            v.push(mirror_sq(l));
        }
        // singles are indexed among the pairs that are not doubles
        let free: ArrayVec<u8, 40> = (0..av.n_pairs()).filter(|q| !db[..d].contains(q)).collect();
        for (i, &q) in sb[..s].iter().enumerate() {
            let l = av.pair(free[q as usize]);
            let right = i > 0 && bits >> (i - 1) & 1 == 1;
            v.push(if right { mirror_sq(l) } else { l });
        }
        v.sort_unstable();
        out[..m].copy_from_slice(&v);
        return;
    }
    debug_assert!(false, "asym_unrank: index beyond the asymmetric classes");
}
