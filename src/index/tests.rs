//! The fast routes against the plain reference ([`super::reference`]): every route forced
//! in turn, on materials that take it, in property tests (a bounded number of cases, in
//! the normal test run) and at the ends of the splits near 2^32.

use super::reference::Reference;
use super::{Material, PieceList, PlacementIndex};
use crate::board::attacks::reachable;
use crate::board::{Color, Piece, Position, Role, Setup, Square};
use proptest::prelude::*;
use std::sync::OnceLock;

/// The fast routes an index may take (see the table in [`super`]), each of which can be
/// switched off; the general path is always there.
#[derive(Clone, Copy, Debug)]
struct Routes {
    /// Tables per pair of own-half placements.
    pairs: bool,
    /// Their table of king pairs.
    king_pairs: bool,
    /// Pawnless lists read and written in place.
    flat: bool,
    /// Splits whose tail pieces are each alone of their kind.
    plain: bool,
    /// Lists in kind order read without sorting.
    ordered: bool,
    /// The general path's single-piece tails (else every tail as sets).
    singles: bool,
}

const ALL: Routes = Routes {
    pairs: true,
    king_pairs: true,
    flat: true,
    plain: true,
    ordered: true,
    singles: true,
};

const ROUTES: [(&str, Routes); 7] = [
    ("every route", ALL),
    (
        "no pair tables",
        Routes {
            pairs: false,
            ..ALL
        },
    ),
    (
        "no king-pair table",
        Routes {
            king_pairs: false,
            ..ALL
        },
    ),
    ("no flat lists", Routes { flat: false, ..ALL }),
    (
        "no kind-order reading",
        Routes {
            ordered: false,
            ..ALL
        },
    ),
    (
        "general path",
        Routes {
            pairs: false,
            flat: false,
            plain: false,
            ..ALL
        },
    ),
    (
        "general path, sets only",
        Routes {
            pairs: false,
            flat: false,
            plain: false,
            singles: false,
            ..ALL
        },
    ),
];

/// The index of `m` restricted to `r`.
fn build(m: Material, r: Routes) -> PlacementIndex {
    let mut idx = PlacementIndex::new(m).expect("the test materials fit in 64 bits");
    for s in &mut idx.splits {
        if !(r.pairs && r.plain) {
            s.pairs = None;
        }
        if let (false, Some(p)) = (r.king_pairs, &mut s.pairs) {
            p.drop_king_table();
        }
        s.plain &= r.plain;
        if !r.singles {
            s.tail.force_masks();
        }
    }
    idx.flat &= r.flat && r.plain;
    if !r.ordered {
        // a piece code no list holds: every list is sorted by kind
        idx.order = [u16::MAX; 32];
    }
    idx
}

/// A material with its reference and its index under each set of routes.
struct Fixture {
    material: Material,
    reference: Reference,
    /// The reference's blocks of folded tails.
    folded: Vec<(u64, u64)>,
    indexes: Vec<(&'static str, PlacementIndex)>,
}

impl Fixture {
    fn new(m: &str) -> Fixture {
        let material: Material = m.parse().expect("a material");
        let reference = Reference::new(material);
        Fixture {
            material,
            folded: reference.folded_blocks(),
            reference,
            indexes: ROUTES
                .iter()
                .map(|&(n, r)| (n, build(material, r)))
                .collect(),
        }
    }
}

/// Materials that between them take every route: pair tables with and without the king
/// table (KRNKR, KRKAA), flat lists without pair tables (KCNKAB, past the limit of pairs;
/// KAABBKAABB, with no tail at all), plain pawn splits (KCPKA, KRPKP), a split whose
/// single passed pawn shares its kind with an unpassed one (KPPKAB), groups of several
/// passed pawns and of identical pieces (KPPPKPP, KRRKCC, KNNKAA), and a mixture.
const MATERIALS: [&str; 12] = [
    "KK",
    "KRNKR",
    "KRKAA",
    "KCNKAB",
    "KAABBKAABB",
    "KCPKA",
    "KRPKP",
    "KPPKAB",
    "KPPPKPP",
    "KRRKCC",
    "KNNKAA",
    "KRCPKRAA",
];

fn fixtures() -> &'static [Fixture] {
    static F: OnceLock<Vec<Fixture>> = OnceLock::new();
    F.get_or_init(|| MATERIALS.iter().map(|m| Fixture::new(m)).collect())
}

