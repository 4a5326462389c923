//! The numbering of the index written out plainly: slow, with no tables, no E-ranks and
//! no shortcuts, for the fast routes to be tested against (see [`super::tests`]).
//!
//! A placement's index is its place in a walk of a tree. The levels, in order:
//!
//! 1. the split: how many pawns of each side still stand on their own half (Red's count,
//!    then Black's, each from 0 up);
//! 2. Red's own-half placement (king, advisors, elephants, unpassed pawns);
//! 3. Black's own-half placement;
//! 4. the tail groups in turn: Black's passed pawns (among the empty points of Red's half),
//!    Red's passed pawns (Black's half), then Red's rooks, Black's rooks, Red's horses,
//!    Black's horses, Red's cannons and Black's cannons (anywhere empty).
//!
//! The choices at each level come in a fixed order; the index is the sum, over the levels,
//! of the sizes of the subtrees of the choices before the one taken. A placement and its
//! mirror image get one index: the walk is made in the canonical orientation, where the
//! first part that is not its own mirror image (Red's own half, else Black's, else the
//! first tail group) stands in its canonical form:
//!
//! - an own half in Red's orientation (Black's flipped top to bottom) has a key (palace
//!   point of the king, then the colex ranks of its advisor points, elephant points and
//!   pawn files, then which pawns stand one step forward); of a placement and its mirror
//!   image, the one with the smaller key is canonical, the *entry* of the pair;
//! - a tail group is canonical when the lowest of its *singles* (points whose mirror
//!   image the group does not hold), seen on the left half, stands on the left.
//!
//! The entries of a side: the asymmetric ones first, then the symmetric ones, each by key.
//! Red's choices are its entries. Black's choices: when Red's entry is asymmetric, every
//! placement (the entries as they stand, then the mirror images of the asymmetric ones);
//! when it is symmetric, its entries. A tail group, once the orientation is fixed, chooses
//! a set of its size among the empty points of its region, in colex order of their numbers
//! (points numbered in square order). While everything placed so far is symmetric (the
//! tail is *folded*), it chooses among the canonical sets only: the asymmetric ones first,
//! by (centre points, doubles, centre set, double set, single set, which singles stand on
//! the right), then the symmetric ones, by (doubles, centre set, double set).
//!
//! A subtree's size: with the orientation fixed, the product over the groups left of the
//! number of ways to place each; folded, the number of mirror classes of the groups left,
//! (all + symmetric) / 2.

use super::Material;
use crate::board::{Bitboard, Color, Piece, Role, Square};

mod half;

use half::{binom, colex_rank, colex_unrank, left_files, subsets, Entries, Half};

/// A tail group: a kind of piece and the points it may take.
struct Group {
    piece: Piece,
    region: Bitboard,
    count: u64,
}

/// A block of the index: one number of unpassed pawns per side.
struct Split {
    unpassed: [u8; 2],
    entries: [Entries; 2],
    groups: Vec<Group>,
    offset: u64,
    /// Size of the block of each of Red's entries.
    red_blocks: Vec<u64>,
}

impl Split {
    /// Black's choices after Red's entry `ir` (Black's placements in Red's orientation).
    fn black_choices(&self, ir: usize) -> Vec<Half> {
        let [red, black] = &self.entries;
        let mut out = black.list.clone();
        if !red.symmetric(ir) {
            out.extend(black.list[..black.asym].iter().map(|h| h.mirror()));
        }
        out
    }

    /// The points the own halves take.
    fn own_points(red: Half, black: Half) -> Bitboard {
        red.all() | black.all().flip()
    }

    /// Ways to place the groups from `j` on, with `occ` taken, the orientation fixed.
    /// The regions are nested or disjoint, so how many of each earlier group stand in a
    /// later group's region is all or none.
    fn full_size(&self, j: usize, occ: Bitboard) -> u64 {
        let mut n = 1;
        for (k, g) in self.groups.iter().enumerate().skip(j) {
            let earlier: u64 = self.groups[j..k]
                .iter()
                .filter(|e| e.region & g.region == e.region)
                .map(|e| e.count)
                .sum();
            n *= binom((g.region & !occ).count() as u64 - earlier, g.count);
        }
        n
    }

