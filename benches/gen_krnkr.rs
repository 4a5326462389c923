//! Generation benchmark (harness = false; one run is long, so no repeated samples):
//! KRNKR with all its sub-tables (WDL + DTM, compressed and saved), 2 threads, release.
//!
//! `cargo bench --bench gen_krnkr`; set XQDB_BENCH_MATERIAL to time another closure.

use std::time::Instant;
use xqdb::tablebase::pipeline::{generate_set, peak_rss};

fn main() {
    let material = std::env::var("XQDB_BENCH_MATERIAL").unwrap_or_else(|_| "KRNKR".into());
    let m = material.parse().expect("a material signature");
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build_global()
        .expect("first pool");
    let dir = std::env::temp_dir().join(format!("xqdb-bench-gen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let start = Instant::now();
    let mut biggest = 0u64;
    let mut wdl = 0u64;
    let mut dtm = 0u64;
    generate_set(
        &[m],
        &dir,
        xqdb::tablebase::generate::GenOptions::default(),
        xqdb::tablebase::pipeline::Existing::Keep,
        |s| {
            biggest = biggest.max(s.positions);
            wdl += s.written.wdl_bytes;
            dtm += s.written.dtm_bytes;
            println!(
                "{:<8} {:>10} positions {:>7.2} s",
                s.material.to_string(),
                s.positions,
                s.seconds
            );
        },
    )
    .expect("generation");
    let secs = start.elapsed().as_secs_f64();
    let peak = peak_rss();
    println!(
        "{material} closure: {secs:.1} s wall (2 threads), peak RSS {:.1} MiB = {:.2} bytes per position of the largest table, files WDL {wdl} B, DTM {dtm} B",
        peak as f64 / 1048576.0,
        peak as f64 / biggest as f64
    );
    let _ = std::fs::remove_dir_all(&dir);
}
