//! What verification reads of table files, without decoding a table whole: stretches of
//! one side to move of a table (its WDL, DTM and DTC bytes, block by block), and the tables
//! one capture away through a bounded cache of decoded blocks.
//!
//! This is a reader of the files (see FORMAT.md) of its own, apart from the generator's.

use super::Captures;
use crate::board::rules::RuleSet;
use crate::board::Position;
use crate::index::{Material, PlacementIndex};
use crate::tablebase::block_cache::BlockCache;
use crate::tablebase::file::{table_path, FileError, Metric, TableFile};
use crate::tablebase::table::{table_material, ProbeMissing, TbError};
use crate::tablebase::values::{Verdict, Wdl, DRAW, ILLEGAL, MAX_DTM};
use rayon::prelude::*;
use std::path::Path;
use std::sync::Mutex;

/// The value of a position from its WDL-file and DTM-file bytes (as
/// [`crate::tablebase::file::combine`]).
pub(super) fn combine_one(w: u8, d: u8) -> u8 {
    match Verdict::decode(w).map(|v| v.wdl) {
        Some(Wdl::Draw) => DRAW,
        Some(Wdl::Win) if d <= MAX_DTM && d % 2 == 1 => d,
        Some(Wdl::Loss) if d <= MAX_DTM && d.is_multiple_of(2) => d,
        _ => ILLEGAL,
    }
}

/// A table error for a file.
pub(super) fn file_error(e: FileError) -> TbError {
    match e {
        FileError::Io { path, source } => TbError::Io { path, source },
        other => TbError::Corrupt {
            path: match &other {
                FileError::Corrupt { path, .. }
                | FileError::Version { path, .. }
                | FileError::WrongTable { path, .. } => path.clone(),
                FileError::Io { .. } => unreachable!("matched above"),
            },
            reason: other.to_string(),
        },
    }
}

/// Open the `metric` file of `m` in `dir`, its header checked for the index of `m`.
pub(super) fn open_file(
    dir: &Path,
    m: &Material,
    metric: Metric,
    index: &PlacementIndex,
) -> Result<TableFile, TbError> {
    let path = table_path(dir, m, metric);
    if !path.exists() && metric != Metric::Dtc {
        return Err(ProbeMissing(*m).into());
    }
    let f = TableFile::open(&path, Some((*m, metric))).map_err(file_error)?;
    if f.header.positions != index.size() {
        return Err(TbError::Corrupt {
            path: path.display().to_string(),
            reason: format!(
                "{} positions per side, the index has {}",
                f.header.positions,
                index.size()
            ),
        });
    }
    Ok(f)
}

/// Decompress every block of `f` (each checked), calling `f` with each block's number
/// and values.
pub(super) fn check_blocks(
    f: &TableFile,
    each: impl Fn(usize, &[u8]) + Sync,
) -> Result<(), TbError> {
    (0..f.blocks()).into_par_iter().try_for_each(|k| {
        let b = f.block(k).map_err(file_error)?;
        each(k, &b);
        Ok(())
    })
}

/// The bytes `range` (positions in the file's numbering: Red to move, then Black) of `f`
/// into `out`, block by block.
pub(super) fn read_range(
    f: &TableFile,
    range: std::ops::Range<u64>,
    out: &mut [u8],
) -> Result<(), TbError> {
    debug_assert_eq!(out.len() as u64, range.end - range.start);
    let bs = f.header.block_size as u64;
    let mut g = range.start;
    while g < range.end {
        let k = g / bs;
        let b = f.block(k as usize).map_err(file_error)?;
        let lo = (g - k * bs) as usize;
        let hi = ((range.end - k * bs).min(bs)) as usize;
        let at = (g - range.start) as usize;
        out[at..at + hi - lo].copy_from_slice(&b[lo..hi]);
        g = k * bs + hi as u64;
    }
    Ok(())
}

/// The stretches of one side to move (`side` of a table of `n` indices) that fit the
/// blocks of a file of `block` positions, as index ranges of the side.
pub(super) fn stretches(n: usize, side: usize, block: usize) -> Vec<std::ops::Range<usize>> {
    let base = side * n;
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        let g = base + i;
        let end = ((g / block + 1) * block - base).min(n);
        out.push(i..end);
        i = end;
    }
    out
}

