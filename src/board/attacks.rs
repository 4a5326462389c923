//! Precomputed move and attack tables, built at compile time.
//!
//! A rook's or cannon's attacks come from a table per line (`LINE`, indexed by the point on
//! its rank or file and that line's occupancy as 9 or 10 bits). Ray masks serve the tests
//! that stop early (checks, pins): the first blocker in a direction is the lowest set bit
//! of `ray & occupied` for the two increasing directions and the highest for the two
//! decreasing ones. Horses, elephants, advisors, kings and pawns use small per-square
//! tables; horse legs and elephant eyes are checked against the occupancy.

use super::{Bitboard, Color, Role, Square};

mod lines;
pub(crate) use lines::line_attacks;
pub use lines::{cannon_attacks, cannon_captures, cannon_quiets, rook_attacks};

/// Ray directions: North (+rank), East (+file), South, West.
pub const NORTH: usize = 0;
/// +file.
pub const EAST: usize = 1;
/// -rank.
pub const SOUTH: usize = 2;
/// -file.
pub const WEST: usize = 3;

const fn off(s: i32, df: i32, dr: i32) -> i32 {
    let f = s % 9 + df;
    let r = s / 9 + dr;
    if f < 0 || f > 8 || r < 0 || r > 9 {
        -1
    } else {
        r * 9 + f
    }
}

const fn bit(s: i32) -> u128 {
    if s < 0 {
        0
    } else {
        1u128 << s
    }
}

const fn in_palace(s: i32) -> bool {
    let f = s % 9;
    let r = s / 9;
    f >= 3 && f <= 5 && (r <= 2 || r >= 7)
}

const fn same_half(a: i32, b: i32) -> bool {
    (a / 9 <= 4) == (b / 9 <= 4)
}

const DIRS: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

const fn make_rays() -> [[u128; 4]; 90] {
    let mut t = [[0u128; 4]; 90];
    let mut s = 0;
    while s < 90 {
        let mut d = 0;
        while d < 4 {
            let mut cur = off(s, DIRS[d].0, DIRS[d].1);
            while cur >= 0 {
                t[s as usize][d] |= 1u128 << cur;
                cur = off(cur, DIRS[d].0, DIRS[d].1);
            }
            d += 1;
        }
        s += 1;
    }
    t
}

/// `RAYS[sq][dir]`: squares from `sq` (exclusive) to the edge in `dir`.
pub static RAYS: [[u128; 4]; 90] = make_rays();

const fn make_king() -> [u128; 90] {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        if in_palace(s) {
            let mut d = 0;
            while d < 4 {
                let to = off(s, DIRS[d].0, DIRS[d].1);
                if to >= 0 && in_palace(to) {
                    t[s as usize] |= bit(to);
                }
                d += 1;
            }
        }
        s += 1;
    }
    t
}

const DIAG: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, -1), (-1, 1)];

const fn make_advisor() -> [u128; 90] {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        if in_palace(s) {
            let mut d = 0;
            while d < 4 {
                let to = off(s, DIAG[d].0, DIAG[d].1);
                if to >= 0 && in_palace(to) {
                    t[s as usize] |= bit(to);
                }
                d += 1;
            }
        }
        s += 1;
    }
    t
}

/// Orthogonal king steps inside the palace of the square.
pub static KING_MOVES: [u128; 90] = make_king();
/// Diagonal advisor steps inside the palace of the square.
pub static ADVISOR_MOVES: [u128; 90] = make_advisor();

const fn make_elephant() -> ([[u128; 4]; 90], [[u128; 4]; 90]) {
    let mut eye = [[0u128; 4]; 90];
    let mut target = [[0u128; 4]; 90];
    let mut s = 0;
    while s < 90 {
        let mut d = 0;
        while d < 4 {
            let to = off(s, 2 * DIAG[d].0, 2 * DIAG[d].1);
            if to >= 0 && same_half(s, to) {
                eye[s as usize][d] = bit(off(s, DIAG[d].0, DIAG[d].1));
                target[s as usize][d] = bit(to);
            }
            d += 1;
        }
        s += 1;
    }
    (eye, target)
}

const ELEPHANT: ([[u128; 4]; 90], [[u128; 4]; 90]) = make_elephant();
/// `ELEPHANT_EYE[sq][i]`: the eye that must be empty for the i-th elephant move (0 if none).
pub static ELEPHANT_EYE: [[u128; 4]; 90] = ELEPHANT.0;
/// `ELEPHANT_TARGET[sq][i]`: the i-th elephant destination on the same side of the river.
pub static ELEPHANT_TARGET: [[u128; 4]; 90] = ELEPHANT.1;

