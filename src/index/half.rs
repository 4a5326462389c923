//! The constrained pieces one side keeps on its own half: king, advisors, elephants and
//! unpassed pawns. Their joint placements for given counts are few (at most 151,200 raw
//! codes), so they are enumerated once into a list: mirror classes first (one canonical entry
//! per asymmetric pair), then the symmetric placements. Black's placements are Red's
//! flipped top to bottom.

use super::binomial::{binom, comb_rank};
use crate::board::{Role, Square};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Red's palace points in square order.
pub const PALACE: [u8; 9] = [3, 4, 5, 12, 13, 14, 21, 22, 23];
/// Red's advisor points.
pub const ADVISOR: [u8; 5] = [3, 5, 13, 21, 23];
/// Red's elephant points.
pub const ELEPHANT: [u8; 7] = [2, 6, 18, 22, 26, 38, 42];
/// Files on which unpassed pawns stand.
pub const PAWN_FILES: [u8; 5] = [0, 2, 4, 6, 8];

/// One joint placement of a side's own-half pieces, in Red's orientation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HalfConfig {
    /// King square.
    pub king: u8,
    /// Advisor squares (sorted).
    pub advisors: Vec<u8>,
    /// Elephant squares (sorted).
    pub elephants: Vec<u8>,
    /// Unpassed pawn squares (sorted by file).
    pub pawns: Vec<u8>,
    /// All squares as a mask.
    pub occ: u128,
    /// Points on the centre file (e) that it occupies.
    pub centers: u8,
}

/// All own-half placements for one count of advisors, elephants and unpassed pawns.
#[derive(Debug)]
pub struct HalfList {
    /// Advisors.
    pub n_advisors: u8,
    /// Elephants.
    pub n_elephants: u8,
    /// Unpassed pawns.
    pub n_pawns: u8,
    /// Canonical asymmetric entries `[0, asym)`, then symmetric ones.
    pub entries: Vec<HalfConfig>,
    /// Number of asymmetric mirror classes.
    pub asym: usize,
    lookup: Vec<u32>,
}

/// Marks a raw code whose placement is the mirror of the entry it names.
pub const MIRRORED: u32 = 1 << 31;
/// Raw code of no placement (two pieces on one point).
pub const INVALID: u32 = u32::MAX;

const fn point_table(points: &[u8]) -> [u8; 90] {
    let mut t = [u8::MAX; 90];
    let mut i = 0;
    while i < points.len() {
        t[points[i] as usize] = i as u8;
        i += 1;
    }
    t
}

static PALACE_IDX: [u8; 90] = point_table(&PALACE);
static ADVISOR_IDX: [u8; 90] = point_table(&ADVISOR);
static ELEPHANT_IDX: [u8; 90] = point_table(&ELEPHANT);

#[inline(always)]
fn index_in(table: &[u8; 90], sq: u8) -> Option<usize> {
    match table.get(sq as usize) {
        Some(&v) if v != u8::MAX => Some(v as usize),
        _ => None,
    }
}

impl HalfList {
    fn sizes(&self) -> (u64, u64, u64) {
        let ca = binom(5, self.n_advisors as usize);
        let cb = binom(7, self.n_elephants as usize);
        let cp = binom(5, self.n_pawns as usize) << self.n_pawns;
        (ca, cb, cp)
    }

    /// Raw code of a placement (Red orientation), or None if a piece is off its points.
    #[inline]
    pub fn raw(&self, king: u8, advisors: &[u8], elephants: &[u8], pawns: &[u8]) -> Option<u64> {
        let (ca, cb, cp) = self.sizes();
        let kp = index_in(&PALACE_IDX, king)? as u64;
        let mut buf = [0u8; 5];
        for (i, &a) in advisors.iter().enumerate() {
            buf[i] = index_in(&ADVISOR_IDX, a)? as u8;
        }
        buf[..advisors.len()].sort_unstable();
        let a = comb_rank(&buf[..advisors.len()]);
        for (i, &e) in elephants.iter().enumerate() {
            buf[i] = index_in(&ELEPHANT_IDX, e)? as u8;
        }
        buf[..elephants.len()].sort_unstable();
        let b = comb_rank(&buf[..elephants.len()]);
        let mut files = [(0u8, 0u8); 5];
        for (i, &p) in pawns.iter().enumerate() {
            let f = p % 9;
            let r = p / 9;
            if !(r == 3 || r == 4) {
                return None;
            }
            if f % 2 == 1 {
                return None;
            }
            files[i] = (f / 2, r - 3);
        }
        let files = &mut files[..pawns.len()];
        files.sort_unstable();
        let mut bits = 0u64;
        for (i, w) in files.iter().enumerate() {
            if i > 0 && files[i - 1].0 == w.0 {
                return None;
            }
            buf[i] = w.0;
            bits |= (w.1 as u64) << i;
        }
        let fr = comb_rank(&buf[..pawns.len()]);
        let p = (fr << pawns.len()) | bits;
        Some(((kp * ca + a) * cb + b) * cp + p)
    }

    /// Entry index and whether the placement is the mirror of that entry, from a raw code.
    #[inline]
    pub fn find(&self, raw: u64) -> Option<(usize, bool)> {
        let v = *self.lookup.get(raw as usize)?;
        if v == INVALID {
            None
        } else {
            Some(((v & !MIRRORED) as usize, v & MIRRORED != 0))
        }
    }

