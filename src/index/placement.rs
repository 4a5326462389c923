//! The dense, mirror-folded placement index of one material.
//!
//! Order of placement: each side's own-half pieces (king, advisors, elephants, unpassed
//! pawns) as one entry of a precomputed [`HalfList`], Red's then Black's; then the tail
//! ([`Tail`]): Black's passed pawns among the empty points of Red's half, Red's passed pawns
//! among those of Black's half, then rooks, horses and cannons (Red's then Black's of each
//! kind) among all empty points. Materials with pawns are split by how many pawns of each
//! side have crossed the river; each split is one contiguous block.
//!
//! Mirror folding: a placement and its left-right mirror image get one index. The first
//! part that is not symmetric decides which of the two is canonical: Red's own-half entry,
//! else Black's, else the first asymmetric tail group. The index is exact: its size is the
//! number of mirror classes, with no redundant index.

use super::half::HalfList;
use super::material::Material;
use super::tail::{Group, Region, SymState, Tail, TailSquares};
use crate::board::{Color, Piece, Position, Role, Setup, Square};
use arrayvec::ArrayVec;
use std::sync::Arc;

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

/// Free (unconstrained) kinds in placement order.
const FREE_ROLES: [Role; 3] = [Role::Rook, Role::Horse, Role::Cannon];

/// Pieces of a placement sorted into the index's groups.
#[derive(Clone, Copy, Debug, Default)]
struct Layout {
    king: [u8; 2],
    adv: [[u8; 2]; 2],
    ele: [[u8; 2]; 2],
    unp: [[u8; 5]; 2],
    pas: [[u8; 5]; 2],
    n_adv: [u8; 2],
    n_ele: [u8; 2],
    n_unp: [u8; 2],
    n_pas: [u8; 2],
    free: [[u8; 2]; 6],
    n_free: [u8; 6],
}

#[inline(always)]
fn flip(s: u8) -> u8 {
    (9 - s / 9) * 9 + s % 9
}

#[inline(always)]
fn mirror(s: u8) -> u8 {
    (s / 9) * 9 + 8 - s % 9
}

impl Layout {
    #[inline(always)]
    fn add(&mut self, p: Piece, s: u8) {
        let c = p.color.index();
        match p.role {
            Role::King => self.king[c] = s,
            Role::Advisor => {
                if (self.n_adv[c] as usize) < 2 {
                    self.adv[c][self.n_adv[c] as usize] = s;
                }
                self.n_adv[c] += 1;
            }
            Role::Elephant => {
                if (self.n_ele[c] as usize) < 2 {
                    self.ele[c][self.n_ele[c] as usize] = s;
                }
                self.n_ele[c] += 1;
            }
            Role::Pawn => {
                let passed = match p.color {
                    Color::Red => s >= 45,
                    Color::Black => s < 45,
                };
                if passed {
                    if (self.n_pas[c] as usize) < 5 {
                        self.pas[c][self.n_pas[c] as usize] = s;
                    }
                    self.n_pas[c] += 1;
                } else {
                    if (self.n_unp[c] as usize) < 5 {
                        self.unp[c][self.n_unp[c] as usize] = s;
                    }
                    self.n_unp[c] += 1;
                }
            }
            r => {
                let g = free_slot(p.color, r);
                if (self.n_free[g] as usize) < 2 {
                    self.free[g][self.n_free[g] as usize] = s;
                }
                self.n_free[g] += 1;
            }
        }
    }

    fn mirrored(&self) -> Layout {
        let mut l = *self;
        for c in 0..2 {
            l.king[c] = mirror(self.king[c]);
            for s in l.adv[c].iter_mut().chain(l.ele[c].iter_mut()) {
                *s = mirror(*s);
            }
            for s in l.unp[c].iter_mut().chain(l.pas[c].iter_mut()) {
                *s = mirror(*s);
            }
        }
        for g in l.free.iter_mut() {
            for s in g.iter_mut() {
                *s = mirror(*s);
            }
        }
        l
    }

