//! WDL probe latency through the C API (src/ffi) against the Rust API, on KRNKR with the
//! block cached. Tables are read from $XQDB_BENCH_TABLES, else generated once into
//! target/bench-tables (the folder of the probe bench).
//!
//! The C entry points are called through function pointers hidden from the optimiser, as a
//! C caller reaches them; the figures include what the C API adds: reading the board array
//! or the FEN into a checked position, the panic guard and the status code.

use criterion::{criterion_group, criterion_main, Criterion};
use std::ffi::{c_char, CString};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;
use xqdb::board::{Color, Piece, Position, Role, Setup};
use xqdb::ffi::{
    board_array, xqdb_probe_wdl, xqdb_probe_wdl_fen, xqdb_tables_close, xqdb_tables_open,
    XqdbStatus, XqdbTables, XqdbWdl,
};
use xqdb::index::{Material, PlacementIndex};
use xqdb::tablebase::pipeline::{files_valid, generate_set};
use xqdb::tablebase::Tablebases;

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

/// Legal positions spread over the material's index.
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

type BoardProbe =
    unsafe extern "C" fn(*const XqdbTables, *const u8, i32, *mut XqdbWdl) -> XqdbStatus;
type FenProbe = unsafe extern "C" fn(*const XqdbTables, *const c_char, *mut XqdbWdl) -> XqdbStatus;

fn bench_ffi(c: &mut Criterion) {
    let m: Material = "KRNKR".parse().unwrap();
    let dir = tables_dir(&m);
    let positions = sample_positions(m, 1000);
    let boards: Vec<([u8; 90], i32)> = positions
        .iter()
        .map(|p| (board_array(p), p.turn() as i32))
        .collect();
    let fens: Vec<CString> = positions
        .iter()
        .map(|p| CString::new(p.to_fen()).unwrap())
        .collect();

    let rust = Tablebases::open(&dir);
    let cdir = CString::new(dir.to_str().expect("a UTF-8 folder name")).unwrap();
    let mut handle: *mut XqdbTables = std::ptr::null_mut();
    // SAFETY: a NUL-terminated path and a writable handle pointer.
    let s = unsafe { xqdb_tables_open(cdir.as_ptr(), 0, &mut handle) };
    assert_eq!(s, XqdbStatus::Ok);
    let board_probe: BoardProbe = black_box(xqdb_probe_wdl);
    let fen_probe: FenProbe = black_box(xqdb_probe_wdl_fen);
    // both caches hold every block of the sample, and both APIs agree on it
    for (i, p) in positions.iter().enumerate() {
        let want = rust.probe_wdl(p).unwrap();
        let mut w = XqdbWdl::Draw;
        // SAFETY: a live handle, a 90-byte board, a writable verdict.
        let s = unsafe { board_probe(handle, boards[i].0.as_ptr(), boards[i].1, &mut w) };
        assert_eq!((s, w), (XqdbStatus::Ok, want.into()));
    }

    let mut group = c.benchmark_group("wdl_cached_block_krnkr");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("rust_position", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % positions.len();
            black_box(rust.probe_wdl(&positions[i]).unwrap())
        })
    });
    group.bench_function("rust_board_array_to_position", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % positions.len();
            // what the C board-array call does before probing, in Rust
            let (board, side) = &boards[i];
            let mut setup = Setup::empty();
            setup.turn = if *side == 0 { Color::Red } else { Color::Black };
            for (sq, &code) in board.iter().enumerate() {
                setup.board[sq] = (code != 0).then(|| {
                    let color = if code < 8 { Color::Red } else { Color::Black };
                    Piece::new(color, Role::ALL[(code & 7) as usize - 1])
                });
            }
            let pos = Position::from_setup(&setup).unwrap();
            black_box(rust.probe_wdl(&pos).unwrap())
        })
    });
    group.bench_function("c_board_array", |b| {
        let mut i = 0;
        let mut w = XqdbWdl::Draw;
        b.iter(|| {
            i = (i + 1) % boards.len();
            let (board, side) = &boards[i];
            // SAFETY: a live handle, a 90-byte board, a writable verdict.
            let s = unsafe { board_probe(handle, board.as_ptr(), *side, &mut w) };
            black_box((s, w))
        })
    });
    group.bench_function("c_fen", |b| {
        let mut i = 0;
        let mut w = XqdbWdl::Draw;
        b.iter(|| {
            i = (i + 1) % fens.len();
            // SAFETY: a live handle, a NUL-terminated FEN, a writable verdict.
            let s = unsafe { fen_probe(handle, fens[i].as_ptr(), &mut w) };
            black_box((s, w))
        })
    });
    group.finish();
    // SAFETY: opened above, no probe running.
    unsafe { xqdb_tables_close(handle) };
}

criterion_group!(benches, bench_ffi);
criterion_main!(benches);