/// One table file read a byte at a time through a bounded cache of decoded blocks (oldest
/// out first).
struct CachedFile {
    file: TableFile,
    cache: BlockCache,
}

impl CachedFile {
    fn new(file: TableFile, cache_bytes: usize) -> CachedFile {
        let max_blocks = (cache_bytes / file.header.block_size.max(1) as usize).max(2);
        CachedFile {
            cache: BlockCache::new(file.blocks(), max_blocks),
            file,
        }
    }

    /// The byte of position `g` (the file's numbering).
    fn byte(&self, g: u64) -> Result<u8, FileError> {
        let bs = self.file.header.block_size as u64;
        let (k, off) = ((g / bs) as usize, (g % bs) as usize);
        self.cache
            .byte(k, off, || self.file.block(k))?
            .ok_or_else(|| FileError::Corrupt {
                path: self.file.path.display().to_string(),
                reason: format!("position {g} beyond the last block"),
            })
    }
}

/// A table one capture away, read from its two files.
struct SubFile {
    material: Material,
    index: PlacementIndex,
    wdl: CachedFile,
    dtm: CachedFile,
}

/// The tables one capture away from a table, read from their files through a bounded cache
/// (see [`super::params::SUB_CACHE_BYTES`]). A block that fails to decode after the files were checked is
/// kept as the first error and reported at the end ([`SubFiles::error`]).
pub(super) struct SubFiles {
    subs: Vec<SubFile>,
    error: Mutex<Option<FileError>>,
}

impl SubFiles {
    /// Open the files of every table one capture away from `name` (each of rule set
    /// `rules`) and check every block of them.
    /// `cache_bytes`: the bound of the block cache shared by the sub-tables' files (at most
    /// [`super::params::SUB_CACHE_BYTES`]).
    pub(super) fn open(
        dir: &Path,
        name: Material,
        rules: RuleSet,
        cache_bytes: usize,
    ) -> Result<SubFiles, TbError> {
        let mut wanted: Vec<Material> = Vec::new();
        for c in crate::board::Color::ALL {
            for r in crate::board::Role::ALL {
                if let Some(sub) = name.without(c, r) {
                    let sub = table_material(sub).0;
                    if !wanted.contains(&sub) {
                        wanted.push(sub);
                    }
                }
            }
        }
        let cache = cache_bytes / (2 * wanted.len()).max(1);
        let mut subs = Vec::new();
        for m in wanted {
            let index = PlacementIndex::new(m)?;
            let wdl = open_file(dir, &m, Metric::Wdl, &index)?;
            let dtm = open_file(dir, &m, Metric::Dtm, &index)?;
            for f in [&wdl, &dtm] {
                if f.header.rules != rules {
                    return Err(TbError::RuleMismatch {
                        table: name,
                        rules,
                        sub: m,
                        sub_rules: f.header.rules,
                    });
                }
                check_blocks(f, |_, _| {})?;
            }
            subs.push(SubFile {
                material: m,
                index,
                wdl: CachedFile::new(wdl, cache),
                dtm: CachedFile::new(dtm, cache),
            });
        }
        Ok(SubFiles {
            subs,
            error: Mutex::new(None),
        })
    }

    /// The first error of a look-up, if any.
    pub(super) fn error(&self) -> Option<TbError> {
        self.error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .map(file_error)
    }

    fn value_in(&self, sub: &SubFile, pos: &Position) -> Result<u8, FileError> {
        let Some(j) = sub.index.rank_position(pos) else {
            return Ok(ILLEGAL);
        };
        let g = pos.turn().index() as u64 * sub.index.size() + j;
        Ok(combine_one(sub.wdl.byte(g)?, sub.dtm.byte(g)?))
    }
}

impl Captures for SubFiles {
    fn capture_value(&self, pos: &Position) -> u8 {
        let (name, flip) = table_material(Material::of_position(pos));
        let Some(sub) = self.subs.iter().find(|s| s.material == name) else {
            return ILLEGAL;
        };
        let v = if flip {
            self.value_in(sub, &pos.flip_colors())
        } else {
            self.value_in(sub, pos)
        };
        v.unwrap_or_else(|e| {
            let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(e);
            ILLEGAL
        })
    }
}
