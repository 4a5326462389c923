//! Perft against the reference counts of ../shared/reference/perft.md.

use xqdb::board::{perft, Position};

const CASES: [(&str, [u64; 6]); 6] = [
    (
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
        [44, 1920, 79666, 3290240, 133312995, 5392831844],
    ),
    (
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
        [38, 1128, 43929, 1339047, 53112976, 1663640378],
    ),
    (
        "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w",
        [7, 281, 8620, 326201, 10369923, 380156340],
    ),
    (
        "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w",
        [25, 424, 9850, 202884, 4739553, 100055401],
    ),
    (
        "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w",
        [28, 516, 14808, 395483, 11842230, 367168327],
    ),
    (
        "R1N1k1b2/9/3aba3/9/2nr5/2B6/9/4B4/4A4/4KA3 w",
        [21, 364, 7626, 162837, 3500505, 81195154],
    ),
];

fn check(max_depth: usize) {
    for (fen, counts) in CASES {
        let mut pos = Position::from_fen(&format!("{fen} - - 0 1")).unwrap();
        for depth in 1..=max_depth {
            assert_eq!(
                perft(&mut pos, depth as u32),
                counts[depth - 1],
                "perft {depth} of {fen}"
            );
        }
    }
}

#[test]
fn perft_reference_counts_to_depth_5() {
    check(5);
}

#[test]
#[ignore = "deep check: about a minute in release"]
fn perft_reference_counts_depth_6() {
    for (fen, counts) in CASES {
        let mut pos = Position::from_fen(fen).unwrap();
        assert_eq!(perft(&mut pos, 6), counts[5], "perft 6 of {fen}");
    }
}

#[test]
fn perft_of_mirror_and_colour_flip_equal() {
    for (fen, counts) in CASES {
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(perft(&mut pos.mirror(), 4), counts[3], "mirror of {fen}");
        assert_eq!(
            perft(&mut pos.flip_colors(), 4),
            counts[3],
            "colour flip of {fen}"
        );
    }
}
