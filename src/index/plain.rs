//! The fast path of the index for the common splits whose tail pieces are each alone of
//! their kind (KRNKR, KCPKA with the pawn across, ...): the tail squares are read from
//! fixed slots, ranked among the empty points with loops of known length, and when both
//! own halves are symmetric the fold goes straight through the empty left points. The
//! numbering is the general path's ([`super::placement`], [`super::tail`]); the placements
//! this path does not cover (both own halves symmetric and the first tail piece on the
//! centre file or a passed pawn) are left to it.
//!
//! Pawnless materials read and write kind-ordered piece lists here directly
//! ([`Split::rank_list`], [`Split::unrank_list`]): every piece has a fixed slot, so the list
//! is checked and read in place and written slot by slot, with no grouping by kind.
//!
//! The fold, when both own halves are symmetric and the first tail piece stands off the
//! centre file: that piece is put on the left, its digit is its rank among the empty left
//! points of its region, and the other pieces are ranked in full as usual.

use super::bucket::Own;
use super::espace;
use super::kinds::{list_bytes, square_at, KindPattern};
use super::masks::{below, BIT, LEFT_FILES, MIRROR_IF, RED_HALF};
use super::placement::PieceList;
use super::split::{Decoded, Split};
use super::tail::Region;
use crate::board::{Color, Piece, Role, Square};

/// Mirror the squares left-right if asked.
#[inline(always)]
fn mirror_if(sq: &mut [u8], mirrored: bool) {
    for s in sq {
        *s = MIRROR_IF[mirrored as usize][*s as usize & 127];
    }
}

impl Split {
    /// Index within the split of a placement bucketed by kind, with its own-half entries
    /// and their mirror flags. None when the general path must rank it.
    #[inline(always)]
    pub(super) fn rank_plain(&self, sq: &[u8; 32], r: Own, b: Own) -> Option<u64> {
        fn go<const N: usize>(split: &Split, sq: &[u8; 32], r: Own, b: Own) -> Option<u64> {
            let ts = std::array::from_fn(|j| sq[split.tail_slot[j] as usize & 31]);
            if let Some(pairs) = &split.pairs {
                return pairs.rank::<N>(split, pairs.row_of(split, r, b)?, ts);
            }
            split.rank_squares::<N, false>(ts, r, b)
        }
        by_groups!(self.tail.groups.len(), go::<N>(self, sq, r, b))
    }

    /// Index of a pawnless placement given as a piece list in kind order (`kinds` the
    /// pieces expected, `total` of them). None for any other list, for
    /// a piece off its points or on an occupied one, and for the placements the general
    /// path ranks: the caller then takes that path, which also names the error.
    #[inline(always)]
    pub(super) fn rank_list(
        &self,
        kinds: &KindPattern,
        total: usize,
        pieces: &[(Piece, Square)],
    ) -> Option<u64> {
        fn go<const N: usize>(
            split: &Split,
            kinds: &KindPattern,
            total: usize,
            pieces: &[(Piece, Square)],
        ) -> Option<u64> {
            let bytes = list_bytes(pieces);
            if pieces.len() != total || !kinds.matches(pieces) {
                return None;
            }
            // every slot of the material is below `total` (no square 255)
            let at = |at: u8| bytes.get(at as usize).copied().unwrap_or(u8::MAX);
            let ts = std::array::from_fn(|j| at(split.tail_at[j]));
            if let Some(pairs) = &split.pairs {
                let kings = split.king_at.map(at);
                let row = match pairs.king_row(kings[0], kings[1]) {
                    Some(found) => found?,
                    None => {
                        let (r, b) = split.own_entries(|slot| at(square_at(slot)))?;
                        pairs.row_of(split, r, b)?
                    }
                };
                return pairs.rank::<N>(split, row, ts);
            }
            // many own-half pieces: their squares copied once
            let mut squares = [u8::MAX; 32];
            for (q, &(_, s)) in squares.iter_mut().zip(pieces) {
                *q = s as u8;
            }
            let (r, b) = split.own_entries(|slot| squares[slot as usize & 31])?;
            split.rank_squares::<N, true>(ts, r, b)
        }
        by_groups!(self.tail.groups.len(), go::<N>(self, kinds, total, pieces))
    }

    /// Red's and Black's own-half entries and mirror flags of a kind-ordered list whose
    /// slot `slot` holds square `sq(slot)`; None when a piece stands off its points.
    #[inline(always)]
    fn own_entries(&self, sq: impl Fn(u8) -> u8) -> Option<(Own, Own)> {
        let own = |c: Color| {
            let slots = &self.own_slot[c.index()];
            let none = std::iter::empty();
            self.lists[c.index()].entry_of(c, |k| sq(slots[k % slots.len()]), none)
        };
        Some((own(Color::Red)?, own(Color::Black)?))
    }