    fn own_occ(&self) -> u128 {
        let mut o = 0u128;
        for c in 0..2 {
            o |= 1u128 << self.king[c];
            for &s in &self.adv[c][..self.n_adv[c] as usize] {
                o |= 1u128 << s;
            }
            for &s in &self.ele[c][..self.n_ele[c] as usize] {
                o |= 1u128 << s;
            }
            for &s in &self.unp[c][..self.n_unp[c] as usize] {
                o |= 1u128 << s;
            }
        }
        o
    }
}

#[inline(always)]
fn free_slot(c: Color, r: Role) -> usize {
    let k = match r {
        Role::Rook => 0,
        Role::Horse => 1,
        _ => 2,
    };
    k * 2 + c.index()
}

#[derive(Debug)]
struct Split {
    offset: u64,
    size: u64,
    #[allow(dead_code)]
    unpassed: [u8; 2],
    lists: [Arc<HalfList>; 2],
    tail: Tail,
    /// Tail group index of each free slot (None when absent).
    free_groups: [Option<usize>; 6],
    /// Tail group of Black's / Red's passed pawns.
    passed_groups: [Option<usize>; 2],
    t_full: u64,
    /// Size of the part where Red's own-half entry is asymmetric.
    a_part: u64,
    /// Cumulative sizes of the blocks of Red's symmetric entries.
    sym_r: Vec<u64>,
    /// Per centre count of Red's entry: cumulative folded-tail sizes over Black's symmetric entries.
    sym_b: Vec<Vec<u64>>,
    own: [u8; 2],
}

/// Prepared ranking of placements that differ from one placement by a single moved piece
/// of the tail (rook, horse, cannon or passed pawn staying passed), see
/// [`PlacementIndex::prepare_tail`].
#[derive(Clone, Debug)]
pub struct TailCtx {
    split: usize,
    base: u64,
    occ: u128,
    sq: TailSquares,
    mirrored: bool,
}

/// Dense mirror-folded index of the placements of one material.
#[derive(Debug)]
pub struct PlacementIndex {
    material: Material,
    splits: Vec<Split>,
    split_of: [[Option<usize>; 6]; 6],
    size: u64,
}

impl Split {
    fn sym_state(&self, c_r: u8, c_b: u8) -> SymState {
        let pairs = |own: u8, c: u8| (40 + c - own) / 2;
        SymState {
            e: [5 - c_r, 5 - c_b],
            p: [pairs(self.own[0], c_r), pairs(self.own[1], c_b)],
        }
    }

    fn tail_squares(&self, l: &Layout) -> TailSquares {
        let mut sq: TailSquares = [[0; 5]; 8];
        for (c, g) in self.passed_groups.iter().enumerate() {
            // passed_groups[0] holds Black's passed pawns (Red's half), [1] Red's
            if let Some(j) = g {
                let color = 1 - c;
                let n = l.n_pas[color] as usize;
                sq[*j][..n].copy_from_slice(&l.pas[color][..n]);
                sq[*j][..n].sort_unstable();
            }
        }
        for (slot, g) in self.free_groups.iter().enumerate() {
            if let Some(j) = g {
                let n = l.n_free[slot] as usize;
                sq[*j][..n].copy_from_slice(&l.free[slot][..n]);
                sq[*j][..n].sort_unstable();
            }
        }
        sq
    }
}

