//! Texel's method: the evaluation's weights fitted to real games' results.
//!
//! Each position's evaluation `e` (from Red's point of view) is turned into an expected
//! score `σ(e) = 1 / (1 + 10^(-K e / 400))`, and the loss is the mean squared difference to
//! the game's result. `K` is fitted first with the starting weights (golden-section search)
//! and then held; the weights are fitted by full-batch gradient descent (Adam) on the
//! training positions, rounded to whole centipawns and kept at or above their lower bounds
//! (0 for the named weights, none for the piece-square tables), and the loss is
//! reported on the training and the held-out positions before and after. The gradient is
//! summed over fixed chunks in a fixed order, so a run gives the same weights on any number
//! of threads. The result is written as the Rust source of [`super::weights`].

use super::eval::{lower_bound, NUM_PARAMS, PARAM_NAMES};
use super::pst::{row_name, W_PST};
use super::tune_data::Sample;
use crate::progress::{Phase, Progress};
use rayon::prelude::*;

/// Samples per chunk of the gradient sum.
const CHUNK: usize = 4096;

/// How the fit runs.
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// Gradient steps.
    pub iterations: usize,
    /// Adam's step size, in centipawns.
    pub rate: f32,
    /// Only these weights move (indexes below `NUM_PARAMS`); empty: all of them.
    pub only: Vec<usize>,
    /// Ridge penalty: `l2 × (w - start)²` per piece-square weight is added to the loss the
    /// steps follow (the reported losses leave it out), which keeps the squares few
    /// positions reach near their starting values.
    pub l2: f64,
}

impl Default for FitOptions {
    fn default() -> FitOptions {
        FitOptions {
            iterations: 600,
            rate: 1.0,
            only: Vec::new(),
            l2: 0.0,
        }
    }
}

/// What a fit found.
#[derive(Clone, Debug)]
pub struct Fit {
    /// The scaling constant.
    pub k: f64,
    /// Loss with the starting weights: training, held-out.
    pub before: (f64, f64),
    /// Loss with the fitted (rounded) weights: training, held-out.
    pub after: (f64, f64),
    /// The fitted weights.
    pub weights: [i32; NUM_PARAMS],
}

fn sigmoid(k: f64, e: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * e / 400.0))
}

/// Mean squared error of `w` on `data` with the constant `k`.
pub fn loss(data: &[Sample], w: &[f32; NUM_PARAMS], k: f64) -> f64 {
    let sums: Vec<f64> = data
        .par_chunks(CHUNK)
        .map(|c| {
            c.iter()
                .map(|s| {
                    let d = s.result as f64 - sigmoid(k, s.eval(w) as f64);
                    d * d
                })
                .sum()
        })
        .collect();
    sums.iter().sum::<f64>() / data.len().max(1) as f64
}

/// The `K` that minimises the loss of `w` (golden-section search over 0.05 to 5).
pub fn fit_k(data: &[Sample], w: &[f32; NUM_PARAMS]) -> f64 {
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (0.05f64, 5.0f64);
    let mut c = b - g * (b - a);
    let mut d = a + g * (b - a);
    let (mut fc, mut fd) = (loss(data, w, c), loss(data, w, d));
    for _ in 0..40 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = loss(data, w, c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = loss(data, w, d);
        }
    }
    (a + b) / 2.0
}

/// Gradient of the loss with respect to the weights.
fn gradient(data: &[Sample], w: &[f32; NUM_PARAMS], k: f64) -> [f64; NUM_PARAMS] {
    let scale = k * std::f64::consts::LN_10 / 400.0;
    let parts: Vec<Vec<f64>> = data
        .par_chunks(CHUNK)
        .map(|c| {
            let mut g = vec![0f64; NUM_PARAMS];
            for s in c {
                let p = sigmoid(k, s.eval(w) as f64);
                let f = 2.0 * (p - s.result as f64) * p * (1.0 - p) * scale;
                for &(i, c) in &s.coef {
                    g[i as usize] += f * c as f64;
                }
            }
            g
        })
        .collect();
    let mut g = [0f64; NUM_PARAMS];
    for p in parts {
        for (a, b) in g.iter_mut().zip(p) {
            *a += b;
        }
    }
    let n = data.len().max(1) as f64;
    g.map(|x| x / n)
}

