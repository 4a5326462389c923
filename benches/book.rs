//! Book build from ../shared/games/ccpd/ccpd-games.pgn (read + build + write).

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::PathBuf;
use std::time::Duration;
use xqdb::book::{build, write, BookOptions};
use xqdb::records::collection::read_collection;

fn bench_book(c: &mut Criterion) {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/games/ccpd/ccpd-games.pgn");
    if !path.exists() {
        eprintln!("notice: {} is absent, benchmark skipped", path.display());
        return;
    }
    let out = std::env::temp_dir().join("xqdb-bench-book.xqb");
    let mut group = c.benchmark_group("book");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(40));
    group.bench_function("build_ccpd_games", |b| {
        b.iter(|| {
            let mut games = Vec::new();
            read_collection(
                std::slice::from_ref(&path),
                |g, _| games.push(g.clone()),
                |_| {},
            )
            .unwrap();
            let opts = BookOptions::default();
            let (entries, s) = build(&games, &opts);
            write(&out, &entries, &opts, s.games_used).unwrap()
        })
    });
    group.finish();
    let _ = std::fs::remove_file(&out);
}

criterion_group!(benches, bench_book);
criterion_main!(benches);
