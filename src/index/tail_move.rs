//! Ranking placements that differ from a given one by where one tail piece stands (a rook,
//! horse or cannon, or a passed pawn staying passed): the generator's moves and un-moves of
//! such a piece are ranked from a prepared context ([`TailCtx`], [`TailPiece`]) instead of
//! the whole placement ([`super::placement`]). Where the pair tables apply
//! ([`super::pairs`]), a position is unranked and its context prepared in one pass
//! ([`PlacementIndex::unrank_tail`]), and an un-moved piece's targets read their E-ranks
//! from the placement's row.

use super::bucket::bucket;
use super::espace;
use super::kinds::list_bytes;
use super::masks::{mirror_mask, BELOW, MIRROR_IF};
use super::placement::{PieceList, PlacementIndex};
use super::split::{TailPlace, TailRef};
use crate::board::{Color, Piece, Role, Square};

/// Prepared ranking of placements that differ from one placement by a single moved piece
/// of the tail (rook, horse, cannon or passed pawn staying passed), see
/// [`PlacementIndex::prepare_tail`].
#[derive(Clone, Debug)]
pub struct TailCtx {
    split: usize,
    base: u64,
    occ: u128,
    tail: TailPlace,
    mirrored: bool,
    /// For a tail of single pieces: their E-ranks and the points they take (so a move
    /// ranks with the moved piece's E-rank alone).
    e: [u8; 8],
    tail_occ: u128,
    /// The kings' squares as they stand (Red's, Black's), for [`PlacementIndex::rank_king_move`].
    kings: [u8; 2],
    /// The placement's row of the pair tables, when prepared through them (its E-ranks
    /// read from the row's table, see [`PlacementIndex::tail_piece`]).
    row: Option<u32>,
}

/// Prepared ranking of the placements that differ from one placement only by where one
/// given tail piece stands, each piece of its kind alone (see
/// [`PlacementIndex::tail_piece`]): a target is then ranked with one table read (or a
/// popcount) and a few comparisons.
///
/// With `e_i` the E-ranks of the tail pieces ([`super::espace`]) and `w_i` the weight of group
/// `i`'s digit, the rank is `base + sum_i w_i * (e_i - b_i - #{k < i : e_k < e_i})`; moving
/// group `j` to E-rank `e` changes its own digit and, for each later group `k`, the
/// term `[e < e_k]`: `rank(e) = c + w_j * e - sum_{i < j} w_j [e_i < e] - sum_{k > j} w_k [e < e_k]`
/// with `c` collecting everything else. The target is an empty point, so `e` is no
/// other piece's E-rank and `[e_i < e] = 1 - [e < e_i]`: with `c' = c - w_j * j`,
/// `rank(e) = c' + w_j * e + sum_{k != j} d_k [e < e_k]`, where `d_k = w_j` for the earlier
/// groups and `-w_k` for the later ones (in wrapping arithmetic; the result is exact).
#[derive(Clone, Debug)]
pub struct TailPiece<'a> {
    c: u64,
    w: u64,
    /// The other groups: E-rank, and `d_k`, added when the target lies below it.
    others: [(u8, u64); 7],
    n_others: usize,
    /// Own-half occupancy (canonical orientation), for E-ranks.
    own: u128,
    /// Squares a target may not take: every piece (canonical orientation).
    taken: u128,
    /// The group's region.
    region: u128,
    /// The squares a target may take (the region without the pieces), in the board's
    /// orientation: a set of targets is filtered with one mask.
    allowed: u128,
    mirrored: bool,
    /// The E-rank of each square as it stands on the board, from the pair tables' row of
    /// the placement (else computed from `own`).
    erank: Option<&'a [u8; 128]>,
}

