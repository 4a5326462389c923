//! Tables per pair of own-half placements, for the pawnless materials whose rooks, horses
//! and cannons are each alone of their kind and whose own halves have few placements
//! (KRNKR, KRKN, KCKA, KRKAA, ...).
//!
//! Every pair of Red's entry and Black's placement (with its orientation) gets its own row:
//! the E-rank of each square (as it stands and mirrored), the square of each E-rank, the
//! index where its block starts, the folded rank of a first tail piece when both own halves
//! are symmetric, and its kind-ordered piece list with the own-half pieces in place. Ranking
//! and unranking a placement then read one table entry per tail piece instead of counting
//! the own-half occupancy, and write the list with one copy. Neither direction branches on
//! which kind of pair it meets (asymmetric, or both symmetric and folded):
//!
//! - ranking finds the row from the two own-half entries, or, when both sides keep only
//!   their king on their own half, from one table read per pair of king squares;
//! - unranking finds the row from one division: the index's stretch of indexes (as long as
//!   the shortest block) names the row holding the stretch's start, and at most one more
//!   block starts within the stretch.
//!
//! The numbering is [`super::plain`]'s, which is the general path's. The placements that
//! path leaves to the general one (both own halves symmetric and the first tail piece on
//! the centre file) are left to it here too, and so is every list that is not a placement
//! of the material: the general path then names the error.

use super::bucket::Own;
use super::espace;
use super::kinds::list_bytes;
use super::masks::{below, mirror_sq, LEFT_FILES, MIRROR_IF};
use super::placement::PieceList;
use super::split::{Decoded, Split};
use super::tail::Region;
use crate::board::{Color, Piece, Role, Square};
use std::fmt;
use strength_reduce::StrengthReducedU64;

/// Most pairs (Red's entries times Black's placements) a split gets rows for: 1,024 rows of
/// 704 bytes are 704 KiB. Kings alone take 45 rows, king against king and advisor 183, king
/// against king and two elephants 837.
pub(super) const MAX_PAIRS: usize = 1024;

/// Lowest square of Red's palace; Black's lowest is 63 above it.
const KING_LOW: u8 = 3;
/// Squares from the lowest to the highest point of a palace (d1 to f3).
const KINGS: usize = 21;
/// In [`PairRows::kings`]: the placement is the mirror image of its row's.
const ROW_MIRRORED: u16 = 1 << 15;
/// In [`PairRows::kings`]: no row (a king off its palace).
const NO_ROW: u16 = u16::MAX;

/// No E-rank (a point an own-half piece occupies, or no point), or no folded rank.
const NONE: u8 = u8::MAX;

/// The tables of one pair of own-half placements (Red's entry as it stands, Black's
/// placement in that orientation).
#[repr(C, align(64))]
struct PairRow {
    /// E-rank of each square with the placement as it stands (`[0]`) and mirrored (`[1]`),
    /// [`NONE`] for the occupied points.
    erank: [[u8; 128]; 2],
    /// Square of each E-rank.
    cells: [Square; 128],
    /// When both own halves are symmetric: the folded rank of the first tail piece on each
    /// square (its rank among the empty points of files a-d, after mirroring it there),
    /// plus 128 when it stands on files f-i; [`NONE`] on the centre file and on occupied
    /// points, and everywhere for the other pairs.
    left: [u8; 128],
    /// E-rank of each empty point of files a-d, in square order (both symmetric).
    left_e: [u8; 64],
    /// The kind-ordered piece list: the own-half pieces on their squares, the tail pieces
    /// in their slots on a placeholder square.
    template: [(Piece, Square); 32],
    /// First index of the pair's block within the split.
    base: u64,
    /// Both own halves are symmetric: the tail is folded.
    folded: bool,
    /// Number of empty points of files a-d when folded, else [`NONE`] (no digit reaches it).
    n_left: u8,
    /// The points the own-half pieces take (the row's orientation).
    occ: u128,
}

// one row in whole cache lines: 256 + 128 + 128 + 64 + 96 + 8 + 2 (+ 6 of alignment) + 16,
// rounded up
const _: () = assert!(std::mem::size_of::<PairRow>() == 704);

