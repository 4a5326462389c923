//! Table files: one WDL file and one DTM file per material (see FORMAT.md).
//!
//! A file is a fixed header with its own CRC-32, a table of block offsets, an optional zstd
//! dictionary, then independently compressed zstd frames (each with zstd's content
//! checksum), one per block of positions. Positions are numbered side Red to move first
//! (index order), then side Black. Values that do not matter (illegal placements; in the DTM
//! file also draws, which the WDL file tells) are filled with the preceding value so that
//! runs stay long.

mod dict;
mod stream;
mod tuning;
mod workers;

use super::generate::SparseVerdicts;
pub use super::header::{
    Header, HEADER_SIZE, INDEX_SCHEME, MAX_BLOCK_SIZE, OLDEST_VERSION, VERSION,
};
pub use super::reader::TableFile;
use super::table::Table;
use super::values::{wdl_of, Verdict, Wdl, DRAW, ILLEGAL, MAX_DTM};
use super::workfile::Buf;
use crate::index::Material;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
pub(super) use stream::counts_and_max;
use stream::{finish_file, write_streamed};
use tuning::{zstd_setting, ZstdSetting};
use workers::{compress_blocks, release_compressors, write_threads, CTX, WRITE_BATCH_BLOCKS};

/// What a file stores.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Metric {
    /// Win/draw/loss per position: 0 loss, 1 draw, 2 win; under rule set 1 also the round
    /// of the repetition rules that decided it (a [`Verdict`] byte).
    Wdl = 0,
    /// Distance to mate in plies for decided positions.
    Dtm = 1,
    /// Distance to conversion (capture or mate) for decided positions, stored relative to
    /// the DTM (see [`super::dtc_code`]).
    Dtc = 2,
}

impl Metric {
    /// File extension.
    pub fn extension(self) -> &'static str {
        match self {
            Metric::Wdl => "xqw",
            Metric::Dtm => "xqd",
            Metric::Dtc => "xqc",
        }
    }
}

/// Path of a table file in `dir`.
pub fn table_path(dir: &Path, m: &Material, metric: Metric) -> PathBuf {
    dir.join(format!("{m}.{}", metric.extension()))
}

/// Errors reading one table file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Could not read or map the file.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// Not a table file, or cut short, or a header field out of range.
    #[error("{path}: corrupt table file: {reason}")]
    Corrupt {
        /// File.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// Written by another version of the format.
    #[error(
        "{path}: unsupported table format version {version} (this build reads versions {OLDEST_VERSION} to {VERSION})"
    )]
    Version {
        /// File.
        path: String,
        /// Version found.
        version: u32,
    },
    /// The file holds another material or metric than its name says.
    #[error("{path}: holds {found}, expected {expected}")]
    WrongTable {
        /// File.
        path: String,
        /// What the name promised.
        expected: String,
        /// What the header says.
        found: String,
    },
}

