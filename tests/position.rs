//! make/unmake, incremental keys, mirror and colour flip over random playouts.

mod common;
use common::rng;
use rand::Rng;
use std::sync::atomic::AtomicBool;
use xqdb::board::{Position, Setup};
use xqdb::engine::tt::Tt;
use xqdb::engine::{Limits, Score, Searcher};

fn recomputed(pos: &Position) -> Position {
    Position::from_setup_unchecked(&pos.to_setup()).unwrap()
}

#[test]
fn playouts_keep_keys_and_undo_exact() {
    let mut rng = rng(7);
    let starts = [
        Position::startpos(),
        Position::from_fen("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w")
            .unwrap(),
    ];
    let mut plies = 0;
    for game in 0..300 {
        let mut pos = starts[game % 2].clone();
        let mut history = Vec::new();
        for _ in 0..200 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                assert!(!pos.has_legal_move());
                break;
            }
            assert_eq!(moves.len(), pos.count_legal());
            // the single-move legality test agrees with generation, for any from/to pair
            for _ in 0..20 {
                let a = xqdb::board::Square::ALL[rng.gen_range(0..90)];
                let b = xqdb::board::Square::ALL[rng.gen_range(0..90)];
                let mv = xqdb::board::Move::new(a, b);
                assert_eq!(
                    pos.is_legal(mv),
                    moves.contains(&mv),
                    "{mv} in {}",
                    pos.to_fen()
                );
            }
            for &mv in &moves {
                assert!(pos.is_legal(mv));
            }
            let m = moves[rng.gen_range(0..moves.len())];
            let before = pos.clone();
            let undo = pos.play(m);
            plies += 1;
            // every reached position is legal and its keys equal keys computed from scratch
            let fresh = recomputed(&pos);
            assert_eq!(
                pos.key(),
                fresh.key(),
                "key after {m} in {}",
                before.to_fen()
            );
            assert_eq!(pos.mirror_key(), fresh.mirror_key());
            assert_eq!(Position::from_setup(&pos.to_setup()).as_ref(), Ok(&pos));
            assert_eq!(pos.mirror().key(), pos.mirror_key());
            assert_eq!(pos.mirror().mirror(), pos);
            // the mirrored move is legal in the mirrored position and leads to the mirror
            assert!(before.mirror().is_legal(m.mirror()));
            assert_eq!(before.mirror().after(m.mirror()), pos.mirror());
            // colour flip keeps the move count
            assert_eq!(pos.flip_colors().count_legal(), pos.count_legal());
            history.push((m, undo, before));
        }
        while let Some((m, undo, before)) = history.pop() {
            pos.undo(m, undo);
            assert_eq!(pos, before);
            assert_eq!(pos.key(), before.key());
        }
    }
    assert!(plies > 10_000);
}

/// Sparse positions (the tablebase's) with the side to move in check or not: the generated
/// moves are exactly the pairs the single-move legality test accepts (generation drops the
/// moves out of check that cannot change the check untested, `is_legal` tests each).
#[test]
fn sparse_positions_generate_exactly_the_legal_pairs() {
    use xqdb::board::attacks::reachable;
    use xqdb::board::{Color, Move, Piece, Role, Square};
    let mut rng = rng(23);
    let (mut checked, mut quiet) = (0, 0);
    while checked < 400 || quiet < 200 {
        let mut setup = Setup::empty();
        let place = |setup: &mut Setup, p: Piece, rng: &mut rand::rngs::StdRng| loop {
            let points: Vec<Square> = reachable(p.color, p.role).into_iter().collect();
            let sq = points[rng.gen_range(0..points.len())];
            if setup.board[sq.index()].is_none() {
                setup.put(sq, p);
                break;
            }
        };
        for c in Color::ALL {
            place(&mut setup, Piece::new(c, Role::King), &mut rng);
        }
        for _ in 0..rng.gen_range(1..6) {
            let c = Color::ALL[rng.gen_range(0..2)];
            let role = Role::ALL[rng.gen_range(1..7)];
            place(&mut setup, Piece::new(c, role), &mut rng);
        }
        setup.turn = Color::ALL[rng.gen_range(0..2)];
        let Ok(pos) = Position::from_setup(&setup) else {
            continue;
        };
        match pos.in_check() {
            true => checked += 1,
            false if quiet < 200 => quiet += 1,
            false => continue,
        }
        let moves = pos.legal_moves();
        assert_eq!(moves.len(), pos.count_legal(), "{}", pos.to_fen());
        assert_eq!(!moves.is_empty(), pos.has_legal_move(), "{}", pos.to_fen());
        for a in Square::ALL {
            for b in Square::ALL {
                let mv = Move::new(a, b);
                assert_eq!(
                    pos.is_legal(mv),
                    moves.contains(&mv),
                    "{mv} in {}",
                    pos.to_fen()
                );
            }
        }
        let quiets = pos.quiet_moves();
        let want: Vec<_> = moves
            .iter()
            .copied()
            .filter(|m| pos.piece_at(m.to()).is_none())
            .collect();
        assert_eq!(quiets.to_vec(), want, "{}", pos.to_fen());
    }
}

