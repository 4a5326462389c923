//! The fixed header of a table file (see FORMAT.md): its fields, how they are written, and
//! the checks a reader makes before trusting them.

use super::file::{corrupt, FileError, Metric};
use crate::board::rules::RuleSet;
use crate::index::{Material, MaterialError};
use byteorder::{ByteOrder, LittleEndian as LE};
use std::path::Path;

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

/// The magic bytes that open a file of `metric`.
fn magic(metric: Metric) -> [u8; 8] {
    match metric {
        Metric::Wdl => MAGIC_WDL,
        Metric::Dtm => MAGIC_DTM,
        Metric::Dtc => MAGIC_DTC,
    }
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

impl Header {
    /// The header's bytes (the CRC field, 136..140, left zero for the writer to fill).
    pub(super) fn encode(&self) -> [u8; HEADER_SIZE] {
        let mut b = [0u8; HEADER_SIZE];
        b[0..8].copy_from_slice(&magic(self.metric));
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

    /// Read and check a header (magic, version, rule set, index scheme, reserved bytes,
    /// sizes); the CRC is checked by the reader, which knows the offsets.
    pub(super) fn decode(path: &Path, b: &[u8]) -> Result<Header, FileError> {
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