pub(super) fn corrupt(path: &Path, reason: impl Into<String>) -> FileError {
    FileError::Corrupt {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

/// The byte written for each position of `range` of the concatenation (Red to move, then
/// Black to move). Values that do not matter repeat the previous byte.
fn encode_range(
    t: &Table,
    sparse: Option<&SparseVerdicts>,
    metric: Metric,
    range: std::ops::Range<usize>,
) -> std::io::Result<Vec<u8>> {
    let n = t.values[0].len();
    // the verdicts of the range's open positions, read at once when in a work file
    let window = match (metric, sparse) {
        (Metric::Wdl, Some(sp)) => Some(sp.window(n, range.clone())?),
        _ => None,
    };
    let at = |arr: &[Buf; 2], k: usize| if k < n { arr[0][k] } else { arr[1][k - n] };
    let mut out = Vec::with_capacity(range.len());
    let mut prev = 0u8;
    for k in range {
        let v = at(&t.values, k);
        let b = match metric {
            Metric::Wdl => match (&t.verdicts, wdl_of(v)) {
                (_, None) => prev,
                (Some(verdicts), Some(_)) => at(verdicts, k),
                (None, Some(w)) => {
                    let (s, i) = if k < n { (0, k) } else { (1, k - n) };
                    window
                        .as_ref()
                        .and_then(|sp| sp.get(s, i))
                        .unwrap_or_else(|| Verdict::plain(w).encode())
                }
            },
            Metric::Dtm => {
                if v <= MAX_DTM {
                    v
                } else {
                    prev
                }
            }
            Metric::Dtc => match &t.dtc {
                Some(dtc) if v <= MAX_DTM => super::dtc_code::encode(v, at(dtc, k)).unwrap_or(prev),
                _ => prev,
            },
        };
        out.push(b);
        prev = b;
    }
    Ok(out)
}

/// The bytes of a range of positions of a file before compression (Red to move, then
/// Black to move).
type Encode<'a> = &'a (dyn Fn(std::ops::Range<usize>) -> std::io::Result<Vec<u8>> + Sync);

/// What one file is written from: its header's fields (besides the layout) and its bytes.
struct Content<'a> {
    material: Material,
    rules: crate::board::rules::RuleSet,
    metric: Metric,
    /// Positions per side to move.
    positions: u64,
    counts: [[u64; 4]; 2],
    max_dtm: u8,
    bytes: Encode<'a>,
}

/// What a block of the positions `range` holds before compression (tag and values).
fn block_content(c: &Content<'_>, range: std::ops::Range<usize>) -> std::io::Result<Vec<u8>> {
    Ok(super::block_code::encode(&(c.bytes)(range)?))
}

/// Sizes written.
#[derive(Clone, Copy, Debug, Default)]
pub struct Written {
    /// Bytes of the WDL file.
    pub wdl_bytes: u64,
    /// Bytes of the DTM file.
    pub dtm_bytes: u64,
    /// Bytes of the DTC file (0 when none was written).
    pub dtc_bytes: u64,
}

/// Positions per block of the WDL and DTM files: 2^18 - 1 (see [`block_params`]).
pub const BIG_BLOCK: u32 = (1 << 18) - 1;

/// Compression settings per metric: (positions per block, zstd level).
///
/// Blocks hold [`BIG_BLOCK`] positions, so that a block written byte by byte is, with its
/// tag, exactly 256 KiB: zstd picks its parameters by the input's size, and inputs of at
/// most 256 KiB get the set that compresses these values best (one byte more costs 24 % on
/// KRNKR's WDL at the same level).
///
/// Measured (rule set 1, format version 2): WDL at level 15 is 3.09 MB for KRNKR (3.50 MB in
/// version 1's 64K blocks) and 325.5 KB for KRNKAABB (410.9 KB; its blocks are written as
/// runs, see [`super::block_code`]); DTM, read at the root only, at level 13 with its big
/// blocks tuned ([`zstd_setting`]) is 5.32 MB for KRNKR and 9.02 MB for KRNKAABB (level 13
/// as it is: 5.48 MB and 9.22 MB; 6.89 MB and 11.15 MB in version 1's 32K blocks at level
/// 12). Level 19 or more would be smaller still but compresses 5-10 times slower.
pub fn block_params(metric: Metric) -> (u32, i32) {
    match metric {
        Metric::Wdl => (BIG_BLOCK, 15),
        Metric::Dtm => (BIG_BLOCK, 13),
        Metric::Dtc => super::dtc_code::BLOCK_PARAMS,
    }
}

/// A temporary name beside `path`, unique to this process and call (so that two writers of
/// one folder never share one): `NAME.EXT.PID-N.tmp`.
pub fn temp_path(path: &Path) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}-{n}.tmp", std::process::id()));
    path.with_file_name(name)
}

/// Write the WDL and DTM files of a table (atomically: temporary files, then renamed by
/// [`commit_files`](super::commit::commit_files), the WDL file last; the temporary files are
/// removed on any error).
pub fn write_files(dir: &Path, table: &Table) -> Result<Written, FileError> {
    let mut written = Written::default();
    let pending = write_both(dir, table, None, &mut written)?;
    commit_pending(dir, pending)?;
    Ok(written)
}

