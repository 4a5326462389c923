//! Move generation against its plain forms.

use super::*;
use crate::board::games::{each_game_position, each_position_two_plies};
use crate::board::Piece;

/// The legality tests for a side not to move answer as the same tests of a copy turned
/// by a null move, for every move from each piece to every point, both sides (and the
/// captures listed in place and the quiet moves with the check told as the plain
/// lists), on the
/// positions of pseudo-random games from a few middlegames (checks, pins and cannon
/// screens among them).
#[test]
fn legal_for_a_side_as_on_a_turned_copy() {
    let fens = [
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
        "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w",
        "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w",
        "3akr3/4n4/9/9/4c4/9/4R4/9/4A4/3K5 w",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
    ];
    let (mut tested, mut legal, mut checked) = (0usize, 0usize, 0usize);
    each_game_position(&fens, 120, 0x2545_F491_4F6C_DD1Du64, |game| {
        for side in [crate::board::Color::Red, crate::board::Color::Black] {
            let mut turned = game.clone();
            if turned.turn() != side {
                turned.play_null();
            }
            checked += turned.in_check() as usize;
            // the captures listed in place and the quiet moves with the check told
            let mut caps = MoveList::new();
            caps.push(Move::new(Square::A0, Square::A1));
            turned.capture_moves_into(&mut caps);
            assert_eq!(caps, turned.capture_moves());
            let told = turned.quiet_moves_told(turned.in_check());
            assert_eq!(told, turned.quiet_moves());
            for from in game.occupied() {
                for to in Square::ALL {
                    let m = Move::new(from, to);
                    let fen = game.to_fen();
                    let want = turned.is_legal(m);
                    assert_eq!(game.is_legal_for(side, m), want, "{fen} {side:?} {m}");
                    assert_eq!(
                        game.is_legal_ignoring_check_for(side, m),
                        turned.is_legal_ignoring_check(m),
                        "{fen} {side:?} {m}"
                    );
                    tested += 1;
                    legal += want as usize;
                }
            }
        }
    });
    assert!(
        tested > 100_000 && legal > 10_000 && checked > 10,
        "{tested} {legal} {checked}"
    );
}

/// One generation's count and captures equal `count_legal` and `capture_moves`, with
/// the check told or tested, over every position two plies from a few middlegames; a
/// position loaded in place over another equals one built from its pieces.
#[test]
fn count_with_captures_and_load_in_place() {
    let fens = [
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
        "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w",
        "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w",
    ];
    let mut loaded = Position::unloaded();
    let mut caps = MoveList::new();
    let (mut checks, mut seen) = (0, 0);
    each_position_two_plies(&fens, |p| {
        let mut want: Vec<Move> = p.capture_moves().to_vec();
        want.sort_unstable_by_key(|m| (m.from(), m.to()));
        for told in [None, Some(p.in_check())] {
            let n = p.count_legal_with_captures(told, &mut caps);
            assert_eq!(n, p.count_legal(), "{}", p.to_fen());
            let mut got: Vec<Move> = caps.to_vec();
            got.sort_unstable_by_key(|m| (m.from(), m.to()));
            assert_eq!(got, want, "{}", p.to_fen());
        }
        let pieces: Vec<(Piece, Square)> = p.piece_list().collect();
        loaded.load_pieces(&pieces, p.turn()).unwrap();
        let fresh = Position::from_pieces(&pieces, p.turn()).unwrap();
        assert_eq!(loaded, fresh);
        assert_eq!(loaded.key(), fresh.key());
        checks += p.in_check() as usize;
        seen += 1;
    });
    // the walk meets positions in check too
    assert!(checks > 0 && seen > 1000, "{checks} {seen}");
}

/// `quiet_moves_until` hands over the moves of `quiet_moves` in the same order: stopped at
/// the `k`-th move it has handed over exactly the first `k + 1` and says it stopped; never
/// stopped it hands over all of them and says it did not; over every position two plies
/// from a few middlegames and endings (checks among them, where every move is tested).
#[test]
fn quiet_moves_until_hands_over_a_prefix() {
    let fens = [
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
        "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w",
        "3akr3/4n4/9/9/4c4/9/4R4/9/4A4/3K5 w",
        "4k4/9/4n4/9/9/9/4R4/9/4r4/4K4 w",
    ];
    let (mut checks, mut stops) = (0usize, 0usize);
    each_position_two_plies(&fens, |p| {
        let want = p.quiet_moves();
        let mut all = Vec::new();
        let stopped = p.quiet_moves_until(|m| {
            all.push(m);
            false
        });
        assert!(!stopped, "{}", p.to_fen());
        assert_eq!(all, want.to_vec(), "{}", p.to_fen());
        for k in 0..want.len() {
            let mut got = Vec::new();
            let stopped = p.quiet_moves_until(|m| {
                got.push(m);
                got.len() == k + 1
            });
            assert!(stopped, "{} at {k}", p.to_fen());
            assert_eq!(got, want[..=k].to_vec(), "{} at {k}", p.to_fen());
            stops += 1;
        }
        checks += p.in_check() as usize;
    });
    assert!(checks > 0 && stops > 10_000, "{checks} {stops}");
}
