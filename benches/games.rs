//! `games check` over ../shared/games/ccpd/ccpd-games.pgn (47 MB, Big5, Chinese notation).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::PathBuf;
use std::time::Duration;
use xqdb::records::collection::read_collection;

fn bench_games(c: &mut Criterion) {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/games/ccpd/ccpd-games.pgn");
    let Ok(meta) = std::fs::metadata(&path) else {
        eprintln!("notice: {} is absent, benchmark skipped", path.display());
        return;
    };
    let mut group = c.benchmark_group("games");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.throughput(Throughput::Bytes(meta.len()));
    group.bench_function("check_ccpd_games", |b| {
        b.iter(|| {
            let st = read_collection(std::slice::from_ref(&path), |_, _| {}, |_| {}).unwrap();
            assert!(st.games > 37_000);
            st.plies
        })
    });
    group.finish();
}

criterion_group!(benches, bench_games);
criterion_main!(benches);