/// Write the WDL and DTM files of `table` (the WDL verdicts of the positions open after
/// round 0 from `sparse` when given) under temporary names, both at once: their blocks are
/// one stream of jobs for every worker (see [`write_streamed`]). The temporary files are
/// returned for [`commit_pending`], or removed on an error.
fn write_both(
    dir: &Path,
    table: &Table,
    sparse: Option<&SparseVerdicts>,
    written: &mut Written,
) -> Result<Vec<super::commit::Pending>, FileError> {
    let (counts, max_dtm) = counts_and_max(&table.values);
    let wdl = |range| encode_range(table, sparse, Metric::Wdl, range);
    let dtm = |range| encode_range(table, None, Metric::Dtm, range);
    let files =
        [(Metric::Wdl, &wdl as Encode<'_>), (Metric::Dtm, &dtm)].map(|(metric, bytes)| Content {
            material: table.material,
            rules: table.rules,
            metric,
            positions: table.values[0].len() as u64,
            counts,
            max_dtm,
            bytes,
        });
    let threads = write_threads(2 * table.values[0].len() as u64);
    if super::generate::phases() {
        eprintln!("{} files: {threads} compressing", table.material);
    }
    let mut pending = Vec::new();
    if let Err(e) = write_streamed(dir, &files, threads, written, &mut pending) {
        discard(&pending);
        return Err(e);
    }
    Ok(pending)
}

/// Commit the temporary files of one table (WDL last); on an error they are removed.
/// Remove the temporary files of a write that failed part of the way (the files already in
/// place are untouched).
fn discard(pending: &[super::commit::Pending]) {
    for p in pending {
        let _ = fs::remove_file(&p.tmp);
    }
}