fn sorted(list: &[(Piece, Square)]) -> Vec<(Square, Piece)> {
    let mut v: Vec<_> = list.iter().map(|&(p, s)| (s, p)).collect();
    v.sort();
    v
}

/// Index `i` decodes alike by the reference and by every form of `idx`, and every form of
/// the placement (kind order, reversed, mirrored, a setup, a position) ranks back to `i`.
fn check_index(f: &Fixture, route: &str, idx: &PlacementIndex, i: u64) {
    let m = f.material;
    let slow = f.reference.unrank(i).expect("in range");
    let fast = idx.unrank_pieces(i).expect("in range");
    assert_eq!(sorted(&fast), sorted(&slow), "{m} {i}, {route}: unrank");
    let mut out = PieceList::new();
    assert!(idx.unrank_into(i, &mut out));
    assert_eq!(out, fast, "{m} {i}, {route}: unrank_into");
    check_unrank_tail(f, route, idx, i);
    let setup = idx.unrank(i).expect("in range");
    assert_eq!(
        sorted(&setup.pieces().map(|(s, p)| (p, s)).collect::<Vec<_>>()),
        sorted(&slow)
    );
    assert_eq!(
        idx.rank_pieces(&fast),
        Ok(i),
        "{m} {i}, {route}: kind order"
    );
    let mut reversed = fast.clone();
    reversed.reverse();
    assert_eq!(
        idx.rank_pieces(&reversed),
        Ok(i),
        "{m} {i}, {route}: reversed"
    );
    let mirrored: Vec<_> = fast.iter().map(|&(p, s)| (p, s.mirror())).collect();
    assert_eq!(
        idx.rank_pieces(&mirrored),
        Ok(i),
        "{m} {i}, {route}: mirrored"
    );
    assert_eq!(idx.rank(&setup), Ok(i), "{m} {i}, {route}: setup");
    assert_eq!(
        idx.rank(&setup.mirror()),
        Ok(i),
        "{m} {i}, {route}: mirrored setup"
    );
    if let Ok(pos) = Position::from_pieces(&mirrored, Color::Red) {
        assert_eq!(
            idx.rank_position(&pos),
            Some(i),
            "{m} {i}, {route}: position"
        );
    }
}

/// [`PlacementIndex::unrank_tail`] of index `i` writes what [`PlacementIndex::unrank_into`]
/// writes and gives what [`PlacementIndex::prepare_tail`] gives for it.
fn check_unrank_tail(f: &Fixture, route: &str, idx: &PlacementIndex, i: u64) {
    let m = f.material;
    let mut want = PieceList::new();
    assert!(idx.unrank_into(i, &mut want));
    let mut got = PieceList::new();
    let ctx = idx.unrank_tail(i, &mut got);
    assert_eq!(got, want, "{m} {i}, {route}: unrank_tail's list");
    assert_eq!(
        format!("{ctx:?}"),
        format!("{:?}", Some(idx.prepare_tail(&want))),
        "{m} {i}, {route}: unrank_tail's context"
    );
    let mut out = PieceList::new();
    assert!(idx.unrank_tail(idx.size(), &mut out).is_none());
    assert!(out.is_empty());
}

/// Every un-move of a tail piece of placement `i` to an empty point ranks alike by
/// [`PlacementIndex::rank_tail_piece_each`] from [`PlacementIndex::unrank_tail`]'s context
/// (the pair row's E-ranks where it was prepared through the pair tables) and by the
/// reference.
fn check_tail_unmoves(f: &Fixture, route: &str, idx: &PlacementIndex, i: u64) {
    let m = f.material;
    let mut pieces = PieceList::new();
    let Some(Some(ctx)) = idx.unrank_tail(i, &mut pieces) else {
        return;
    };
    let occupied: u128 = pieces.iter().fold(0, |o, &(_, s)| o | s.bit());
    for (k, &(p, from)) in pieces.iter().enumerate() {
        let Some(tp) = idx.tail_piece(&ctx, from) else {
            continue;
        };
        let targets: Vec<Square> = Square::ALL
            .into_iter()
            .filter(|&s| occupied & s.bit() == 0)
            .collect();
        let mut got = Vec::new();
        let all = targets.iter().fold(0u128, |o, s| o | s.bit());
        idx.rank_tail_piece_each(&tp, all, |q| got.push(q));
        let want: Vec<u64> = targets
            .iter()
            .filter_map(|&to| {
                let mut moved = pieces.to_vec();
                moved[k].1 = to;
                f.reference.rank(&moved)
            })
            .collect();
        assert_eq!(got, want, "{m} {i} {p:?} {from}, {route}: un-moves");
    }
}