/// A placement's tail context as [`PairRows::tail_parts`] reads it from the pair tables.
pub(super) struct TailParts {
    /// The placement's row.
    pub(super) row: u32,
    /// First index of the placement's block within the split.
    pub(super) base: u64,
    /// The own-half pieces' points (canonical orientation).
    pub(super) occ: u128,
    /// The tail squares, canonical orientation (0 past the tail).
    pub(super) sq: [u8; 8],
    /// Their E-ranks (0 past the tail).
    pub(super) e: [u8; 8],
    /// The points the tail takes (canonical orientation).
    pub(super) tail_occ: u128,
}

/// The rows of one split, in index order: Red's entries in turn, within each Black's
/// placements (Black's mirrored asymmetric entries after all its entries when Red's entry
/// is asymmetric, Black's entries alone when it is symmetric), as [`Split::base_fixed`]
/// and [`Split::sym_base`] number them.
pub(super) struct PairRows {
    rows: Box<[PairRow]>,
    /// First row of each of Red's entries.
    red_row: Box<[u32]>,
    /// When each side's own half is its king alone: per pair of king squares (Red's less
    /// [`KING_LOW`], Black's less [`KING_LOW`] + 63), the row plus [`ROW_MIRRORED`] when the
    /// placement stands mirrored, [`NO_ROW`] when a king is off its palace.
    kings: Option<Box<[u16; KINGS * KINGS]>>,
    /// Black's entries.
    len_b: usize,
    /// Start of each row's block, then `u64::MAX`.
    starts: Box<[u64]>,
    /// Per stretch `q` of `width` indexes (from `q · width`): the row whose block holds its
    /// first index.
    slot: Box<[u32]>,
    /// The length of a stretch (the shortest block), to divide by.
    width: StrengthReducedU64,
}

impl fmt::Debug for PairRows {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PairRows({} rows)", self.rows.len())
    }
}

impl PairRows {
    /// Find rows through the own-half entries only (tests of the routes).
    #[cfg(test)]
    pub(super) fn drop_king_table(&mut self) {
        self.kings = None;
    }

    /// The rows of a pawnless split whose tail pieces are each alone of their kind, or
    /// None when it has more than [`MAX_PAIRS`] pairs.
    pub(super) fn new(split: &Split) -> Option<PairRows> {
        if split.tail.groups.iter().any(|g| g.region != Region::Board) {
            return None; // passed pawns: not pawnless
        }
        let [lr, lb] = &split.lists;
        let len_b = lb.entries.len();
        let nb = usize::try_from(split.nb).ok()?;
        let mut pairs = Vec::new();
        let mut red_row = Vec::new();
        for ir in 0..lr.entries.len() {
            red_row.push(u32::try_from(pairs.len()).ok()?);
            let blacks = if ir < lr.asym { nb } else { len_b };
            if pairs.len() + blacks > MAX_PAIRS {
                return None;
            }
            pairs.extend((0..blacks).map(|ib_full| (ir, ib_full)));
        }
        let rows: Box<[PairRow]> = pairs
            .into_iter()
            .map(|(ir, ib_full)| {
                let b_mirrored = ib_full >= len_b;
                Self::row(split, ir, ib_full - b_mirrored as usize * len_b, b_mirrored)
            })
            .collect();
        let mut starts: Vec<u64> = rows.iter().map(|r| r.base).collect();
        if starts.first() != Some(&0) || starts.windows(2).any(|w| w[0] >= w[1]) {
            return None; // not in index order (cannot happen) or an empty block
        }
        // stretches as long as the shortest block: past its first index a stretch holds at
        // most one block start (two would bound a shorter block)
        let ends = starts.iter().skip(1).chain([&split.size]);
        let width = ends.zip(&starts).map(|(e, b)| e - b).min()?;
        let slot = (0..split.size.div_ceil(width))
            .map(|q| u32::try_from(starts.partition_point(|&b| b <= q * width) - 1).ok())
            .collect::<Option<_>>()?;
        starts.push(u64::MAX);
        let mut pairs = PairRows {
            rows,
            red_row: red_row.into(),
            kings: None,
            len_b,
            starts: starts.into(),
            slot,
            width: StrengthReducedU64::new(width),
        };
        if lr.len_pieces() == 1 && lb.len_pieces() == 1 {
            let mut kings = Box::new([NO_ROW; KINGS * KINGS]);
            for (i, slot) in kings.iter_mut().enumerate() {
                let rk = KING_LOW + (i / KINGS) as u8;
                let bk = KING_LOW + 63 + (i % KINGS) as u8;
                let r = lr.find_king(Color::Red, rk).flatten();
                let b = lb.find_king(Color::Black, bk).flatten();
                if let Some((row, mirrored)) = r.zip(b).and_then(|(r, b)| pairs.row_of(split, r, b))
                {
                    *slot = u16::try_from(row).ok().filter(|&r| r < ROW_MIRRORED)?
                        | if mirrored { ROW_MIRRORED } else { 0 };
                }
            }
            pairs.kings = Some(kings);
        }
        Some(pairs)
    }

