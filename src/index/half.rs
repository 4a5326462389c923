//! The constrained pieces one side keeps on its own half: king, advisors, elephants and
//! unpassed pawns. Their joint placements for given counts are few (at most 151,200 raw
//! codes), so they are enumerated once into a list: mirror classes first (one canonical entry
//! per asymmetric pair), then the symmetric placements. Black's placements are Red's
//! flipped top to bottom.

use super::binomial::binom;
use super::masks::{below, bits, flip_mask, mask, mirror_mask, BLACK_HALF, RED_HALF};
use crate::board::attacks::reachable;
use crate::board::{Bitboard, Color, Role, Square};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Red's own-half points of each kind, by the board's rules (Black's are their flips).
pub(super) struct OwnPoints {
    pub(super) palace: u128,
    pub(super) advisor: u128,
    pub(super) elephant: u128,
    /// Unpassed pawns: ranks 3 and 4 of files a, c, e, g and i.
    pub(super) pawn: u128,
}

/// [`OwnPoints`] from [`reachable`].
pub(super) fn own_points() -> OwnPoints {
    let red = |r: Role| mask(reachable(Color::Red, r));
    OwnPoints {
        palace: red(Role::King),
        advisor: red(Role::Advisor),
        elephant: red(Role::Elephant),
        pawn: red(Role::Pawn) & RED_HALF,
    }
}

/// One joint placement of a side's own-half pieces, in Red's orientation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HalfConfig {
    /// King, advisors, elephants, then unpassed pawns (each kind in square order); the
    /// list's [`HalfList::len_pieces`] first entries are used.
    pub squares: [u8; MAX_OWN],
    /// All squares as a mask.
    pub occ: u128,
    /// The same placement as Black's (flipped top to bottom), and flipped then mirrored.
    pub occ_black: [u128; 2],
    /// Points on the centre file (e) that it occupies.
    pub centers: u8,
    /// The squares (as `squares`) as Red's, as Black's and as Black's mirrored.
    pub placed: [[Square; MAX_OWN]; 3],
}

/// Most own-half pieces of one side: king, 2 advisors, 2 elephants, 5 unpassed pawns.
pub const MAX_OWN: usize = 10;

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
    /// Role of each used slot of [`HalfConfig::squares`].
    pub roles: [Role; MAX_OWN],
    /// Radices of the raw code: advisor sets, elephant sets, pawn placements.
    radix: (u64, u64, u64),
    lookup: Vec<u32>,
    /// Point numbers as Red's and as Black's.
    points: [PointTables; 2],
    /// When the king is the only piece: the lookup code of each byte as a king square,
    /// as Red's and as Black's (see [`HalfList::find_king`]).
    king_lookup: Option<Box<[[u32; 256]; 2]>>,
    /// Empty own-half points of every entry, built when an index first needs them.
    empties: OnceLock<Arc<Empties>>,
}

/// The empty own-half points of every entry of a [`HalfList`], in increasing square order:
/// as Red's (ranks 0-4), as Black's (flipped into ranks 5-9) and as Black's mirrored.
#[derive(Debug)]
pub struct Empties {
    /// Empty points per entry (45 minus the pieces).
    pub n: usize,
    /// Per entry, its empty points in increasing order (the first `n` of 64 slots).
    red: Vec<[Square; 64]>,
    black: [Vec<[Square; 64]>; 2],
    /// Empty left points (files a-d) of every entry, `LEFT_STRIDE` per entry: as Red's and
    /// as Black's (not mirrored).
    left_red: Vec<u8>,
    left_black: Vec<u8>,
}

/// Most left points of one half (4 files by 5 ranks).
const LEFT_STRIDE: usize = 20;

impl Empties {
    fn build(list: &HalfList) -> Empties {
        let n = 45 - list.len_pieces();
        let mut red = Vec::with_capacity(list.entries.len());
        let mut black = [
            Vec::with_capacity(list.entries.len()),
            Vec::with_capacity(list.entries.len()),
        ];
        let mut left_red = vec![0u8; list.entries.len() * LEFT_STRIDE];
        let mut left_black = vec![0u8; list.entries.len() * LEFT_STRIDE];
        let left = |s: &u8| s % 9 < 4;
        let points = |m: u128| {
            let mut row = [Square::ALL[0]; 64];
            for (slot, s) in row.iter_mut().zip(bits(m)) {
                *slot = Square::ALL[s as usize];
            }
            row
        };
        for (i, e) in list.entries.iter().enumerate() {
            red.push(points(!e.occ & RED_HALF));
            for (m, b) in black.iter_mut().enumerate() {
                b.push(points(!e.occ_black[m] & BLACK_HALF));
            }
            let at = i * LEFT_STRIDE;
            for (slot, s) in left_red[at..at + LEFT_STRIDE]
                .iter_mut()
                .zip(bits(!e.occ & RED_HALF).filter(left))
            {
                *slot = s;
            }
            for (slot, s) in left_black[at..at + LEFT_STRIDE]
                .iter_mut()
                .zip(bits(!e.occ_black[0] & BLACK_HALF).filter(left))
            {
                *slot = s;
            }
        }
        Empties {
            n,
            red,
            black,
            left_red,
            left_black,
        }
    }

