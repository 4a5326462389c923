//! Probe latency and file sizes on KRNKR. Tables are read from $XQDB_BENCH_TABLES, else
//! generated once into target/bench-tables (about 30 s).

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;
use xqdb::board::{Color, Position};
use xqdb::index::{Material, PlacementIndex};
use xqdb::tablebase::file::{table_path, Metric, TableFile};
use xqdb::tablebase::pipeline::{files_valid, generate_set};
use xqdb::tablebase::{Tablebases, Wdl};

fn tables_dir(m: &Material) -> PathBuf {
    let dir = std::env::var_os("XQDB_BENCH_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/bench-tables"));
    if !files_valid(&dir, m) {
        eprintln!("generating {m} into {} for the benchmark", dir.display());
        generate_set(
            &[*m],
            &dir,
            xqdb::tablebase::generate::GenOptions::default(),
            xqdb::tablebase::pipeline::Existing::Keep,
            |_| {},
        )
        .expect("generation");
    }
    dir
}

fn sample_positions(m: Material, n: usize) -> Vec<Position> {
    let idx = PlacementIndex::new(m).unwrap();
    let mut out = Vec::new();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    while out.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let pieces = idx.unrank_pieces(x % idx.size()).unwrap();
        let side = if x & 1 == 0 { Color::Red } else { Color::Black };
        let pos = Position::from_pieces(&pieces, side).unwrap();
        if pos.check_placement_legal().is_ok() {
            out.push(pos);
        }
    }
    out
}

fn bench_probe(c: &mut Criterion) {
    let m: Material = "KRNKR".parse().unwrap();
    let dir = tables_dir(&m);
    let mut total = [0u64; 2];
    for (k, metric) in [Metric::Wdl, Metric::Dtm].into_iter().enumerate() {
        let f = TableFile::open(&table_path(&dir, &m, metric), Some((m, metric))).unwrap();
        total[k] = f.file_size();
        println!(
            "{m} {metric:?}: {} bytes, {:.3} bits per position over {} positions",
            f.file_size(),
            f.file_size() as f64 * 8.0 / (2 * f.header.positions) as f64,
            2 * f.header.positions
        );
    }
    let positions = sample_positions(m, 1000);
    let mut group = c.benchmark_group("probe_krnkr");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(5));

    let cached = Tablebases::open(&dir);
    for p in &positions {
        cached.probe_dtm(p).unwrap();
    }
    group.bench_function("wdl_cached_block", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % positions.len();
            black_box(cached.probe_wdl(&positions[i]).unwrap())
        })
    });
    let uncached = Tablebases::with_cache(&dir, 0);
    group.bench_function("wdl_decompress_block", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % positions.len();
            black_box(uncached.probe_wdl(&positions[i]).unwrap())
        })
    });
    group.bench_function("dtm_decompress_blocks", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % positions.len();
            black_box(uncached.probe_dtm(&positions[i]).unwrap())
        })
    });
    // DTC needs the table's .xqc file (`xqdb gen` builds it by default)
    if table_path(&dir, &m, Metric::Dtc).exists() {
        let f =
            TableFile::open(&table_path(&dir, &m, Metric::Dtc), Some((m, Metric::Dtc))).unwrap();
        println!(
            "{m} Dtc: {} bytes ({:.1} % of the public generator's 7,228,488), {:.3} bits per position",
            f.file_size(),
            100.0 * f.file_size() as f64 / 7_228_488.0,
            f.file_size() as f64 * 8.0 / (2 * f.header.positions) as f64
        );
        for p in &positions {
            cached.probe_dtc(p).unwrap();
        }
        group.bench_function("dtc_cached_blocks", |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % positions.len();
                black_box(cached.probe_dtc(&positions[i]).unwrap())
            })
        });
        // by outcome: a win reads one byte of each file, a loss probes the wins after its
        // moves; with a cache that holds every block those need
        let big = Tablebases::with_cache(&dir, 1 << 30);
        for (name, want) in [("dtc_win_cached", Wdl::Win), ("dtc_loss_cached", Wdl::Loss)] {
            let some: Vec<&Position> = positions
                .iter()
                .filter(|p| big.probe_wdl(p).unwrap() == want)
                .collect();
            for p in &some {
                big.probe_dtc(p).unwrap();
            }
            group.bench_function(name, |b| {
                let mut i = 0;
                b.iter(|| {
                    i = (i + 1) % some.len();
                    black_box(big.probe_dtc(some[i]).unwrap())
                })
            });
        }
        group.bench_function("dtc_decompress_blocks", |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % positions.len();
                black_box(uncached.probe_dtc(&positions[i]).unwrap())
            })
        });
    } else {
        println!(
            "{m}: no DTC file in {}: DTC probes not measured",
            dir.display()
        );
    }
    group.finish();
}

criterion_group!(benches, bench_probe);
criterion_main!(benches);