const fn make_horse() -> ([[u128; 4]; 90], [[u128; 4]; 90]) {
    let mut leg = [[0u128; 4]; 90];
    let mut target = [[0u128; 4]; 90];
    let mut s = 0;
    while s < 90 {
        let mut d = 0;
        while d < 4 {
            let (dx, dy) = DIRS[d];
            let l = off(s, dx, dy);
            if l >= 0 {
                leg[s as usize][d] = bit(l);
                // the two destinations one more step forward and one to either side
                let (a, b) = if dx == 0 {
                    (off(s, 1, 2 * dy), off(s, -1, 2 * dy))
                } else {
                    (off(s, 2 * dx, 1), off(s, 2 * dx, -1))
                };
                target[s as usize][d] = bit(a) | bit(b);
            }
            d += 1;
        }
        s += 1;
    }
    (leg, target)
}

const HORSE: ([[u128; 4]; 90], [[u128; 4]; 90]) = make_horse();
/// `HORSE_LEG[sq][i]`: the leg point for the i-th pair of horse moves from `sq` (0 if off board).
pub static HORSE_LEG: [[u128; 4]; 90] = HORSE.0;
/// `HORSE_TARGET[sq][i]`: the destinations reached through leg `i`.
pub static HORSE_TARGET: [[u128; 4]; 90] = HORSE.1;

const fn make_horse_attackers() -> ([[u128; 4]; 90], [[u128; 4]; 90]) {
    let mut leg = [[0u128; 4]; 90];
    let mut src = [[0u128; 4]; 90];
    let mut t = 0;
    while t < 90 {
        let mut d = 0;
        while d < 4 {
            let (dx, dy) = DIAG[d];
            let l = off(t, dx, dy);
            if l >= 0 {
                leg[t as usize][d] = bit(l);
                src[t as usize][d] = bit(off(t, dx, 2 * dy)) | bit(off(t, 2 * dx, dy));
            }
            d += 1;
        }
        t += 1;
    }
    (leg, src)
}

const HORSE_ATK: ([[u128; 4]; 90], [[u128; 4]; 90]) = make_horse_attackers();
/// `HORSE_ATTACKER_LEG[sq][i]`: a diagonal neighbour of `sq`; when it is empty, a horse on
/// one of `HORSE_ATTACKER_SRC[sq][i]` attacks `sq`.
pub static HORSE_ATTACKER_LEG: [[u128; 4]; 90] = HORSE_ATK.0;
/// See [`HORSE_ATTACKER_LEG`].
pub static HORSE_ATTACKER_SRC: [[u128; 4]; 90] = HORSE_ATK.1;

const fn make_pawn() -> [[u128; 90]; 2] {
    let mut t = [[0u128; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let fwd = if c == 0 { 1 } else { -1 };
        let mut s = 0;
        while s < 90 {
            t[c][s as usize] |= bit(off(s, 0, fwd));
            let passed = if c == 0 { s / 9 >= 5 } else { s / 9 <= 4 };
            if passed {
                t[c][s as usize] |= bit(off(s, 1, 0)) | bit(off(s, -1, 0));
            }
            s += 1;
        }
        c += 1;
    }
    t
}

const fn make_pawn_attackers(moves: [[u128; 90]; 2]) -> [[u128; 90]; 2] {
    let mut t = [[0u128; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < 90 {
            let mut to = 0;
            while to < 90 {
                if moves[c][s] & (1u128 << to) != 0 {
                    t[c][to] |= 1u128 << s;
                }
                to += 1;
            }
            s += 1;
        }
        c += 1;
    }
    t
}

const PAWN: [[u128; 90]; 2] = make_pawn();
/// `PAWN_MOVES[color][sq]`: pawn steps (forward; sideways once across the river).
pub static PAWN_MOVES: [[u128; 90]; 2] = PAWN;
/// `PAWN_ATTACKERS[color][sq]`: squares from which a pawn of `color` attacks `sq`.
pub static PAWN_ATTACKERS: [[u128; 90]; 2] = make_pawn_attackers(PAWN);

const fn make_check_zone(
    horse: ([[u128; 4]; 90], [[u128; 4]; 90]),
    pawn: [[u128; 90]; 2],
) -> [u128; 90] {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = (s % 9, s / 9);
        let mut z = (0x1FFu128 << (r * 9)) & !(1u128 << s);
        let mut rr = 0;
        while rr < 10 {
            if rr != r {
                z |= 1u128 << (rr * 9 + f);
            }
            rr += 1;
        }
        let mut i = 0;
        while i < 4 {
            z |= horse.0[s][i] | horse.1[s][i];
            i += 1;
        }
        t[s] = z | pawn[0][s] | pawn[1][s];
        s += 1;
    }
    t
}

/// `CHECK_ZONE[sq]`: the points whose occupancy (or, for an attacker, whose capture)
/// decides whether `sq` is attacked: its rank and file, its diagonal neighbours (horse
/// legs), the points a horse or pawn attacks it from. A move that neither leaves nor
/// enters one of them leaves the attacks on `sq` as they were.
pub static CHECK_ZONE: [u128; 90] = make_check_zone(HORSE_ATK, make_pawn_attackers(PAWN));

const fn make_lines() -> [u128; 90] {
    let rays = make_rays();
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let mut i = 0;
        while i < 4 {
            t[s] |= rays[s][i];
            i += 1;
        }
        s += 1;
    }
    t
}

