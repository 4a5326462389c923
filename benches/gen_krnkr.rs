//! Generation benchmark (harness = false; one run is long, so no repeated samples):
//! KRNKR with all its sub-tables (WDL + DTM, compressed and saved), 2 threads, release,
//! under rule set 1 (the default) and then, for comparison, rule set 0.
//!
//! `cargo bench --bench gen_krnkr`; set XQDB_BENCH_MATERIAL to time another closure and
//! XQDB_BENCH_RULES (`check-chase` or `none`) to time one rule set only. Peak memory is the
//! process's peak resident set, so the second closure's figure is at least the first's:
//! run one rule set at a time for its own peak.

use std::time::Instant;
use xqdb::board::rules::RuleSet;
use xqdb::tablebase::generate::GenOptions;
use xqdb::tablebase::pipeline::{generate_set, peak_rss, Existing};

fn closure(material: &str, rules: RuleSet) {
    let m = material.parse().expect("a material signature");
    let dir = std::env::temp_dir().join(format!(
        "xqdb-bench-gen-{}-{}",
        std::process::id(),
        rules.code()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let start = Instant::now();
    let mut biggest = 0u64;
    let mut wdl = 0u64;
    let mut dtm = 0u64;
    let opts = GenOptions {
        rules,
        ..GenOptions::default()
    };
    generate_set(&[m], &dir, opts, Existing::Keep, |s| {
        biggest = biggest.max(s.positions);
        wdl += s.written.wdl_bytes;
        dtm += s.written.dtm_bytes;
        println!(
            "{:<8} {:>10} positions {:>7.2} s",
            s.material.to_string(),
            s.positions,
            s.seconds
        );
    })
    .expect("generation");
    let secs = start.elapsed().as_secs_f64();
    let peak = peak_rss();
    println!(
        "{material} closure, rule set {} ({}): {secs:.1} s wall (2 threads), peak RSS {:.1} MiB = {:.2} bytes per position of the largest table, files WDL {wdl} B, DTM {dtm} B",
        rules.code(),
        rules.name(),
        peak as f64 / 1048576.0,
        peak as f64 / biggest as f64
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    let material = std::env::var("XQDB_BENCH_MATERIAL").unwrap_or_else(|_| "KRNKR".into());
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build_global()
        .expect("first pool");
    let rules = match std::env::var("XQDB_BENCH_RULES").ok().as_deref() {
        Some("none") => vec![RuleSet::CyclesDraw],
        Some("check-chase") => vec![RuleSet::CheckChase],
        _ => vec![RuleSet::CheckChase, RuleSet::CyclesDraw],
    };
    for r in rules {
        closure(&material, r);
    }
}