    fn row(split: &Split, ir: usize, ib: usize, b_mirrored: bool) -> PairRow {
        let [lr, lb] = &split.lists;
        let occ = lr.entries[ir].occ | lb.entries[ib].occ_black[b_mirrored as usize];
        let folded = ir >= lr.asym && ib >= lb.asym;
        let mut row = PairRow {
            erank: [[NONE; 128]; 2],
            cells: [Square::ALL[0]; 128],
            left: [NONE; 128],
            left_e: [0; 64],
            template: [(Piece::new(Color::Red, Role::King), Square::ALL[0]); 32],
            base: if folded {
                split.sym_base(ir, ib)
            } else {
                split.base_fixed(ir, ib, ib < lb.asym, b_mirrored)
            },
            folded,
            n_left: NONE,
            occ,
        };
        let empty = (0..90u8).filter(|&s| occ >> s & 1 == 0);
        for (e, s) in empty.enumerate() {
            row.erank[0][s as usize] = e as u8;
            row.erank[1][mirror_sq(s) as usize] = e as u8;
            row.cells[e] = Square::ALL[s as usize];
        }
        if folded {
            // the occupancy is symmetric: a square and its mirror image are empty together
            let left = LEFT_FILES & !occ;
            for s in (0..90u8).filter(|&s| s % 9 != 4 && occ >> s & 1 == 0) {
                let (l, right) = if s % 9 < 4 {
                    (s, 0)
                } else {
                    (mirror_sq(s), 128)
                };
                row.left[s as usize] = (left & below(l)).count_ones() as u8 + right;
            }
            row.n_left = 0;
            for (k, s) in (0..90u8).filter(|&s| left >> s & 1 != 0).enumerate() {
                row.left_e[k] = row.erank[0][s as usize];
                row.n_left += 1;
            }
        }
        let d = Decoded {
            ir,
            ib,
            b_mirrored,
            x: 0,
            folded: false,
        };
        split.put_own(&d, &mut |slot, p, s| row.template[slot & 31] = (p, s));
        for j in 0..split.tail.groups.len() {
            row.template[split.out_slot[j] as usize & 31].0 = split.group_piece[j];
        }
        row
    }

    /// The E-rank of each square of row `row` as it stands (`mirrored`: the placement
    /// stands mirrored, see [`PairRows::row_of`]), [`NONE`] on the own-half pieces.
    #[inline(always)]
    pub(super) fn erank(&self, row: u32, mirrored: bool) -> Option<&[u8; 128]> {
        Some(&self.rows.get(row as usize)?.erank[mirrored as usize])
    }

    /// Rows are found per pair of king squares ([`PairRows::king_row`] answers).
    #[inline(always)]
    pub(super) fn has_king_table(&self) -> bool {
        self.kings.is_some()
    }

