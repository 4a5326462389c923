//! Ranking a tail whose preceding pieces are left-right symmetric: the empty points are
//! seen as centre points and mirror pairs, the first group that is not symmetric picks the
//! canonical member of the mirror pair, and fully symmetric tails are counted once.

use super::{Region, SymState, Tail, TailMasks};
use crate::index::binomial::{binom, comb_unrank};
use crate::index::masks::{
    below, bits, mirror_mask, mirror_sq, BLACK_HALF, CENTRE_FILE, LEFT_FILES, RED_HALF,
};

/// The centre points (file e) and the left points of the mirror pairs (files a-d) of
/// Red's half, Black's half and the board.
const RED_MASKS: (u128, u128) = (CENTRE_FILE & RED_HALF, LEFT_FILES & RED_HALF);
const BLACK_MASKS: (u128, u128) = (CENTRE_FILE & BLACK_HALF, LEFT_FILES & BLACK_HALF);
const BOARD_MASKS: (u128, u128) = (CENTRE_FILE, LEFT_FILES);
/// Files f-i of the whole board.
const RIGHT_MASK: u128 = LEFT_FILES << 5;

/// Empty centre points and pair left points of a region, for a symmetric occupancy,
/// as bit masks (ranks and selects by popcount).
struct SymAvail {
    centers: u128,
    pairs: u128,
}

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
    fn center(&self, r: u8) -> u8 {
        select_bit(self.centers, r as u32)
    }

    #[inline(always)]
    fn pair(&self, r: u8) -> u8 {
        select_bit(self.pairs, r as u32)
    }
}

/// Colex rank of the squares of `m`, each numbered by the set squares of `avail` below it.
#[inline(always)]
fn colex_in(avail: u128, m: u128) -> u64 {
    let mut x = 0;
    for (i, q) in bits(m).enumerate() {
        x += binom((avail & below(q)).count_ones() as usize, i + 1);
    }
    x
}

/// A group's placement seen in centre/pair coordinates: counts and colex ranks of its
/// centre points, its doubles (both points of a pair) and its singles (one point of a
/// pair, numbered among the pairs that are not doubles).
struct Decomposed {
    c: usize,
    d: usize,
    s: usize,
    center_rank: u64,
    double_rank: u64,
    single_rank: u64,
    /// Bit i-1: the i-th single (i >= 1) takes the right point of its pair.
    single_bits: u64,
    /// The first single takes the right point.
    first_right: bool,
}

#[inline(always)]
fn split_sides(g: u128) -> (u128, u128, u128) {
    let centers = g & BOARD_MASKS.0;
    let left = g & LEFT_FILES;
    let right = mirror_mask(g & RIGHT_MASK);
    (centers, left, right)
}

fn decompose(av: &SymAvail, g: u128) -> Decomposed {
    let (centers, left, right) = split_sides(g);
    let doubles = left & right;
    let singles = left ^ right;
    let free = av.pairs & !doubles;
    let mut single_bits = 0u64;
    for (i, q) in bits(singles).enumerate().skip(1) {
        single_bits |= ((right >> q & 1) as u64) << (i - 1);
    }
    Decomposed {
        c: centers.count_ones() as usize,
        d: doubles.count_ones() as usize,
        s: singles.count_ones() as usize,
        center_rank: colex_in(av.centers, centers),
        double_rank: colex_in(av.pairs, doubles),
        single_rank: colex_in(free, singles),
        single_bits,
        first_right: singles != 0 && right & singles & singles.wrapping_neg() != 0,
    }
}

fn sym_ways(e: usize, p: usize, m: usize) -> u64 {
    (0..=m / 2).map(|d| binom(e, m - 2 * d) * binom(p, d)).sum()
}

#[inline(always)]
fn pack(j: usize, st: SymState) -> u32 {
    (j as u32) << 24
        | (st.e[0] as u32) << 20
        | (st.e[1] as u32) << 16
        | (st.p[0] as u32) << 8
        | st.p[1] as u32
}

impl Tail {
    /// Remember the folded sizes of every state reachable from `st` (call before ranking).
    pub fn prepare(&mut self, st: SymState) {
        self.prepare_from(0, st);
    }