impl PlacementIndex {
    /// Prepare [`PlacementIndex::rank_tail_move`] for placements derived from `pieces` by
    /// moving one tail piece. None when the orientation of such placements depends on the
    /// tail itself (both sides' own-half pieces symmetric): use [`PlacementIndex::rank_pieces`].
    pub fn prepare_tail(&self, pieces: &[(Piece, Square)]) -> Option<TailCtx> {
        if let Some(ctx) = self.prepare_tail_pairs(pieces) {
            return ctx;
        }
        let b = bucket(
            &self.kind_start,
            pieces.iter().map(|&(p, s)| (p.index(), s as u8)),
        );
        if !b.fits(self.signature, self.total) {
            return None;
        }
        let own = self.own_entries(&b)?;
        // one king per side (the bucket fits the material)
        let king =
            |c: Color| b.sq[self.kind_start[Piece::new(c, Role::King).index()] as usize & 31];
        let kings = [king(Color::Red), king(Color::Black)];
        self.locate(&b, own, |loc, tail| {
            let split = &self.splits[loc.split];
            let base = split.base_of(loc.ir, loc.ib, loc.b_mirrored)?;
            let n = split.tail.groups.len();
            let (e, tail_occ) = match tail {
                TailRef::Singles(sq) => (
                    espace::eranks(loc.occ, sq, n),
                    sq[..n].iter().fold(0u128, |o, &s| o | 1u128 << s),
                ),
                TailRef::Masks(_) => ([0; 8], 0),
            };
            Some(TailCtx {
                split: loc.split,
                base: split.offset + base,
                occ: loc.occ,
                tail: tail.to_owned(),
                mirrored: loc.mirrored,
                e,
                tail_occ,
                kings,
                row: None,
            })
        })
    }

    /// [`PlacementIndex::unrank_into`] and then [`PlacementIndex::prepare_tail`] of the
    /// placement it wrote, in one pass where the pair tables' king table applies (the
    /// unranking's E-ranks are the context's): None when `index` is out of range (`out`
    /// then empty), else the context (None where `prepare_tail` gives none).
    #[inline]
    pub fn unrank_tail(&self, index: u64, out: &mut PieceList) -> Option<Option<TailCtx>> {
        if index < self.size {
            if let Some(ctx) = self.unrank_tail_pairs(index, out) {
                return Some(ctx);
            }
        }
        if !self.unrank_into(index, out) {
            return None;
        }
        Some(self.prepare_tail(out))
    }

    /// [`PlacementIndex::unrank_tail`] through the pair tables and their king table (the
    /// route of [`PlacementIndex::prepare_tail_pairs`]; `index` in range). None when that
    /// route does not apply (`out` then unspecified).
    #[inline(never)]
    fn unrank_tail_pairs(&self, index: u64, out: &mut PieceList) -> Option<Option<TailCtx>> {
        if !self.flat {
            return None;
        }
        // a flat material has one split, numbered as `unrank_list` numbers it
        let split = &self.splits[0];
        let pairs = split.pairs.as_ref()?;
        if !pairs.has_king_table() {
            return None;
        }
        let total = self.total;
        let found = by_groups!(
            split.tail.groups.len(),
            unrank_parts::<N>(split, pairs, index, total, out)
        )?;
        // as it stands: the canonical placement is its row's orientation
        Some(found.map(|(p, kings)| TailCtx {
            split: 0,
            base: split.offset + p.base,
            occ: p.occ,
            tail: TailPlace::Singles(p.sq),
            mirrored: false,
            e: p.e,
            tail_occ: p.tail_occ,
            kings,
            row: Some(p.row),
        }))
    }

    /// [`PlacementIndex::prepare_tail`] through the pair tables' king table, for a
    /// kind-ordered list of a flat material whose own halves are the kings alone (KRNKR):
    /// one table read for the pair of kings and one per tail piece, no grouping by kind.
    /// None when that route does not apply (the general path then prepares it, with the
    /// same result).
    #[inline(always)]
    fn prepare_tail_pairs(&self, pieces: &[(Piece, Square)]) -> Option<Option<TailCtx>> {
        if !self.flat {
            return None;
        }
        let split = &self.splits[0];
        let pairs = split.pairs.as_ref()?;
        if pieces.len() != self.total || !self.kinds.matches(pieces) {
            return None;
        }
        let bytes = list_bytes(pieces);
        let at = |a: u8| bytes.get(a as usize).copied().unwrap_or(u8::MAX);
        let kings = split.king_at.map(at);
        let row = pairs.king_row(kings[0], kings[1])??;
        fn go<const N: usize>(
            split: &super::split::Split,
            pairs: &super::pairs::PairRows,
            row: (usize, bool),
            at: impl Fn(u8) -> u8,
        ) -> Option<Option<super::pairs::TailParts>> {
            let ts: [u8; N] = std::array::from_fn(|j| at(split.tail_at[j]));
            pairs.tail_parts::<N>(row, ts)
        }
        let parts = by_groups!(split.tail.groups.len(), go::<N>(split, pairs, row, at))?;
        Some(parts.map(|p| TailCtx {
            split: 0,
            base: split.offset + p.base,
            occ: p.occ,
            tail: TailPlace::Singles(p.sq),
            mirrored: row.1,
            e: p.e,
            tail_occ: p.tail_occ,
            kings,
            row: Some(p.row),
        }))
    }

