//! One block of the index: the placements with a given number of unpassed pawns per side,
//! its size and the offsets of its parts (asymmetric Red entries, then Red's symmetric
//! entries with Black's asymmetric and symmetric ones).

use super::espace::{self, Space};
use super::half::{Empties, HalfList, MAX_OWN};
use super::kinds::square_at;
use super::masks::{BLACK_HALF, RED_HALF};
use super::material::Material;
use super::pairs::PairRows;
use super::placement::IndexError;
use super::tail::{Group, Region, SymState, Tail, TailMasks};
use crate::board::{Color, Piece, Role, Square};
use std::sync::Arc;
use strength_reduce::StrengthReducedU64;

/// Free (unconstrained) kinds in placement order.
const FREE_ROLES: [Role; 3] = [Role::Rook, Role::Horse, Role::Cannon];

#[derive(Debug)]
pub(super) struct Split {
    pub(super) offset: u64,
    pub(super) size: u64,
    pub(super) lists: [Arc<HalfList>; 2],
    pub(super) tail: Tail,
    /// Piece of each tail group.
    pub(super) group_piece: [Piece; 8],
    /// The same as [`Piece::index`].
    pub(super) group_kind: [u8; 8],
    /// Where each tail group's pieces are taken from (passed pawns: the enemy half).
    pub(super) group_region: [u128; 8],
    /// First E-rank of each tail group's region (see [`super::espace`]) less the tail
    /// pieces of earlier groups that lie wholly below the region (Black's passed pawns,
    /// for Red's): the base of the single-piece routines, which then count every earlier
    /// piece below a point (see [`espace::rank_single`]).
    pub(super) single_base: [u8; 8],
    /// Empty own-half points of Red's and Black's entries.
    pub(super) empties: [Arc<Empties>; 2],
    pub(super) t_full: u64,
    /// Black's placements (both mirror members of its asymmetric entries).
    pub(super) nb: u64,
    /// `nb · t_full` (the block of an asymmetric Red entry) and `t_full` as reciprocals
    /// for fast division.
    pub(super) nb_t_div: StrengthReducedU64,
    pub(super) t_div: StrengthReducedU64,
    /// Size of the part where Red's own-half entry is asymmetric.
    pub(super) a_part: u64,
    /// Cumulative sizes of the blocks of Red's symmetric entries.
    pub(super) sym_r: Vec<u64>,
    /// Start of each Red entry's block (see [`Split::base_of`]).
    pub(super) red_base: Vec<u64>,
    /// Per centre count of Red's entry: cumulative folded-tail sizes over Black's symmetric entries.
    pub(super) sym_b: Vec<Vec<u64>>,
    pub(super) own: [u8; 2],
    /// Every tail piece is alone of its kind: [`super::plain`] ranks this split.
    pub(super) plain: bool,
    /// Slot of each tail group's first piece in a placement bucketed by kind (see
    /// [`super::placement`]).
    pub(super) tail_slot: [u8; 8],
    /// Slot of each tail group's first piece in the kind-ordered output list (passed
    /// pawns after the unpassed ones).
    pub(super) out_slot: [u8; 8],
    /// Slot of each own-half piece of Red's and Black's entries in that list.
    pub(super) own_slot: [[u8; MAX_OWN]; 2],
    /// Where the square of each tail group's piece lies in the bytes of a kind-ordered
    /// list of a pawnless material (see [`super::kinds`]).
    pub(super) tail_at: [u8; 8],
    /// The same for Red's and Black's kings.
    pub(super) king_at: [u8; 2],
    /// The own-half pieces of Red's and Black's entries (as [`HalfList::roles`]).
    pub(super) own_piece: [[Piece; MAX_OWN]; 2],
    /// Tables per pair of own-half placements, for a pawnless split whose tail pieces
    /// are each alone of their kind and whose pairs are few (see [`super::pairs`]).
    pub(super) pairs: Option<PairRows>,
}

/// Where an index within a split points.
pub(super) struct Decoded {
    /// Red's own-half entry.
    pub(super) ir: usize,
    /// Black's own-half entry.
    pub(super) ib: usize,
    /// Black's entry stands mirrored.
    pub(super) b_mirrored: bool,
    /// Rank of the tail.
    pub(super) x: u64,
    /// Both own halves are symmetric and `x` is a folded rank.
    pub(super) folded: bool,
}