/// Fit the weights, starting from `start`, on `train`; report losses on `held_out` too.
pub fn fit(
    train: &[Sample],
    held_out: &[Sample],
    start: &[i32; NUM_PARAMS],
    opt: &FitOptions,
    progress: &dyn Progress,
) -> Fit {
    let w0 = start.map(|x| x as f32);
    let k = fit_k(train, &w0);
    let before = (loss(train, &w0, k), loss(held_out, &w0, k));
    let phase = Phase::begin(progress, "tune", "fitting", opt.iterations as u64);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-12f64);
    let mut w: [f64; NUM_PARAMS] = start.map(|x| x as f64);
    let mut m = [0f64; NUM_PARAMS];
    let mut v = [0f64; NUM_PARAMS];
    for t in 1..=opt.iterations {
        let mut g = gradient(train, &w.map(|x| x as f32), k);
        for i in W_PST..NUM_PARAMS {
            g[i] += 2.0 * opt.l2 * (w[i] - start[i] as f64);
        }
        for i in 0..NUM_PARAMS {
            if !opt.only.is_empty() && !opt.only.contains(&i) {
                continue;
            }
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            let mh = m[i] / (1.0 - b1.powi(t as i32));
            let vh = v[i] / (1.0 - b2.powi(t as i32));
            w[i] = (w[i] - opt.rate as f64 * mh / (vh.sqrt() + eps)).max(lower_bound(i));
        }
        phase.inc(1);
    }
    phase.end();
    let weights = w.map(|x| x.round() as i32);
    let wf = weights.map(|x| x as f32);
    Fit {
        k,
        before,
        after: (loss(train, &wf, k), loss(held_out, &wf, k)),
        weights,
    }
}

/// The Rust source of `src/engine/weights.rs` holding `w`: the named weights one a line,
/// then the piece-square tables a row of five files (edge to middle) a line.
pub fn weights_source(w: &[i32; NUM_PARAMS], note: &str) -> String {
    let mut s = String::from(
        "//! The evaluation's tuned weights, in the order of `eval::PARAM_NAMES`, then the\n\
         //! piece-square tables of `pst` (rows of files a-e, edge to middle). Written by\n\
         //! `xqdb tune`",
    );
    s.push_str(&format!(" ({note}).\n\n"));
    s.push_str("/// The weights the engine plays with.\n#[rustfmt::skip]\n");
    s.push_str(&format!("pub const TUNED: [i32; {NUM_PARAMS}] = [\n"));
    for (v, name) in w.iter().zip(PARAM_NAMES) {
        let item = format!("{v},");
        s.push_str(&format!("    {item:<5}// {name}\n"));
    }
    for row in w[W_PST..].chunks(5).enumerate() {
        let (name, _) = row_name(W_PST + 5 * row.0).expect("rows of five cover the tables");
        let items: String = row.1.iter().map(|v| format!("{:>5},", v)).collect();
        s.push_str(&format!("   {items} // {name}\n"));
    }
    s.push_str("];\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions whose results follow a fixed part of 200 cp (which sets K near 1) and
    /// positions whose results follow a "horse" worth 400 cp: the fit moves the horse's
    /// weight from 100 towards 400 / K and lowers the loss.
    #[test]
    fn the_fit_lowers_the_loss_and_finds_the_weight_the_results_follow() {
        let mut data = Vec::new();
        // σ(200) ≈ 0.76 and σ(400) ≈ 0.91 with K = 1: results drawn to match
        for (fixed, horse, wins) in [(200.0, 0.0, 76), (0.0, 1.0, 91)] {
            for i in 0..2000 {
                let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
                let coef = vec![(4, horse * sign)];
                let win = (i / 2) % 100 < wins;
                let result = if (sign > 0.0) == win { 1.0 } else { 0.0 };
                data.push(Sample {
                    coef,
                    fixed: fixed * sign,
                    result,
                });
            }
        }
        let mut start = [0; NUM_PARAMS];
        start[4] = 100;
        start[6] = 50; // a weight no position uses stays where it is
        let opt = FitOptions {
            iterations: 400,
            rate: 4.0,
            only: Vec::new(),
            l2: 0.0,
        };
        let f = fit(&data, &data, &start, &opt, &crate::progress::Silent);
        assert!(f.after.0 < f.before.0, "{f:?}");
        assert_eq!(f.weights[6], 50);
        assert!(f.weights[4] > 150, "{f:?}");
        let kw = f.k * f.weights[4] as f64;
        assert!((300.0..500.0).contains(&kw), "K × weight = {kw}: {f:?}");
        let src = weights_source(&f.weights, "test");
        let line = format!("{},", f.weights[4]);
        assert!(
            src.lines()
                .any(|l| l.trim_start().starts_with(&line) && l.ends_with("// horse_mg")),
            "{src}"
        );
    }
}
