//! The placement index: exhaustive round trips and brute-force enumeration.

mod common;
use common::{all_placements, rng};
use rand::Rng;
use std::collections::HashSet;
use xqdb::board::{Color, Piece, Position, Role, Setup, Square};
use xqdb::index::{IndexError, Material, PlacementIndex};

fn key(s: &Setup) -> Vec<(u8, u8)> {
    s.pieces()
        .map(|(sq, p)| (sq as u8, p.index() as u8))
        .collect()
}

fn round_trip_all(m: Material) -> u64 {
    let idx = PlacementIndex::new(m).unwrap();
    for i in 0..idx.size() {
        let s = idx.unrank(i).unwrap();
        assert_eq!(Material::of_setup(&s), m, "{m} index {i}");
        assert!(
            s.validate_placement().is_ok(),
            "{m} index {i}: {}",
            s.board_fen()
        );
        assert_eq!(idx.rank(&s), Ok(i), "{m} index {i}: {}", s.board_fen());
        assert_eq!(
            idx.rank(&s.mirror()),
            Ok(i),
            "{m} mirror of index {i}: {}",
            s.board_fen()
        );
    }
    idx.size()
}

#[test]
fn every_index_round_trips_up_to_two_pieces() {
    let mut total = 0;
    for m in Material::all_up_to(2) {
        total += round_trip_all(m);
        // the colour swap is a different index with the same size
        let swapped = PlacementIndex::new(m.swap_colors()).unwrap();
        assert_eq!(swapped.size(), PlacementIndex::new(m).unwrap().size());
    }
    assert!(total > 1_000_000);
}

#[test]
fn every_index_round_trips_for_some_three_piece_materials() {
    for m in [
        "KRKAA", "KNKAB", "KCPKA", "KPKAA", "KCAKA", "KPPKP", "KBBKP",
    ] {
        round_trip_all(m.parse().unwrap());
    }
}

#[test]
fn decoded_placements_match_brute_force_up_to_two_pieces() {
    for m in Material::all_up_to(2) {
        let idx = PlacementIndex::new(m).unwrap();
        let all = all_placements(m);
        assert_eq!(idx.placements(), all.len() as u128, "{m} placements");
        let mut classes = HashSet::new();
        let mut hit = vec![false; idx.size() as usize];
        for s in &all {
            let a = key(s);
            let b = key(&s.mirror());
            classes.insert(a.clone().min(b.clone()));
            let i = idx.rank(s).unwrap();
            let back = idx.unrank(i).unwrap();
            let k = key(&back);
            assert!(
                k == a || k == b,
                "{m}: {} decodes to {}",
                s.board_fen(),
                back.board_fen()
            );
            hit[i as usize] = true;
        }
        assert_eq!(
            idx.size(),
            classes.len() as u64,
            "{m}: index size vs mirror classes"
        );
        assert!(hit.iter().all(|&h| h), "{m}: every index is reached");
    }
}

#[test]
fn random_indexes_round_trip_for_larger_materials() {
    let mut rng = rng(0x1234_5678_9abc_def1);
    for m in [
        "KRNKR",
        "KRCKR",
        "KRKNN",
        "KCPKAA",
        "KRNKAABB",
        "KPPPKAABB",
        "KRPPKRP",
        "KNNCCKRRP",
        "KRRNNCCAABBPPPPPKRRNNCCAABBPPPPP",
    ] {
        let m: Material = m.parse().unwrap();
        let idx = match PlacementIndex::new(m) {
            Ok(i) => i,
            Err(e) => {
                // the whole game is far beyond 64 bits
                assert!(m.pieces_besides_kings() > 20, "{m}: {e}");
                continue;
            }
        };
        for _ in 0..20_000 {
            let i = rng.gen_range(0..idx.size());
            let s = idx.unrank(i).unwrap();
            assert_eq!(idx.rank(&s), Ok(i), "{m} index {i}: {}", s.board_fen());
            assert_eq!(idx.rank(&s.mirror()), Ok(i));
        }
    }
}