    /// Symmetric ways to place the groups from `j` on, with a symmetric `occ` taken. A
    /// group takes `c` centre points and `d` mirror pairs (c + 2d = count); what is left
    /// for the later groups depends only on how many, so one representative of each
    /// (c, d) stands for all.
    fn sym_size(&self, j: usize, occ: Bitboard) -> u64 {
        let Some(g) = self.groups.get(j) else {
            return 1;
        };
        let free = g.region & !occ;
        let centres = free & Bitboard::file(4);
        let pairs = free & left_files();
        (0..=g.count / 2)
            .map(|d| {
                let c = g.count - 2 * d;
                let ways = binom(centres.count() as u64, c) * binom(pairs.count() as u64, d);
                if ways == 0 {
                    return 0;
                }
                let lefts = pairs.take(d as usize).collect::<Bitboard>();
                let taken = centres.take(c as usize).collect::<Bitboard>() | lefts | lefts.mirror();
                ways * self.sym_size(j + 1, occ | taken)
            })
            .sum()
    }

    /// Mirror classes of the groups from `j` on, with a symmetric `occ` taken.
    fn folded_size(&self, j: usize, occ: Bitboard) -> u64 {
        (self.full_size(j, occ) + self.sym_size(j, occ)) / 2
    }

    /// Size of the subtree below group `j` choosing `set` (folded before it).
    fn after_folded(&self, j: usize, occ: Bitboard, set: Bitboard) -> u64 {
        if set == set.mirror() {
            self.folded_size(j + 1, occ | set)
        } else {
            self.full_size(j + 1, occ | set)
        }
    }

    /// Size of the subtree of Red's entry `r` and Black's placement `b`.
    fn pair_size(&self, r: Half, b: Half) -> u64 {
        let occ = Split::own_points(r, b);
        if r == r.mirror() && b == b.mirror() {
            self.folded_size(0, occ)
        } else {
            self.full_size(0, occ)
        }
    }

    /// The canonical sets group `j` may take while everything before it is symmetric,
    /// in order.
    fn folded_choices(&self, j: usize, occ: Bitboard) -> Vec<Bitboard> {
        let g = &self.groups[j];
        let free = g.region & !occ;
        let mut sets: Vec<(Vec<u64>, Bitboard)> = subsets(free, g.count)
            .filter_map(|set| fold_key(free, set).map(|k| (k, set)))
            .collect();
        sets.sort_by(|a, b| a.0.cmp(&b.0));
        sets.into_iter().map(|(_, set)| set).collect()
    }
}

/// Order key of a group's set `set` among the canonical sets of the empty points `free`
/// (symmetric), None when the set is not canonical.
fn fold_key(free: Bitboard, set: Bitboard) -> Option<Vec<u64>> {
    let left = left_files();
    let centres = set & Bitboard::file(4);
    let lefts = set & left;
    let rights = (set & left.mirror()).mirror();
    let doubles = lefts & rights;
    let singles = lefts ^ rights;
    let c = colex_rank(free & Bitboard::file(4), centres);
    let d = colex_rank(free & left, doubles);
    let Some(lowest) = singles.first() else {
        return Some(vec![1, doubles.count() as u64, c, d]);
    };
    if !lefts.contains(lowest) {
        return None;
    }
    let s = colex_rank(free & left & !doubles, singles);
    let on_right: u64 = singles
        .enumerate()
        .skip(1)
        .map(|(i, q)| (rights.contains(q) as u64) << (i - 1))
        .sum();
    let counts = [centres.count(), doubles.count()].map(u64::from);
    Some(vec![0, counts[0], counts[1], c, d, s, on_right])
}

/// A placement split into its parts, Black's own half in Red's orientation.
#[derive(Clone, PartialEq, Eq)]
struct Parts {
    red: Half,
    black: Half,
    tail: Vec<Bitboard>,
}

impl Parts {
    fn mirror(&self) -> Parts {
        Parts {
            red: self.red.mirror(),
            black: self.black.mirror(),
            tail: self.tail.iter().map(|t| t.mirror()).collect(),
        }
    }

    /// The canonical orientation of the placement (see the module documentation).
    fn canonical(self) -> Parts {
        let m = self.mirror();
        let keep = if self.red != m.red {
            self.red.key() < m.red.key()
        } else if self.black != m.black {
            self.black.key() < m.black.key()
        } else {
            match self.tail.iter().find(|t| **t != t.mirror()) {
                None => true,
                Some(&t) => {
                    let left = left_files();
                    let singles = (t & left) ^ (t & left.mirror()).mirror();
                    let lowest = singles.first().expect("an asymmetric set has singles");
                    t.contains(lowest)
                }
            }
        };
        if keep {
            self
        } else {
            m
        }
    }
}

