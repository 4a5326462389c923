//! The counting helpers of the reference numbering (binomials, colex ranks of point sets)
//! and one side's own-half placements with their entries (see the parent module's
//! documentation for the order).

use crate::board::attacks::reachable;
use crate::board::{Bitboard, Color, Role, Square};

/// C(n, k), exactly.
pub(super) fn binom(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    // C(n, i + 1) = C(n, i) · (n - i) / (i + 1), an integer at every step
    (0..k).fold(1u128, |c, i| c * (n - i) as u128 / (i + 1) as u128) as u64
}

/// Number of the points of `points` below `s` (the points numbered in square order).
pub(super) fn number(points: Bitboard, s: Square) -> u64 {
    points.filter(|&q| q < s).count() as u64
}

/// Colex rank of `set` among `points`: over its members in increasing order, the sum of
/// C(number, i + 1).
pub(super) fn colex_rank(points: Bitboard, set: Bitboard) -> u64 {
    set.enumerate()
        .map(|(i, s)| binom(number(points, s), i as u64 + 1))
        .sum()
}

/// The set of `k` points of `points` with colex rank `x`.
pub(super) fn colex_unrank(points: Bitboard, k: u64, mut x: u64) -> Bitboard {
    let list: Vec<Square> = points.collect();
    let mut set = Bitboard::EMPTY;
    for i in (1..=k).rev() {
        // the highest member: the largest number v with C(v, i) <= x
        let v = (0..list.len() as u64)
            .rev()
            .find(|&v| binom(v, i) <= x)
            .expect("C(0, i) = 0");
        x -= binom(v, i);
        set = set.with(list[v as usize]);
    }
    set
}

/// Every `k`-point subset of `points`.
pub(super) fn subsets(points: Bitboard, k: u64) -> impl Iterator<Item = Bitboard> {
    (0..binom(points.count() as u64, k)).map(move |x| colex_unrank(points, k, x))
}

/// Files a-d.
pub(super) fn left_files() -> Bitboard {
    (0..4)
        .map(Bitboard::file)
        .fold(Bitboard::EMPTY, |a, b| a | b)
}

/// The points of Red's unpassed pawns: ranks 3 and 4 of files a, c, e, g and i.
pub(super) fn pawn_points() -> Bitboard {
    reachable(Color::Red, Role::Pawn) & Bitboard::RED_HALF
}

/// One side's own-half pieces in Red's orientation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Half {
    pub(super) king: Square,
    pub(super) advisors: Bitboard,
    pub(super) elephants: Bitboard,
    pub(super) pawns: Bitboard,
}

impl Half {
    pub(super) fn all(self) -> Bitboard {
        Bitboard::from_square(self.king) | self.advisors | self.elephants | self.pawns
    }

    pub(super) fn mirror(self) -> Half {
        Half {
            king: self.king.mirror(),
            advisors: self.advisors.mirror(),
            elephants: self.elephants.mirror(),
            pawns: self.pawns.mirror(),
        }
    }

    pub(super) fn key(self) -> [u64; 5] {
        // the pawns' files as their points on rank 3
        let files: Bitboard = self
            .pawns
            .map(|s| Square::from_coords(s.file(), 3).expect("a file"))
            .collect();
        // which pawns stand on rank 4, a bit each in the order of their files
        let mut pawns: Vec<Square> = self.pawns.collect();
        pawns.sort_by_key(|s| s.file());
        let steps = pawns
            .iter()
            .enumerate()
            .map(|(i, s)| ((s.rank() == 4) as u64) << i)
            .sum();
        [
            number(Bitboard::RED_PALACE, self.king),
            colex_rank(reachable(Color::Red, Role::Advisor), self.advisors),
            colex_rank(reachable(Color::Red, Role::Elephant), self.elephants),
            colex_rank(pawn_points() & Bitboard::rank(3), files),
            steps,
        ]
    }

    /// Every piece on a point of its kind, one per point, one pawn per file.
    pub(super) fn valid(self) -> bool {
        let mut files: Vec<u8> = self.pawns.map(|s| s.file()).collect();
        files.sort();
        Bitboard::RED_PALACE.contains(self.king)
            && self.advisors & !reachable(Color::Red, Role::Advisor) == Bitboard::EMPTY
            && self.elephants & !reachable(Color::Red, Role::Elephant) == Bitboard::EMPTY
            && self.pawns & !pawn_points() == Bitboard::EMPTY
            && files.windows(2).all(|w| w[0] != w[1])
            && self.all().count()
                == 1 + self.advisors.count() + self.elephants.count() + self.pawns.count()
    }
}

/// The own-half entries of one side for its counts (see the module documentation).
pub(super) struct Entries {
    pub(super) list: Vec<Half>,
    pub(super) asym: usize,
}

impl Entries {
    pub(super) fn new(advisors: u8, elephants: u8, pawns: u8) -> Entries {
        let mut all = Vec::new();
        for king in Bitboard::RED_PALACE {
            for a in subsets(reachable(Color::Red, Role::Advisor), advisors as u64) {
                for e in subsets(reachable(Color::Red, Role::Elephant), elephants as u64) {
                    for files in subsets(pawn_points() & Bitboard::rank(3), pawns as u64) {
                        for steps in 0..1u32 << pawns {
                            let forward = |(i, s): (usize, Square)| {
                                s.offset(0, (steps >> i & 1) as i8).expect("rank 4")
                            };
                            let h = Half {
                                king,
                                advisors: a,
                                elephants: e,
                                pawns: files.enumerate().map(forward).collect(),
                            };
                            if h.valid() {
                                all.push(h);
                            }
                        }
                    }
                }
            }
        }
        let mut asym: Vec<Half> = all
            .iter()
            .copied()
            .filter(|h| h.key() < h.mirror().key())
            .collect();
        let mut sym: Vec<Half> = all.into_iter().filter(|h| *h == h.mirror()).collect();
        asym.sort_by_key(|h| h.key());
        sym.sort_by_key(|h| h.key());
        Entries {
            asym: asym.len(),
            list: asym.into_iter().chain(sym).collect(),
        }
    }

    pub(super) fn symmetric(&self, i: usize) -> bool {
        i >= self.asym
    }
}