    fn build(n_advisors: u8, n_elephants: u8, n_pawns: u8) -> HalfList {
        let mut list = HalfList {
            n_advisors,
            n_elephants,
            n_pawns,
            entries: Vec::new(),
            asym: 0,
            lookup: Vec::new(),
        };
        let (ca, cb, cp) = list.sizes();
        let space = (9 * ca * cb * cp) as usize;
        let mut all: Vec<(u64, HalfConfig)> = Vec::new();
        let subsets = |points: &[u8], k: usize| -> Vec<Vec<u8>> {
            let n = points.len();
            (0u32..1 << n)
                .filter(|m| m.count_ones() as usize == k)
                .map(|m| {
                    (0..n)
                        .filter(|i| m >> i & 1 == 1)
                        .map(|i| points[i])
                        .collect()
                })
                .collect()
        };
        let adv_sets = subsets(&ADVISOR, n_advisors as usize);
        let ele_sets = subsets(&ELEPHANT, n_elephants as usize);
        let file_sets = subsets(&PAWN_FILES, n_pawns as usize);
        for &k in &PALACE {
            for a in &adv_sets {
                for e in &ele_sets {
                    for fs in &file_sets {
                        for bits in 0u32..(1 << fs.len()) {
                            let pawns: Vec<u8> = fs
                                .iter()
                                .enumerate()
                                .map(|(i, &f)| (3 + (bits >> i & 1) as u8) * 9 + f)
                                .collect();
                            let mut occ = 1u128 << k;
                            let mut n = 1;
                            for &s in a.iter().chain(e).chain(&pawns) {
                                occ |= 1u128 << s;
                                n += 1;
                            }
                            if occ.count_ones() != n {
                                continue;
                            }
                            let raw = list
                                .raw(k, a, e, &pawns)
                                .expect("enumerated points are valid");
                            let centers =
                                (0..5).filter(|r| occ >> (r * 9 + 4) & 1 == 1).count() as u8;
                            all.push((
                                raw,
                                HalfConfig {
                                    king: k,
                                    advisors: a.clone(),
                                    elephants: e.clone(),
                                    pawns,
                                    occ,
                                    centers,
                                },
                            ));
                        }
                    }
                }
            }
        }
        let mirror_raw = |c: &HalfConfig| -> u64 {
            let m = |v: &[u8]| -> Vec<u8> {
                v.iter()
                    .map(|&s| Square::ALL[s as usize].mirror() as u8)
                    .collect()
            };
            list.raw(
                Square::ALL[c.king as usize].mirror() as u8,
                &m(&c.advisors),
                &m(&c.elephants),
                &m(&c.pawns),
            )
            .expect("the mirror of a valid placement is valid")
        };
        let mut asym = Vec::new();
        let mut sym = Vec::new();
        let mut pairs = Vec::new();
        for (raw, c) in all {
            let mr = mirror_raw(&c);
            if mr == raw {
                sym.push((raw, c));
            } else if raw < mr {
                asym.push((raw, c));
                pairs.push((raw, mr));
            }
        }
        asym.sort_by_key(|x| x.0);
        sym.sort_by_key(|x| x.0);
        list.lookup = vec![INVALID; space];
        list.asym = asym.len();
        for (i, (raw, c)) in asym.into_iter().chain(sym).enumerate() {
            list.lookup[raw as usize] = i as u32;
            list.entries.push(c);
        }
        for (raw, mr) in pairs {
            let i = list.lookup[raw as usize];
            list.lookup[mr as usize] = i | MIRRORED;
        }
        list
    }

    /// The list for these counts, built once per process.
    pub fn get(n_advisors: u8, n_elephants: u8, n_pawns: u8) -> Arc<HalfList> {
        type Cache = Mutex<HashMap<(u8, u8, u8), Arc<HalfList>>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        let key = (n_advisors, n_elephants, n_pawns);
        if let Some(l) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return l.clone();
        }
        let l = Arc::new(HalfList::build(n_advisors, n_elephants, n_pawns));
        cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key)
            .or_insert(l)
            .clone()
    }

    /// Number of placements (both members of each mirror pair counted).
    pub fn placements(&self) -> u64 {
        2 * self.asym as u64 + (self.entries.len() - self.asym) as u64
    }

    /// Squares of an entry with their roles, in Red orientation.
    pub fn pieces(&self, i: usize) -> impl Iterator<Item = (Role, u8)> + '_ {
        let c = &self.entries[i];
        std::iter::once((Role::King, c.king))
            .chain(c.advisors.iter().map(|&s| (Role::Advisor, s)))
            .chain(c.elephants.iter().map(|&s| (Role::Elephant, s)))
            .chain(c.pawns.iter().map(|&s| (Role::Pawn, s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kings_alone() {
        let l = HalfList::get(0, 0, 0);
        assert_eq!(l.entries.len(), 6);
        assert_eq!(l.asym, 3);
        assert_eq!(l.placements(), 9);
    }

    #[test]
    fn overlaps_are_excluded() {
        // king and elephant share e2; elephants and pawns share c4 and g4
        let l = HalfList::get(0, 1, 0);
        assert_eq!(l.placements(), 9 * 7 - 1);
        let l = HalfList::get(0, 1, 1);
        assert_eq!(l.placements(), 9 * 7 * 10 - 10 - 2 * 9);
        let l = HalfList::get(2, 0, 0);
        // advisors on 2 of 5 points, the king on none of them, or on one (then 1 of 4 left)
        assert_eq!(l.placements(), 4 * 10 + 5 * 6);
    }
}