/// Where the tail pieces stand: one square per group when every group holds one piece,
/// else a mask per group.
#[derive(Clone, Debug)]
pub(super) enum TailPlace {
    Singles([u8; 8]),
    Masks(TailMasks),
}

/// A borrowed [`TailPlace`].
#[derive(Clone, Copy)]
pub(super) enum TailRef<'a> {
    Singles(&'a [u8; 8]),
    Masks(&'a TailMasks),
}

impl TailRef<'_> {
    pub(super) fn to_owned(self) -> TailPlace {
        match self {
            TailRef::Singles(sq) => TailPlace::Singles(*sq),
            TailRef::Masks(m) => TailPlace::Masks(*m),
        }
    }
}

impl TailPlace {
    pub(super) fn borrow(&self) -> TailRef<'_> {
        match self {
            TailPlace::Singles(sq) => TailRef::Singles(sq),
            TailPlace::Masks(m) => TailRef::Masks(m),
        }
    }
}

impl Split {
    /// The split of `material` with `unpassed` pawns of each side on their own half, starting
    /// at index `offset`; None when no placement has that many unpassed pawns.
    /// `kind_start` are the first slots of each kind in a placement bucketed by kind
    /// (see [`super::placement`]).
    pub(super) fn new(
        material: Material,
        unpassed: [u8; 2],
        offset: u64,
        kind_start: &[u8; 15],
    ) -> Result<Option<Split>, IndexError> {
        let cnt = |c: Color, r: Role| material.count(c, r);
        let pawns = [cnt(Color::Red, Role::Pawn), cnt(Color::Black, Role::Pawn)];
        let passed = [pawns[0] - unpassed[0], pawns[1] - unpassed[1]];
        let lists = [Color::Red, Color::Black].map(|c| {
            HalfList::get(
                cnt(c, Role::Advisor),
                cnt(c, Role::Elephant),
                unpassed[c.index()],
            )
        });
        if lists.iter().any(|l| l.entries.is_empty()) {
            return Ok(None);
        }
        let own = [0, 1].map(|c| lists[c].len_pieces() as u8);
        let mut groups = Vec::new();
        let mut avail = Vec::new();
        let mut group_piece = [Piece::new(Color::Red, Role::King); 8];
        let mut group_region = [0u128; 8];
        let mut group_base = [0u8; 8];
        if passed[1] > 0 {
            group_piece[groups.len()] = Piece::new(Color::Black, Role::Pawn);
            group_region[groups.len()] = RED_HALF;
            groups.push(Group {
                count: passed[1],
                region: Region::RedHalf,
            });
            avail.push(45 - own[0]);
        }
        if passed[0] > 0 {
            group_piece[groups.len()] = Piece::new(Color::Red, Role::Pawn);
            group_region[groups.len()] = BLACK_HALF;
            group_base[groups.len()] = 45 - own[0];
            groups.push(Group {
                count: passed[0],
                region: Region::BlackHalf,
            });
            avail.push(45 - own[1]);
        }
        let mut empty = 90 - own[0] - own[1] - passed[0] - passed[1];
        for r in FREE_ROLES {
            for c in Color::ALL {
                let n = cnt(c, r);
                if n > 0 {
                    group_piece[groups.len()] = Piece::new(c, r);
                    group_region[groups.len()] = RED_HALF | BLACK_HALF;
                    groups.push(Group {
                        count: n,
                        region: Region::Board,
                    });
                    avail.push(empty);
                    empty -= n;
                }
            }
        }
        // slots of a placement bucketed by kind: kinds in `Piece::index` order
        let kind_count = |k: usize| kind_start[k + 1] - kind_start[k];
        let kind_start = |k: usize| kind_start[k];
        let mut tail_slot = [0u8; 8];
        let mut out_slot = [0u8; 8];
        for j in 0..groups.len() {
            let p = group_piece[j];
            tail_slot[j] = kind_start(p.index());
            out_slot[j] = tail_slot[j]
                + if p.role == Role::Pawn {
                    unpassed[p.color.index()]
                } else {
                    0
                };
        }
        let mut own_slot = [[0u8; MAX_OWN]; 2];
        for c in Color::ALL {
            let roles = &lists[c.index()].roles[..own[c.index()] as usize];
            for (k, &r) in roles.iter().enumerate() {
                let before = roles[..k].iter().filter(|&&q| q == r).count() as u8;
                own_slot[c.index()][k] = kind_start(Piece::new(c, r).index()) + before;
            }
        }
        let plain = groups.len() <= 8
            && groups
                .iter()
                .enumerate()
                .all(|(j, g)| g.count == 1 && kind_count(group_piece[j].index()) == 1);
        let tail = Tail::new(groups, &avail);
        let t_full = tail.full_size();
        // Black's entry is taken in full (both mirror members) when Red's fixes the orientation
        let nb = lists[1].placements();
        let big = |x: Option<u64>| x.ok_or(IndexError::TooLarge(material));
        let nb_t = big(nb.checked_mul(t_full))?;
        let a_part = big((lists[0].asym as u64).checked_mul(nb_t))?;
        let mut split = Split {
            offset,
            size: 0,
            lists: lists.clone(),
            tail,
            group_piece,
            group_kind: group_piece.map(|p| p.index() as u8),
            group_region,
            single_base: {
                let mut t = group_base;
                if passed[0] > 0 {
                    let j = (passed[1] > 0) as usize;
                    t[j] -= passed[1];
                }
                t
            },
            empties: [lists[0].empties(), lists[1].empties()],
            t_full,
            nb,
            nb_t_div: StrengthReducedU64::new(nb_t.max(1)),
            t_div: StrengthReducedU64::new(t_full.max(1)),
            a_part,
            sym_r: vec![0],
            red_base: Vec::new(),
            sym_b: Vec::new(),
            own,
            plain,
            tail_slot,
            out_slot,
            own_slot,
            tail_at: tail_slot.map(square_at),
            king_at: [square_at(own_slot[0][0]), square_at(own_slot[1][0])],
            own_piece: [Color::Red, Color::Black]
                .map(|c| lists[c.index()].roles.map(|r| Piece::new(c, r))),
            pairs: None,
        };
        let b_asym = big((lists[1].asym as u64).checked_mul(t_full))?;
        for er in &lists[0].entries[lists[0].asym..] {
            for eb in &lists[1].entries[lists[1].asym..] {
                let st = split.sym_state(er.centers, eb.centers);
                split.tail.prepare(st);
            }
        }
        for c_r in 0..=5u8 {
            let mut cum = vec![0u64];
            for e in &lists[1].entries[lists[1].asym..] {
                let ft = split.tail.fold_size(0, split.sym_state(c_r, e.centers));
                let last = *cum.last().expect("starts with 0");
                cum.push(big(last.checked_add(ft))?);
            }
            split.sym_b.push(cum);
        }
        for e in &lists[0].entries[lists[0].asym..] {
            let block = big(
                b_asym.checked_add(*split.sym_b[e.centers as usize].last().expect("nonempty"))
            )?;
            let last = *split.sym_r.last().expect("starts with 0");
            split.sym_r.push(big(last.checked_add(block))?);
        }
        split.size = big(a_part.checked_add(*split.sym_r.last().expect("nonempty")))?;
        // fits: every start is below the split's size
        split.red_base = (0..lists[0].entries.len())
            .map(|ir| match ir.checked_sub(lists[0].asym) {
                None => ir as u64 * nb_t,
                Some(jr) => a_part + split.sym_r[jr],
            })
            .collect();
        if plain && pawns == [0, 0] {
            split.pairs = PairRows::new(&split);
        }
        Ok(Some(split))
    }