    /// Fill the memo bottom-up: the states one group further first, then this one by
    /// [`Tail::fold_size`] (which then finds the children in the memo).
    fn prepare_from(&mut self, j: usize, st: SymState) {
        if j == self.groups.len() || self.memo.contains_key(&pack(j, st)) {
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
        self.memo.insert(pack(j, st), n);
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
        if let Some(&v) = self.memo.get(&pack(j, st)) {
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
    #[inline]
    pub fn needs_mirror(&self, masks: &TailMasks) -> bool {
        for m in &masks[..self.groups.len()] {
            let (_, left, right) = split_sides(*m);
            let singles = left ^ right;
            if singles != 0 {
                // the single on the lowest pair decides
                return right & singles & singles.wrapping_neg() != 0;
            }
        }
        false
    }

    /// Folded rank of groups `j..` (symmetric before `j`, canonical orientation).
    pub fn fold_rank(&self, j: usize, st: SymState, occ: u128, masks: &TailMasks) -> u64 {
        if j == self.groups.len() {
            return 0;
        }
        let g = self.groups[j];
        let m = g.count as usize;
        let (e, p) = self.ep(j, st);
        let av = SymAvail::new(g.region, occ);
        let dec = decompose(&av, masks[j]);
        let occ2 = occ | masks[j];
        if dec.s > 0 {
            debug_assert!(
                !dec.first_right,
                "fold_rank: tail not in canonical orientation"
            );
            let r = asym_rank(e, p, m, &dec);
            return r * self.suffix[j + 1] + self.full_rank(j + 1, occ2, masks);
        }
        let mut off = self.asym_classes(j, st) * self.suffix[j + 1];
        let d = dec.d;
        for d2 in 0..d {
            let ways = binom(e, m - 2 * d2) * binom(p, d2);
            if ways > 0 {
                off += ways * self.fold_size(j + 1, self.after(j, st, m - 2 * d2, d2));
            }
        }
        let st2 = self.after(j, st, m - 2 * d, d);
        let sub = self.fold_size(j + 1, st2);
        off += (dec.center_rank * binom(p, d) + dec.double_rank) * sub;
        off + self.fold_rank(j + 1, st2, occ2, masks)
    }

    /// [`Tail::fold_rank`] from group 0 for a tail of single pieces given by their squares
    /// (the same numbering without the general machinery).
    pub fn fold_rank_singles(&self, mut st: SymState, mut occ: u128, sq: &[u8; 8]) -> u64 {
        let mut off = 0;
        for (j, g) in self.groups.iter().enumerate() {
            let (_, p) = self.ep(j, st);
            let av = SymAvail::new(g.region, occ);
            let s = sq[j];
            if s % 9 != 4 {
                // the first piece off the centre file: on the left in canonical orientation
                debug_assert!(s % 9 < 4, "fold_rank_singles: tail not canonical");
                let r = (av.pairs & below(s)).count_ones() as u64;
                let mut masks: TailMasks = [0; 8];
                for (m, &q) in masks.iter_mut().zip(sq).take(self.groups.len()) {
                    *m = 1u128 << q;
                }
                return off
                    + r * self.suffix[j + 1]
                    + self.full_rank(j + 1, occ | 1u128 << s, &masks);
            }
            let st2 = self.after(j, st, 1, 0);
            let centre = (av.centers & below(s)).count_ones() as u64;
            off += p as u64 * self.suffix[j + 1] + centre * self.fold_size(j + 1, st2);
            st = st2;
            occ |= 1u128 << s;
        }
        off
    }

    /// Inverse of [`Tail::fold_rank_singles`].
    pub fn fold_unrank_singles(&self, mut st: SymState, mut x: u64, mut occ: u128) -> [u8; 8] {
        let mut sq = [0u8; 8];
        for (j, g) in self.groups.iter().enumerate() {
            let (_, p) = self.ep(j, st);
            let av = SymAvail::new(g.region, occ);
            let asym = p as u64 * self.suffix[j + 1];
            if x < asym {
                let s = av.pair((x / self.suffix[j + 1]) as u8);
                sq[j] = s;
                let mut masks: TailMasks = [0; 8];
                self.full_unrank(j + 1, x % self.suffix[j + 1], occ | 1u128 << s, &mut masks);
                for (q, m) in sq.iter_mut().zip(masks).take(self.groups.len()).skip(j + 1) {
                    *q = m.trailing_zeros() as u8;
                }
                return sq;
            }
            x -= asym;
            let st2 = self.after(j, st, 1, 0);
            let sub = self.fold_size(j + 1, st2);
            let s = av.center((x / sub) as u8);
            x %= sub;
            sq[j] = s;
            st = st2;
            occ |= 1u128 << s;
        }
        sq
    }

    /// Inverse of [`Tail::fold_rank`].
    pub fn fold_unrank(
        &self,
        j: usize,
        st: SymState,
        mut x: u64,
        occ: u128,
        masks: &mut TailMasks,
    ) {
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
            masks[j] = asym_unrank(e, p, m, r, &av);
            self.full_unrank(j + 1, rest, occ | masks[j], masks);
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
            let mut gm = 0u128;
            for &c in &cbuf[..m - 2 * d] {
                gm |= 1u128 << av.center(c);
            }
            for &q in &dbuf[..d] {
                let l = av.pair(q);
                gm |= 1u128 << l | 1u128 << mirror_sq(l);
            }
            masks[j] = gm;
            self.fold_unrank(j + 1, st2, x, occ | gm, masks);
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
    let (c, d, s) = (dec.c, dec.d, dec.s);
    let mut off = 0;
    for (c2, d2, s2) in asym_types(m) {
        if (c2, d2) == (c, d) {
            break;
        }
        off += type_count(e, p, c2, d2, s2);
    }
    let r = ((dec.center_rank * binom(p, d) + dec.double_rank) * binom(p - d, s) + dec.single_rank)
        << (s - 1);
    off + (r | dec.single_bits)
}

/// Inverse of [`asym_rank`]: the group's squares as a mask.
fn asym_unrank(e: usize, p: usize, m: usize, mut x: u64, av: &SymAvail) -> u128 {
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
        let mut gm = 0u128;
        for &q in &cb[..c] {
            gm |= 1u128 << av.center(q);
        }
        let mut doubles = 0u128;
        for &q in &db[..d] {
            let l = av.pair(q);
            doubles |= 1u128 << l;
            gm |= 1u128 << l | 1u128 << mirror_sq(l);
        }
        // singles are numbered among the pairs that are not doubles
        let free = av.pairs & !doubles;
        for (i, &q) in sb[..s].iter().enumerate() {
            let l = select_bit(free, q as u32);
            let right = i > 0 && bits >> (i - 1) & 1 == 1;
            gm |= 1u128 << if right { mirror_sq(l) } else { l };
        }
        return gm;
    }
    debug_assert!(false, "asym_unrank: index beyond the asymmetric classes");
    0
}