#[test]
fn captures_are_the_capturing_legal_moves() {
    let mut rng = rng(11);
    for _ in 0..100 {
        let mut pos = Position::startpos();
        for _ in 0..80 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let caps: Vec<_> = moves
                .iter()
                .copied()
                .filter(|m| pos.piece_at(m.to()).is_some())
                .collect();
            assert_eq!(pos.capture_moves().to_vec(), caps);
            let m = moves[rng.gen_range(0..moves.len())];
            pos.play(m);
        }
    }
}

#[test]
fn no_legal_move_loses_even_without_check() {
    // Black king on d9: d8 is swept by the rook on a8, e9 faces the red king. It has no
    // legal move and is not in check.
    let pos = Position::from_fen("3k5/R8/9/9/9/9/9/9/9/4K4 b").unwrap();
    assert!(!pos.in_check());
    assert!(pos.legal_moves().is_empty());
    assert!(!pos.has_legal_move());
    // the search scores it as mated now, as it does a checkmate
    let tt = Tt::new(1);
    let stop = AtomicBool::new(false);
    let limits = Limits {
        depth: Some(3),
        ..Limits::default()
    };
    let (best, info) = Searcher::new(&pos, &[], &tt, None, &stop, limits, Vec::new()).run(|_| {});
    assert_eq!(best, None);
    assert_eq!(info.map(|i| i.score), Some(Score::mated_in(0)));
    // one rook step earlier (a7), Red to move: a7a8 wins at once, with no check given
    let before = Position::from_fen("3k5/9/R8/9/9/9/9/9/9/4K4 w").unwrap();
    assert!(before.has_legal_move());
    let after = before.after("a7a8".parse().unwrap());
    assert_eq!(after.key(), pos.key());
    assert!(!after.in_check() && !after.has_legal_move());
    // with the king alone on the board Black can move
    let setup = Setup::from_fen("3k5/9/9/9/9/9/9/9/9/4K4 b").unwrap();
    assert!(Position::from_setup(&setup).unwrap().has_legal_move());
}

#[test]
fn flying_general_and_cannon_screens() {
    // the red horse on e4 is pinned by the facing kings: it cannot move at all
    let pos = Position::from_fen("4k4/9/9/9/9/4N4/9/9/9/4K4 w").unwrap();
    assert!(pos
        .legal_moves()
        .iter()
        .all(|m| m.from().to_string() != "e4"));
    assert_eq!(pos.count_legal(), 3); // king e0-d0, e0-f0, e0-e1
                                      // moving a piece onto the line between the king and a cannon gives check: illegal
    let pos = Position::from_fen("4k4/9/9/9/9/4c4/9/9/3R5/4K4 w").unwrap();
    assert!(!pos.is_legal("d1e1".parse().unwrap()));
    assert!(pos.is_legal("d1d2".parse().unwrap()));
}