    /// The `k`-th empty left point (files a-d) of entry `i` as Red's (k < 20).
    #[inline(always)]
    pub fn left_red(&self, i: usize, k: usize) -> u8 {
        self.left_red[i * LEFT_STRIDE + k.min(LEFT_STRIDE - 1)]
    }

    /// The `k`-th empty left point of entry `i` as Black's, not mirrored (k < 20).
    #[inline(always)]
    pub fn left_black(&self, i: usize, k: usize) -> u8 {
        self.left_black[i * LEFT_STRIDE + k.min(LEFT_STRIDE - 1)]
    }

    /// The empty points of entry `i` as Red's, in square order (the first `n` of 64).
    #[inline(always)]
    pub fn red_row(&self, i: usize) -> &[Square; 64] {
        &self.red[i]
    }

    /// The empty points of entry `i` as Black's (mirrored if asked), in square order.
    #[inline(always)]
    pub fn black_row(&self, mirrored: bool, i: usize) -> &[Square; 64] {
        &self.black[mirrored as usize][i]
    }
}

/// Marks a raw code whose placement is the mirror of the entry it names.
pub const MIRRORED: u32 = 1 << 31;
/// Raw code of no placement (two pieces on one point).
pub const INVALID: u32 = u32::MAX;

/// Per-square point numbers of one side (255 where the piece can never stand), seen from
/// that side: palace, advisor and elephant point numbers, and for pawns the file number
/// (0-4) plus 8 on the far rank of the two.
/// The tables are 256 wide so that any byte can be looked up without a check.
#[derive(Debug)]
struct PointTables {
    palace: [u8; 256],
    advisor: [u8; 256],
    elephant: [u8; 256],
    pawn: [u8; 256],
}

fn point_tables(color: Color) -> PointTables {
    let own = own_points();
    // the number of point `s` among `set` in square order
    let number = |set: u128, s: Square| {
        if set & s.bit() != 0 {
            (set & below(s as u8)).count_ones() as u8
        } else {
            u8::MAX
        }
    };
    let mut t = PointTables {
        palace: [u8::MAX; 256],
        advisor: [u8::MAX; 256],
        elephant: [u8::MAX; 256],
        pawn: [u8::MAX; 256],
    };
    for sq in Square::ALL {
        // the point in Red's orientation
        let red = if color == Color::Red { sq } else { sq.flip() };
        let s = sq.index();
        t.palace[s] = number(own.palace, red);
        t.advisor[s] = number(own.advisor, red);
        t.elephant[s] = number(own.elephant, red);
        if own.pawn & red.bit() != 0 {
            t.pawn[s] = (red.file() / 2) | ((red.rank() - 3) << 3);
        }
    }
    t
}

/// Colex rank of the subset given as a bit mask (of at most 7 points).
static COLEX: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut m = 0;
    while m < 128 {
        let mut x = 0u64;
        let mut i = 0;
        let mut b = 0;
        while b < 7 {
            if m >> b & 1 == 1 {
                i += 1;
                if i <= super::binomial::MAX_K {
                    x += super::binomial::binom_const(b, i);
                }
            }
            b += 1;
        }
        t[m] = x as u8;
        m += 1;
    }
    t
};

/// `PEXT5[mask][bits]`: the bits of `bits` at the positions set in `mask`, packed low.
static PEXT5: [[u8; 32]; 32] = {
    let mut t = [[0u8; 32]; 32];
    let mut m = 0;
    while m < 32 {
        let mut v = 0;
        while v < 32 {
            let mut out = 0u8;
            let mut k = 0;
            let mut b = 0;
            while b < 5 {
                if m >> b & 1 == 1 {
                    out |= ((v >> b & 1) as u8) << k;
                    k += 1;
                }
                b += 1;
            }
            t[m][v] = out;
            v += 1;
        }
        m += 1;
    }
    t
};

impl HalfList {
    /// Pieces per entry (king included).
    #[inline(always)]
    pub fn len_pieces(&self) -> usize {
        1 + (self.n_advisors + self.n_elephants + self.n_pawns) as usize
    }