/// `LINES[sq]`: the rank and the file of `sq`, without `sq`.
pub static LINES: [u128; 90] = make_lines();

/// Index of the set bit of `b` (a non-empty part of a ray in direction `dir`) nearest the
/// ray's origin: the lowest for the increasing directions 0 and 1, else the highest.
#[inline(always)]
pub fn nearest_on_ray(b: u128, dir: usize) -> u32 {
    if dir < 2 {
        b.trailing_zeros()
    } else {
        127 - b.leading_zeros()
    }
}

/// First occupied square from `sq` in direction `dir` (`occ` restricted to the ray).
#[inline(always)]
pub fn first_blocker(sq: Square, dir: usize, occ: u128) -> Option<Square> {
    let b = RAYS[sq.index()][dir] & occ;
    if b == 0 {
        return None;
    }
    // SAFETY: b has bits only below 90.
    Some(unsafe { Square::new_unchecked(nearest_on_ray(b, dir) as u8) })
}

/// The attack test of [`super::Position::attacked_with`] on the role bitboards `r` (those of the
/// position, or those a move would leave).
#[inline(always)]
pub(crate) fn attacked_on(r: &[u128; 7], sq: Square, by: Color, occ: u128, theirs: u128) -> bool {
    if PAWN_ATTACKERS[by.index()][sq.index()] & r[Role::Pawn.index()] & theirs != 0 {
        return true;
    }
    let horses = r[Role::Horse.index()] & theirs;
    if horses != 0 {
        let legs = &HORSE_ATTACKER_LEG[sq.index()];
        let srcs = &HORSE_ATTACKER_SRC[sq.index()];
        for i in 0..4 {
            if srcs[i] & horses != 0 && legs[i] & occ == 0 {
                return true;
            }
        }
    }
    let rooks = r[Role::Rook.index()] & theirs;
    let cannons = r[Role::Cannon.index()] & theirs;
    let king = r[Role::King.index()] & theirs;
    if (rooks | cannons | king) & LINES[sq.index()] == 0 {
        return false;
    }
    let rays = &RAYS[sq.index()];
    for (dir, &ray) in rays.iter().enumerate() {
        let sliders = (rooks | cannons | if dir & 1 == 0 { king } else { 0 }) & ray;
        if sliders == 0 {
            continue;
        }
        let b = ray & occ;
        let s1 = nearest_on_ray(b, dir);
        let s1b = 1u128 << s1;
        if s1b & (rooks | if dir & 1 == 0 { king } else { 0 }) != 0 {
            return true;
        }
        if cannons & ray == 0 {
            continue;
        }
        let b2 = RAYS[s1 as usize][dir] & occ;
        if b2 == 0 {
            continue;
        }
        let s2 = nearest_on_ray(b2, dir);
        if cannons & (1u128 << s2) != 0 {
            return true;
        }
    }
    false
}

/// Squares a horse on `sq` attacks given the occupancy (legs checked).
#[inline(always)]
pub fn horse_attacks(sq: Square, occ: u128) -> u128 {
    let legs = &HORSE_LEG[sq.index()];
    let targets = &HORSE_TARGET[sq.index()];
    let mut att = 0u128;
    for i in 0..4 {
        if legs[i] & occ == 0 {
            att |= targets[i];
        }
    }
    att
}

/// Squares an elephant on `sq` attacks given the occupancy (eyes checked, river kept).
#[inline(always)]
pub fn elephant_attacks(sq: Square, occ: u128) -> u128 {
    let eyes = &ELEPHANT_EYE[sq.index()];
    let targets = &ELEPHANT_TARGET[sq.index()];
    let mut att = 0u128;
    for i in 0..4 {
        if targets[i] != 0 && eyes[i] & occ == 0 {
            att |= targets[i];
        }
    }
    att
}

/// Pawn steps of `color` from `sq`.
#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> u128 {
    PAWN_MOVES[color.index()][sq.index()]
}