    /// The row and orientation of a placement whose own halves are the kings alone, on
    /// squares `rk` and `bk`: None when the sides have other own-half pieces, Some(None)
    /// when a king is off its palace.
    #[inline(always)]
    pub(super) fn king_row(&self, rk: u8, bk: u8) -> Option<Option<(usize, bool)>> {
        let kings = self.kings.as_ref()?;
        let r = rk.wrapping_sub(KING_LOW) as usize;
        let b = bk.wrapping_sub(KING_LOW + 63) as usize;
        if r >= KINGS || b >= KINGS {
            return Some(None);
        }
        let v = kings[r * KINGS + b];
        Some((v != NO_ROW).then_some(((v & !ROW_MIRRORED) as usize, v & ROW_MIRRORED != 0)))
    }

    /// The row and orientation of a placement with these own-half entries and mirror
    /// flags (None only if the entries are out of range).
    #[inline(always)]
    pub(super) fn row_of(
        &self,
        split: &Split,
        (ir, mr): Own,
        (ib, mb): Own,
    ) -> Option<(usize, bool)> {
        let [lr, lb] = &split.lists;
        let (r_asym, b_asym) = (ir < lr.asym, ib < lb.asym);
        // the first asymmetric own half fixes the orientation (when both are symmetric,
        // the row is the unmirrored pair's and the first tail piece fixes it)
        let mirrored = std::hint::select_unpredictable(r_asym, mr, mb);
        let b_mirrored = mb != mirrored;
        let first_row = *self.red_row.get(ir)? as usize;
        let b_off = std::hint::select_unpredictable(b_asym & b_mirrored, self.len_b, 0);
        Some((first_row + ib + b_off, mirrored))
    }

    /// Index within the split of a placement given by its row and orientation (see
    /// [`PairRows::row_of`]) and its tail squares `ts` (as they stand); None when the tail
    /// pieces do not stand on distinct empty points, and for the placements the general
    /// path ranks.
    #[inline(always)]
    pub(super) fn rank<const N: usize>(
        &self,
        split: &Split,
        (row, mirrored): (usize, bool),
        ts: [u8; N],
    ) -> Option<u64> {
        let row = self.rows.get(row)?;
        if N == 0 {
            return Some(row.base);
        }
        // folded: no branch (one pair in nine for kings alone)
        let k = row.left[ts.first().map_or(0, |&s| s as usize & 127)];
        let mirrored = std::hint::select_unpredictable(row.folded, k >= 128, mirrored);
        let er = &row.erank[mirrored as usize];
        let e: [u8; N] = std::array::from_fn(|j| er[ts[j] as usize & 127]);
        // one piece per point (no tail piece on an own-half piece nor on another one),
        // and a folded first piece off the centre file
        // (E-ranks are below 90, NONE has the top bit)
        let mut bad = row.folded & (k == NONE) | (e.iter().fold(0, |a, &x| a | x) >= 128);
        for j in 0..N {
            for i in 0..j {
                bad |= e[i] == e[j];
            }
        }
        if bad {
            return None;
        }
        let first = row.folded.then_some((k & 127) as u64);
        Some(row.base + espace::rank_eranks::<N>(&split.tail, &split.single_base, &e, first))
    }

    /// What a tail context ([`super::tail_move`]) needs of a placement given by its row and
    /// orientation (see [`PairRows::row_of`]) and its tail squares `ts` (as they stand):
    /// Some(None) when both own halves are symmetric (no context: the tail decides the
    /// orientation), None when the tail pieces do not stand on distinct empty points (the
    /// general path then decides).
    #[inline(always)]
    pub(super) fn tail_parts<const N: usize>(
        &self,
        (row, mirrored): (usize, bool),
        ts: [u8; N],
    ) -> Option<Option<TailParts>> {
        let row_at = row;
        let row = self.rows.get(row)?;
        if row.folded {
            return Some(None);
        }
        let er = &row.erank[mirrored as usize];
        let turn = &MIRROR_IF[mirrored as usize];
        let mut parts = TailParts {
            row: row_at as u32,
            base: row.base,
            occ: row.occ,
            sq: [0; 8],
            e: [0; 8],
            tail_occ: 0,
        };
        let mut any = 0u8;
        for (j, &t) in ts.iter().enumerate().take(8) {
            let t = t as usize & 127;
            parts.e[j] = er[t];
            any |= er[t];
            parts.sq[j] = turn[t];
            parts.tail_occ |= 1u128 << (turn[t] & 127);
        }
        // E-ranks are below 90 (NONE, an occupied point, has the top bit); one piece per point
        if any >= 128 || parts.tail_occ.count_ones() as usize != N {
            return None;
        }
        Some(Some(parts))
    }

