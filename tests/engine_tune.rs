//! The Texel tuner on real games: its data and its fit are reproducible, and the fit lowers
//! the loss on games it did not see.

mod common;
use common::shared;
use xqdb::engine::eval::{NUM_PARAMS, PARAM_NAMES};
use xqdb::engine::pst::{row_name, W_PST};
use xqdb::engine::tune::{fit, weights_source, FitOptions};
use xqdb::engine::tune_data::{gather, DataOptions};
use xqdb::engine::weights::TUNED;
use xqdb::progress::Silent;

#[test]
#[cfg_attr(xqdb_no_shared, ignore = "needs ../shared")]
fn tuning_on_the_ccgc_games_is_reproducible_and_lowers_the_held_out_loss() {
    let games = vec![shared("eleeye")];
    let opt = DataOptions {
        every: 1,
        skip_plies: 10,
        max_positions: 100_000,
    };
    let a = gather(&games, &opt, &Silent).unwrap();
    let b = gather(&games, &opt, &Silent).unwrap();
    let sizes = (a.games, a.train.len(), a.held_out.len());
    assert!(sizes.0 >= 20 && sizes.1 > 500 && sizes.2 > 100, "{sizes:?}");
    assert_eq!(
        (a.train.len(), a.held_out.len()),
        (b.train.len(), b.held_out.len())
    );
    for (x, y) in a.train.iter().zip(&b.train) {
        assert_eq!((&x.coef, x.fixed, x.result), (&y.coef, y.fixed, y.result));
    }
    for s in a.train.iter().chain(&a.held_out) {
        assert!([0.0, 0.5, 1.0].contains(&s.result), "{s:?}");
    }
    // start from flat weights of 50 (which no real game follows): the fit must get closer
    // to the results on the held-out games too
    let start = [50; TUNED.len()];
    let fopt = FitOptions {
        iterations: 300,
        rate: 2.0,
        only: Vec::new(),
        l2: 0.0,
    };
    let f = fit(&a.train, &a.held_out, &start, &fopt, &Silent);
    let g = fit(&b.train, &b.held_out, &start, &fopt, &Silent);
    assert_eq!(f.weights, g.weights, "two runs on the same data differ");
    let losses = (f.before, f.after);
    assert!(f.after.0 < f.before.0, "{losses:?}");
    assert!(f.after.1 < f.before.1, "{losses:?}");
    // with only two weights free, the others stay where they started
    let only = FitOptions {
        only: vec![4, 5],
        ..fopt.clone()
    };
    let h = fit(&a.train, &a.held_out, &start, &only, &Silent);
    assert!(h.after.0 < h.before.0, "{:?}", (h.before, h.after));
    for (i, &w) in h.weights.iter().enumerate() {
        if i != 4 && i != 5 {
            assert_eq!(w, 50, "weight {i} moved");
        }
    }
    // the source holds every weight, in order: the named ones one a line with their
    // names, then the piece-square tables a row of five a line with the row's name
    let src = weights_source(&f.weights, "test");
    let mut values = Vec::new();
    let mut names = Vec::new();
    for l in src.lines() {
        let Some((items, name)) = l.split_once("//") else {
            continue;
        };
        let row: Vec<i32> = items
            .split(',')
            .filter_map(|v| v.trim().parse().ok())
            .collect();
        if !row.is_empty() {
            values.extend(row);
            names.push(name.trim().to_string());
        }
    }
    assert_eq!(values, f.weights.to_vec());
    let mut expected: Vec<String> = PARAM_NAMES.iter().map(|n| n.to_string()).collect();
    expected.extend(
        (W_PST..NUM_PARAMS)
            .step_by(5)
            .map(|i| row_name(i).unwrap().0),
    );
    assert_eq!(names, expected);
    assert!(expected.contains(&"pst_horse_eg_r7".to_string()));
}
