//! Rook and cannon attacks by line tables: `LINE[point][line occupancy]` (40 KiB, built at
//! compile time), a rank's occupancy read by a shift and a file's gathered by one
//! multiplication.

use super::super::Square;

/// `LINE[p][o]`: on a line of 10 points with occupancy `o` (bit i = point i; bit `p` does
/// not matter), the points a rook on point `p` attacks (up to and including the first
/// blocker each way: bits 0-9) and the points a cannon there captures on (the first occupied
/// point beyond its screen each way: bits 16-25). A rank has 9 points: its occupancy never
/// has bit 9, so no cannon capture lands there, and the rook's bit 9 is masked off.
static LINE: [[u32; 1024]; 10] = make_line();

const fn make_line() -> [[u32; 1024]; 10] {
    let mut t = [[0u32; 1024]; 10];
    let mut p = 0;
    while p < 10 {
        let mut o = 0;
        while o < 1024 {
            let mut v = 0u32;
            let mut d = 0;
            while d < 2 {
                let step: i32 = if d == 0 { 1 } else { -1 };
                let mut i = p as i32 + step;
                let mut screens = 0;
                while i >= 0 && i < 10 {
                    let occupied = o & (1 << i) != 0;
                    if screens == 0 {
                        v |= 1 << i;
                        if occupied {
                            screens = 1;
                        }
                    } else if occupied {
                        v |= 1 << (16 + i);
                        break;
                    }
                    i += step;
                }
                d += 1;
            }
            t[p][o] = v;
            o += 1;
        }
        p += 1;
    }
    t
}

/// The bits 0, 9, 18, ..., 63: file a's ranks 0-7 in the low 64 bits of a bitboard.
const FILE_LOW: u64 = 0x8040_2010_0804_0201;
/// Eight copies of a byte: multiplied into [`FILE_LOW`]'s bits it gathers them into the top
/// byte (bit 9k lands on bit 56 + k, with no two partial products on one bit, so no
/// carries), and multiplied into a byte it spreads bit k onto bit 9k (after masking).
const BYTES: u64 = 0x0101_0101_0101_0101;

/// The occupancy of rank `r` as 9 bits (bit = file).
#[inline(always)]
fn rank_line(occ: u128, r: u32) -> usize {
    (occ >> (9 * r)) as usize & 0x1FF
}

/// The occupancy of file `f` as 10 bits (bit = rank).
#[inline(always)]
fn file_line(occ: u128, f: u32) -> usize {
    let x = occ >> f;
    let lo = x as u64 & FILE_LOW;
    let hi = (x >> 64) as u64;
    // ranks 8 and 9 are bits 72 and 81: bits 8 and 17 of the high half
    ((lo.wrapping_mul(BYTES) >> 56) | (hi & 0x100) | ((hi >> 8) & 0x200)) as usize
}

/// The points of file `f` whose ranks are the bits of `m` (10 bits).
#[inline(always)]
fn file_points(m: u32, f: u32) -> u128 {
    let lo = (m as u64 & 0xFF).wrapping_mul(BYTES) & FILE_LOW;
    let m = m as u128;
    (lo as u128 | (m & 0x100) << 64 | (m & 0x200) << 72) << f
}

/// The [`LINE`] entries of `sq`'s rank and file (the rank's rook bit 9 masked off), with the
/// rank's shift.
#[inline(always)]
fn lines(sq: Square, occ: u128) -> (u32, u32, u32, u32) {
    let (r, f) = (sq.rank() as u32, sq.file() as u32);
    let rank = LINE[f as usize][rank_line(occ, r)] & 0x03FF_01FF;
    let file = LINE[r as usize][file_line(occ, f)];
    (rank, file, 9 * r, f)
}

/// Squares a rook on `sq` attacks (up to and including the first blocker each way).
#[inline(always)]
pub fn rook_attacks(sq: Square, occ: u128) -> u128 {
    line_attacks(sq, occ).0
}

/// Empty squares a cannon on `sq` can move to (its non-capturing moves).
#[inline(always)]
pub fn cannon_quiets(sq: Square, occ: u128) -> u128 {
    rook_attacks(sq, occ) & !occ
}

/// Occupied squares a cannon on `sq` attacks by jumping exactly one screen.
#[inline(always)]
pub fn cannon_captures(sq: Square, occ: u128) -> u128 {
    line_attacks(sq, occ).1
}

/// A cannon's quiet targets and captures at once ([`cannon_quiets`], [`cannon_captures`]):
/// one table look-up per line for both.
#[inline(always)]
pub fn cannon_attacks(sq: Square, occ: u128) -> (u128, u128) {
    let (rook, captures) = line_attacks(sq, occ);
    (rook & !occ, captures)
}

/// [`rook_attacks`] and [`cannon_captures`] of `sq` at once: the first occupied point each
/// way (with the empty points before it) and the second (inlined: a caller that uses one
/// half does not compute the other).
#[inline(always)]
pub(crate) fn line_attacks(sq: Square, occ: u128) -> (u128, u128) {
    let (rank, file, shift, f) = lines(sq, occ);
    let rook = ((rank & 0x3FF) as u128) << shift | file_points(file & 0x3FF, f);
    let captures = ((rank >> 16) as u128) << shift | file_points(file >> 16, f);
    (rook, captures)
}

#[cfg(test)]
mod tests {
    use super::super::{nearest_on_ray, RAYS};
    use super::*;

    /// The rook's and cannon's attacks by line tables equal a walk along the rays, for
    /// every point and random occupancies (with and without the point itself).
    #[test]
    fn line_tables_match_ray_walks() {
        let walk = |sq: Square, occ: u128| {
            let (mut rook, mut captures) = (0u128, 0u128);
            for (dir, &ray) in RAYS[sq.index()].iter().enumerate() {
                let b = ray & occ;
                if b == 0 {
                    rook |= ray;
                    continue;
                }
                let s1 = nearest_on_ray(b, dir);
                rook |= ray ^ RAYS[s1 as usize][dir];
                let b2 = RAYS[s1 as usize][dir] & occ;
                if b2 != 0 {
                    captures |= 1u128 << nearest_on_ray(b2, dir);
                }
            }
            (rook, captures)
        };
        let mut seed: u64 = 0x853C_49E6_748F_EA9B;
        for sq in Square::ALL {
            for i in 0..3000 {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let a = seed as u128 | (seed.rotate_left(23) as u128) << 64;
                // sparse and dense boards
                let occ = match i % 3 {
                    0 => a & (a >> 7) & (a >> 13),
                    1 => a & (a >> 5),
                    _ => a,
                } & crate::board::bitboard::FULL_MASK;
                for occ in [occ, occ | sq.bit(), occ & !sq.bit()] {
                    let (rook, captures) = walk(sq, occ);
                    assert_eq!(rook_attacks(sq, occ), rook, "{sq} {occ:x}");
                    assert_eq!(cannon_captures(sq, occ), captures, "{sq} {occ:x}");
                    assert_eq!(cannon_quiets(sq, occ), rook & !occ, "{sq} {occ:x}");
                    assert_eq!(cannon_attacks(sq, occ), (rook & !occ, captures));
                }
            }
        }
    }
}
