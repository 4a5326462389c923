//! Sizes of DTC encodings on KRNKR (the numbers behind `tablebase::dtc_code`): each variant
//! is the byte stream of the DTC file (Red to move, then Black), cut in blocks, each block a
//! zstd frame, plus the block offsets and the header. Reads KRNKR's three files from
//! $XQDB_BENCH_TABLES (generate them with `xqdb gen KRNKR --tables DIR`).

use rayon::prelude::*;
use std::path::PathBuf;
use xqdb::index::Material;
use xqdb::tablebase::pipeline::load_table;
use xqdb::tablebase::pipeline_dtc::load_dtc;
use xqdb::tablebase::values::MAX_DTM;

/// The public generator's KRNKR DTC file.
const PUBLIC: u64 = 7_228_488;

fn size(stream: &[u8], block: usize, level: i32) -> u64 {
    let frames: u64 = stream
        .par_chunks(block)
        .map(|b| zstd::bulk::compress(b, level).expect("zstd").len() as u64 + 4)
        .sum();
    frames + 144 + 8 * (stream.len().div_ceil(block) as u64 + 1)
}

fn main() {
    let dir = PathBuf::from(std::env::var_os("XQDB_BENCH_TABLES").expect("set XQDB_BENCH_TABLES"));
    let m: Material = "KRNKR".parse().expect("material");
    let mut t = load_table(&dir, &m, false).expect("KRNKR WDL and DTM files");
    load_dtc(&dir, &mut t).expect("KRNKR DTC file");
    let dtc = t.dtc.as_ref().expect("loaded");
    let pairs: Vec<(u8, u8)> = t.values[0]
        .iter()
        .zip(&dtc[0])
        .chain(t.values[1].iter().zip(&dtc[1]))
        .map(|(&v, &c)| (v, c))
        .collect();
    let decided = pairs.iter().filter(|p| p.0 <= MAX_DTM).count();
    let equal = pairs
        .iter()
        .filter(|p| p.0 <= MAX_DTM && p.0 == p.1)
        .count();
    println!(
        "KRNKR: {} positions, {decided} decided, DTC = DTM on {equal}",
        pairs.len()
    );
    // (name, stored byte of a decided position or None for don't-care)
    type Enc = fn(u8, u8) -> Option<u8>;
    let variants: [(&str, Enc); 5] = [
        ("plain DTC", |_, c| Some(c)),
        ("DTM - DTC", |v, c| Some(v - c)),
        ("DTM - DTC, DTM <= 1 don't-care", |v, c| {
            (v > 1).then(|| v - c)
        }),
        ("DTM - DTC, wins only (losses don't-care)", |v, c| {
            (v > 1 && v % 2 == 1).then(|| v - c)
        }),
        ("DTC, 255 where DTC = DTM, DTM <= 1 don't-care", |v, c| {
            (v > 1).then_some(if c == v { 255 } else { c })
        }),
    ];
    for (name, enc) in variants {
        let mut prev = 0u8;
        let stream: Vec<u8> = pairs
            .iter()
            .map(|&(v, c)| {
                let b = if v <= MAX_DTM {
                    enc(v, c).unwrap_or(prev)
                } else {
                    prev
                };
                prev = b;
                b
            })
            .collect();
        for (block, level) in [
            (32768usize, 12),
            (32768, 19),
            (65536, 19),
            (131072, 19),
            (262144, 19),
        ] {
            let s = size(&stream, block, level);
            println!(
                "{name:<44} blocks {block:>6} level {level:>2}: {s:>9} bytes, {:.1} % of the public {PUBLIC}",
                100.0 * s as f64 / PUBLIC as f64
            );
        }
    }
}