/// The index numbering, computed the slow way.
pub(super) struct Reference {
    material: Material,
    splits: Vec<Split>,
    size: u64,
}

impl Reference {
    pub(super) fn new(material: Material) -> Reference {
        let n = |c: Color, r: Role| material.count(c, r);
        let pawns = [n(Color::Red, Role::Pawn), n(Color::Black, Role::Pawn)];
        let mut splits = Vec::new();
        let mut offset = 0u64;
        for ur in 0..=pawns[0] {
            for ub in 0..=pawns[1] {
                let entries = [(Color::Red, ur), (Color::Black, ub)]
                    .map(|(c, u)| Entries::new(n(c, Role::Advisor), n(c, Role::Elephant), u));
                if entries.iter().any(|e| e.list.is_empty()) {
                    continue;
                }
                let mut groups = Vec::new();
                let passed = [
                    (Color::Black, ub, Bitboard::RED_HALF),
                    (Color::Red, ur, Bitboard::BLACK_HALF),
                ];
                for (c, u, region) in passed {
                    let count = (pawns[c.index()] - u) as u64;
                    if count > 0 {
                        let piece = Piece::new(c, Role::Pawn);
                        groups.push(Group {
                            piece,
                            region,
                            count,
                        });
                    }
                }
                for r in [Role::Rook, Role::Horse, Role::Cannon] {
                    for c in Color::ALL {
                        if n(c, r) > 0 {
                            let (piece, count) = (Piece::new(c, r), n(c, r) as u64);
                            groups.push(Group {
                                piece,
                                region: Bitboard::FULL,
                                count,
                            });
                        }
                    }
                }
                let mut split = Split {
                    unpassed: [ur, ub],
                    entries,
                    groups,
                    offset,
                    red_blocks: Vec::new(),
                };
                split.red_blocks = (0..split.entries[0].list.len())
                    .map(|ir| {
                        let r = split.entries[0].list[ir];
                        let blacks = split.black_choices(ir);
                        blacks.into_iter().map(|b| split.pair_size(r, b)).sum()
                    })
                    .collect();
                offset += split.red_blocks.iter().sum::<u64>();
                splits.push(split);
            }
        }
        Reference {
            material,
            splits,
            size: offset,
        }
    }

    pub(super) fn size(&self) -> u64 {
        self.size
    }

    /// The first index and the size of each split.
    pub(super) fn splits(&self) -> Vec<(u64, u64)> {
        let ends = self
            .splits
            .iter()
            .skip(1)
            .map(|s| s.offset)
            .chain([self.size]);
        self.splits
            .iter()
            .zip(ends)
            .map(|(s, e)| (s.offset, e - s.offset))
            .collect()
    }

