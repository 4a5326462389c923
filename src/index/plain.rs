//! The fast path of the index for the common splits whose tail pieces are each alone of
//! their kind (KRNKR, KCPKA with the pawn across, ...): the tail squares are read from
//! fixed slots, ranked among the empty points with loops of known length, and when both
//! own halves are symmetric the fold goes straight through the empty left points. The
//! numbering is the general path's ([`super::placement`], [`super::tail`]); the placements
//! this path does not cover (both own halves symmetric and the first tail piece on the
//! centre file or a passed pawn) are left to it.
//!
//! The fold, when both own halves are symmetric and the first tail piece stands off the
//! centre file: that piece is put on the left, its digit is its rank among the empty left
//! points of its region, and the other pieces are ranked in full as usual.

use super::espace;
use super::split::{Decoded, Split};
use super::tail::{below, Region, LEFT_FILES, MIRROR_IF, RED_HALF};
use crate::board::{Piece, Square};

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
    pub(super) fn rank_plain(
        &self,
        sq: &[u8; 32],
        r: (usize, bool),
        b: (usize, bool),
    ) -> Option<u64> {
        match self.tail.groups.len() {
            0 => self.rank_plain_n::<0>(sq, r, b),
            1 => self.rank_plain_n::<1>(sq, r, b),
            2 => self.rank_plain_n::<2>(sq, r, b),
            3 => self.rank_plain_n::<3>(sq, r, b),
            4 => self.rank_plain_n::<4>(sq, r, b),
            5 => self.rank_plain_n::<5>(sq, r, b),
            6 => self.rank_plain_n::<6>(sq, r, b),
            7 => self.rank_plain_n::<7>(sq, r, b),
            _ => self.rank_plain_n::<8>(sq, r, b),
        }
    }

    #[inline(always)]
    fn rank_plain_n<const N: usize>(
        &self,
        sq: &[u8; 32],
        (ir, mr): (usize, bool),
        (ib, mb): (usize, bool),
    ) -> Option<u64> {
        let [lr, lb] = &self.lists;
        let mut ts = [0u8; N];
        for (j, t) in ts.iter_mut().enumerate() {
            *t = sq[self.tail_slot[j] as usize & 31];
        }
        let (r_asym, b_asym) = (ir < lr.asym, ib < lb.asym);
        if r_asym || b_asym {
            // the first asymmetric own half decides the orientation (a coin toss for
            // random placements, so no branch)
            let mirrored = std::hint::select_unpredictable(r_asym, mr, mb);
            let b_mirrored = mb != mirrored;
            let occ = lr.entries[ir].occ | lb.entries[ib].occ_black[b_mirrored as usize];
            mirror_if(&mut ts, mirrored);
            let x = espace::rank_single::<N>(&self.tail, &self.single_base, occ, &ts, None);
            return Some(self.base_fixed(ir, ib, b_asym, b_mirrored) + x);
        }
        let occ = lr.entries[ir].occ | lb.entries[ib].occ_black[0];
        if N == 0 {
            return Some(self.sym_base(ir, ib));
        }
        let s0 = ts[0];
        if s0 % 9 == 4 || self.tail.groups[0].region != Region::Board {
            return None;
        }
        let mirrored = s0 % 9 > 4;
        mirror_if(&mut ts, mirrored);
        let pair = (LEFT_FILES & !occ & below(ts[0])).count_ones() as u64;
        let x = espace::rank_single::<N>(&self.tail, &self.single_base, occ, &ts, Some(pair));
        Some(self.sym_base(ir, ib) + x)
    }

    /// Hand the pieces of a decoded index to `put` (own halves, then the tail). False,
    /// with nothing handed out, when the general path must unrank it.
    #[inline(always)]
    pub(super) fn unrank_plain(
        &self,
        d: &Decoded,
        put: &mut impl FnMut(usize, Piece, Square),
    ) -> bool {
        match self.tail.groups.len() {
            0 => self.unrank_plain_n::<0>(d, put),
            1 => self.unrank_plain_n::<1>(d, put),
            2 => self.unrank_plain_n::<2>(d, put),
            3 => self.unrank_plain_n::<3>(d, put),
            4 => self.unrank_plain_n::<4>(d, put),
            5 => self.unrank_plain_n::<5>(d, put),
            6 => self.unrank_plain_n::<6>(d, put),
            7 => self.unrank_plain_n::<7>(d, put),
            _ => self.unrank_plain_n::<8>(d, put),
        }
    }

    #[inline(always)]
    fn unrank_plain_n<const N: usize>(
        &self,
        d: &Decoded,
        put: &mut impl FnMut(usize, Piece, Square),
    ) -> bool {
        let digits = espace::digits::<N>(&self.tail, d.x);
        let mut first_e = None;
        if d.folded && N > 0 {
            if self.tail.groups[0].region != Region::Board {
                return false;
            }
            let [lr, lb] = &self.lists;
            let occ = lr.entries[d.ir].occ | lb.entries[d.ib].occ_black[0];
            let left = LEFT_FILES & !occ;
            let k = digits[0];
            if k >= left.count_ones() as u64 {
                return false; // the first piece stands on the centre file
            }
            // the k-th empty left point: Red's half first, then Black's
            let n_red = (left & RED_HALF).count_ones() as u64;
            let red = self.empties[0].left_red(d.ir, k as usize);
            let black = self.empties[1].left_black(d.ib, k.saturating_sub(n_red) as usize);
            let s = std::hint::select_unpredictable(k < n_red, red, black);
            first_e = Some(s - (occ & below(s)).count_ones() as u8);
        }
        self.put_own(d, put);
        espace::unrank_single_digits::<N>(
            &self.single_base,
            &digits,
            first_e,
            &self.space(d),
            |j, s| put(self.out_slot[j] as usize, self.group_piece[j], s),
        );
        true
    }
}