    /// Raw code of one side's own-half placement given as board masks (king, advisors,
    /// elephants, unpassed pawns), or None if a piece is off its points or two unpassed
    /// pawns share a file. The counts must be the list's.
    #[inline(always)]
    pub fn raw(&self, color: Color, king: u128, adv: u128, ele: u128, pawns: u128) -> Option<u64> {
        self.raw_squares(
            color,
            king.trailing_zeros() as u8,
            bits(adv),
            bits(ele),
            bits(pawns),
        )
    }

    /// [`HalfList::raw`] from the pieces' squares, each kind in any order. None also when
    /// two pieces of one kind share a point. The counts must be the list's.
    #[inline(always)]
    pub fn raw_squares(
        &self,
        color: Color,
        king: u8,
        adv: impl Iterator<Item = u8>,
        ele: impl Iterator<Item = u8>,
        pawns: impl Iterator<Item = u8>,
    ) -> Option<u64> {
        let t = &self.points[color.index()];
        let (ca, cb, cp) = self.radix;
        let kp = t.palace[king as usize];
        if kp == u8::MAX {
            return None;
        }
        if self.len_pieces() == 1 {
            return Some(kp as u64);
        }
        // a point number of 255 sets no bit of the 8-bit masks, so it shows as a missing
        // piece in the count checks below
        let point_bit =
            |table: &[u8; 256], s: u8| -> usize { (1usize << (table[s as usize] & 15)) & 0xff };
        // plain loops, not folds: a fold over these adapters is a call of its own
        let (mut am, mut em) = (0, 0);
        for s in adv {
            am |= point_bit(&t.advisor, s);
        }
        for s in ele {
            em |= point_bit(&t.elephant, s);
        }
        let (mut fm, mut rb, mut np) = (0usize, 0usize, 0u32);
        for s in pawns {
            let v = t.pawn[s as usize];
            if v == u8::MAX {
                return None;
            }
            let f = (v & 7) as usize;
            fm |= 1 << f;
            rb |= ((v >> 3) as usize) << f;
            np += 1;
        }
        let counts_ok = am.count_ones() == self.n_advisors as u32
            && em.count_ones() == self.n_elephants as u32
            && fm.count_ones() == np;
        if !counts_ok {
            return None;
        }
        let p = ((COLEX[fm] as u64) << self.n_pawns) | PEXT5[fm][rb] as u64;
        Some(((kp as u64 * ca + COLEX[am] as u64) * cb + COLEX[em] as u64) * cp + p)
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
        let mut roles = [Role::King; MAX_OWN];
        let (na, ne, np) = (n_advisors as usize, n_elephants as usize, n_pawns as usize);
        roles[1..1 + na].fill(Role::Advisor);
        roles[1 + na..1 + na + ne].fill(Role::Elephant);
        roles[1 + na + ne..1 + na + ne + np].fill(Role::Pawn);
        let radix = (binom(5, na), binom(7, ne), binom(5, np) << n_pawns);
        let mut list = HalfList {
            n_advisors,
            n_elephants,
            n_pawns,
            entries: Vec::new(),
            asym: 0,
            roles,
            radix,
            lookup: Vec::new(),
            points: [point_tables(Color::Red), point_tables(Color::Black)],
            king_lookup: None,
            empties: OnceLock::new(),
        };
        let n = list.len_pieces();
        let space = (9 * radix.0 * radix.1 * radix.2) as usize;
        // every `k`-point subset of `points`
        let subsets = |points: u128, k: usize| -> Vec<u128> {
            let points: Vec<u8> = bits(points).collect();
            (0u32..1 << points.len())
                .filter(|m| m.count_ones() as usize == k)
                .map(|m| {
                    (0..points.len())
                        .filter(|i| m >> i & 1 == 1)
                        .fold(0u128, |acc, i| acc | 1u128 << points[i])
                })
                .collect()
        };
        let own = own_points();
        let adv_sets = subsets(own.advisor, na);
        let ele_sets = subsets(own.elephant, ne);
        let file_sets = subsets(own.pawn & mask(Bitboard::rank(3)), np);
        let mut asym = Vec::new();
        let mut sym = Vec::new();
        let mut pairs = Vec::new();
        for k in bits(own.palace) {
            let km = 1u128 << k;
            for &a in &adv_sets {
                for &e in &ele_sets {
                    for &fs in &file_sets {
                        // unpassed pawns: on rank 3 of their files, each may step to rank 4
                        for steps in 0u32..(1 << np) {
                            let mut pawns = 0u128;
                            for (i, s) in bits(fs).enumerate() {
                                pawns |= 1u128 << (s as u32 + 9 * (steps >> i & 1));
                            }
                            let occ = km | a | e | pawns;
                            if occ.count_ones() as usize != n {
                                continue;
                            }
                            let raw = list
                                .raw(Color::Red, km, a, e, pawns)
                                .expect("enumerated points are valid");
                            let mr = list
                                .raw(
                                    Color::Red,
                                    mirror_mask(km),
                                    mirror_mask(a),
                                    mirror_mask(e),
                                    mirror_mask(pawns),
                                )
                                .expect("the mirror of a valid placement is valid");
                            let mut squares = [0u8; MAX_OWN];
                            for (slot, s) in bits(km)
                                .chain(bits(a))
                                .chain(bits(e))
                                .chain(bits(pawns))
                                .enumerate()
                            {
                                squares[slot] = s;
                            }
                            let fl = flip_mask(occ);
                            let mut placed = [[Square::ALL[0]; MAX_OWN]; 3];
                            for (k, &s) in squares[..n].iter().enumerate() {
                                let s = Square::ALL[s as usize];
                                placed[0][k] = s;
                                placed[1][k] = s.flip();
                                placed[2][k] = s.flip().mirror();
                            }
                            let c = HalfConfig {
                                squares,
                                placed,
                                occ,
                                occ_black: [fl, mirror_mask(fl)],
                                centers: (0..5).filter(|r| occ >> (r * 9 + 4) & 1 == 1).count()
                                    as u8,
                            };
                            if mr == raw {
                                sym.push((raw, c));
                            } else if raw < mr {
                                asym.push((raw, c));
                                pairs.push((raw, mr));
                            }
                        }
                    }
                }
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
        if n == 1 {
            let mut t = Box::new([[INVALID; 256]; 2]);
            for c in Color::ALL {
                for (k, v) in t[c.index()].iter_mut().enumerate() {
                    let raw = list.raw_squares(
                        c,
                        k as u8,
                        None.into_iter(),
                        None.into_iter(),
                        None.into_iter(),
                    );
                    if let Some(raw) = raw {
                        *v = list.lookup[raw as usize];
                    }
                }
            }
            list.king_lookup = Some(t);
        }
        list
    }

    /// Entry and mirror flag of a side whose only own-half piece is its king, from the
    /// king's square; None for other lists (or when the king is off its palace).
    #[inline(always)]
    pub fn find_king(&self, color: Color, king: u8) -> Option<Option<(usize, bool)>> {
        let t = self.king_lookup.as_ref()?;
        let v = t[color.index()][king as usize];
        Some((v != INVALID).then_some(((v & !MIRRORED) as usize, v & MIRRORED != 0)))
    }

    /// Entry and mirror flag of a side's own-half placement: `sq(k)` is the square of its
    /// `k`-th king, advisor or elephant (king first, then the advisors, then the
    /// elephants, as a kind-ordered list holds them), `pawns` its unpassed pawns. None when
    /// a piece stands off its points.
    #[inline(always)]
    pub fn entry_of(
        &self,
        color: Color,
        sq: impl Fn(usize) -> u8,
        pawns: impl Iterator<Item = u8>,
    ) -> Option<(usize, bool)> {
        if let Some(found) = self.find_king(color, sq(0)) {
            return found;
        }
        let (na, ne) = (self.n_advisors as usize, self.n_elephants as usize);
        let raw = self.raw_squares(
            color,
            sq(0),
            (1..1 + na).map(&sq),
            (1 + na..1 + na + ne).map(&sq),
            pawns,
        )?;
        self.find(raw)
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

    /// The empty own-half points of every entry (built on first use).
    pub fn empties(&self) -> Arc<Empties> {
        self.empties
            .get_or_init(|| Arc::new(Empties::build(self)))
            .clone()
    }

    /// Number of placements (both members of each mirror pair counted).
    pub fn placements(&self) -> u64 {
        2 * self.asym as u64 + (self.entries.len() - self.asym) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-read lookup of a lone king gives what the raw code gives, for every byte.
    #[test]
    fn lone_king_lookup_equals_the_raw_code() {
        let l = HalfList::get(0, 0, 0);
        let none = || std::iter::empty();
        for c in Color::ALL {
            for k in 0..=255u8 {
                let raw = l.raw_squares(c, k, none(), none(), none());
                assert_eq!(
                    l.find_king(c, k),
                    Some(raw.and_then(|r| l.find(r))),
                    "{c:?} {k}"
                );
            }
        }
        assert_eq!(HalfList::get(1, 0, 0).find_king(Color::Red, 4), None);
    }

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