    /// Write the placement with index `x` within the split into `out` as a kind-ordered
    /// list of `total` pieces. False, with `out` unspecified, when the general path must
    /// unrank it.
    #[inline(always)]
    pub(super) fn unrank<const N: usize>(
        &self,
        split: &Split,
        x: u64,
        total: usize,
        out: &mut PieceList,
    ) -> bool {
        self.unrank_row::<N>(split, x, total, out, |_, _, _| ())
            .is_some()
    }

    /// [`PairRows::unrank`] and [`PairRows::tail_parts`] of the placement it writes, in one
    /// pass (the unranking's E-ranks are the context's), with the kings' squares (read at
    /// `king_at` of the row's list, see [`Split::king_at`]): None when the general path
    /// must unrank it, Some(None) when both own halves are symmetric (no context), as
    /// [`PairRows::tail_parts`] of the placement as it stands (canonical: its row's
    /// orientation) would answer.
    #[inline(always)]
    pub(super) fn unrank_parts<const N: usize>(
        &self,
        split: &Split,
        x: u64,
        total: usize,
        out: &mut PieceList,
    ) -> Option<Option<(TailParts, [u8; 2])>> {
        let mut sq = [0u8; 8];
        let mut e = [0u8; 8];
        let (row_at, row) = self.unrank_row::<N>(split, x, total, out, |j, ej, s| {
            e[j & 7] = ej;
            sq[j & 7] = s as u8;
        })?;
        if row.folded {
            return Some(None);
        }
        let tail_occ = sq[..N.min(8)]
            .iter()
            .fold(0u128, |o, &s| o | 1u128 << (s & 127));
        // the own halves (the kings among them) stand as in the row's list
        let template = list_bytes(&row.template);
        let kings = split
            .king_at
            .map(|a| template.get(a as usize).copied().unwrap_or(u8::MAX));
        let parts = TailParts {
            row: row_at as u32,
            base: row.base,
            occ: row.occ,
            sq,
            e,
            tail_occ,
        };
        Some(Some((parts, kings)))
    }

    /// [`PairRows::unrank`], handing each tail group's E-rank and square to `tail` as well
    /// (in the row's orientation, the placement's); the placement's row (its number and
    /// itself), None when the general path must unrank it.
    ///
    /// The row comes without a search: the stretch of indexes holding `x` names the row
    /// whose block holds the stretch's first index, and since no block is shorter than a
    /// stretch, at most one more block starts within it.
    #[inline(always)]
    fn unrank_row<const N: usize>(
        &self,
        split: &Split,
        x: u64,
        total: usize,
        out: &mut PieceList,
        mut tail: impl FnMut(usize, u8, Square),
    ) -> Option<(usize, &PairRow)> {
        let q = (x / self.width) as usize;
        let &r = self.slot.get(q)?;
        // the next block may start within the stretch (the sentinel ends the rows: x is
        // below u64::MAX)
        let r = r as usize + self.starts.get(r as usize + 1).is_some_and(|&b| x >= b) as usize;
        let (Some(row), Some(&start)) = (self.rows.get(r), self.starts.get(r)) else {
            return None;
        };
        let digits = espace::digits::<N>(&split.tail, x - start);
        let d0 = digits.first().copied().unwrap_or(0);
        if d0 >= row.n_left as u64 {
            return None; // folded, with the first piece on the centre file
        }
        let first_e = row.folded.then_some(row.left_e[d0 as usize & 63]);
        // every slot below `total` is in the template (own halves) or written below (tail)
        *out = PieceList::from(row.template);
        espace::unrank_single_digits::<N>(
            &split.single_base,
            &digits,
            first_e,
            |e| row.cells[e as usize & 127],
            |j, e, s| {
                out[split.out_slot[j] as usize & 31].1 = s;
                tail(j, e, s);
            },
        );
        out.truncate(total);
        Some((r, row))
    }
}