fn commit_pending(dir: &Path, mut pending: Vec<super::commit::Pending>) -> Result<(), FileError> {
    // written WDL first (its verdicts can be dropped before the DTM file), renamed last
    pending.sort_by_key(|p| {
        p.path
            .extension()
            .is_some_and(|e| e == Metric::Wdl.extension())
    });
    super::commit::commit_files(dir, &pending).map_err(|(path, source)| FileError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// [`write_files`] for a table that is not needed whole afterwards: its verdicts are
/// dropped once the WDL file is written, before the DTM file is compressed (the peak
/// memory of a big table's write is then its DTM bytes and one file's blocks).
pub fn write_files_shedding(dir: &Path, table: &mut Table) -> Result<Written, FileError> {
    write_files_sparse(dir, table, None)
}

/// [`write_files_shedding`] for a table whose verdicts come apart, kept for the positions
/// open after round 0 ([`SparseVerdicts`], from
/// [`crate::tablebase::generate::generate_sparse`]; the table's own `verdicts` None): they
/// are dropped once the WDL file is written.
pub fn write_files_sparse(
    dir: &Path,
    table: &mut Table,
    sparse: Option<SparseVerdicts>,
) -> Result<Written, FileError> {
    let mut written = Written::default();
    let mut sparse = sparse;
    if let Some(sp) = &mut sparse {
        // the verdicts wait in a work file while the values are compressed
        let path = dir.join(format!("{}.verdicts.work", table.material));
        sp.spill(path.clone()).map_err(|source| FileError::Io {
            path: path.display().to_string(),
            source,
        })?;
    }
    let pending = if table.verdicts.is_some() {
        // verdicts held whole: dropped before the DTM file is compressed
        let mut pending = Vec::new();
        write_file(dir, table, None, Metric::Wdl, &mut written, &mut pending)?;
        table.verdicts = None;
        if let Err(e) = write_file(dir, table, None, Metric::Dtm, &mut written, &mut pending) {
            discard(&pending);
            return Err(e);
        }
        pending
    } else {
        write_both(dir, table, sparse.as_ref(), &mut written)?
    };
    drop(sparse);
    commit_pending(dir, pending)?;
    Ok(written)
}

/// Write the DTC file of a table whose `dtc` is set (atomically, like [`write_files`]), its
/// size into `written`.
pub fn write_dtc_file(dir: &Path, table: &Table, written: &mut Written) -> Result<(), FileError> {
    if table.dtc.is_none() {
        return Err(corrupt(
            &table_path(dir, &table.material, Metric::Dtc),
            "no distance to conversion to write",
        ));
    }
    let mut pending = Vec::new();
    write_file(dir, table, None, Metric::Dtc, written, &mut pending)?;
    commit_pending(dir, pending)
}

/// Write one of the files of `table` under a temporary name (flushed to disk), added to
/// `pending`; its size into `written`.
fn write_file(
    dir: &Path,
    table: &Table,
    sparse: Option<&SparseVerdicts>,
    metric: Metric,
    written: &mut Written,
    pending: &mut Vec<super::commit::Pending>,
) -> Result<(), FileError> {
    let values = &table.values;
    let max_of = |arr: &[Buf; 2]| {
        arr.iter()
            .flatten()
            .filter(|&&v| v <= MAX_DTM)
            .max()
            .copied()
            .unwrap_or(0)
    };
    // the DTC file's header holds its longest conversion
    let max_dtm = match (&table.dtc, metric) {
        (Some(dtc), Metric::Dtc) => max_of(dtc),
        _ => max_of(values),
    };
    let content = Content {
        material: table.material,
        rules: table.rules,
        metric,
        positions: values[0].len() as u64,
        counts: super::values::outcome_counts(values),
        max_dtm,
        bytes: &|range| encode_range(table, sparse, metric, range),
    };
    write_content(dir, &content, written, pending)
}

/// Write the DTC file of `material` (rule set `rules`, `counts` its outcome counts as in
/// its WDL file's header, `longest` its longest DTC) from the bytes the DTC pass made
/// ([`super::generate::generate_dtc_bytes`]: the stored byte or
/// [`super::dtc_code::NOT_STORED`] of each decided position), atomically like [`write_files`]; its size into
/// `written`. The file is the one [`write_dtc_file`] writes for the table.
pub fn write_dtc_bytes(
    dir: &Path,
    material: Material,
    rules: crate::board::rules::RuleSet,
    counts: [[u64; 4]; 2],
    longest: u8,
    stored: &super::generate::StoredDtc,
    written: &mut Written,
) -> Result<(), FileError> {
    let n = stored.positions();
    let encode =
        |range: std::ops::Range<usize>| -> std::io::Result<Vec<u8>> { Ok(stored.range(range)) };
    let content = Content {
        material,
        rules,
        metric: Metric::Dtc,
        positions: n as u64,
        counts,
        max_dtm: longest,
        bytes: &encode,
    };
    let mut pending = Vec::new();
    write_content(dir, &content, written, &mut pending)?;
    commit_pending(dir, pending)
}

/// True when a file of `nblocks` blocks of `block` positions tries a trained dictionary (see
/// [`write_content`]): small blocks (the DTC file's) and a few dozen to a few hundred of them.
/// Its blocks are then compressed whole in memory, twice, and the training's buffers add
/// about 2 MiB to the peak of so small a table (see `plan` and [`dict`]).
pub(crate) fn tries_dictionary(block: u32, nblocks: usize) -> bool {
    block < 65_536 && (16..=256).contains(&nblocks)
}

/// Write the file of `c` under a temporary name (flushed to disk), added to `pending`; its
/// size into `written`.
fn write_content(
    dir: &Path,
    c: &Content<'_>,
    written: &mut Written,
    pending: &mut Vec<super::commit::Pending>,
) -> Result<(), FileError> {
    let io = |path: &Path, e: std::io::Error| FileError::Io {
        path: path.display().to_string(),
        source: e,
    };
    fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let (material, metric, positions) = (&c.material, c.metric, c.positions);
    let path = table_path(dir, material, metric);
    let (block, level) = block_params(metric);
    let total = 2 * positions as usize;
    let nblocks = total.div_ceil(block as usize);
    // A trained dictionary can pay off when a table has a few dozen small blocks; with many
    // blocks, or blocks of 256K positions, each frame has enough context of its own
    // (measured: never smaller on KRNKR, in 32K blocks or in 256K blocks, where trying cost
    // 9 s CPU and 70 MiB of peak memory), so it is only tried on small tables with small
    // blocks (the DTC file's), whose blocks are then compressed whole in memory. It is kept
    // only when smaller. Every other file is compressed and written a batch of blocks at a
    // time: the compressed file is never held whole in memory.
    let mut dict = Vec::new();
    let mut in_memory = None;
    if tries_dictionary(block, nblocks) {
        let all = 0..nblocks;
        let plain = compress_blocks(c, block as usize, level, None, all.clone())
            .map_err(|e| io(&path, e))?;
        let plain_size: usize = plain.iter().map(|b| b.len()).sum();
        let mut blocks = plain;
        // the samples (every `step`-th block's content) in one buffer, as
        // `zstd::dict::from_samples` would join them (an encoded block is at most a byte
        // longer than its positions), freed before the blocks are compressed again with the
        // dictionary
        let step = (nblocks / 64).max(1);
        let range = |k: usize| k * block as usize..((k + 1) * block as usize).min(total);
        let bound = (0..nblocks).step_by(step).map(|k| range(k).len() + 1).sum();
        let mut data = Vec::with_capacity(bound);
        let mut sizes = Vec::new();
        for k in (0..nblocks).step_by(step) {
            let sample = block_content(c, range(k)).map_err(|e| io(&path, e))?;
            data.extend_from_slice(&sample);
            sizes.push(sample.len());
        }
        let trained = dict::train(&data, &sizes, 16 * 1024);
        drop(data);
        if let Some(d) = trained {
            let with = compress_blocks(c, block as usize, level, Some(&d), all);
            if let Ok(with) = with {
                let size: usize = with.iter().map(|b| b.len()).sum::<usize>() + d.len();
                if size < plain_size {
                    blocks = with;
                    dict = d;
                }
            }
        }
        in_memory = Some(blocks);
    }
    let header = Header {
        metric,
        version: VERSION,
        rules: c.rules,
        index_scheme: INDEX_SCHEME,
        max_dtm: c.max_dtm,
        material: *material,
        positions,
        block_size: block,
        blocks: nblocks as u32,
        dict_len: dict.len() as u32,
        counts: c.counts,
    };
    let tmp = temp_path(&path);
    let offsets_len = (nblocks + 1) * 8;
    let write = || -> std::io::Result<u64> {
        let mut f = std::io::BufWriter::new(fs::File::create(&tmp)?);
        // the header and the offsets are written last, once the blocks' sizes are known
        f.write_all(&[0u8; HEADER_SIZE])?;
        f.write_all(&vec![0u8; offsets_len])?;
        f.write_all(&dict)?;
        let mut offsets = Vec::with_capacity(offsets_len);
        let mut off = 0u64;
        let mut put = |f: &mut std::io::BufWriter<fs::File>, b: &[u8]| {
            offsets.extend_from_slice(&off.to_le_bytes());
            off += b.len() as u64;
            f.write_all(b)
        };
        match &in_memory {
            Some(blocks) => {
                for b in blocks {
                    put(&mut f, b)?;
                }
            }
            None => {
                for first in (0..nblocks).step_by(WRITE_BATCH_BLOCKS) {
                    let batch = first..(first + WRITE_BATCH_BLOCKS).min(nblocks);
                    for b in compress_blocks(c, block as usize, level, None, batch)? {
                        put(&mut f, &b)?;
                    }
                }
            }
        }
        offsets.extend_from_slice(&off.to_le_bytes());
        finish_file(f, &header, &offsets, &dict)?;
        Ok(off)
    };
    let written_data = write();
    release_compressors();
    let data = match written_data {
        Ok(data) => data,
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            return Err(io(&tmp, e));
        }
    };
    pending.push(super::commit::Pending { tmp, path });
    let size = HEADER_SIZE as u64 + offsets_len as u64 + dict.len() as u64 + data;
    match metric {
        Metric::Wdl => written.wdl_bytes = size,
        Metric::Dtm => written.dtm_bytes = size,
        Metric::Dtc => written.dtc_bytes = size,
    }
    Ok(())
}

/// Combine a WDL and a DTM file's bytes into values (illegal placements are not known
/// from the files: callers mark them).
pub fn combine(wdl: &[u8], dtm: &[u8]) -> Vec<u8> {
    wdl.iter()
        .zip(dtm)
        .map(|(&w, &d)| match Verdict::decode(w).map(|v| v.wdl) {
            Some(Wdl::Draw) => DRAW,
            Some(Wdl::Win) if d <= MAX_DTM && d % 2 == 1 => d,
            Some(Wdl::Loss) if d <= MAX_DTM && d % 2 == 0 => d,
            _ => ILLEGAL,
        })
        .collect()
}