    /// The first index and the size of every block whose own halves are both symmetric
    /// (the folded tails).
    pub(super) fn folded_blocks(&self) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for split in &self.splits {
            let mut x = split.offset;
            for (ir, &r) in split.entries[0].list.iter().enumerate() {
                for b in split.black_choices(ir) {
                    let size = split.pair_size(r, b);
                    if r == r.mirror() && b == b.mirror() {
                        out.push((x, size));
                    }
                    x += size;
                }
            }
        }
        out
    }

    /// The index of a placement; None when it has another material or a piece stands
    /// where the index cannot place it.
    pub(super) fn rank(&self, pieces: &[(Piece, Square)]) -> Option<u64> {
        let mut counts = [[0u8; 7]; 2];
        for &(p, _) in pieces {
            counts[p.color.index()][p.role.index()] += 1;
        }
        let all: Bitboard = pieces.iter().map(|&(_, s)| s).collect();
        if counts != self.material.counts() || all.count() as usize != pieces.len() {
            return None;
        }
        let on = |c: Color, r: Role| -> Bitboard {
            pieces
                .iter()
                .filter(|(p, _)| *p == Piece::new(c, r))
                .map(|&(_, s)| s)
                .collect()
        };
        let own_half = [Bitboard::RED_HALF, Bitboard::BLACK_HALF];
        let unpassed = |c: Color| on(c, Role::Pawn) & own_half[c.index()];
        let unpassed_counts = [Color::Red, Color::Black].map(|c| unpassed(c).count() as u8);
        let split = self.splits.iter().find(|s| s.unpassed == unpassed_counts)?;
        // Black's own half seen from Red's side
        let half = |c: Color, view: fn(Bitboard) -> Bitboard| Half {
            king: view(on(c, Role::King)).first().expect("one king"),
            advisors: view(on(c, Role::Advisor)),
            elephants: view(on(c, Role::Elephant)),
            pawns: view(unpassed(c)),
        };
        let parts = Parts {
            red: half(Color::Red, |b| b),
            black: half(Color::Black, Bitboard::flip),
            tail: split
                .groups
                .iter()
                .map(|g| on(g.piece.color, g.piece.role) & g.region)
                .collect(),
        };
        if !parts.red.valid() || !parts.black.valid() {
            return None;
        }
        let Parts { red, black, tail } = parts.canonical();
        let [reds, _] = &split.entries;
        let ir = reds.list.iter().position(|&h| h == red)?;
        let blacks = split.black_choices(ir);
        let ib = blacks.iter().position(|&h| h == black)?;
        let mut x = split.offset + split.red_blocks[..ir].iter().sum::<u64>();
        x += blacks[..ib]
            .iter()
            .map(|&b| split.pair_size(red, b))
            .sum::<u64>();
        let mut occ = Split::own_points(red, black);
        let mut folded = red == red.mirror() && black == black.mirror();
        for (j, (g, &set)) in split.groups.iter().zip(&tail).enumerate() {
            if folded {
                let choices = split.folded_choices(j, occ);
                let k = choices.iter().position(|&c| c == set)?;
                x += choices[..k]
                    .iter()
                    .map(|&c| split.after_folded(j, occ, c))
                    .sum::<u64>();
                folded = set == set.mirror();
            } else {
                x += colex_rank(g.region & !occ, set) * split.full_size(j + 1, occ | set);
            }
            occ |= set;
        }
        Some(x)
    }

    /// The canonical placement with index `x`, in no particular order; None when out of
    /// range.
    pub(super) fn unrank(&self, mut x: u64) -> Option<Vec<(Piece, Square)>> {
        if x >= self.size {
            return None;
        }
        let split = self.splits.iter().rev().find(|s| s.offset <= x)?;
        x -= split.offset;
        let mut ir = 0;
        while x >= split.red_blocks[ir] {
            x -= split.red_blocks[ir];
            ir += 1;
        }
        let red = split.entries[0].list[ir];
        let mut black = None;
        for b in split.black_choices(ir) {
            let size = split.pair_size(red, b);
            if x < size {
                black = Some(b);
                break;
            }
            x -= size;
        }
        let black = black?;
        let mut out = Vec::new();
        let mut put = |c: Color, r: Role, squares: Bitboard| {
            out.extend(squares.map(|s| (Piece::new(c, r), s)));
        };
        for (c, h, view) in [
            (Color::Red, red, (|b| b) as fn(Bitboard) -> Bitboard),
            (Color::Black, black, Bitboard::flip),
        ] {
            put(c, Role::King, view(Bitboard::from_square(h.king)));
            put(c, Role::Advisor, view(h.advisors));
            put(c, Role::Elephant, view(h.elephants));
            put(c, Role::Pawn, view(h.pawns));
        }
        let mut occ = Split::own_points(red, black);
        let mut folded = red == red.mirror() && black == black.mirror();
        for (j, g) in split.groups.iter().enumerate() {
            let set = if folded {
                let mut chosen = None;
                for c in split.folded_choices(j, occ) {
                    let size = split.after_folded(j, occ, c);
                    if x < size {
                        chosen = Some(c);
                        break;
                    }
                    x -= size;
                }
                let set = chosen?;
                folded = set == set.mirror();
                set
            } else {
                let free = g.region & !occ;
                // the subtree of every set has the size of the first one's
                let rest = split.full_size(j + 1, occ | colex_unrank(free, g.count, 0));
                let set = colex_unrank(free, g.count, x / rest);
                x %= rest;
                set
            };
            put(g.piece.color, g.piece.role, set);
            occ |= set;
        }
        Some(out)
    }
}
