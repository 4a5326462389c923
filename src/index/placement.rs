//! The dense, mirror-folded placement index of one material.
//!
//! Order of placement: each side's own-half pieces (king, advisors, elephants, unpassed
//! pawns) as one entry of a precomputed [`super::half::HalfList`], Red's then Black's; then the tail
//! ([`super::tail::Tail`]): Black's passed pawns among the empty points of Red's half, Red's passed pawns
//! among those of Black's half, then rooks, horses and cannons (Red's then Black's of each
//! kind) among all empty points. Materials with pawns are split by how many pawns of each
//! side have crossed the river; each split is one contiguous block.
//!
//! Mirror folding: a placement and its left-right mirror image get one index. The first
//! part that is not symmetric decides which of the two is canonical: Red's own-half entry,
//! else Black's, else the first asymmetric tail group. The index is exact: its size is the
//! number of mirror classes, with no redundant index.
//!
//! Speed: a placement is read as its squares grouped by kind ([`super::bucket`]); a piece
//! list already in kind order (as unranking writes it, and as a position's bitboards give
//! it) is that form as it stands, any other order is sorted in one pass. Own-half
//! entries are found from per-point numbers through a lookup table (a side with a king
//! alone: one table read); when the own halves
//! fix the orientation (all but the fully symmetric cases) the tail is ranked among the
//! empty points by small integers ([`super::espace`]), and the coin-toss choices (which
//! entry kind, which half, mirrored or not) are made without branches. Splits whose tail
//! pieces are each alone of their kind take a shorter path ([`super::plain`]) with the
//! same numbering; in a pawnless material every piece of such a split has a fixed slot of
//! the kind-ordered list, which is then read and written in place, in functions of their
//! own (small frames apart from the general path's). When such a material's own halves
//! have few placements, every pair of them has its own tables ([`super::pairs`]): a tail
//! piece is then one table read each way.
//!
//! The forms a placement comes in (piece list, setup, position) are in [`super::forms`].

use super::bucket::{piece_code, Bucketed, Own, KIND_WEIGHT};
use super::half::HalfList;
use super::kinds::KindPattern;
use super::masks::{bits, mirror_mask, BIT, BLACK_HALF, MIRROR_IF, RED_HALF};
use super::material::Material;
use super::split::{Split, TailRef};
use super::tail::TailMasks;
use crate::board::{Color, Piece, Role, Square};
use arrayvec::ArrayVec;

/// A placement as a list of pieces with their squares (at most 32).
pub type PieceList = ArrayVec<(Piece, Square), 32>;

/// Errors of index construction and ranking.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    /// The index would not fit in 64 bits.
    #[error("material {0} is too large to index in 64 bits")]
    TooLarge(Material),
    /// The placement has another material.
    #[error("placement has material {found}, the index is for {expected}")]
    WrongMaterial {
        /// Index material.
        expected: Material,
        /// Placement material.
        found: Material,
    },
    /// A piece on a point it can never reach (or two unpassed pawns on one file).
    #[error("{0} stands where the index cannot place it")]
    BadPoint(String),
    /// Index out of range.
    #[error("index {index} out of range (size {size})")]
    OutOfRange {
        /// The index.
        index: u64,
        /// The size.
        size: u64,
    },
}

#[inline(always)]
fn square(s: u8) -> Square {
    Square::ALL[s as usize]
}

/// Dense mirror-folded index of the placements of one material.
#[derive(Debug)]
pub struct PlacementIndex {
    material: Material,
    /// Piece counts by [`Piece::index`].
    pub(super) counts: [u8; 14],
    /// The counts as one number: 4 bits per kind (see [`KIND_WEIGHT`]).
    pub(super) signature: u64,
    /// Number of pieces.
    pub(super) total: usize,
    /// First slot of each kind in a [`Bucketed`] placement (prefix sums of `counts`).
    pub(super) kind_start: [u8; 15],
    /// The piece ([`piece_code`]) at each slot of a placement in kind order.
    pub(super) order: [u16; 32],
    /// The same as a byte pattern (see [`super::kinds`]).
    pub(super) kinds: KindPattern,
    /// No pawns: one split.
    pawnless: bool,
    /// No pawns and every tail piece alone of its kind: piece lists are read and written
    /// in place ([`Split::rank_list`], [`Split::unrank_list`]).
    pub(super) flat: bool,
    pub(super) splits: Vec<Split>,
    split_of: [[Option<usize>; 6]; 6],
    pub(super) size: u64,
}