#[test]
fn rank_rejects_wrong_material_and_points() {
    let idx = PlacementIndex::new("KRK".parse().unwrap()).unwrap();
    let s = Setup::from_fen("3k5/9/9/9/9/9/9/9/9/4K4 w").unwrap();
    assert!(idx.rank(&s).unwrap_err().to_string().contains("material"));
    let mut s = Setup::from_fen("3k5/9/9/9/9/9/9/9/9/4KR3 w").unwrap();
    assert!(idx.rank(&s).is_ok());
    s.remove(Square::E0);
    s.put(Square::A0, Piece::new(Color::Red, Role::King));
    assert!(idx.rank(&s).is_err());
    assert!(idx.unrank(idx.size()).is_err());
    // a piece list with two pieces on one point, and with a piece missing
    let rk = Piece::new(Color::Red, Role::King);
    let bk = Piece::new(Color::Black, Role::King);
    let rr = Piece::new(Color::Red, Role::Rook);
    let stacked = [(rk, Square::E0), (bk, Square::D9), (rr, Square::E0)];
    assert!(matches!(
        idx.rank_pieces(&stacked),
        Err(IndexError::BadPoint(_))
    ));
    assert!(matches!(
        idx.rank_pieces(&stacked[..2]),
        Err(IndexError::WrongMaterial { .. })
    ));
    // an unpassed pawn off its file points and two unpassed pawns on one file
    let idx = PlacementIndex::new("KPPK".parse().unwrap()).unwrap();
    let rp = Piece::new(Color::Red, Role::Pawn);
    for pawns in [[Square::B3, Square::E3], [Square::E3, Square::E4]] {
        let pieces = [
            (rk, Square::E0),
            (bk, Square::D9),
            (rp, pawns[0]),
            (rp, pawns[1]),
        ];
        assert!(idx.rank_pieces(&pieces).is_err(), "{pawns:?}");
    }
}

#[test]
fn bad_moves_and_positions_rank_to_none() {
    let idx = PlacementIndex::new("KRPKN".parse().unwrap()).unwrap();
    let rk = Piece::new(Color::Red, Role::King);
    let bk = Piece::new(Color::Black, Role::King);
    let rr = Piece::new(Color::Red, Role::Rook);
    let rp = Piece::new(Color::Red, Role::Pawn);
    let bn = Piece::new(Color::Black, Role::Horse);
    let pieces = [
        (rk, Square::D0),
        (bk, Square::E9),
        (rr, Square::A1),
        (rp, Square::C6),
        (bn, Square::H7),
    ];
    let ctx = idx
        .prepare_tail(&pieces)
        .expect("the kings fix the orientation");
    // a legal slide ranks like the general path
    let mut moved = pieces;
    moved[2].1 = Square::A5;
    assert_eq!(
        idx.rank_tail_move(&ctx, Square::A1, Square::A5),
        Some(idx.rank_pieces(&moved).unwrap())
    );
    // onto a king, onto another tail piece, a passed pawn back over the river, no piece
    assert_eq!(idx.rank_tail_move(&ctx, Square::A1, Square::D0), None);
    assert_eq!(idx.rank_tail_move(&ctx, Square::A1, Square::H7), None);
    assert_eq!(idx.rank_tail_move(&ctx, Square::C6, Square::C4), None);
    assert_eq!(idx.rank_tail_move(&ctx, Square::B2, Square::B3), None);
    // a position of another material has no index here
    let other = Position::from_fen("4k4/9/9/9/9/9/9/9/9/3K4R w").unwrap();
    assert_eq!(idx.rank_position(&other), None);
    let same = Position::from_pieces(&pieces, Color::Red).unwrap();
    assert_eq!(
        idx.rank_position(&same),
        Some(idx.rank_pieces(&pieces).unwrap())
    );
}

#[test]
fn kind_ordered_lists_with_stacked_or_swapped_pieces_are_refused() {
    // pawnless materials whose tail pieces are each alone of their kind read a list in
    // kind order in place: a stacked or recoloured piece must still get the right error
    for m in ["KRNKR", "KRKAA", "KCNKAB", "KRKN", "KAABBKAABB"] {
        let idx = PlacementIndex::new(m.parse().unwrap()).unwrap();
        let mut rng = rng(7);
        for _ in 0..40 {
            let list = idx.unrank_pieces(rng.gen_range(0..idx.size())).unwrap();
            for a in 0..list.len() {
                for b in (0..list.len()).filter(|&b| b != a) {
                    let mut stacked = list.clone();
                    stacked[a].1 = list[b].1;
                    assert!(
                        matches!(idx.rank_pieces(&stacked), Err(IndexError::BadPoint(_))),
                        "{m}: {stacked:?}"
                    );
                }
                let mut swapped = list.clone();
                swapped[a].0 = Piece::new(list[a].0.color.other(), list[a].0.role);
                assert!(
                    matches!(
                        idx.rank_pieces(&swapped),
                        Err(IndexError::WrongMaterial { .. })
                    ),
                    "{m}: {swapped:?}"
                );
            }
        }
    }
}

#[test]
fn unrank_into_refills_the_list() {
    let idx = PlacementIndex::new("KRNKR".parse().unwrap()).unwrap();
    let mut out = idx.unrank_pieces(0).unwrap();
    for i in [1, idx.size() / 3, idx.size() - 1] {
        assert!(idx.unrank_into(i, &mut out));
        assert_eq!(out, idx.unrank_pieces(i).unwrap());
        assert_eq!(idx.rank_pieces(&out), Ok(i));
    }
    assert!(!idx.unrank_into(idx.size(), &mut out));
    assert!(out.is_empty());
}