    pub(super) fn sym_state(&self, c_r: u8, c_b: u8) -> SymState {
        let pairs = |own: u8, c: u8| (40 + c - own) / 2;
        SymState {
            e: [5 - c_r, 5 - c_b],
            p: [pairs(self.own[0], c_r), pairs(self.own[1], c_b)],
        }
    }

    /// Full (unfolded) rank of the tail.
    #[inline(always)]
    pub(super) fn rank_tail(&self, own: u128, tail: TailRef) -> u64 {
        match tail {
            TailRef::Singles(sq) => espace::rank_singles(&self.tail, &self.single_base, own, sq),
            TailRef::Masks(m) => self.tail.full_rank(0, own, m),
        }
    }

    /// Index within the split of a located placement whose own halves are not both
    /// symmetric (the tail is ranked in full).
    #[inline(always)]
    pub(super) fn base_of(&self, ir: usize, ib: usize, b_mirrored: bool) -> Option<u64> {
        let [lr, lb] = &self.lists;
        let (r_asym, b_asym) = (ir < lr.asym, ib < lb.asym);
        if !r_asym && !b_asym {
            return None;
        }
        Some(self.base_fixed(ir, ib, b_asym, b_mirrored))
    }

    /// [`Split::base_of`] when the own halves are known not to be both symmetric. Within
    /// Red's entry's block Black's entries follow one another (both mirror members of an
    /// asymmetric one when Red's entry is asymmetric, the mirrored ones after all the
    /// others; when Red's is symmetric Black's fixes the orientation and is not mirrored).
    #[inline(always)]
    pub(super) fn base_fixed(&self, ir: usize, ib: usize, b_asym: bool, b_mirrored: bool) -> u64 {
        let ib_full = ib + (b_asym & b_mirrored) as usize * self.lists[1].entries.len();
        self.red_base[ir] + ib_full as u64 * self.t_full
    }

