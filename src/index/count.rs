//! Exact counting of placements, per material and for the whole game.
//!
//! Two independent methods give the whole-game total:
//!
//! * [`total_by_dp`]: dynamic programming over placement order. Each side's own-half pieces
//!   (king, advisors, elephants, unpassed pawns) are counted by a transfer DP over the points
//!   of that half, point by point, with a state of piece counts and "this file already has an
//!   unpassed pawn"; then passed pawns and rooks, horses and cannons are counted by the number
//!   of points still empty.
//! * [`total_by_materials`]: the sum over every material the rules allow of that material's
//!   placement count ([`material_placements`]), which counts the own-half pieces by explicit
//!   enumeration of their joint placements (`half.rs`).

use super::binomial::binom_u128;
use super::half::{own_points, HalfList};
use super::masks::bits;
use super::tail::{Group, Region, SymState, Tail};
use super::{Material, PlacementIndex};
use crate::board::{Color, Role};
use num_bigint::BigUint;
use std::collections::HashMap;

/// Figures of one material.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MaterialCount {
    /// The material.
    pub material: Material,
    /// Placements (legal points, one piece per point; kings facing included).
    pub placements: BigUint,
    /// Placements equal to their own mirror image.
    pub symmetric: u128,
    /// Mirror classes: (placements + symmetric) / 2.
    pub mirror_classes: BigUint,
    /// Size of the folded index (None when it does not fit in 64 bits).
    pub index_size: Option<u64>,
}

/// Number of placements of a material, by splits of passed/unpassed pawns. Exact for every
/// material (the largest exceed u128).
pub fn material_placements(m: &Material) -> BigUint {
    material_figures(m, false).0
}

/// Product of factors, in u128 while it fits.
fn product(factors: &[u128]) -> BigUint {
    let mut acc: u128 = 1;
    for (i, &f) in factors.iter().enumerate() {
        match acc.checked_mul(f) {
            Some(v) => acc = v,
            None => {
                let mut big = BigUint::from(acc);
                for &g in &factors[i..] {
                    big *= BigUint::from(g);
                }
                return big;
            }
        }
    }
    BigUint::from(acc)
}

fn material_figures(m: &Material, with_symmetric: bool) -> (BigUint, u128) {
    let c = |col: Color, r: Role| m.count(col, r);
    let pawns = [c(Color::Red, Role::Pawn), c(Color::Black, Role::Pawn)];
    let mut total = BigUint::from(0u32);
    let mut sym = 0u128;
    for ur in 0..=pawns[0] {
        for ub in 0..=pawns[1] {
            let lr = HalfList::get(
                c(Color::Red, Role::Advisor),
                c(Color::Red, Role::Elephant),
                ur,
            );
            let lb = HalfList::get(
                c(Color::Black, Role::Advisor),
                c(Color::Black, Role::Elephant),
                ub,
            );
            if lr.entries.is_empty() || lb.entries.is_empty() {
                continue;
            }
            let own_r = 1 + lr.n_advisors + lr.n_elephants + ur;
            let own_b = 1 + lb.n_advisors + lb.n_elephants + ub;
            let (pr, pb) = (pawns[0] - ur, pawns[1] - ub);
            let mut factors = vec![
                lr.placements() as u128,
                lb.placements() as u128,
                binom_u128(45 - own_r as u64, pb as u64),
                binom_u128(45 - own_b as u64, pr as u64),
            ];
            let mut empty = 90 - (own_r + own_b + pr + pb) as u64;
            let mut groups = Vec::new();
            let mut avail = Vec::new();
            if pb > 0 {
                groups.push(Group {
                    count: pb,
                    region: Region::RedHalf,
                });
                avail.push(45 - own_r);
            }
            if pr > 0 {
                groups.push(Group {
                    count: pr,
                    region: Region::BlackHalf,
                });
                avail.push(45 - own_b);
            }
            for r in [Role::Rook, Role::Horse, Role::Cannon] {
                for col in Color::ALL {
                    let n = c(col, r) as u64;
                    factors.push(binom_u128(empty, n));
                    if n > 0 {
                        groups.push(Group {
                            count: n as u8,
                            region: Region::Board,
                        });
                        avail.push(empty as u8);
                    }
                    empty -= n;
                }
            }
            total += product(&factors);
            if !with_symmetric {
                continue;
            }
            // symmetric placements: both own-half entries symmetric and a symmetric tail
            let tail = Tail::new(groups, &avail);
            for er in &lr.entries[lr.asym..] {
                for eb in &lb.entries[lb.asym..] {
                    let pairs = |own: u8, c: u8| (40 + c - own) / 2;
                    let st = SymState {
                        e: [5 - er.centers, 5 - eb.centers],
                        p: [pairs(own_r, er.centers), pairs(own_b, eb.centers)],
                    };
                    sym += tail.sym_size(0, st) as u128;
                }
            }
        }
    }
    (total, sym)
}