impl PlacementIndex {
    /// Build the index of `material`.
    pub fn new(material: Material) -> Result<PlacementIndex, IndexError> {
        let cnt = |c: Color, r: Role| material.count(c, r);
        let pawns = [cnt(Color::Red, Role::Pawn), cnt(Color::Black, Role::Pawn)];
        let mut splits = Vec::new();
        let mut split_of = [[None; 6]; 6];
        let mut offset = 0u64;
        for ur in 0..=pawns[0] {
            for ub in 0..=pawns[1] {
                let unpassed = [ur, ub];
                let passed = [pawns[0] - ur, pawns[1] - ub];
                let lists = [Color::Red, Color::Black].map(|c| {
                    HalfList::get(
                        cnt(c, Role::Advisor),
                        cnt(c, Role::Elephant),
                        unpassed[c.index()],
                    )
                });
                if lists.iter().any(|l| l.entries.is_empty()) {
                    continue;
                }
                let own = [0, 1]
                    .map(|c| 1 + lists[c].n_advisors + lists[c].n_elephants + lists[c].n_pawns);
                let mut groups = Vec::new();
                let mut avail = Vec::new();
                let mut passed_groups = [None; 2];
                if passed[1] > 0 {
                    passed_groups[0] = Some(groups.len());
                    groups.push(Group {
                        count: passed[1],
                        region: Region::RedHalf,
                    });
                    avail.push(45 - own[0]);
                }
                if passed[0] > 0 {
                    passed_groups[1] = Some(groups.len());
                    groups.push(Group {
                        count: passed[0],
                        region: Region::BlackHalf,
                    });
                    avail.push(45 - own[1]);
                }
                let mut empty = 90 - own[0] - own[1] - passed[0] - passed[1];
                let mut free_groups = [None; 6];
                for r in FREE_ROLES {
                    for c in Color::ALL {
                        let n = cnt(c, r);
                        if n > 0 {
                            free_groups[free_slot(c, r)] = Some(groups.len());
                            groups.push(Group {
                                count: n,
                                region: Region::Board,
                            });
                            avail.push(empty);
                            empty -= n;
                        }
                    }
                }
                let tail = Tail::new(groups, &avail);
                let t_full = tail.full_size();
                // Black's entry is taken in full (both mirror members) when Red's fixes the orientation
                let nb = lists[1].placements();
                let big = |x: Option<u64>| x.ok_or(IndexError::TooLarge(material));
                let a_part = big((lists[0].asym as u64)
                    .checked_mul(nb)
                    .and_then(|v| v.checked_mul(t_full)))?;
                let mut split = Split {
                    offset,
                    size: 0,
                    unpassed,
                    lists: lists.clone(),
                    tail,
                    free_groups,
                    passed_groups,
                    t_full,
                    a_part,
                    sym_r: vec![0],
                    sym_b: Vec::new(),
                    own,
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
                    let block = big(b_asym
                        .checked_add(*split.sym_b[e.centers as usize].last().expect("nonempty")))?;
                    let last = *split.sym_r.last().expect("starts with 0");
                    split.sym_r.push(big(last.checked_add(block))?);
                }
                split.size = big(a_part.checked_add(*split.sym_r.last().expect("nonempty")))?;
                offset = big(offset.checked_add(split.size))?;
                split_of[ur as usize][ub as usize] = Some(splits.len());
                splits.push(split);
            }
        }
        Ok(PlacementIndex {
            material,
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

    /// The split of a layout and its two own-half entries: (split, Red entry, Red entry is
    /// the mirror image, Black entry, Black entry is the mirror image).
    fn own_entries(&self, l: &Layout) -> Option<(usize, usize, bool, usize, bool)> {
        let si = (*self
            .split_of
            .get(l.n_unp[0] as usize)?
            .get(l.n_unp[1] as usize)?)?;
        let [lr, lb] = &self.splits[si].lists;
        let raw_r = lr.raw(
            l.king[0],
            &l.adv[0][..l.n_adv[0] as usize],
            &l.ele[0][..l.n_ele[0] as usize],
            &l.unp[0][..l.n_unp[0] as usize],
        )?;
        // Black's pieces seen from Red's side (flipped top to bottom)
        let mut fb = [[0u8; 5]; 3];
        for (i, &s) in l.adv[1][..l.n_adv[1] as usize].iter().enumerate() {
            fb[0][i] = flip(s);
        }
        for (i, &s) in l.ele[1][..l.n_ele[1] as usize].iter().enumerate() {
            fb[1][i] = flip(s);
        }
        for (i, &s) in l.unp[1][..l.n_unp[1] as usize].iter().enumerate() {
            fb[2][i] = flip(s);
        }
        let raw_b = lb.raw(
            flip(l.king[1]),
            &fb[0][..l.n_adv[1] as usize],
            &fb[1][..l.n_ele[1] as usize],
            &fb[2][..l.n_unp[1] as usize],
        )?;
        let (ir, mr) = lr.find(raw_r)?;
        let (ib, mb) = lb.find(raw_b)?;
        Some((si, ir, mr, ib, mb))
    }

    fn rank_layout(&self, l: &Layout) -> Option<u64> {
        let (si, ir, mr, ib, mb) = self.own_entries(l)?;
        let split = &self.splits[si];
        let [lr, lb] = &split.lists;
        let occ_own = l.own_occ();
        // which orientation is canonical
        let mirror_it = if ir < lr.asym {
            mr
        } else if ib < lb.asym {
            mb
        } else {
            split.tail.needs_mirror(occ_own, &split.tail_squares(l))
        };
        let (layout, occ) = {
            if mirror_it {
                let m = l.mirrored();
                let o = m.own_occ();
                (m, o)
            } else {
                (*l, occ_own)
            }
        };
        let sq = split.tail_squares(&layout);
        let nb = lb.placements();
        let t = split.t_full;
        let x = if ir < lr.asym {
            let ib_full = if ib < lb.asym && (mb != mirror_it) {
                lb.entries.len() + ib
            } else {
                ib
            };
            (ir as u64 * nb + ib_full as u64) * t + split.tail.full_rank(0, occ, &sq)
        } else {
            let jr = ir - lr.asym;
            let base = split.a_part + split.sym_r[jr];
            if ib < lb.asym {
                base + ib as u64 * t + split.tail.full_rank(0, occ, &sq)
            } else {
                let jb = ib - lb.asym;
                let c_r = lr.entries[ir].centers;
                let c_b = lb.entries[ib].centers;
                base + lb.asym as u64 * t
                    + split.sym_b[c_r as usize][jb]
                    + split.tail.fold_rank(0, split.sym_state(c_r, c_b), occ, &sq)
            }
        };
        Some(split.offset + x)
    }

    fn unrank_layout(&self, index: u64) -> Option<Layout> {
        if index >= self.size {
            return None;
        }
        let si = self.splits.partition_point(|s| s.offset <= index) - 1;
        let split = &self.splits[si];
        let [lr, lb] = &split.lists;
        let mut x = index - split.offset;
        let t = split.t_full;
        let nb = lb.placements();
        let mut sq: TailSquares = [[0; 5]; 8];
        let (ir, ib);
        let mut b_mirrored = false;
        if x < split.a_part {
            let q = x / (nb * t);
            ir = q as usize;
            x -= q * nb * t;
            let q = x / t;
            let ib_full = q as usize;
            x -= q * t;
            if ib_full >= lb.entries.len() {
                ib = ib_full - lb.entries.len();
                b_mirrored = true;
            } else {
                ib = ib_full;
            }
            let occ = own_occ(lr, ir, lb, ib, b_mirrored);
            split.tail.full_unrank(0, x, occ, &mut sq);
        } else {
            x -= split.a_part;
            let jr = split.sym_r.partition_point(|&o| o <= x) - 1;
            x -= split.sym_r[jr];
            ir = lr.asym + jr;
            if x < lb.asym as u64 * t {
                ib = (x / t) as usize;
                x %= t;
                let occ = own_occ(lr, ir, lb, ib, false);
                split.tail.full_unrank(0, x, occ, &mut sq);
            } else {
                x -= lb.asym as u64 * t;
                let c_r = lr.entries[ir].centers;
                let cum = &split.sym_b[c_r as usize];
                let jb = cum.partition_point(|&o| o <= x) - 1;
                x -= cum[jb];
                ib = lb.asym + jb;
                let occ = own_occ(lr, ir, lb, ib, false);
                let st = split.sym_state(c_r, lb.entries[ib].centers);
                split.tail.fold_unrank(0, st, x, occ, &mut sq);
            }
        }
        let mut l = Layout::default();
        for (role, s) in lr.pieces(ir) {
            l.add(Piece::new(Color::Red, role), s);
        }
        for (role, s) in lb.pieces(ib) {
            let s = if b_mirrored { mirror(flip(s)) } else { flip(s) };
            l.add(Piece::new(Color::Black, role), s);
        }
        for (c, g) in split.passed_groups.iter().enumerate() {
            if let Some(j) = g {
                let color = if c == 0 { Color::Black } else { Color::Red };
                for &s in &sq[*j][..split.tail.groups[*j].count as usize] {
                    l.add(Piece::new(color, Role::Pawn), s);
                }
            }
        }
        for r in FREE_ROLES {
            for c in Color::ALL {
                if let Some(j) = split.free_groups[free_slot(c, r)] {
                    for &s in &sq[j][..split.tail.groups[j].count as usize] {
                        l.add(Piece::new(c, r), s);
                    }
                }
            }
        }
        Some(l)
    }

    /// Index of a placement (its mirror image has the same index).
    pub fn rank(&self, setup: &Setup) -> Result<u64, IndexError> {
        let pieces: PieceList = setup.pieces().take(32).map(|(s, p)| (p, s)).collect();
        if setup.pieces().count() > 32 {
            return Err(IndexError::WrongMaterial {
                expected: self.material,
                found: Material::of_setup(setup),
            });
        }
        self.rank_pieces(&pieces).map_err(|e| match e {
            IndexError::BadPoint(_) => IndexError::BadPoint(setup.board_fen()),
            e => e,
        })
    }

    /// Index of a placement given as a piece list (the fast form; any order).
    #[inline]
    pub fn rank_pieces(&self, pieces: &[(Piece, Square)]) -> Result<u64, IndexError> {
        let mut counts = [[0u8; 7]; 2];
        let mut l = Layout::default();
        for &(p, sq) in pieces {
            let c = &mut counts[p.color.index()][p.role.index()];
            *c = c.saturating_add(1);
            l.add(p, sq as u8);
        }
        if counts != self.material.counts() {
            let found = Material::from_counts(counts).unwrap_or(self.material);
            return Err(IndexError::WrongMaterial {
                expected: self.material,
                found: if found == self.material {
                    Material::bare_kings()
                } else {
                    found
                },
            });
        }
        self.rank_layout(&l).ok_or_else(|| {
            IndexError::BadPoint(
                pieces
                    .iter()
                    .map(|(p, s)| format!("{}{}", p.char(), s))
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        })
    }

    /// Prepare [`PlacementIndex::rank_tail_move`] for placements derived from `pieces` by
    /// moving one tail piece. None when the orientation of such placements depends on the
    /// tail itself (both sides' own-half pieces symmetric): use [`PlacementIndex::rank_pieces`].
    pub fn prepare_tail(&self, pieces: &[(Piece, Square)]) -> Option<TailCtx> {
        let mut l = Layout::default();
        for &(p, sq) in pieces {
            l.add(p, sq as u8);
        }
        let (si, ir, mr, ib, mb) = self.own_entries(&l)?;
        let split = &self.splits[si];
        let [lr, lb] = &split.lists;
        let t = split.t_full;
        let (mirrored, base) = if ir < lr.asym {
            let ib_full = if ib < lb.asym && (mb != mr) {
                lb.entries.len() + ib
            } else {
                ib
            };
            (mr, (ir as u64 * lb.placements() + ib_full as u64) * t)
        } else if ib < lb.asym {
            (mb, split.a_part + split.sym_r[ir - lr.asym] + ib as u64 * t)
        } else {
            return None;
        };
        let layout = if mirrored { l.mirrored() } else { l };
        Some(TailCtx {
            split: si,
            base: split.offset + base,
            occ: layout.own_occ(),
            sq: split.tail_squares(&layout),
            mirrored,
        })
    }

    /// Index of the prepared placement with the tail piece on `from` moved to `to` (`to`
    /// empty, and in the same region for a passed pawn). None if no tail piece is on `from`.
    #[inline]
    pub fn rank_tail_move(&self, ctx: &TailCtx, from: Square, to: Square) -> Option<u64> {
        let (f, t) = if ctx.mirrored {
            (mirror(from as u8), mirror(to as u8))
        } else {
            (from as u8, to as u8)
        };
        let split = &self.splits[ctx.split];
        let mut sq = ctx.sq;
        let groups = &split.tail.groups;
        let mut found = false;
        'outer: for (j, g) in groups.iter().enumerate() {
            let m = g.count as usize;
            for i in 0..m {
                if sq[j][i] == f {
                    sq[j][i] = t;
                    sq[j][..m].sort_unstable();
                    found = true;
                    break 'outer;
                }
            }
        }
        if !found {
            return None;
        }
        Some(ctx.base + split.tail.full_rank(0, ctx.occ, &sq))
    }

    /// The canonical placement with this index as a piece list (the fast form).
    #[inline]
    pub fn unrank_pieces(&self, index: u64) -> Result<PieceList, IndexError> {
        let l = self.unrank_layout(index).ok_or(IndexError::OutOfRange {
            index,
            size: self.size,
        })?;
        let mut out = PieceList::new();
        for c in Color::ALL {
            let i = c.index();
            let mut put = |r: Role, s: u8| out.push((Piece::new(c, r), Square::ALL[s as usize]));
            put(Role::King, l.king[i]);
            for &s in &l.adv[i][..l.n_adv[i] as usize] {
                put(Role::Advisor, s);
            }
            for &s in &l.ele[i][..l.n_ele[i] as usize] {
                put(Role::Elephant, s);
            }
            for &s in l.unp[i][..l.n_unp[i] as usize]
                .iter()
                .chain(&l.pas[i][..l.n_pas[i] as usize])
            {
                put(Role::Pawn, s);
            }
        }
        for r in FREE_ROLES {
            for c in Color::ALL {
                let g = free_slot(c, r);
                for &s in &l.free[g][..l.n_free[g] as usize] {
                    out.push((Piece::new(c, r), Square::ALL[s as usize]));
                }
            }
        }
        Ok(out)
    }

    /// Index of a position's placement; the position must have this index's material
    /// (checked in debug builds) and its pieces on their reachable points.
    #[inline]
    pub fn rank_position(&self, pos: &Position) -> Option<u64> {
        debug_assert_eq!(Material::of_position(pos), self.material);
        let mut l = Layout::default();
        for c in Color::ALL {
            for sq in pos.by_color(c) {
                let p = pos.piece_at(sq).expect("occupied square has a piece");
                l.add(p, sq as u8);
            }
        }
        self.rank_layout(&l)
    }

    /// The canonical placement with this index (Red to move).
    pub fn unrank(&self, index: u64) -> Result<Setup, IndexError> {
        let mut setup = Setup::empty();
        for (p, s) in self.unrank_pieces(index)? {
            setup.put(s, p);
        }
        Ok(setup)
    }

    /// The canonical member of a placement's mirror pair (what `unrank(rank(p))` returns).
    pub fn canonical(&self, setup: &Setup) -> Result<Setup, IndexError> {
        let i = self.rank(setup)?;
        let mut s = self.unrank(i)?;
        s.turn = setup.turn;
        Ok(s)
    }
}

fn own_occ(lr: &HalfList, ir: usize, lb: &HalfList, ib: usize, b_mirrored: bool) -> u128 {
    let mut o = lr.entries[ir].occ;
    for (_, s) in lb.pieces(ib) {
        let s = if b_mirrored { mirror(flip(s)) } else { flip(s) };
        o |= 1u128 << s;
    }
    o
}