#[test]
fn tail_moves_rank_like_the_general_path() {
    let mut rng = rng(99);
    for m in ["KRNKR", "KCPKAA", "KRKNN", "KPPKAB", "KRPKP"] {
        let m: Material = m.parse().unwrap();
        let idx = PlacementIndex::new(m).unwrap();
        let mut checked = 0;
        for _ in 0..3000 {
            let i = rng.gen_range(0..idx.size());
            let pieces = idx.unrank_pieces(i).unwrap();
            let Some(ctx) = idx.prepare_tail(&pieces) else {
                continue;
            };
            let occ: u128 = pieces.iter().map(|(_, s)| s.bit()).fold(0, |a, b| a | b);
            for (k, &(p, from)) in pieces.iter().enumerate() {
                let tail = matches!(p.role, Role::Rook | Role::Horse | Role::Cannon)
                    || (p.role == Role::Pawn && (p.color == Color::Red) == (from.rank() >= 5));
                if !tail {
                    continue;
                }
                for to in Square::ALL {
                    if occ & to.bit() != 0
                        || (p.role == Role::Pawn && (to.rank() >= 5) != (from.rank() >= 5))
                    {
                        continue;
                    }
                    let mut moved = pieces.clone();
                    moved[k] = (p, to);
                    let expect = idx.rank_pieces(&moved).unwrap();
                    assert_eq!(
                        idx.rank_tail_move(&ctx, from, to),
                        Some(expect),
                        "{m}: {p:?} {from}-{to}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{m}: {checked}");
    }
}

/// FNV-1a over "index board-FEN" lines of spread-out indexes (both ends, evenly spaced).
fn numbering_digest(m: &str) -> u64 {
    let idx = PlacementIndex::new(m.parse().unwrap()).unwrap();
    let size = idx.size();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let picks = (0..50.min(size))
        .chain(size.saturating_sub(50)..size)
        .chain((0..1000).map(|k| k * size / 1000));
    for i in picks {
        let line = format!("{i} {}\n", idx.unrank(i).unwrap().board_fen());
        for b in line.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

#[test]
fn numbering_is_stable() {
    // Table files are addressed by these indexes: a change of numbering makes every
    // generated file unreadable. The digests were taken with the code that wrote the
    // tables of earlier commits (48cf7b0).
    let expected = [
        ("KRNKR", 16233007313516969892),
        ("KCPKA", 16883769649518515105),
        ("KPPKAB", 5941744130610197730),
        ("KAABBKAABB", 1471109983114492885),
        ("KRCPKRAA", 1514955248545149926),
        ("KNNKAA", 4460166377293358600),
        ("KK", 14410851793416969027),
    ];
    for (m, digest) in expected {
        assert_eq!(numbering_digest(m), digest, "{m}: numbering changed");
    }
}

#[test]
fn every_input_form_ranks_alike() {
    // kind-ordered lists (what unrank gives), other orders, mirror images, setups and
    // positions all reach the same index, through the fast and the sorting readers
    for m in [
        "KRNKR",
        "KCPKA",
        "KPPKAB",
        "KAABBKAABB",
        "KRCPKRAA",
        "KNNKAA",
        "KRRKCC",
        "KPPPKPP",
    ] {
        let idx = PlacementIndex::new(m.parse().unwrap()).unwrap();
        let size = idx.size();
        let mut positions = 0;
        for k in 0..400u64 {
            let i = k * (size / 400) + k % 7;
            let pieces = idx.unrank_pieces(i).unwrap();
            assert!(
                pieces.windows(2).all(|w| w[0].0.index() <= w[1].0.index()),
                "{m} {i}: not in kind order: {pieces:?}"
            );
            assert_eq!(idx.rank_pieces(&pieces), Ok(i), "{m} {i}");
            let mut reversed = pieces.clone();
            reversed.reverse();
            assert_eq!(idx.rank_pieces(&reversed), Ok(i), "{m} {i} reversed");
            let mirrored: Vec<_> = pieces.iter().map(|&(p, s)| (p, s.mirror())).collect();
            assert_eq!(idx.rank_pieces(&mirrored), Ok(i), "{m} {i} mirrored");
            assert_eq!(idx.rank(&idx.unrank(i).unwrap()), Ok(i), "{m} {i} setup");
            for list in [&pieces[..], &mirrored[..]] {
                if let Ok(pos) = Position::from_pieces(list, Color::Red) {
                    assert_eq!(idx.rank_position(&pos), Some(i), "{m} {i} position");
                    positions += 1;
                }
            }
        }
        assert!(positions > 100, "{m}: only {positions} positions");
    }
}
