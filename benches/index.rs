//! Placement index throughput on KRNKR: unrank + rank pairs, single thread.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;
use xqdb::index::PlacementIndex;

const PAIRS: u64 = 1_000_000;

fn bench_index(c: &mut Criterion) {
    let idx = PlacementIndex::new("KRNKR".parse().unwrap()).unwrap();
    let size = idx.size();
    // a golden-ratio stride visits the indexes in a scattered order without a division
    let step = (size as f64 * 0.618_033_988_7) as u64 | 1;
    let mut group = c.benchmark_group("index_krnkr");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(PAIRS));
    group.bench_function("unrank_rank_pairs_piece_list", |b| {
        b.iter(|| {
            let mut i = 12345u64;
            let mut acc = 0u64;
            for _ in 0..PAIRS {
                i += step;
                if i >= size {
                    i -= size;
                }
                let p = idx.unrank_pieces(black_box(i)).expect("in range");
                acc ^= idx.rank_pieces(&p).expect("round trip");
            }
            acc
        })
    });
    group.bench_function("unrank_rank_pairs_setup", |b| {
        b.iter(|| {
            let mut i = 12345u64;
            let mut acc = 0u64;
            for _ in 0..PAIRS {
                i += step;
                if i >= size {
                    i -= size;
                }
                let s = idx.unrank(black_box(i)).expect("in range");
                acc ^= idx.rank(&s).expect("round trip");
            }
            acc
        })
    });
    group.finish();
}

criterion_group!(benches, bench_index);
criterion_main!(benches);