/// The one-pass unranking with its tail context agrees with the two passes on a stride of
/// every index of KRNKR (the king table's route: asymmetric, folded and centre-file
/// placements alike) under every set of routes.
#[test]
fn unrank_tail_agrees_with_prepare_tail() {
    let f = fixtures()
        .iter()
        .find(|f| f.material.to_string() == "KRNKR")
        .expect("KRNKR is a fixture");
    for (route, idx) in &f.indexes {
        // a stride prime to the blocks' lengths reaches every row; the ends too
        let size = idx.size();
        for i in (0..size).step_by(4999).chain([size - 1]) {
            check_unrank_tail(f, route, idx, i);
        }
    }
    // the folded blocks (both kings on the centre file) more densely
    let (_, idx) = &f.indexes[0];
    for &(start, len) in &f.folded {
        for i in (start..start + len).step_by(97) {
            check_unrank_tail(f, "every route", idx, i);
        }
    }
    // the un-moves of the tail pieces from the one-pass context, against the reference
    for (route, idx) in &f.indexes {
        for i in (0..idx.size()).step_by(99_991) {
            check_tail_unmoves(f, route, idx, i);
        }
    }
}

/// A placement with a square drawn for each piece among the points it can reach (two
/// pieces may draw one point).
fn draw_placement(m: Material, draws: &[u64]) -> Vec<(Piece, Square)> {
    let mut out = Vec::new();
    for c in Color::ALL {
        for r in Role::ALL {
            for _ in 0..m.count(c, r) {
                let points: Vec<Square> = reachable(c, r).collect();
                let d = draws[out.len() % draws.len()];
                out.push((Piece::new(c, r), points[(d % points.len() as u64) as usize]));
            }
        }
    }
    out
}

/// The placement ranks alike by the reference and by every route (an index, or none);
/// with the index, each move of a tail piece within its region ranks alike by
/// [`PlacementIndex::rank_tail_move`], by [`PlacementIndex::rank_tail_piece`] (where it
/// applies) and by the reference.
fn check_placement(f: &Fixture, pieces: &[(Piece, Square)]) {
    let m = f.material;
    let expected = f.reference.rank(pieces);
    let occupied: u128 = pieces.iter().fold(0, |o, &(_, s)| o | s.bit());
    for (route, idx) in &f.indexes {
        let got = idx.rank_pieces(pieces);
        assert_eq!(
            got.as_ref().ok(),
            expected.as_ref(),
            "{m} {pieces:?}, {route}"
        );
        let mut setup = Setup::empty();
        for &(p, s) in pieces {
            setup.put(s, p);
        }
        if occupied.count_ones() as usize == pieces.len() {
            assert_eq!(
                idx.rank(&setup).ok(),
                expected,
                "{m} {pieces:?}, {route}: setup"
            );
        }
        let Some(ctx) = expected.and_then(|_| idx.prepare_tail(pieces)) else {
            continue;
        };
        for (k, &(p, from)) in pieces.iter().enumerate() {
            if p.role == Role::King {
                // each empty point of the palace: the king table's route, where it applies
                for to in reachable(p.color, Role::King) {
                    if occupied & to.bit() != 0 {
                        continue;
                    }
                    let mut moved = pieces.to_vec();
                    moved[k].1 = to;
                    let want = f.reference.rank(&moved);
                    if let Some(got) = idx.rank_king_move(&ctx, from, to) {
                        assert_eq!(Some(got), want, "{m} {pieces:?} {from}{to}, {route}: king");
                    }
                }
                continue;
            }
            let passed = |s: Square| (p.color == Color::Red) == (s.rank() >= 5);
            let tail = match p.role {
                Role::Rook | Role::Horse | Role::Cannon => true,
                Role::Pawn => passed(from),
                _ => false,
            };
            if !tail {
                continue;
            }
            let piece = idx.tail_piece(&ctx, from);
            for to in Square::ALL {
                if to == from || (p.role == Role::Pawn && !passed(to)) {
                    continue;
                }
                let mut moved = pieces.to_vec();
                moved[k].1 = to;
                let want = f.reference.rank(&moved);
                let got = idx.rank_tail_move(&ctx, from, to);
                assert_eq!(got, want, "{m} {pieces:?} {from}{to}, {route}: tail move");
                if let Some(tp) = &piece {
                    let got = idx.rank_tail_piece(tp, to);
                    assert_eq!(got, want, "{m} {pieces:?} {from}{to}, {route}: tail piece");
                    // the set form, for an empty target (the un-moves' case)
                    if occupied & to.bit() == 0 {
                        let mut each = Vec::new();
                        idx.rank_tail_piece_each(tp, to.bit(), |q| each.push(q));
                        let want: Vec<u64> = want.into_iter().collect();
                        assert_eq!(each, want, "{m} {pieces:?} {from}{to}, {route}: each");
                    }
                }
            }
        }
    }
}

