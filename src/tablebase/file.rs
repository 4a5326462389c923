//! Table files: one WDL file and one DTM file per material (see FORMAT.md).
//!
//! A file is a fixed header with its own CRC-32, a table of block offsets, an optional zstd
//! dictionary, then independently compressed zstd frames (each with zstd's content
//! checksum), one per block of positions. Positions are numbered side Red to move first
//! (index order), then side Black. Values that do not matter (illegal placements; in the DTM
//! file also draws, which the WDL file tells) are filled with the preceding value so that
//! runs stay long.

use super::table::Table;
use super::values::{wdl_of, Verdict, Wdl, DRAW, ILLEGAL, MAX_DTM};
use crate::board::rules::RuleSet;
use crate::index::{Material, MaterialError};
use byteorder::{ByteOrder, LittleEndian as LE};
use rayon::prelude::*;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Format version written. Version 2 blocks start with a tag byte (see
/// [`super::block_code`]); version 1 blocks (values byte by byte) are still read.
pub const VERSION: u32 = 2;
/// Oldest format version read.
pub const OLDEST_VERSION: u32 = 1;
/// Index scheme 1: the mirror-folded placement index of `crate::index`.
pub const INDEX_SCHEME: u8 = 1;
/// Bytes of the fixed header.
pub const HEADER_SIZE: usize = 144;
/// Largest block (positions) a reader accepts: one block is decompressed at once.
pub const MAX_BLOCK_SIZE: u32 = 1 << 24;

const MAGIC_WDL: [u8; 8] = *b"XQDBWDL\x1a";
const MAGIC_DTM: [u8; 8] = *b"XQDBDTM\x1a";
const MAGIC_DTC: [u8; 8] = *b"XQDBDTC\x1a";

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

    fn magic(self) -> [u8; 8] {
        match self {
            Metric::Wdl => MAGIC_WDL,
            Metric::Dtm => MAGIC_DTM,
            Metric::Dtc => MAGIC_DTC,
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

/// Header fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// WDL or DTM.
    pub metric: Metric,
    /// Format version.
    pub version: u32,
    /// Repetition rule set the values follow.
    pub rules: RuleSet,
    /// Index scheme (see [`INDEX_SCHEME`]).
    pub index_scheme: u8,
    /// Longest distance to mate in the table.
    pub max_dtm: u8,
    /// Material.
    pub material: Material,
    /// Positions per side to move (the index size).
    pub positions: u64,
    /// Positions per block.
    pub block_size: u32,
    /// Number of blocks.
    pub blocks: u32,
    /// Bytes of the zstd dictionary (0 for none).
    pub dict_len: u32,
    /// Per side to move: wins, draws, losses, illegal.
    pub counts: [[u64; 4]; 2],
}

fn corrupt(path: &Path, reason: impl Into<String>) -> FileError {
    FileError::Corrupt {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

impl Header {
    fn encode(&self) -> [u8; HEADER_SIZE] {
        let mut b = [0u8; HEADER_SIZE];
        b[0..8].copy_from_slice(&self.metric.magic());
        LE::write_u32(&mut b[8..12], self.version);
        b[12] = self.metric as u8;
        b[13] = self.rules.code();
        b[14] = self.index_scheme;
        b[15] = self.max_dtm;
        let name = self.material.to_string();
        b[16..16 + name.len().min(32)].copy_from_slice(&name.as_bytes()[..name.len().min(32)]);
        LE::write_u64(&mut b[48..56], self.positions);
        LE::write_u32(&mut b[56..60], self.block_size);
        LE::write_u32(&mut b[60..64], self.blocks);
        LE::write_u32(&mut b[64..68], self.dict_len);
        for s in 0..2 {
            for k in 0..4 {
                let o = 72 + (s * 4 + k) * 8;
                LE::write_u64(&mut b[o..o + 8], self.counts[s][k]);
            }
        }
        b
    }

    fn decode(path: &Path, b: &[u8]) -> Result<Header, FileError> {
        if b.len() < HEADER_SIZE {
            return Err(corrupt(
                path,
                format!("{} bytes, shorter than the header", b.len()),
            ));
        }
        let metric = if b[0..8] == MAGIC_WDL {
            Metric::Wdl
        } else if b[0..8] == MAGIC_DTM {
            Metric::Dtm
        } else if b[0..8] == MAGIC_DTC {
            Metric::Dtc
        } else {
            return Err(corrupt(path, "bad magic: not an xqdb table file"));
        };
        let version = LE::read_u32(&b[8..12]);
        if !(OLDEST_VERSION..=VERSION).contains(&version) {
            return Err(FileError::Version {
                path: path.display().to_string(),
                version,
            });
        }
        if b[12] != metric as u8 {
            return Err(corrupt(path, "metric byte disagrees with the magic"));
        }
        let end = b[16..48].iter().position(|&c| c == 0).unwrap_or(32);
        let name = std::str::from_utf8(&b[16..16 + end])
            .map_err(|_| corrupt(path, "material is not text"))?;
        let material: Material = name
            .parse()
            .map_err(|e: MaterialError| corrupt(path, format!("material field: {e}")))?;
        let mut counts = [[0u64; 4]; 2];
        for (s, row) in counts.iter_mut().enumerate() {
            for (k, c) in row.iter_mut().enumerate() {
                let o = 72 + (s * 4 + k) * 8;
                *c = LE::read_u64(&b[o..o + 8]);
            }
        }
        let rules = RuleSet::from_code(b[13]).ok_or_else(|| {
            corrupt(
                path,
                format!(
                    "unknown repetition rule set {} (this build knows 0 and 1)",
                    b[13]
                ),
            )
        })?;
        let h = Header {
            metric,
            version,
            rules,
            index_scheme: b[14],
            max_dtm: b[15],
            material,
            positions: LE::read_u64(&b[48..56]),
            block_size: LE::read_u32(&b[56..60]),
            blocks: LE::read_u32(&b[60..64]),
            dict_len: LE::read_u32(&b[64..68]),
            counts,
        };
        if h.index_scheme != INDEX_SCHEME {
            return Err(corrupt(
                path,
                format!("unknown index scheme {}", h.index_scheme),
            ));
        }
        for (range, what) in [(68..72, "68..72"), (140..144, "140..144")] {
            if b[range].iter().any(|&x| x != 0) {
                return Err(corrupt(
                    path,
                    format!("reserved header bytes {what} are not zero"),
                ));
            }
        }
        let total = h
            .positions
            .checked_mul(2)
            .ok_or_else(|| corrupt(path, format!("{} positions is out of range", h.positions)))?;
        if h.block_size == 0 || h.block_size > MAX_BLOCK_SIZE {
            return Err(corrupt(
                path,
                format!("block size {} out of range", h.block_size),
            ));
        }
        if total.div_ceil(h.block_size as u64) != h.blocks as u64 {
            return Err(corrupt(
                path,
                "block count does not match positions and block size",
            ));
        }
        Ok(h)
    }
}

/// The byte written for each position of `range` of the concatenation (Red to move, then
/// Black to move). Values that do not matter repeat the previous byte.
fn encode_range(t: &Table, metric: Metric, range: std::ops::Range<usize>) -> Vec<u8> {
    let n = t.values[0].len();
    let at = |arr: &[Vec<u8>; 2], k: usize| if k < n { arr[0][k] } else { arr[1][k - n] };
    let mut out = Vec::with_capacity(range.len());
    let mut prev = 0u8;
    for k in range {
        let v = at(&t.values, k);
        let b = match metric {
            Metric::Wdl => match (&t.verdicts, wdl_of(v)) {
                (_, None) => prev,
                (Some(verdicts), Some(_)) => at(verdicts, k),
                (None, Some(w)) => Verdict::plain(w).encode(),
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
    out
}

/// What a block of the positions `range` holds before compression (tag and values).
fn block_content(t: &Table, metric: Metric, range: std::ops::Range<usize>) -> Vec<u8> {
    super::block_code::encode(&encode_range(t, metric, range))
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
/// runs, see [`super::block_code`]); DTM, read at the root only, at level 13 is 5.52 MB for
/// KRNKR and 9.27 MB for KRNKAABB (6.89 MB and 11.15 MB in version 1's 32K blocks at level
/// 12), at about twice the compression time. Level 19 or more would be smaller still but
/// compresses 5-10 times slower.
pub fn block_params(metric: Metric) -> (u32, i32) {
    match metric {
        Metric::Wdl => (BIG_BLOCK, 15),
        Metric::Dtm => (BIG_BLOCK, 13),
        Metric::Dtc => super::dtc_code::BLOCK_PARAMS,
    }
}

fn compress_blocks(
    t: &Table,
    metric: Metric,
    block: usize,
    level: i32,
    dict: Option<&[u8]>,
) -> Result<Vec<Vec<u8>>, std::io::Error> {
    let total = 2 * t.values[0].len();
    if dict.is_none() {
        // one compression context per worker thread for the whole table: rayon's
        // `map_init` makes one per split job, and the many large contexts it allocates and
        // frees raise the peak memory of a big table's write by tens of megabytes
        thread_local! {
            static CTX: std::cell::RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> =
                const { std::cell::RefCell::new(None) };
        }
        return (0..total.div_ceil(block))
            .into_par_iter()
            .map(|k| {
                let raw = block_content(t, metric, k * block..((k + 1) * block).min(total));
                CTX.with(|cell| {
                    let mut slot = cell.borrow_mut();
                    if slot.as_ref().is_none_or(|(l, _)| *l != level) {
                        let mut c = zstd::bulk::Compressor::new(level)?;
                        c.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))?;
                        *slot = Some((level, c));
                    }
                    let (_, c) = slot.as_mut().expect("set just above");
                    c.compress(&raw)
                })
            })
            .collect();
    }
    let prepared = dict.map(|d| zstd::dict::EncoderDictionary::copy(d, level));
    (0..total.div_ceil(block))
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
                let raw = block_content(t, metric, k * block..((k + 1) * block).min(total));
                c.compress(&raw)
            },
        )
        .collect()
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
    let mut pending = Vec::new();
    for metric in [Metric::Wdl, Metric::Dtm] {
        if let Err(e) = write_file(dir, table, metric, &mut written, &mut pending) {
            discard(&pending);
            return Err(e);
        }
    }
    commit_pending(dir, pending)?;
    Ok(written)
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
    let mut written = Written::default();
    let mut pending = Vec::new();
    write_file(dir, table, Metric::Wdl, &mut written, &mut pending)?;
    table.verdicts = None;
    if let Err(e) = write_file(dir, table, Metric::Dtm, &mut written, &mut pending) {
        discard(&pending);
        return Err(e);
    }
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
    write_file(dir, table, Metric::Dtc, written, &mut pending)?;
    commit_pending(dir, pending)
}

/// Write one of the files of `table` under a temporary name (flushed to disk), added to
/// `pending`; its size into `written`.
fn write_file(
    dir: &Path,
    table: &Table,
    metric: Metric,
    written: &mut Written,
    pending: &mut Vec<super::commit::Pending>,
) -> Result<(), FileError> {
    let material = &table.material;
    let values = &table.values;
    let io = |path: &Path, e: std::io::Error| FileError::Io {
        path: path.display().to_string(),
        source: e,
    };
    fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let positions = values[0].len() as u64;
    let counts = super::values::outcome_counts(values);
    let max_of = |arr: &[Vec<u8>; 2]| {
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
    {
        let path = table_path(dir, material, metric);
        let (block, level) = block_params(metric);
        let plain = compress_blocks(table, metric, block as usize, level, None)
            .map_err(|e| io(&path, e))?;
        let plain_size: usize = plain.iter().map(|b| b.len()).sum();
        // A trained dictionary can pay off when a table has a few dozen small blocks; with
        // many blocks, or blocks of 256K positions, each frame has enough context of its
        // own (measured: never smaller on KRNKR, in 32K blocks or in 256K blocks, where
        // trying cost 9 s CPU and 70 MiB of peak memory), so it is only tried on small tables
        // with small blocks (the DTC file's). It is kept only when smaller.
        let mut blocks = plain;
        let mut dict = Vec::new();
        let total = 2 * values[0].len();
        let nblocks = total.div_ceil(block as usize);
        if block < 65_536 && (16..=256).contains(&nblocks) {
            let step = (nblocks / 64).max(1);
            let samples: Vec<Vec<u8>> = (0..nblocks)
                .step_by(step)
                .map(|k| {
                    block_content(
                        table,
                        metric,
                        k * block as usize..((k + 1) * block as usize).min(total),
                    )
                })
                .collect();
            if let Ok(d) = zstd::dict::from_samples(&samples, 16 * 1024) {
                if let Ok(with) = compress_blocks(table, metric, block as usize, level, Some(&d)) {
                    let size: usize = with.iter().map(|b| b.len()).sum::<usize>() + d.len();
                    if size < plain_size {
                        blocks = with;
                        dict = d;
                    }
                }
            }
        }
        let header = Header {
            metric,
            version: VERSION,
            rules: table.rules,
            index_scheme: INDEX_SCHEME,
            max_dtm,
            material: *material,
            positions,
            block_size: block,
            blocks: blocks.len() as u32,
            dict_len: dict.len() as u32,
            counts,
        };
        let mut offsets = Vec::with_capacity((blocks.len() + 1) * 8);
        let mut off = 0u64;
        for b in blocks.iter() {
            offsets.extend_from_slice(&off.to_le_bytes());
            off += b.len() as u64;
        }
        offsets.extend_from_slice(&off.to_le_bytes());
        let hb = header.encode();
        let mut crc = crc32fast::Hasher::new();
        crc.update(&hb[..136]);
        crc.update(&offsets);
        crc.update(&dict);
        let mut hb = hb;
        LE::write_u32(&mut hb[136..140], crc.finalize());
        let tmp = temp_path(&path);
        let write = || -> std::io::Result<()> {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(&hb)?;
            f.write_all(&offsets)?;
            f.write_all(&dict)?;
            for b in &blocks {
                f.write_all(b)?;
            }
            f.sync_all()
        };
        if let Err(e) = write() {
            let _ = fs::remove_file(&tmp);
            return Err(io(&tmp, e));
        }
        pending.push(super::commit::Pending { tmp, path });
        let size = HEADER_SIZE as u64 + offsets.len() as u64 + dict.len() as u64 + off;
        match metric {
            Metric::Wdl => written.wdl_bytes = size,
            Metric::Dtm => written.dtm_bytes = size,
            Metric::Dtc => written.dtc_bytes = size,
        }
    }
    Ok(())
}

/// An open, memory-mapped table file.
pub struct TableFile {
    /// Where it is.
    pub path: PathBuf,
    /// Its header.
    pub header: Header,
    map: memmap2::Mmap,
    offsets: Vec<u64>,
    data_start: usize,
    dict: Option<zstd::dict::DecoderDictionary<'static>>,
}

impl std::fmt::Debug for TableFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableFile")
            .field("path", &self.path)
            .field("header", &self.header)
            .finish()
    }
}

impl TableFile {
    /// Open and check the header (magic, version, CRC, sizes). With `expect`, the file
    /// must hold that material and metric.
    pub fn open(path: &Path, expect: Option<(Material, Metric)>) -> Result<TableFile, FileError> {
        let file = fs::File::open(path).map_err(|e| FileError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        // SAFETY: the map is read-only; table files are written by rename, never in place.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| FileError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        let header = Header::decode(path, &map)?;
        if let Some((m, metric)) = expect {
            if header.material != m || header.metric != metric {
                return Err(FileError::WrongTable {
                    path: path.display().to_string(),
                    expected: format!("{m} {metric:?}"),
                    found: format!("{} {:?}", header.material, header.metric),
                });
            }
        }
        let n = header.blocks as usize + 1;
        let off_end = HEADER_SIZE + n * 8;
        let data_start = off_end + header.dict_len as usize;
        if map.len() < data_start {
            return Err(corrupt(path, "truncated before the data"));
        }
        let offsets: Vec<u64> = map[HEADER_SIZE..off_end]
            .chunks(8)
            .map(LE::read_u64)
            .collect();
        let mut crc = crc32fast::Hasher::new();
        crc.update(&map[..136]);
        crc.update(&map[HEADER_SIZE..data_start]);
        if crc.finalize() != LE::read_u32(&map[136..140]) {
            return Err(corrupt(path, "header checksum mismatch"));
        }
        if offsets.windows(2).any(|w| w[0] > w[1]) {
            return Err(corrupt(path, "block offsets out of order"));
        }
        let last = *offsets.last().expect("at least one offset");
        if (map.len() - data_start) as u64 != last {
            return Err(corrupt(
                path,
                format!(
                    "data is {} bytes, the offsets say {last}",
                    map.len() - data_start
                ),
            ));
        }
        let dict = (header.dict_len > 0)
            .then(|| zstd::dict::DecoderDictionary::copy(&map[off_end..data_start]));
        Ok(TableFile {
            path: path.to_path_buf(),
            header,
            map,
            offsets,
            data_start,
            dict,
        })
    }

    /// Total size of the file in bytes.
    pub fn file_size(&self) -> u64 {
        self.map.len() as u64
    }

    /// Decompress block `k` (its frame checksum is verified).
    pub fn block(&self, k: usize) -> Result<Vec<u8>, FileError> {
        let a = *self
            .offsets
            .get(k)
            .ok_or_else(|| corrupt(&self.path, format!("no block {k}")))? as usize;
        let b = *self
            .offsets
            .get(k + 1)
            .ok_or_else(|| corrupt(&self.path, format!("no block {k}")))? as usize;
        let frame = &self.map[self.data_start + a..self.data_start + b];
        let total = 2 * self.header.positions;
        let bs = self.header.block_size as u64;
        let expect = (total - k as u64 * bs).min(bs) as usize;
        // version 1: the values byte by byte; version 2: a tag, then bytes or runs
        let tagged = self.header.version >= 2;
        let cap = if tagged {
            super::block_code::max_content(expect)
        } else {
            expect
        };
        let content = match &self.dict {
            Some(d) => {
                let mut out = Vec::with_capacity(expect + 1);
                let mut dec = zstd::stream::read::Decoder::with_prepared_dictionary(frame, d)
                    .map_err(|e| corrupt(&self.path, format!("block {k}: {e}")))?;
                std::io::Read::read_to_end(
                    &mut std::io::Read::take(&mut dec, cap as u64 + 1),
                    &mut out,
                )
                .map_err(|e| corrupt(&self.path, format!("block {k}: {e}")))?;
                out
            }
            None => {
                // the frame says how much it holds (within the bound): no larger allocation
                let size = match zstd::zstd_safe::get_frame_content_size(frame) {
                    Ok(Some(n)) if n <= cap as u64 => n as usize,
                    Ok(Some(n)) => {
                        return Err(corrupt(
                            &self.path,
                            format!("block {k} would hold {n} bytes, at most {cap} expected"),
                        ))
                    }
                    _ => cap,
                };
                // one decompression context per thread, reused across blocks and files
                thread_local! {
                    static DCTX: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
                        const { std::cell::RefCell::new(None) };
                }
                DCTX.with(|cell| {
                    let mut slot = cell.borrow_mut();
                    if slot.is_none() {
                        *slot = Some(
                            zstd::bulk::Decompressor::new()
                                .map_err(|e| corrupt(&self.path, e.to_string()))?,
                        );
                    }
                    let dec = slot.as_mut().expect("set just above");
                    dec.decompress(frame, size)
                        .map_err(|e| corrupt(&self.path, format!("block {k}: {e}")))
                })?
            }
        };
        let out = if tagged {
            super::block_code::decode(&content, expect)
                .map_err(|e| corrupt(&self.path, format!("block {k}: {e}")))?
        } else {
            content
        };
        if out.len() != expect {
            return Err(corrupt(
                &self.path,
                format!("block {k} holds {} positions, expected {expect}", out.len()),
            ));
        }
        Ok(out)
    }

    /// Number of blocks.
    pub fn blocks(&self) -> usize {
        self.header.blocks as usize
    }

    /// Decompress every block: one byte per position, Red to move first.
    pub fn read_all(&self) -> Result<Vec<u8>, FileError> {
        let parts: Result<Vec<Vec<u8>>, FileError> = (0..self.blocks())
            .into_par_iter()
            .map(|k| self.block(k))
            .collect();
        Ok(parts?.concat())
    }
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