/// Figures of one material: placements, symmetric ones, mirror classes, index size.
pub fn count_material(m: &Material) -> MaterialCount {
    let (placements, symmetric) = material_figures(m, true);
    MaterialCount {
        material: *m,
        mirror_classes: (&placements + BigUint::from(symmetric)) / 2u32,
        placements,
        symmetric,
        index_size: PlacementIndex::new(*m).ok().map(|i| i.size()),
    }
}

/// Own-half counts by transfer DP over points: `[advisors][elephants][unpassed pawns]`.
pub fn half_counts_by_dp() -> [[[u64; 6]; 3]; 3] {
    #[derive(Copy, Clone)]
    struct Point {
        king: bool,
        advisor: bool,
        elephant: bool,
        pawn_file: Option<u8>,
    }
    let own = own_points();
    let on = |set: u128, s: u8| set >> s & 1 == 1;
    let mut points: Vec<(u8, Point)> = Vec::new();
    let mut add = |s: u8| {
        if points.iter().any(|p| p.0 == s) {
            return;
        }
        points.push((
            s,
            Point {
                king: on(own.palace, s),
                advisor: on(own.advisor, s),
                elephant: on(own.elephant, s),
                pawn_file: on(own.pawn, s).then_some(s % 9),
            },
        ));
    };
    // pawn points first, file by file, so the "file taken" flag only needs the current
    // file (c4 and g4 are elephant points too)
    for s in bits(own.pawn).filter(|s| s / 9 == 3) {
        add(s);
        add(s + 9);
    }
    for s in bits(own.palace | own.elephant) {
        add(s);
    }
    // state: (king, advisors, elephants, pawns, pawn on current file, current file)
    type State = (u8, u8, u8, u8, bool, u8);
    let mut dp: HashMap<State, u64> = HashMap::new();
    dp.insert((0, 0, 0, 0, false, 255), 1);
    for (_, pt) in points {
        let mut next: HashMap<State, u64> = HashMap::new();
        for (&(k, a, b, u, flag, file), &n) in &dp {
            let (flag, file) = match pt.pawn_file {
                Some(f) if f != file => (false, f),
                _ => (flag, file),
            };
            let mut put = |st: State| *next.entry(st).or_insert(0) += n;
            put((k, a, b, u, flag, file));
            if pt.king && k == 0 {
                put((1, a, b, u, flag, file));
            }
            if pt.advisor && a < 2 {
                put((k, a + 1, b, u, flag, file));
            }
            if pt.elephant && b < 2 {
                put((k, a, b + 1, u, flag, file));
            }
            if pt.pawn_file.is_some() && !flag && u < 5 {
                put((k, a, b, u + 1, true, file));
            }
        }
        dp = next;
    }
    let mut out = [[[0u64; 6]; 3]; 3];
    for ((k, a, b, u, _, _), n) in dp {
        if k == 1 {
            out[a as usize][b as usize][u as usize] += n;
        }
    }
    out
}