/// The points a piece (`role` of `color`) on `from` can move to given the occupancy `occ`,
/// its own pieces not yet taken off: a cannon's captures when `capture`, else its quiet
/// moves (legs, eyes, screens, palace and river kept; legality not tested).
#[inline(always)]
pub(crate) fn move_targets(
    color: Color,
    role: Role,
    from: Square,
    occ: u128,
    capture: bool,
) -> u128 {
    match role {
        Role::King => KING_MOVES[from.index()],
        Role::Advisor => ADVISOR_MOVES[from.index()],
        Role::Elephant => elephant_attacks(from, occ),
        Role::Horse => horse_attacks(from, occ),
        Role::Rook => rook_attacks(from, occ),
        Role::Cannon if capture => cannon_captures(from, occ),
        Role::Cannon => rook_attacks(from, occ) & !occ,
        Role::Pawn => pawn_attacks(color, from),
    }
}

/// Squares where `role` of `color` can ever stand: kings in their palace, advisors on their
/// five points, elephants on their seven, pawns on their reachable points; others anywhere.
#[inline(always)]
pub fn reachable(color: Color, role: super::Role) -> Bitboard {
    Bitboard::from_bits(REACHABLE[color.index()][role.index()])
}

/// `REACHABLE[color][role]`: the bits of [`reachable`].
static REACHABLE: [[u128; 7]; 2] = make_reachable();

/// The point on file `f` and rank `r` counted from colour `c`'s own edge.
const fn fl(c: usize, f: i32, r: i32) -> u128 {
    bit(if c == 0 { r * 9 + f } else { (9 - r) * 9 + f })
}

const fn make_reachable() -> [[u128; 7]; 2] {
    let mut t = [[(1u128 << 90) - 1; 7]; 2];
    let mut c = 0;
    while c < 2 {
        let mut palace = 0u128;
        let mut i = 0;
        while i < 9 {
            palace |= fl(c, 3 + i % 3, i / 3);
            i += 1;
        }
        t[c][0] = palace;
        t[c][1] = fl(c, 3, 0) | fl(c, 5, 0) | fl(c, 4, 1) | fl(c, 3, 2) | fl(c, 5, 2);
        t[c][2] = fl(c, 2, 0)
            | fl(c, 6, 0)
            | fl(c, 0, 2)
            | fl(c, 4, 2)
            | fl(c, 8, 2)
            | fl(c, 2, 4)
            | fl(c, 6, 4);
        // pawns: the enemy half, and the five files of their own ranks 3 and 4
        let mut pawn = 0u128;
        let mut r = 0;
        while r < 10 {
            let mut f = 0;
            while f < 9 {
                if r >= 5 || (r >= 3 && f % 2 == 0) {
                    pawn |= fl(c, f, r);
                }
                f += 1;
            }
            r += 1;
        }
        t[c][6] = pawn;
        c += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Role;

    /// The table is the definition spelled out: palaces, the advisors' and elephants'
    /// points, pawns beyond their own ranks 0 to 2 (on the even files in ranks 3 and 4).
    #[test]
    fn reachable_table_matches_the_points() {
        for c in Color::ALL {
            let own = |r: u8| if c == Color::Red { r } else { 9 - r };
            let at = |f: u8, r: u8| Square::from_coords(f, own(r)).unwrap();
            let palace = match c {
                Color::Red => Bitboard::RED_PALACE,
                Color::Black => Bitboard::BLACK_PALACE,
            };
            assert_eq!(reachable(c, Role::King), palace);
            for (f, r) in [(3, 0), (5, 0), (4, 1), (3, 2), (5, 2)] {
                assert!(reachable(c, Role::Advisor).contains(at(f, r)));
            }
            for (f, r) in [(2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4)] {
                assert!(reachable(c, Role::Elephant).contains(at(f, r)));
            }
            for sq in Square::ALL {
                let r = own(sq.rank());
                let pawn = r >= 5 || (r >= 3 && sq.file() % 2 == 0);
                assert_eq!(reachable(c, Role::Pawn).contains(sq), pawn, "{sq}");
                for role in [Role::Horse, Role::Rook, Role::Cannon] {
                    assert!(reachable(c, role).contains(sq));
                }
            }
        }
    }

    #[test]
    fn reachable_point_counts() {
        for c in Color::ALL {
            assert_eq!(reachable(c, Role::King).count(), 9);
            assert_eq!(reachable(c, Role::Advisor).count(), 5);
            assert_eq!(reachable(c, Role::Elephant).count(), 7);
            assert_eq!(reachable(c, Role::Pawn).count(), 55);
        }
    }

    #[test]
    fn horse_and_cannon() {
        let occ = 0u128;
        assert_eq!(horse_attacks(Square::B0, occ).count_ones(), 3);
        // blocked leg b1 removes a2 and c2
        assert_eq!(
            horse_attacks(Square::B0, Square::B1.bit()),
            Square::D1.bit()
        );
        // cannon h2 with screen on h7 captures h9
        let occ = Square::H7.bit() | Square::H9.bit() | Square::H2.bit();
        assert_eq!(cannon_captures(Square::H2, occ), Square::H9.bit());
        assert_eq!(rook_attacks(Square::E4, 0).count_ones(), 17);
    }
}
