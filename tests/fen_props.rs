//! Property tests: the FEN parser never panics, on random or mutated input.

use proptest::prelude::*;
use xqdb::board::{Position, Setup, START_FEN};

const SAMPLES: [&str; 3] = [
    START_FEN,
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 b - - 5 40",
];

fn check(s: &str) {
    if let Ok(setup) = Setup::from_fen(s) {
        let _ = setup.to_fen();
        if let Ok(pos) = Position::from_setup(&setup) {
            // a valid position round-trips and generates moves
            let again = Position::from_fen(&pos.to_fen()).expect("round trip");
            assert_eq!(again, pos);
            let _ = pos.legal_moves();
            let _ = pos.in_check();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_strings_never_panic(s in "\\PC{0,80}") {
        check(&s);
    }

    #[test]
    fn fen_alphabet_never_panics(s in "[0-9kabnrcpKABNRCPehEH/ wrb-]{0,100}") {
        check(&s);
    }

    #[test]
    fn mutated_fens_never_panic(which in 0usize..3, edits in prop::collection::vec((0usize..100, any::<u8>(), 0u8..3), 1..6)) {
        let mut bytes = SAMPLES[which].as_bytes().to_vec();
        for (pos, byte, op) in edits {
            let i = pos % (bytes.len() + 1);
            match op {
                0 if i < bytes.len() => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ if i < bytes.len() => { bytes.remove(i); }
                _ => {}
            }
        }
        check(&String::from_utf8_lossy(&bytes));
    }
}
