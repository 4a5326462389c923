//! Single-thread perft 5 from the start position (133,312,995 leaves).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::time::Duration;
use xqdb::board::{perft, Position};

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(15));
    group.throughput(Throughput::Elements(133_312_995));
    group.bench_function("startpos_depth5", |b| {
        let mut pos = Position::startpos();
        b.iter(|| {
            let n = perft(&mut pos, 5);
            assert_eq!(n, 133_312_995);
            n
        })
    });
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
