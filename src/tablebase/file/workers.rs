//! The compression workers of a file write: how many threads compress a table's WDL and DTM
//! files (their zstd contexts against the process's peak memory), one context per worker
//! kept for the whole file, and the batched compression of a range of blocks.

use super::stream::compress_block;
use super::{block_content, Content};
use rayon::prelude::*;
use std::fs;

/// Blocks compressed at once by a batched write (see [`super::write_content`]), and how far a
/// thread of a streamed write may run ahead of the block written last (see
/// [`super::write_streamed`]): the compressed blocks held in memory are at most this many.
pub(super) const WRITE_BATCH_BLOCKS: usize = 16;

/// Resident bytes of one compression context of the WDL or DTM file, at most (level 15 on
/// the WDL file's blocks of 256 KiB; measured: 8.5 MiB for two, 3.9 MiB for one on KCABKC;
/// the DTM file's level 13 under 1 MiB), for [`write_threads`].
const CONTEXT_BYTES: u64 = 17 << 18;

/// Tables of at least this many positions (both sides to move) always compress their WDL
/// and DTM files with every worker (see [`write_threads`]): the contexts of the others are
/// then at most 0.1 bytes per position, and their write's time counts (KRNKR's 53 M
/// positions: a few seconds).
const PARALLEL_WRITE_POSITIONS: u64 = 40_000_000;

/// The threads that compress the WDL and DTM files of a table of `positions` (both sides
/// to move; see [`super::write_streamed`]): every worker of the pool, unless the table is small
/// and their contexts (one each, [`CONTEXT_BYTES`]) would raise the process's peak memory
/// (the small table alone, whose files phase is then its peak: KCABKC's 18 M positions by
/// 7 MiB over its generation); then one, the files one after the other (the same bytes,
/// in about twice the time of a write that takes a second or two). In a closure, the
/// tables after a bigger one keep writing in parallel under its peak.
pub(super) fn write_threads(positions: u64) -> usize {
    let pool = rayon::current_num_threads().max(1);
    if pool == 1 || positions >= PARALLEL_WRITE_POSITIONS {
        return pool;
    }
    match resident() {
        Some((now, peak)) if now + pool as u64 * CONTEXT_BYTES > peak => 1,
        _ => pool,
    }
}

/// This process's resident bytes now and at its peak (VmRSS and VmHWM), where known.
fn resident() -> Option<(u64, u64)> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

thread_local! {
    /// One compression context per worker thread for the whole file: rayon's `map_init`
    /// makes one per split job, and the many large contexts it allocates and frees raise
    /// the peak memory of a big table's write by tens of megabytes. Released when the file
    /// is written ([`release_compressors`]).
    pub(super) static CTX: std::cell::RefCell<
        Option<(super::ZstdSetting, zstd::bulk::Compressor<'static>)>,
    > = const { std::cell::RefCell::new(None) };
}

/// Free the compression contexts of the worker threads ([`CTX`]). A level-15 context holds
/// a few MiB per thread; kept after a small table's files, they would sit in the worker
/// threads' heaps through the generation of the next, larger table and raise its peak
/// (with [`super::generate`]'s fixed mmap threshold they are mapped, and freed here).
pub(super) fn release_compressors() {
    rayon::broadcast(|_| {
        CTX.with(|cell| cell.borrow_mut().take());
    });
}

/// The compressed blocks `blocks` (block numbers) of the file of `c`.
pub(super) fn compress_blocks(
    src: &Content<'_>,
    block: usize,
    level: i32,
    dict: Option<&[u8]>,
    blocks: std::ops::Range<usize>,
) -> Result<Vec<Vec<u8>>, std::io::Error> {
    let total = 2 * src.positions as usize;
    if dict.is_none() {
        return blocks
            .into_par_iter()
            .map(|k| compress_block(src, block, level, k))
            .collect();
    }
    let prepared = dict.map(|d| zstd::dict::EncoderDictionary::copy(d, level));
    blocks
        .into_par_iter()
        .map_init(
            || -> Result<zstd::bulk::Compressor<'_>, std::io::Error> {
                let mut c = match &prepared {
                    Some(d) => zstd::bulk::Compressor::with_prepared_dictionary(d)?,
                    None => zstd::bulk::Compressor::new(level)?,
                };
                c.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))?;
                Ok(c)
            },
            |c, k| {
                let c = c
                    .as_mut()
                    .map_err(|e| std::io::Error::new(e.kind(), e.to_string()))?;
                let raw = block_content(src, k * block..((k + 1) * block).min(total))?;
                c.compress(&raw)
            },
        )
        .collect()
}