/// Whole-game placements by dynamic programming over placement order.
pub fn total_by_dp() -> BigUint {
    let h = half_counts_by_dp();
    // free pieces: six groups (R, N, C of each side), 0..=2 each, on `e` empty points
    let mut free = vec![1u128; 91];
    for _ in 0..6 {
        let prev = free.clone();
        for e in 0..=90usize {
            free[e] = (0..=2u64)
                .map(|m| {
                    binom_u128(e as u64, m)
                        * if e >= m as usize {
                            prev[e - m as usize]
                        } else {
                            0
                        }
                })
                .sum();
        }
    }
    // per own-half occupancy: (points taken, unpassed pawns) -> count
    let mut side: HashMap<(u8, u8), u128> = HashMap::new();
    for (a, row) in h.iter().enumerate() {
        for (b, col) in row.iter().enumerate() {
            for (u, &n) in col.iter().enumerate() {
                if n > 0 {
                    *side
                        .entry((1 + a as u8 + b as u8 + u as u8, u as u8))
                        .or_insert(0) += n as u128;
                }
            }
        }
    }
    let mut total = BigUint::from(0u32);
    for (&(own_r, ur), &nr) in &side {
        for (&(own_b, ub), &nb) in &side {
            let mut inner = BigUint::from(0u32);
            for pr in 0..=(5 - ur) as u64 {
                for pb in 0..=(5 - ub) as u64 {
                    let w = binom_u128(45 - own_r as u64, pb) * binom_u128(45 - own_b as u64, pr);
                    let e = 90 - own_r as u64 - own_b as u64 - pr - pb;
                    inner += BigUint::from(w) * BigUint::from(free[e as usize]);
                }
            }
            total += inner * BigUint::from(nr) * BigUint::from(nb);
        }
    }
    total
}

/// Every material the rules allow (both colours, not merged).
pub fn all_materials() -> Vec<Material> {
    let mut sides = Vec::new();
    for a in 0..=2u8 {
        for b in 0..=2u8 {
            for n in 0..=2u8 {
                for r in 0..=2u8 {
                    for c in 0..=2u8 {
                        for p in 0..=5u8 {
                            sides.push([1, a, b, n, r, c, p]);
                        }
                    }
                }
            }
        }
    }
    let mut out = Vec::with_capacity(sides.len() * sides.len());
    for x in &sides {
        for y in &sides {
            out.push(Material::from_counts([*x, *y]).expect("counts within limits"));
        }
    }
    out
}

/// Whole-game placements as the sum of every material's count.
pub fn total_by_materials() -> (BigUint, usize) {
    total_by_materials_with(|_| {})
}

/// [`total_by_materials`], calling `progress` with the number of materials counted after
/// each chunk (from any thread).
pub fn total_by_materials_with(progress: impl Fn(usize) + Sync) -> (BigUint, usize) {
    use rayon::prelude::*;
    let mats = all_materials();
    let n = mats.len();
    let parts: Vec<BigUint> = mats
        .par_chunks(4096)
        .map(|chunk| {
            let mut s = BigUint::from(0u32);
            for m in chunk {
                s += material_placements(m);
            }
            progress(chunk.len());
            s
        })
        .collect();
    (parts.into_iter().sum(), n)
}

/// The whole-game figure published in 2019 (Wei and Li), which undercounts pawns on files
/// blocked by elephants.
pub const PUBLISHED_2019: &str = "7547040878332418571694532043654081760159";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dp_half_counts_equal_enumeration() {
        let h = half_counts_by_dp();
        for a in 0..3u8 {
            for b in 0..3u8 {
                for u in 0..6u8 {
                    let l = HalfList::get(a, b, u);
                    assert_eq!(
                        h[a as usize][b as usize][u as usize],
                        l.placements(),
                        "A{a} B{b} P{u}"
                    );
                }
            }
        }
    }
}