/// The king table's route of king moves is taken (KRNKR: kings alone on their halves) and
/// agrees with the reference, folded placements (both kings on the centre file) included.
#[test]
fn king_moves_by_the_king_table() {
    let f = Fixture::new("KRNKR");
    let (_, idx) = &f.indexes[0];
    let sq = |s: &str| s.parse::<Square>().expect("a square");
    let pc = |c, r| Piece::new(c, r);
    let pieces = [
        (pc(Color::Red, Role::King), sq("d0")),
        (pc(Color::Red, Role::Horse), sq("c4")),
        (pc(Color::Red, Role::Rook), sq("h7")),
        (pc(Color::Black, Role::King), sq("e9")),
        (pc(Color::Black, Role::Rook), sq("a2")),
    ];
    let ctx = idx.prepare_tail(&pieces).expect("an asymmetric placement");
    let mut taken = 0;
    for (k, to) in [(0, "d1"), (0, "e0"), (3, "d9"), (3, "e8"), (3, "f9")] {
        let mut moved = pieces.to_vec();
        moved[k].1 = sq(to);
        let got = idx.rank_king_move(&ctx, pieces[k].1, sq(to));
        if got.is_some() {
            taken += 1;
            assert_eq!(got, f.reference.rank(&moved), "{to}");
        }
        assert_eq!(
            idx.rank_pieces(&moved).ok(),
            f.reference.rank(&moved),
            "{to}"
        );
    }
    // e0-e9 is both kings on the centre file: folded, the first tail piece off it
    assert_eq!(taken, 5);
}

#[test]
fn sizes_agree_with_the_reference() {
    for f in fixtures() {
        for (route, idx) in &f.indexes {
            assert_eq!(idx.size(), f.reference.size(), "{}, {route}", f.material);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random indexes of every material decode and rank alike by every route: one drawn
    /// from all indexes, one from the blocks whose own halves are both symmetric (the
    /// folded tails, a small part of the whole).
    #[test]
    fn random_indexes_agree_with_the_reference(x in any::<u64>(), y in any::<u64>()) {
        for f in fixtures() {
            let folded = &f.folded;
            let (start, len) = folded[(y % folded.len() as u64) as usize];
            for i in [x % f.reference.size(), start + x % len] {
                for (route, idx) in &f.indexes {
                    check_index(f, route, idx, i);
                }
            }
        }
    }

    /// Random placements (valid or not, pieces possibly stacked) rank alike by every
    /// route, and so do their tail moves.
    #[test]
    fn random_placements_agree_with_the_reference(draws in prop::collection::vec(any::<u64>(), 32)) {
        for f in fixtures() {
            check_placement(f, &draw_placement(f.material, &draws));
        }
    }
}

/// Indexes at both ends of every split and around 2^32 (within the index and within a
/// split), for materials whose splits lie on either side of 2^32: KNCAKCP has a split
/// longer than 2^32, KCCPBKC a second split starting below 2^32 and ending above it.
#[test]
fn splits_near_2_32_agree_with_the_reference() {
    const B: u64 = 1 << 32;
    for m in ["KNCAKCP", "KCCPBKC"] {
        let f = Fixture::new(m);
        let size = f.reference.size();
        assert!(size > B, "{m}: {size}");
        let mut picks = vec![B - 2, B - 1, B, B + 1];
        for (start, len) in f.reference.splits() {
            let end = start + len;
            picks.extend([start, start + 1, end - 2, end - 1]);
            if len > B {
                picks.extend([start + B - 1, start + B, start + B + 1]);
            }
        }
        picks.retain(|&i| i < size);
        for i in picks {
            for (route, idx) in &f.indexes {
                check_index(&f, route, idx, i);
            }
        }
    }
}
