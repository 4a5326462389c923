//! Positions of pseudo-random games, for tests that check a fast form against a plain one.

use super::Position;

/// Call `f` on each position of a pseudo-random game of up to `plies` moves from each FEN
/// of `fens` in turn (the start included; a game ends early at a position without a legal
/// move). The moves are drawn by a linear congruential generator from `seed`, carried on
/// from one game to the next, so a test sees the same positions on every run.
pub(crate) fn each_game_position(
    fens: &[&str],
    plies: usize,
    mut seed: u64,
    mut f: impl FnMut(&Position),
) {
    for fen in fens {
        let mut game = Position::from_fen(fen).expect("the test's FENs are valid");
        for _ in 0..plies {
            f(&game);
            let moves = game.legal_moves();
            if moves.is_empty() {
                break;
            }
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            game.play(moves[(seed >> 33) as usize % moves.len()]);
        }
    }
}

/// Call `f` on every position two plies (a legal move of each side) from each FEN of `fens`.
pub(crate) fn each_position_two_plies(fens: &[&str], mut f: impl FnMut(&Position)) {
    for fen in fens {
        let root = Position::from_fen(fen).expect("the test's FENs are valid");
        for a in root.legal_moves() {
            let p1 = root.after(a);
            for b in p1.legal_moves() {
                f(&p1.after(b));
            }
        }
    }
}
