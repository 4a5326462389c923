//! Reading a table file: the memory map, its header and block offsets checked, and blocks
//! decompressed one at a time (see FORMAT.md).

use super::file::{corrupt, FileError, Metric};
use super::header::{Header, HEADER_SIZE};
use crate::index::Material;
use byteorder::{ByteOrder, LittleEndian as LE};
use rayon::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};

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
