//! Placement index throughput on KRNKR: unrank + rank pairs, single thread, in the three
//! forms a caller has: a reused piece list (how the generator and verifier scan a table),
//! a returned piece list, and a `Setup`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;
use xqdb::index::{PieceList, PlacementIndex};

const PAIRS: u64 = 1_000_000;

/// Run `pair` (an unrank then a rank) on `PAIRS` indexes below `size`, visited in a
/// scattered order by a golden-ratio stride (no division in the loop).
fn pairs(size: u64, mut pair: impl FnMut(u64) -> u64) -> u64 {
    let step = (size as f64 * 0.618_033_988_7) as u64 | 1;
    let mut i = 12345 % size;
    let mut acc = 0u64;
    for _ in 0..PAIRS {
        i += step;
        if i >= size {
            i -= size;
        }
        acc ^= pair(black_box(i));
    }
    acc
}

fn bench_index(c: &mut Criterion) {
    let idx = PlacementIndex::new("KRNKR".parse().unwrap()).unwrap();
    let size = idx.size();
    let mut group = c.benchmark_group("index_krnkr");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.throughput(Throughput::Elements(PAIRS));
    group.bench_function("unrank_rank_pairs_reused_list", |b| {
        let mut list = PieceList::new();
        b.iter(|| {
            pairs(size, |i| {
                assert!(idx.unrank_into(i, &mut list), "in range");
                idx.rank_pieces(&list).expect("round trip")
            })
        })
    });
    group.bench_function("unrank_rank_pairs_piece_list", |b| {
        b.iter(|| {
            pairs(size, |i| {
                let p = idx.unrank_pieces(i).expect("in range");
                idx.rank_pieces(&p).expect("round trip")
            })
        })
    });
    group.bench_function("unrank_rank_pairs_setup", |b| {
        b.iter(|| {
            pairs(size, |i| {
                let s = idx.unrank(i).expect("in range");
                idx.rank(&s).expect("round trip")
            })
        })
    });
    group.finish();
}

criterion_group!(benches, bench_index);
criterion_main!(benches);
