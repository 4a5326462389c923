//! Access to the tables one capture away (sub-tables) during generation: ranking a capture's
//! result, reading its value, un-capturing decided sub-table positions level by level.
//!
//! A sub-table is either a table in memory (a [`TableSet`], as
//! [`crate::tablebase::pipeline::generate_closure`] builds them) or the two files of a table
//! folder, memory-mapped and read block by block ([`SubFiles`]): only the side to move
//! after the capture is ever read; the level walk decodes one block per worker at a time
//! (skipping the blocks that hold no position of the level), the random probes of captures
//! go through a bounded cache of decoded blocks. The probes only ask a capture's outcome
//! (a draw for the start pass's capture-draw flag, a loss for the DTC pass's conversions):
//! the cache holds a block's WDL file alone, decoded and packed two bits a position
//! ([`Outcome`]), a quarter of the values' bytes, and the DTM file is not decoded for it. A
//! table of a few billion positions then needs no decoded copy of its sub-tables in memory.

use super::{asymmetry, code, Gen, Mode};
use crate::board::attacks::reachable;
use crate::board::retro::unmove_sources;
use crate::board::rules::RuleSet;
use crate::board::{Bitboard, Color, MoveList, Piece, Position, Role, Square};
use crate::index::{Material, PieceList, PlacementIndex};
use crate::tablebase::block_cache::BlockCache;
use crate::tablebase::file::{combine, table_path, FileError, Metric, TableFile};
use crate::tablebase::pipeline::load_table;
use crate::tablebase::table::{table_material, ProbeMissing, Table, TableSet, TbError};
use crate::tablebase::values::{wdl_of, Verdict, Wdl, MAX_DTM};
use arrayvec::ArrayVec;
use rayon::prelude::*;
use std::path::Path;
use std::sync::Arc;

use super::params::{CHUNK, SUB_CACHE_BYTES};

