//! Measurement behind the futility margin (`params::FUTILITY_BASE`, s20 in
//! docs/strength.md): how much the best quiet non-checking move raises the static
//! evaluation, over the positions of every 20th ccpd game (side to move not in check, the
//! game's move quiet and not a check). Run with `cargo test --release --test engine_margins -- --ignored
//! --nocapture`; it prints the percentiles.

use xqdb::engine::eval::{evaluate, EvalState};
use xqdb::records::collection::read_collection;

fn eval(pos: &xqdb::board::Position) -> i32 {
    evaluate(pos, &EvalState::new(pos))
}

#[test]
#[ignore = "measurement: prints the gain percentiles of quiet moves (about 10 s)"]
fn best_quiet_move_gain_on_ccpd_positions() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/games/ccpd/ccpd-games.pgn");
    if !path.exists() {
        println!("skipped: {} is absent", path.display());
        return;
    }
    let mut gains: Vec<i32> = Vec::new();
    let mut n = 0usize;
    read_collection(
        &[path],
        |g, _| {
            n += 1;
            if !n.is_multiple_of(20) {
                return;
            }
            let mut pos = g.start.clone();
            for &m in g.moves.iter() {
                let mut played = pos.clone();
                played.play(m);
                if pos.piece_at(m.to()).is_none() && !pos.in_check() && !played.in_check() {
                    let before = eval(&pos);
                    let best = pos
                        .legal_moves()
                        .iter()
                        .filter(|q| pos.piece_at(q.to()).is_none())
                        .filter_map(|&q| {
                            let mut after = pos.clone();
                            after.play(q);
                            (!after.in_check()).then(|| -eval(&after) - before)
                        })
                        .max();
                    gains.extend(best);
                }
                pos.play(m);
            }
        },
        |_| {},
    )
    .expect("the ccpd games read");
    assert!(!gains.is_empty(), "no quiet position in the ccpd games");
    gains.sort_unstable();
    let q = |f: f64| gains[((gains.len() - 1) as f64 * f) as usize];
    println!(
        "{} positions: best quiet gain median {}, 95 % {}, 99 % {}, 99.9 % {}, max {}",
        gains.len(),
        q(0.5),
        q(0.95),
        q(0.99),
        q(0.999),
        gains[gains.len() - 1]
    );
}