    /// Index within the split of a placement whose own halves are both symmetric, before
    /// the folded rank of its tail.
    #[inline(always)]
    pub(super) fn sym_base(&self, ir: usize, ib: usize) -> u64 {
        let [lr, lb] = &self.lists;
        let c_r = lr.entries[ir].centers as usize;
        self.a_part
            + self.sym_r[ir - lr.asym]
            + lb.asym as u64 * self.t_full
            + self.sym_b[c_r][ib - lb.asym]
    }

    /// The entries, orientation and tail rank of index `x` within the split (`x < size`).
    #[inline(always)]
    pub(super) fn decode(&self, mut x: u64) -> Decoded {
        let [lr, lb] = &self.lists;
        let t = self.t_full;
        if x < self.a_part {
            // mixed radix (Red's entry, Black's placement, tail): the two quotients are
            // independent divisions
            let (ir, pair) = (x / self.nb_t_div, x / self.t_div);
            let ib_full = pair - ir * self.nb;
            let b_mirrored = ib_full >= lb.entries.len() as u64;
            return Decoded {
                ir: ir as usize,
                ib: ib_full as usize - b_mirrored as usize * lb.entries.len(),
                b_mirrored,
                x: x - pair * t,
                folded: false,
            };
        }
        x -= self.a_part;
        let jr = self.sym_r.partition_point(|&o| o <= x) - 1;
        x -= self.sym_r[jr];
        let ir = lr.asym + jr;
        if x < lb.asym as u64 * t {
            let q = x / self.t_div;
            return Decoded {
                ir,
                ib: q as usize,
                b_mirrored: false,
                x: x - q * t,
                folded: false,
            };
        }
        x -= lb.asym as u64 * t;
        let cum = &self.sym_b[lr.entries[ir].centers as usize];
        let jb = cum.partition_point(|&o| o <= x) - 1;
        Decoded {
            ir,
            ib: lb.asym + jb,
            b_mirrored: false,
            x: x - cum[jb],
            folded: true,
        }
    }

    /// Hand Red's and then Black's own-half pieces of a decoded index to `put` with their
    /// slots in the kind-ordered list.
    #[inline(always)]
    pub(super) fn put_own(&self, d: &Decoded, put: &mut impl FnMut(usize, Piece, Square)) {
        let [lr, lb] = &self.lists;
        let red = &lr.entries[d.ir].placed[0];
        let black = &lb.entries[d.ib].placed[1 + d.b_mirrored as usize];
        let [sr, sb] = &self.own_slot;
        let [pr, pb] = &self.own_piece;
        for ((&slot, &p), &s) in sr.iter().zip(pr).zip(red).take(self.own[0] as usize) {
            put(slot as usize, p, s);
        }
        for ((&slot, &p), &s) in sb.iter().zip(pb).zip(black).take(self.own[1] as usize) {
            put(slot as usize, p, s);
        }
    }

    /// The empty points of a decoded index's own-half entries.
    #[inline(always)]
    pub(super) fn space(&self, d: &Decoded) -> Space<'_> {
        Space {
            red: self.empties[0].red_row(d.ir),
            black: self.empties[1].black_row(d.b_mirrored, d.ib),
            n_red: self.empties[0].n,
        }
    }
}