/// Where one placement stands in the index: its split, own-half entries and orientation.
pub(super) struct Located {
    pub(super) split: usize,
    pub(super) ir: usize,
    pub(super) ib: usize,
    /// Black's placement (in the canonical orientation) is the mirror of entry `ib`.
    pub(super) b_mirrored: bool,
    /// The canonical orientation is the mirror image of the given placement.
    pub(super) mirrored: bool,
    /// Own-half occupancy in the canonical orientation.
    pub(super) occ: u128,
}

impl PlacementIndex {
    /// Build the index of `material`.
    pub fn new(material: Material) -> Result<PlacementIndex, IndexError> {
        let cnt = |c: Color, r: Role| material.count(c, r);
        let pawns = [cnt(Color::Red, Role::Pawn), cnt(Color::Black, Role::Pawn)];
        let mut counts = [0u8; 14];
        for c in Color::ALL {
            for r in Role::ALL {
                counts[Piece::new(c, r).index()] = cnt(c, r);
            }
        }
        // first slot of each kind in a bucketed placement: prefix sums of the counts
        let mut kind_start = [0u8; 15];
        for k in 0..14 {
            kind_start[k + 1] = kind_start[k] + counts[k];
        }
        let mut splits = Vec::new();
        let mut split_of = [[None; 6]; 6];
        let mut offset = 0u64;
        for ur in 0..=pawns[0] {
            for ub in 0..=pawns[1] {
                let Some(split) = Split::new(material, [ur, ub], offset, &kind_start)? else {
                    continue;
                };
                let big = |x: Option<u64>| x.ok_or(IndexError::TooLarge(material));
                offset = big(offset.checked_add(split.size))?;
                split_of[ur as usize][ub as usize] = Some(splits.len());
                splits.push(split);
            }
        }
        Ok(PlacementIndex {
            material,
            counts,
            signature: (0..14).map(|k| counts[k] as u64 * KIND_WEIGHT[k]).sum(),
            kind_start,
            order: {
                let mut t = [0u16; 32];
                for (slot, p) in t.iter_mut().zip(kind_order(&counts)) {
                    *slot = piece_code(p);
                }
                t
            },
            kinds: KindPattern::new(kind_order(&counts)),
            total: counts.iter().map(|&c| c as usize).sum(),
            pawnless: pawns == [0, 0],
            flat: pawns == [0, 0] && splits.len() == 1 && splits[0].plain,
            splits,
            split_of,
            size: offset,
        })
    }

    /// The material.
    pub fn material(&self) -> Material {
        self.material
    }

    /// Number of indexes (= number of mirror classes of placements).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Number of placements before folding.
    pub fn placements(&self) -> u128 {
        self.splits
            .iter()
            .map(|s| {
                s.lists[0].placements() as u128 * s.lists[1].placements() as u128 * s.t_full as u128
            })
            .sum()
    }

    /// Split and own-half entries (each with whether the placement is its mirror) of a
    /// placement of this material (checked by [`Bucketed::fits`]). None when a piece
    /// stands where the index cannot place it.
    #[inline(always)]
    pub(super) fn own_entries(&self, b: &Bucketed) -> Option<(usize, Own, Own)> {
        let si = if self.pawnless {
            0
        } else {
            let count = |c| self.unpassed(b, c).count();
            (*self
                .split_of
                .get(count(Color::Red))?
                .get(count(Color::Black))?)?
        };
        let [lr, lb] = &self.splits[si].lists;
        Some((
            si,
            self.own_entry(b, lr, Color::Red)?,
            self.own_entry(b, lb, Color::Black)?,
        ))
    }