/// Where the generator finds the tables one capture away.
#[derive(Copy, Clone, Debug)]
pub enum SubTables<'a> {
    /// Tables in memory.
    Memory(&'a TableSet),
    /// The files of a table folder, read block by block.
    Files(&'a Path),
}

/// A table one capture away.
pub(super) struct Sub {
    source: Source,
    pub(super) flipped: bool,
    /// The piece of this material that is missing there.
    pub(super) captured: Piece,
}

enum Source {
    Memory(Arc<Table>),
    Files(Box<SubFiles>),
}

impl Sub {
    /// The side to move in the sub-table's own orientation after the capture.
    fn stored_side(&self) -> Color {
        if self.flipped {
            !self.captured.color
        } else {
            self.captured.color
        }
    }

    /// The sub-table's name.
    fn name(&self) -> Material {
        match &self.source {
            Source::Memory(t) => t.material,
            Source::Files(f) => f.wdl.header.material,
        }
    }

    /// The sub-table's placement index.
    pub(super) fn index(&self) -> &PlacementIndex {
        match &self.source {
            Source::Memory(t) => &t.index,
            Source::Files(f) => &f.index,
        }
    }

    /// The outcome of the position `j` (the side to move after the capture; None when
    /// there is no such index or the placement is illegal). Exact for legal placements; an
    /// illegal placement read from files may show a neighbour's outcome (the files do not
    /// store them), so callers ask only about legal ones.
    pub(super) fn outcome(&self, j: u64) -> Result<Option<Wdl>, FileError> {
        match &self.source {
            Source::Memory(t) => Ok(t.values[self.stored_side().index()]
                .get(j as usize)
                .and_then(|&v| wdl_of(v))),
            Source::Files(f) => f.outcome(j),
        }
    }

    /// The highest distance to mate of a legal position (the side to move after the
    /// capture).
    fn max_level(&self) -> u8 {
        match &self.source {
            Source::Memory(t) => t.values[self.stored_side().index()]
                .iter()
                .filter(|&&v| v <= MAX_DTM)
                .max()
                .copied()
                .unwrap_or(0),
            Source::Files(f) => f.max,
        }
    }
}

/// The side of a sub-table read from its files: memory maps of both files, the values of a
/// block decoded on demand (a WDL block and a DTM block of the same positions combined), a
/// bounded cache of decoded WDL blocks packed to outcomes for random probes (see
/// [`Outcome`]), and per block the set of values it holds (so that the level walk skips
/// blocks without the level).
struct SubFiles {
    index: PlacementIndex,
    wdl: TableFile,
    dtm: TableFile,
    /// Positions per block (the same in both files).
    block: usize,
    /// The first position of the side read, in the files' numbering (both sides in a row).
    base: usize,
    /// Positions of the side read (the index size).
    len: usize,
    /// The first block holding a position of the side read.
    first: usize,
    /// The outcomes of the blocks from `first` on, packed ([`Outcome::pack`]), decoded on
    /// demand (at most `cache_bytes` of them).
    cache: BlockCache,
    /// Per block from `first` on: bit `v` set when some position there shows value `v`.
    levels: Vec<[u64; 4]>,
    /// Highest distance to mate of a legal position of the side read.
    max: u8,
}

impl SubFiles {
    /// Open both files of `name` in `dir` for reading the side `side`, check them whole (every
    /// block of that side decodes with its checksum), and note per block which values occur
    /// and the deepest legal distance to mate. `cache_bytes`: the cache's bound. None when
    /// the two files' blocks differ in size (format version 1): such a table is read whole.
    fn open(
        dir: &Path,
        name: Material,
        side: Color,
        cache_bytes: usize,
    ) -> Result<Option<(SubFiles, RuleSet)>, TbError> {
        let index = PlacementIndex::new(name)?;
        let corrupt = |path: &Path, reason: String| TbError::Corrupt {
            path: format!("{} (sub-table {name})", path.display()),
            reason,
        };
        let open = |metric| -> Result<TableFile, TbError> {
            let path = table_path(dir, &name, metric);
            if !path.exists() {
                return Err(ProbeMissing(name).into());
            }
            let f = TableFile::open(&path, Some((name, metric)))
                .map_err(|e| corrupt(&path, e.to_string()))?;
            if f.header.positions != index.size() {
                let reason = format!(
                    "{} positions per side, the index has {}",
                    f.header.positions,
                    index.size()
                );
                return Err(corrupt(&path, reason));
            }
            Ok(f)
        };
        let (wdl, dtm) = (open(Metric::Wdl)?, open(Metric::Dtm)?);
        if wdl.header.rules != dtm.header.rules {
            let reason = format!(
                "rule set {} but the WDL file has rule set {}",
                dtm.header.rules, wdl.header.rules
            );
            return Err(corrupt(&dtm.path, reason));
        }
        if wdl.header.block_size != dtm.header.block_size {
            // files of format version 1 (blocks of 64K and 32K positions)
            return Ok(None);
        }
        let rules = wdl.header.rules;
        let len = index.size() as usize;
        let block = wdl.header.block_size as usize;
        let base = side.index() * len;
        let first = base / block;
        let end = (base + len).div_ceil(block).max(first + 1);
        let mut f = SubFiles {
            index,
            wdl,
            dtm,
            block,
            base,
            len,
            first,
            cache: BlockCache::new(end - first, cache_bytes / Outcome::packed_len(block)),
            levels: Vec::new(),
            max: 0,
        };
        let scanned: Result<Vec<([u64; 4], u8)>, TbError> = (first..end)
            .into_par_iter()
            .map(|k| {
                let vals = f.decode(k).map_err(|e| match e {
                    FileError::Corrupt { path, reason } => corrupt(Path::new(&path), reason),
                    other => corrupt(&f.wdl.path, other.to_string()),
                })?;
                Ok(f.scan_block(k, &vals, side))
            })
            .collect();
        let scanned = scanned?;
        f.max = scanned.iter().map(|s| s.1).max().unwrap_or(0);
        f.levels = scanned.into_iter().map(|s| s.0).collect();
        Ok(Some((f, rules)))
    }

    /// The values present in block `k` (decoded: `vals`) among the positions of the side
    /// read, and the deepest distance to mate of a legal position there.
    fn scan_block(&self, k: usize, vals: &[u8], side: Color) -> ([u64; 4], u8) {
        let mut mask = [0u64; 4];
        let mut max = 0u8;
        let mut pieces = PieceList::new();
        let (lo, hi) = self.span(k);
        for (g, &v) in vals.iter().enumerate().take(hi).skip(lo) {
            mask[(v / 64) as usize] |= 1 << (v % 64);
            if v <= MAX_DTM && v > max {
                // the files do not store illegal placements: only a legal one counts
                let j = k * self.block + g - self.base;
                let legal = !self.index.unrank_into(j as u64, &mut pieces)
                    || Position::from_pieces(&pieces, side)
                        .map_or(true, |p| p.check_placement_legal().is_ok());
                if legal {
                    max = v;
                }
            }
        }
        (mask, max)
    }

    /// The offsets within block `k` of the positions of the side read.
    fn span(&self, k: usize) -> (usize, usize) {
        let start = k * self.block;
        let lo = self.base.saturating_sub(start);
        let hi = (self.base + self.len - start).min(self.block);
        (lo, hi)
    }

    /// The values of block `k` (both files decoded and combined).
    fn decode(&self, k: usize) -> Result<Vec<u8>, FileError> {
        let w = self.wdl.block(k)?;
        let d = self.dtm.block(k)?;
        Ok(combine(&w, &d))
    }

    /// The outcome of position `j` of the side read, through the cache.
    fn outcome(&self, j: u64) -> Result<Option<Wdl>, FileError> {
        let j = j as usize;
        if j >= self.len {
            return Ok(None);
        }
        let g = self.base + j;
        let (k, off) = (g / self.block, g % self.block);
        let byte = self.cache.byte(k - self.first, off / 4, || {
            Ok(Outcome::pack(&self.wdl.block(k)?))
        })?;
        Ok(byte.and_then(|b| Outcome::unpack(b, off)))
    }

    /// Call `f` with every position `j` of the side read whose value is `level`, block by
    /// block in parallel (blocks without the level are not decoded).
    fn for_each_at(&self, level: u8, f: impl Fn(u64) + Sync) -> Result<(), FileError> {
        (0..self.levels.len())
            .into_par_iter()
            .filter(|&b| self.levels[b][(level / 64) as usize] & (1 << (level % 64)) != 0)
            .try_for_each(|b| {
                let k = self.first + b;
                let vals = self.decode(k)?;
                let (lo, hi) = self.span(k);
                let origin = k * self.block + lo - self.base;
                vals[lo..hi]
                    .par_chunks(CHUNK)
                    .enumerate()
                    .for_each(|(c, chunk)| {
                        if !chunk.contains(&level) {
                            return;
                        }
                        for (i, &v) in chunk.iter().enumerate() {
                            if v == level {
                                f((origin + c * CHUNK + i) as u64);
                            }
                        }
                    });
                Ok(())
            })
    }
}

/// A position's outcome in two bits, four to a byte (the first position in the low bits): what
/// the cache of sub-table blocks holds of a block of the WDL file, a quarter of its decoded
/// bytes.
struct Outcome;

impl Outcome {
    const ILLEGAL: u8 = 0;
    const DRAW: u8 = 1;
    const WIN: u8 = 2;
    const LOSS: u8 = 3;

    /// Bytes of a packed block of `block` positions.
    fn packed_len(block: usize) -> usize {
        block.div_ceil(4).max(1)
    }

    /// The decoded bytes of a WDL block (one [`Verdict`] code each), packed.
    fn pack(wdl: &[u8]) -> Vec<u8> {
        wdl.chunks(4)
            .map(|four| {
                four.iter().enumerate().fold(0u8, |acc, (k, &w)| {
                    let code = match Verdict::decode(w).map(|v| v.wdl) {
                        None => Outcome::ILLEGAL,
                        Some(Wdl::Draw) => Outcome::DRAW,
                        Some(Wdl::Win) => Outcome::WIN,
                        Some(Wdl::Loss) => Outcome::LOSS,
                    };
                    acc | code << (2 * k)
                })
            })
            .collect()
    }

    /// The outcome of the position at offset `off` of a block, from its packed byte `b`.
    fn unpack(b: u8, off: usize) -> Option<Wdl> {
        match (b >> (2 * (off % 4))) & 3 {
            Outcome::DRAW => Some(Wdl::Draw),
            Outcome::WIN => Some(Wdl::Win),
            Outcome::LOSS => Some(Wdl::Loss),
            _ => None,
        }
    }
}

/// A piece on its square seen from the other side (colour swapped, board turned).
fn flip_entry((p, s): (Piece, Square)) -> (Piece, Square) {
    (Piece::new(!p.color, p.role), s.flip())
}

impl Sub {
    /// The index in this sub-table of a placement given in this table's colours (turned
    /// over first when the sub-table is stored with the colours swapped).
    fn rank_list(&self, pieces: impl Iterator<Item = (Piece, Square)>) -> Option<u64> {
        let list: PieceList = if self.flipped {
            pieces.map(flip_entry).collect()
        } else {
            pieces.collect()
        };
        self.index().rank_pieces(&list).ok()
    }
}

impl Gen<'_> {
    /// Rank of a capture's result in its table (a colour-flipped table is ranked through the
    /// flipped piece list, without building the flipped position).
    pub(super) fn sub_rank(&self, child: &Position, captured: Piece) -> Option<(&Sub, u64)> {
        let sub = self.subs.iter().find(|s| s.captured == captured)?;
        let i = if sub.flipped {
            sub.rank_list(child.piece_list())
        } else {
            sub.index().rank_position(child)
        }?;
        Some((sub, i))
    }

    /// Outcome of a capture's result in its table (the side to move there).
    pub(super) fn sub_outcome(&self, child: &Position, captured: Piece) -> Option<Wdl> {
        let (sub, i) = self.sub_rank(child, captured)?;
        self.read_sub(sub, i)
    }

    /// [`Sub::outcome`]; a block that no longer decodes is a fault of the generation.
    fn read_sub(&self, sub: &Sub, j: u64) -> Option<Wdl> {
        sub.outcome(j).unwrap_or_else(|e| {
            self.fail(format!("reading sub-table {}: {e}", sub.name()));
            None
        })
    }

    /// True when one of the legal `moves` of `pos` (the placement `pieces`) is a capture into
    /// a drawn position of a smaller table.
    pub(super) fn has_capture_draw(
        &self,
        pos: &Position,
        pieces: &PieceList,
        moves: &MoveList,
    ) -> bool {
        moves.iter().any(|&m| {
            let Some(c) = pos.piece_at(m.to()) else {
                return false;
            };
            let Some(sub) = self.subs.iter().find(|s| s.captured == c) else {
                return false;
            };
            // the child's pieces: the captured one gone, the mover moved
            let child = pieces.iter().filter(|e| e.1 != m.to()).map(|&(p, s)| {
                let s = if s == m.from() { m.to() } else { s };
                (p, s)
            });
            sub.rank_list(child).and_then(|i| self.read_sub(sub, i)) == Some(Wdl::Draw)
        })
    }

    /// Un-capture the position `j` of a smaller table into this table.
    fn retro_sub(&self, sub: &Sub, j: u64, loss: bool, stamp: u8, mode: Mode) {
        let Ok(stored) = sub.index().unrank_pieces(j) else {
            return;
        };
        let pieces = if sub.flipped {
            stored.iter().copied().map(flip_entry).collect()
        } else {
            stored
        };
        let x = sub.captured.color;
        let Ok(pos) = Position::from_pieces(&pieces, x) else {
            return;
        };
        // read from files, an illegal placement shows a neighbour's value (in memory it is
        // marked illegal and never reaches this point)
        if pos.check_placement_legal().is_err() {
            return;
        }
        let y = !x;
        let occ_bits = pos.occupied().bits();
        let room = reachable(x, sub.captured.role);
        let mut preds: ArrayVec<u64, 512> = ArrayVec::new();
        for (k, &(p, b)) in pieces.iter().enumerate() {
            if p.color != y || !room.contains(b) {
                continue;
            }
            let src = unmove_sources(p, b, occ_bits, true);
            for a in Bitboard::from_bits(src) {
                let mut qp = pieces.clone();
                qp[k] = (p, a);
                if qp.try_push((sub.captured, b)).is_err() {
                    continue;
                }
                if let Ok(q) = self.index.rank_pieces(&qp) {
                    let _ = preds.try_push(q);
                }
            }
        }
        // a smaller table's positions count as decided before any rule round
        let c = code::make(0, if loss { code::LOSS } else { code::WIN });
        self.emit_all(&mut preds, asymmetry(&pos) <= 4, y, (loss, c, stamp), mode);
    }

    /// Bound the block caches of the sub-tables read from files to `bytes` together (shared
    /// as [`subs_of`] shares [`SUB_CACHE_BYTES`]), the freed blocks handed back to the
    /// system at once.
    pub(super) fn bound_sub_caches(&self, bytes: usize) {
        let files = self.subs.len().max(1);
        let mut freed = false;
        for sub in &self.subs {
            if let Source::Files(f) = &sub.source {
                f.cache.bound(bytes / files / Outcome::packed_len(f.block));
                freed = true;
            }
        }
        if freed {
            super::heap::release_freed_memory();
        }
    }

    /// The deepest level a smaller table can trigger.
    pub(super) fn sub_max(&self) -> u8 {
        self.subs.iter().map(Sub::max_level).max().unwrap_or(0)
    }

    /// Un-capture the positions of every sub-table decided at `level` into this table.
    pub(super) fn walk_subs(&self, level: u8, stamp: u8, mode: Mode) {
        let loss = level.is_multiple_of(2);
        for sub in &self.subs {
            match &sub.source {
                Source::Memory(t) => {
                    let vals = &t.values[sub.stored_side().index()];
                    let m = vals.len();
                    (0..m.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
                        let start = c * CHUNK;
                        let chunk = &vals[start..((c + 1) * CHUNK).min(m)];
                        if !chunk.contains(&level) {
                            return;
                        }
                        for (k, &v) in chunk.iter().enumerate() {
                            if v == level {
                                self.retro_sub(sub, (start + k) as u64, loss, stamp, mode);
                            }
                        }
                    });
                }
                Source::Files(f) => {
                    let walked =
                        f.for_each_at(level, |j| self.retro_sub(sub, j, loss, stamp, mode));
                    if let Err(e) = walked {
                        self.fail(format!("reading sub-table {}: {e}", sub.name()));
                    }
                }
            }
        }
    }
}