    /// Index of the prepared placement with the tail piece on `from` moved to `to`. None if
    /// no tail piece is on `from`, if `to` is occupied, or if `to` is outside the piece's
    /// region (a passed pawn must stay in the enemy half).
    #[inline]
    pub fn rank_tail_move(&self, ctx: &TailCtx, from: Square, to: Square) -> Option<u64> {
        let (f, t) = (
            MIRROR_IF[ctx.mirrored as usize][from as usize],
            MIRROR_IF[ctx.mirrored as usize][to as usize],
        );
        let split = &self.splits[ctx.split];
        let n = split.tail.groups.len();
        let tb = 1u128 << t;
        let free = |j: usize, tail_occ: u128| {
            (ctx.occ | tail_occ) & tb == 0 && split.group_region[j] & tb != 0
        };
        let tail = match &ctx.tail {
            TailPlace::Singles(sq) => {
                // the other pieces' E-ranks as prepared, the moved one's anew
                let j = sq[..n].iter().position(|&s| s == f)?;
                if !free(j, ctx.tail_occ) {
                    return None;
                }
                let mut e = ctx.e;
                e[j] = espace::erank_of(ctx.occ, t);
                let x = espace::rank_singles_eranks(&split.tail, &split.single_base, &e);
                return Some(ctx.base + x);
            }
            TailPlace::Masks(m) => {
                let mut masks = *m;
                let fb = 1u128 << f;
                let j = masks[..n].iter().position(|m| m & fb != 0)?;
                if !free(j, masks[..n].iter().fold(0, |o, m| o | m)) {
                    return None;
                }
                masks[j] ^= fb | tb;
                TailPlace::Masks(masks)
            }
        };
        Some(ctx.base + split.rank_tail(ctx.occ, tail.borrow()))
    }

    /// Index of the prepared placement with the king on `from` moved to the empty point
    /// `to` of its palace, through the pair tables' king table (one table read for the new
    /// pair of kings, one per tail piece for its E-rank): materials whose own halves are
    /// the kings alone (KRNKR). None when that route does not apply (no king table, no
    /// king on `from`, or a placement the general path ranks): use
    /// [`PlacementIndex::rank_pieces`] then, which gives the same numbering.
    #[inline]
    pub fn rank_king_move(&self, ctx: &TailCtx, from: Square, to: Square) -> Option<u64> {
        if !self.flat {
            return None;
        }
        // a flat material has one split, numbered as `rank_list` numbers it
        let split = &self.splits[ctx.split];
        let pairs = split.pairs.as_ref()?;
        let TailPlace::Singles(sq) = &ctx.tail else {
            return None;
        };
        let (f, t) = (from as u8, to as u8);
        let [rk, bk] = ctx.kings;
        let kings = if f == rk {
            (t, bk)
        } else if f == bk {
            (rk, t)
        } else {
            return None;
        };
        let row = pairs.king_row(kings.0, kings.1)??;
        let mirror = &MIRROR_IF[ctx.mirrored as usize];
        fn go<const N: usize>(
            split: &super::split::Split,
            pairs: &super::pairs::PairRows,
            row: (usize, bool),
            sq: &[u8; 8],
            mirror: &[u8; 128],
        ) -> Option<u64> {
            // the tail as it stands on the board (the context holds it canonical)
            let ts: [u8; N] = std::array::from_fn(|j| mirror[sq[j] as usize & 127]);
            pairs.rank::<N>(split, row, ts)
        }
        by_groups!(
            split.tail.groups.len(),
            go::<N>(split, pairs, row, sq, mirror)
        )
    }