    /// The squares of one kind of a bucketed placement.
    #[inline(always)]
    fn kind<'a>(&self, b: &'a Bucketed, c: Color, r: Role) -> &'a [u8] {
        let k = Piece::new(c, r).index();
        &b.sq[self.kind_start[k] as usize..self.kind_start[k + 1] as usize]
    }

    /// The squares of a side's unpassed pawns (those on its own half).
    #[inline(always)]
    fn unpassed<'a>(&self, b: &'a Bucketed, c: Color) -> impl Iterator<Item = u8> + 'a {
        let red = c == Color::Red;
        let pawns = if self.pawnless {
            &[][..]
        } else {
            self.kind(b, c, Role::Pawn)
        };
        pawns.iter().copied().filter(move |&s| (s < 45) == red)
    }

    /// One side's own-half entry in `list`.
    #[inline(always)]
    fn own_entry(&self, b: &Bucketed, list: &HalfList, c: Color) -> Option<Own> {
        // king, advisors and elephants are adjacent kinds: one run of slots from the king's
        let at = self.kind_start[Piece::new(c, Role::King).index()] as usize;
        list.entry_of(c, |k| b.sq[(at + k) & 31], self.unpassed(b, c))
    }

    /// Canonical orientation and tail of a placement with its split and own-half entries
    /// found by [`PlacementIndex::own_entries`].
    #[inline(always)]
    pub(super) fn locate<R>(
        &self,
        b: &Bucketed,
        (si, (ir, mr), (ib, mb)): (usize, Own, Own),
        then: impl FnOnce(&Located, TailRef) -> R,
    ) -> R {
        let ks = &self.kind_start;
        let kind = |k: usize| &b.sq[ks[k] as usize..ks[k + 1] as usize];
        let split = &self.splits[si];
        let [lr, lb] = &split.lists;
        let n = split.tail.groups.len();
        // the squares of group `j` as a mask (passed pawns: those in the enemy half)
        let group = |j: usize| {
            kind(split.group_kind[j] as usize)
                .iter()
                .fold(0u128, |m, &s| m | BIT[s as usize & 127])
                & split.group_region[j]
        };
        // which orientation is canonical: the first asymmetric part decides
        let fixed = if ir < lr.asym || ib < lb.asym {
            Some(std::hint::select_unpredictable(ir < lr.asym, mr, mb))
        } else {
            None
        };
        // the tail lives here and is lent to `then` (moving it would copy 128 bytes)
        let mut sq = [0u8; 8];
        let masks_store: TailMasks;
        let (mirrored, tail) = if split.tail.all_single() {
            for (j, s) in sq[..n].iter_mut().enumerate() {
                // a rook, horse or cannon stands alone in its kind's slot
                *s = if split.group_region[j] == RED_HALF | BLACK_HALF {
                    b.sq[ks[split.group_kind[j] as usize] as usize]
                } else {
                    group(j).trailing_zeros() as u8
                };
            }
            // symmetric own halves: the first tail piece off the centre file decides
            let mirrored = fixed.unwrap_or_else(|| {
                sq[..n]
                    .iter()
                    .find(|&&s| s % 9 != 4)
                    .is_some_and(|&s| s % 9 > 4)
            });
            for s in &mut sq[..n] {
                *s = MIRROR_IF[mirrored as usize][*s as usize];
            }
            (mirrored, TailRef::Singles(&sq))
        } else {
            let mut masks: TailMasks = [0; 8];
            for (j, mask) in masks[..n].iter_mut().enumerate() {
                *mask = group(j);
            }
            let mirrored = fixed.unwrap_or_else(|| split.tail.needs_mirror(&masks));
            if mirrored {
                for mask in &mut masks[..n] {
                    *mask = mirror_mask(*mask);
                }
            }
            masks_store = masks;
            (mirrored, TailRef::Masks(&masks_store))
        };
        let b_mirrored = mb != mirrored;
        let loc = Located {
            split: si,
            ir,
            ib,
            b_mirrored,
            mirrored,
            occ: lr.entries[ir].occ | lb.entries[ib].occ_black[b_mirrored as usize],
        };
        then(&loc, tail)
    }

    #[inline(always)]
    pub(super) fn rank_bucketed(&self, b: &Bucketed) -> Option<u64> {
        let own = self.own_entries(b)?;
        let split = &self.splits[own.0];
        if split.plain {
            if let Some(x) = split.rank_plain(&b.sq, own.1, own.2) {
                return Some(x);
            }
        }
        Some(self.rank_general(b, own))
    }

    /// The general path of [`PlacementIndex::rank_bucketed`] (kept out of line so that the
    /// fast path stays small).
    #[inline(never)]
    fn rank_general(&self, b: &Bucketed, own: (usize, Own, Own)) -> u64 {
        self.locate(b, own, |loc, tail| self.rank_located(loc, tail))
    }

    #[inline(always)]
    fn rank_located(&self, loc: &Located, tail: TailRef) -> u64 {
        let split = &self.splits[loc.split];
        let x = match split.base_of(loc.ir, loc.ib, loc.b_mirrored) {
            Some(base) => base + split.rank_tail(loc.occ, tail),
            None => {
                let [lr, lb] = &split.lists;
                let c_r = lr.entries[loc.ir].centers;
                let st = split.sym_state(c_r, lb.entries[loc.ib].centers);
                split.sym_base(loc.ir, loc.ib)
                    + match tail {
                        TailRef::Singles(sq) => split.tail.fold_rank_singles(st, loc.occ, sq),
                        TailRef::Masks(m) => split.tail.fold_rank(0, st, loc.occ, m),
                    }
            }
        };
        split.offset + x
    }

    /// Decode `index`, handing each piece with its slot in the kind-ordered list and its
    /// square to `put` (Red's own-half pieces, Black's, then the tail groups in order).
    /// False when out of range.
    #[inline(always)]
    pub(super) fn unrank_visit(
        &self,
        index: u64,
        mut put: impl FnMut(usize, Piece, Square),
    ) -> bool {
        if index >= self.size {
            return false;
        }
        let si = if self.splits.len() == 1 {
            0
        } else {
            self.splits.partition_point(|s| s.offset <= index) - 1
        };
        let split = &self.splits[si];
        let d = split.decode(index - split.offset);
        if split.plain && split.unrank_plain(&d, &mut put) {
            return true;
        }
        let [lr, lb] = &split.lists;
        let occ = lr.entries[d.ir].occ | lb.entries[d.ib].occ_black[d.b_mirrored as usize];
        let mut masks: TailMasks = [0; 8];
        if d.folded {
            let st = split.sym_state(lr.entries[d.ir].centers, lb.entries[d.ib].centers);
            if split.tail.all_single() {
                let sq = split.tail.fold_unrank_singles(st, d.x, occ);
                for (m, s) in masks.iter_mut().zip(sq).take(split.tail.groups.len()) {
                    *m = 1u128 << s;
                }
            } else {
                split.tail.fold_unrank(0, st, d.x, occ, &mut masks);
            }
        } else {
            split.tail.full_unrank(0, d.x, occ, &mut masks);
        }
        split.put_own(&d, &mut put);
        // slots of a group's pieces: one after the other from the group's first
        let mut seen = [0u8; 8];
        let mut put_tail = |j: usize, s: Square| {
            let i = seen[j & 7];
            seen[j & 7] += 1;
            put(
                (split.out_slot[j & 7] + i) as usize,
                split.group_piece[j & 7],
                s,
            );
        };
        for (j, mask) in masks[..split.tail.groups.len()].iter().enumerate() {
            for s in bits(*mask) {
                put_tail(j, square(s));
            }
        }
        true
    }

    pub(super) fn wrong_material(&self, counts: &[u8; 14]) -> IndexError {
        let mut by_color = [[0u8; 7]; 2];
        for c in Color::ALL {
            for r in Role::ALL {
                by_color[c.index()][r.index()] = counts[Piece::new(c, r).index()];
            }
        }
        let found = Material::from_counts(by_color).unwrap_or(self.material);
        IndexError::WrongMaterial {
            expected: self.material,
            found: if found == self.material {
                Material::bare_kings()
            } else {
                found
            },
        }
    }
}

/// The pieces of a material with these counts in kind order, one per slot: Red's kinds in
/// [`Role::ALL`] order, then Black's.
fn kind_order(counts: &[u8; 14]) -> impl Iterator<Item = Piece> + '_ {
    Color::ALL
        .iter()
        .flat_map(|&c| Role::ALL.map(|r| Piece::new(c, r)))
        .flat_map(|p| std::iter::repeat_n(p, counts[p.index()] as usize))
}