/// The tables one capture away from `material`, each of rule set `rules`.
pub(super) fn subs_of(
    material: Material,
    subs: SubTables<'_>,
    rules: RuleSet,
) -> Result<Vec<Sub>, TbError> {
    let mut wanted = Vec::new();
    for c in Color::ALL {
        for r in Role::ALL {
            if let Some(m2) = material.without(c, r) {
                let (name, flipped) = table_material(m2);
                wanted.push((name, flipped, Piece::new(c, r)));
            }
        }
    }
    let files = wanted.len().max(1);
    let mut sub_list = Vec::new();
    for (name, flipped, captured) in wanted {
        let side = if flipped {
            !captured.color
        } else {
            captured.color
        };
        let (source, sub_rules) = match subs {
            SubTables::Memory(set) => {
                let table = set.get(&name).ok_or(ProbeMissing(name))?.clone();
                let r = table.rules;
                (Source::Memory(table), r)
            }
            SubTables::Files(dir) => {
                match SubFiles::open(dir, name, side, SUB_CACHE_BYTES / files)? {
                    Some((f, r)) => (Source::Files(Box::new(f)), r),
                    None => {
                        let table = load_table(dir, &name, false)?;
                        let r = table.rules;
                        (Source::Memory(Arc::new(table)), r)
                    }
                }
            }
        };
        if sub_rules != rules {
            return Err(TbError::RuleMismatch {
                table: material,
                rules,
                sub: name,
                sub_rules,
            });
        }
        sub_list.push(Sub {
            source,
            flipped,
            captured,
        });
    }
    Ok(sub_list)
}