    /// Prepare the ranking of the placements of `ctx` in which the tail piece on `from` has
    /// moved ([`PlacementIndex::rank_tail_piece`]; the same indices as
    /// [`PlacementIndex::rank_tail_move`]). None when no tail piece is on `from` or when a
    /// tail group holds more than one piece: then use [`PlacementIndex::rank_tail_move`].
    // (inlined: the caller's copy of the prepared piece is then built in place)
    #[inline]
    pub fn tail_piece(&self, ctx: &TailCtx, from: Square) -> Option<TailPiece<'_>> {
        let TailPlace::Singles(sq) = &ctx.tail else {
            return None;
        };
        let split = &self.splits[ctx.split];
        let n = split.tail.groups.len();
        let f = MIRROR_IF[ctx.mirrored as usize][from as usize];
        let j = sq[..n].iter().position(|&s| s == f)?;
        let own = ctx.occ;
        // the E-ranks as prepared
        let e = ctx.e;
        let w = |k: usize| split.tail.weight(k);
        let base = &split.single_base;
        // c': the rank with group j's digit and its terms in the later digits taken out,
        // less w_j for each earlier group (see [`TailPiece`])
        let mut c = ctx.base;
        for k in 0..n {
            if k == j {
                continue;
            }
            let below = e[..k]
                .iter()
                .enumerate()
                .filter(|&(i, &ei)| i != j && ei < e[k])
                .count() as u64;
            let digit = (e[k] - base[k]) as u64 - below;
            c = c.wrapping_add(w(k).wrapping_mul(digit));
        }
        c = c.wrapping_sub(w(j).wrapping_mul(base[j] as u64 + j as u64));
        let mut others = [(0u8, 0u64); 7];
        let mut m = 0;
        for (k, &ek) in e.iter().enumerate().take(n) {
            if k != j {
                others[m] = (ek, if k < j { w(j) } else { w(k).wrapping_neg() });
                m += 1;
            }
        }
        let tail_occ = sq[..n].iter().fold(0u128, |o, &s| o | 1u128 << s);
        let (taken, region) = (own | tail_occ, split.group_region[j]);
        // a region is a union of halves, its own mirror image: only the pieces turn
        let board_taken = if ctx.mirrored {
            mirror_mask(taken)
        } else {
            taken
        };
        let erank = match (ctx.row, &split.pairs) {
            (Some(row), Some(pairs)) => pairs.erank(row, ctx.mirrored),
            _ => None,
        };
        Some(TailPiece {
            c,
            w: w(j),
            others,
            n_others: m,
            own,
            taken,
            region,
            allowed: region & !board_taken,
            mirrored: ctx.mirrored,
            erank,
        })
    }

    /// Index of the prepared placement with its piece moved to `to` (None when `to` is
    /// taken or outside the piece's region).
    #[inline]
    pub fn rank_tail_piece(&self, tp: &TailPiece<'_>, to: Square) -> Option<u64> {
        let t = MIRROR_IF[tp.mirrored as usize][to as usize];
        let tb = 1u128 << t;
        if tp.taken & tb != 0 || tp.region & tb == 0 {
            return None;
        }
        Some(tp.rank_at(t))
    }

    /// [`PlacementIndex::rank_tail_piece`] for each square of the set `to` (in the board's
    /// orientation) in turn, in square order, the squares the piece may not take skipped:
    /// `f` gets each index.
    #[inline]
    pub fn rank_tail_piece_each(&self, tp: &TailPiece<'_>, to: u128, mut f: impl FnMut(u64)) {
        let m = to & tp.allowed;
        if let Some(erank) = tp.erank {
            // the E-ranks read as the squares stand
            for (mut word, at) in [(m as u64, 0), ((m >> 64) as u64, 64)] {
                while word != 0 {
                    let s = at + word.trailing_zeros() as usize;
                    word &= word - 1;
                    f(tp.rank_e(erank[s & 127]));
                }
            }
            return;
        }
        let mirror = &MIRROR_IF[tp.mirrored as usize];
        // the two words apart: a square's bit cleared without 128-bit arithmetic
        for (mut word, at) in [(m as u64, 0), ((m >> 64) as u64, 64)] {
            while word != 0 {
                let s = at + word.trailing_zeros() as usize;
                word &= word - 1;
                f(tp.rank_at(mirror[s & 127]));
            }
        }
    }
}

/// [`super::pairs::PairRows::unrank_parts`] (for [`by_groups`]).
#[inline(always)]
fn unrank_parts<const N: usize>(
    split: &super::split::Split,
    pairs: &super::pairs::PairRows,
    x: u64,
    total: usize,
    out: &mut PieceList,
) -> Option<Option<(super::pairs::TailParts, [u8; 2])>> {
    pairs.unrank_parts::<N>(split, x, total, out)
}

impl TailPiece<'_> {
    /// Index of the placement with the piece on the free point `t` of its region
    /// (canonical orientation).
    #[inline(always)]
    fn rank_at(&self, t: u8) -> u64 {
        self.rank_e(t - (self.own & BELOW[t as usize]).count_ones() as u8)
    }

    /// Index of the placement with the piece on the free point of E-rank `e` of its region.
    #[inline(always)]
    fn rank_e(&self, e: u8) -> u64 {
        let mut x = self.c.wrapping_add(self.w.wrapping_mul(e as u64));
        for &(ek, dk) in &self.others[..self.n_others.min(7)] {
            x = x.wrapping_add(if e < ek { dk } else { 0 });
        }
        x
    }
}