    /// Index within the split of tail squares `ts` (as given) with the own-half entries
    /// and their mirror flags. With `CHECK`, None unless the tail pieces stand on distinct
    /// empty points (the own-half entries are valid and lie in opposite halves, so that
    /// makes the whole placement one piece per point).
    #[inline(always)]
    fn rank_squares<const N: usize, const CHECK: bool>(
        &self,
        mut ts: [u8; N],
        (ir, mr): Own,
        (ib, mb): Own,
    ) -> Option<u64> {
        let [lr, lb] = &self.lists;
        let (r_asym, b_asym) = (ir < lr.asym, ib < lb.asym);
        // one branch on "both symmetric" (rare), not two on the coin tosses: an entry is
        // symmetric when its difference to the asymmetric count is not negative (the
        // counts are far below 2^63)
        let both_sym = (ir.wrapping_sub(lr.asym) | ib.wrapping_sub(lb.asym)) as isize >= 0;
        if !both_sym {
            // the first asymmetric own half decides the orientation (a coin toss for
            // random placements, so no branch)
            let mirrored = std::hint::select_unpredictable(r_asym, mr, mb);
            let b_mirrored = mb != mirrored;
            let occ = lr.entries[ir].occ | lb.entries[ib].occ_black[b_mirrored as usize];
            mirror_if(&mut ts, mirrored);
            if CHECK && !on_empty_points(&ts, occ) {
                return None;
            }
            let x = espace::rank_single::<N>(&self.tail, &self.single_base, occ, &ts, None);
            return Some(self.offset + self.base_fixed(ir, ib, b_asym, b_mirrored) + x);
        }
        let occ = lr.entries[ir].occ | lb.entries[ib].occ_black[0];
        if CHECK && !on_empty_points(&ts, occ) {
            return None;
        }
        if N == 0 {
            return Some(self.offset + self.sym_base(ir, ib));
        }
        let s0 = ts[0];
        if s0 % 9 == 4 || self.tail.groups[0].region != Region::Board {
            return None;
        }
        let mirrored = s0 % 9 > 4;
        mirror_if(&mut ts, mirrored);
        let pair = (LEFT_FILES & !occ & below(ts[0])).count_ones() as u64;
        let x = espace::rank_single::<N>(&self.tail, &self.single_base, occ, &ts, Some(pair));
        Some(self.offset + self.sym_base(ir, ib) + x)
    }

    /// Hand the pieces of a decoded index to `put` (own halves, then the tail). False,
    /// with nothing handed out, when the general path must unrank it.
    #[inline(always)]
    pub(super) fn unrank_plain(
        &self,
        d: &Decoded,
        put: &mut impl FnMut(usize, Piece, Square),
    ) -> bool {
        fn go<const N: usize>(
            split: &Split,
            d: &Decoded,
            put: &mut impl FnMut(usize, Piece, Square),
        ) -> bool {
            let Some(ts) = split.tail_squares::<N>(d) else {
                return false;
            };
            split.put_own(d, put);
            for (j, s) in ts.into_iter().enumerate() {
                put(split.out_slot[j] as usize, split.group_piece[j], s);
            }
            true
        }
        by_groups!(self.tail.groups.len(), go::<N>(self, d, put))
    }

    /// Write the pawnless placement with index `x` within the split into `out` as a
    /// kind-ordered list of `total` pieces. False, with `out` unspecified, when the
    /// general path must unrank it.
    #[inline(always)]
    pub(super) fn unrank_list(&self, x: u64, total: usize, out: &mut PieceList) -> bool {
        fn go<const N: usize>(split: &Split, x: u64, total: usize, out: &mut PieceList) -> bool {
            if let Some(pairs) = &split.pairs {
                return pairs.unrank::<N>(split, x, total, out);
            }
            let d = split.decode(x);
            let Some(ts) = split.tail_squares::<N>(&d) else {
                return false;
            };
            // every slot below `total` is written once below (own halves, then the tail)
            *out = PieceList::from([(Piece::new(Color::Red, Role::King), Square::ALL[0]); 32]);
            split.put_own(&d, &mut |slot, p, s| out[slot & 31] = (p, s));
            for (j, s) in ts.into_iter().enumerate() {
                out[split.out_slot[j] as usize & 31] = (split.group_piece[j], s);
            }
            out.truncate(total);
            true
        }
        by_groups!(self.tail.groups.len(), go::<N>(self, x, total, out))
    }

    /// The tail squares of a decoded index, group by group. None when the general path
    /// must unrank it (both own halves symmetric and the first tail piece on the centre
    /// file or a passed pawn).
    #[inline(always)]
    fn tail_squares<const N: usize>(&self, d: &Decoded) -> Option<[Square; N]> {
        let digits = espace::digits::<N>(&self.tail, d.x);
        let mut first_e = None;
        if d.folded && N > 0 {
            if self.tail.groups[0].region != Region::Board {
                return None;
            }
            let [lr, lb] = &self.lists;
            let occ = lr.entries[d.ir].occ | lb.entries[d.ib].occ_black[0];
            let left = LEFT_FILES & !occ;
            let k = digits[0];
            if k >= left.count_ones() as u64 {
                return None; // the first piece stands on the centre file
            }
            // the k-th empty left point: Red's half first, then Black's
            let n_red = (left & RED_HALF).count_ones() as u64;
            let red = self.empties[0].left_red(d.ir, k as usize);
            let black = self.empties[1].left_black(d.ib, k.saturating_sub(n_red) as usize);
            let s = std::hint::select_unpredictable(k < n_red, red, black);
            first_e = Some(s - (occ & below(s)).count_ones() as u8);
        }
        let mut ts = [Square::ALL[0]; N];
        let space = self.space(d);
        espace::unrank_single_digits::<N>(
            &self.single_base,
            &digits,
            first_e,
            |e| space.square(e),
            |j, _, s| ts[j] = s,
        );
        Some(ts)
    }
}

/// The squares are distinct points of the board outside `occ`.
#[inline(always)]
fn on_empty_points(ts: &[u8], occ: u128) -> bool {
    let tail = ts.iter().fold(0u128, |m, &s| m | BIT[s as usize & 127]);
    tail & occ == 0 && tail.count_ones() as usize == ts.len()
}
