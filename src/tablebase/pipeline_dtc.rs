//! The DTC file in the generation pipeline: computing it for a table in memory, adding it
//! to a table whose WDL and DTM files are already there, and reading it back.

use super::file::{
    table_path, write_dtc_bytes, write_dtc_file, FileError, Metric, TableFile, Written,
};
use super::generate::{
    dtc_state_bytes, generate_dtc, generate_dtc_bytes, RuleRounds, SubTables, ValueSource,
    BASE_BYTES,
};
use super::table::{Table, TableSet, TbError};
use super::values::{DRAW, ILLEGAL, MAX_DTM};
use super::workfile::{Backing, Buf};
use crate::board::Color;
use crate::index::{Material, PlacementIndex};
use crate::progress::Progress;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

fn write_error(m: &Material, e: FileError) -> TbError {
    match e {
        FileError::Io { path, source } => TbError::Io {
            path: format!("writing table {m}: {path}"),
            source,
        },
        other => TbError::Corrupt {
            path: format!("writing table {m}"),
            reason: other.to_string(),
        },
    }
}

/// Compute the DTC of `table` (which must still hold its verdicts when some rest on the
/// rules) into `table.dtc`.
pub fn compute_dtc(
    table: &mut Table,
    subs: &TableSet,
    progress: &dyn Progress,
) -> Result<(), TbError> {
    compute_dtc_from(table, SubTables::Memory(subs), progress)
}

/// [`compute_dtc`] with the sub-tables in memory or in the files of a folder.
pub fn compute_dtc_from(
    table: &mut Table,
    subs: SubTables<'_>,
    progress: &dyn Progress,
) -> Result<(), TbError> {
    let rounds = RuleRounds::dense(table.verdicts.take());
    let r = generate_dtc(table, &rounds, subs, progress);
    table.verdicts = rounds.into_verdicts();
    table.dtc = Some(r?);
    Ok(())
}

/// Write the DTC file of `table` (its `dtc` set) into `dir`, its size into `written`.
pub fn save_dtc(dir: &Path, table: &Table, written: &mut Written) -> Result<(), TbError> {
    write_dtc_file(dir, table, written).map_err(|e| write_error(&table.material, e))
}

/// Open the DTC file of `m` and check its header (for this index and rule set).
fn open_dtc(
    dir: &Path,
    m: &Material,
    rules: crate::board::rules::RuleSet,
) -> Result<TableFile, String> {
    let f = super::pipeline::open_for_index(dir, m, Metric::Dtc)?;
    if f.header.rules != rules {
        return Err(format!(
            "{}: rule set {} but the WDL file has rule set {rules}",
            f.path.display(),
            f.header.rules
        ));
    }
    Ok(f)
}

/// Check the DTC file of `m` whole (header for this index and rule set, every block).
pub fn check_dtc_file(
    dir: &Path,
    m: &Material,
    rules: crate::board::rules::RuleSet,
) -> Result<(), String> {
    let f = open_dtc(dir, m, rules)?;
    super::pipeline::check_blocks(&f).map_err(|e| e.to_string())
}

/// The bytes of positions `a..b` of a table file (its blocks decoded as needed).
fn file_range(f: &TableFile, a: usize, b: usize) -> Result<Vec<u8>, FileError> {
    let bs = f.header.block_size as usize;
    if a.is_multiple_of(bs) && b - a <= bs {
        let mut v = f.block(a / bs)?;
        v.truncate(b - a);
        return Ok(v);
    }
    let mut out = Vec::with_capacity(b - a);
    for k in a / bs..b.div_ceil(bs) {
        let block = f.block(k)?;
        let (lo, hi) = (a.max(k * bs) - k * bs, b.min((k + 1) * bs) - k * bs);
        out.extend_from_slice(&block[lo..hi]);
    }
    Ok(out)
}

/// A table's WDL and DTM files as a [`ValueSource`] (a unit is a block of the WDL file).
/// Their mappings are given up when the pass no longer reads them for a while
/// ([`ValueSource::release`]: their pages would stay resident through the pass's levels)
/// and opened again when it does.
pub struct InFiles {
    dir: PathBuf,
    material: Material,
    /// Positions per unit.
    unit: usize,
    /// Positions of both sides to move.
    total: usize,
    files: RwLock<Option<Arc<(TableFile, TableFile)>>>,
}

impl InFiles {
    /// The values of the table `material` whose files these are (in `dir`, opened and
    /// checked by the caller: one index, one rule set).
    pub fn new(dir: &Path, material: Material, wdl: TableFile, dtm: TableFile) -> InFiles {
        InFiles {
            dir: dir.to_path_buf(),
            material,
            unit: wdl.header.block_size as usize,
            total: 2 * wdl.header.positions as usize,
            files: RwLock::new(Some(Arc::new((wdl, dtm)))),
        }
    }

    /// The files, opened again when they were released.
    fn files(&self) -> Result<Arc<(TableFile, TableFile)>, TbError> {
        if let Some(f) = &*self.files.read().unwrap_or_else(|e| e.into_inner()) {
            return Ok(f.clone());
        }
        let mut slot = self.files.write().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = &*slot {
            return Ok(f.clone());
        }
        let f = Arc::new(open_table_files(&self.dir, &self.material)?);
        *slot = Some(f.clone());
        Ok(f)
    }
}

impl ValueSource for InFiles {
    fn unit(&self) -> usize {
        self.unit
    }

    fn values(&self, u: usize) -> Result<Cow<'_, [u8]>, TbError> {
        let (a, b) = (u * self.unit, ((u + 1) * self.unit).min(self.total));
        let read = |f: &TableFile| {
            file_range(f, a, b).map_err(|e| TbError::Corrupt {
                path: f.path.display().to_string(),
                reason: e.to_string(),
            })
        };
        let files = self.files()?;
        let w = read(&files.0)?;
        let d = read(&files.1)?;
        Ok(Cow::Owned(super::file::combine(&w, &d)))
    }

    fn release(&self) {
        *self.files.write().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// Open the WDL and DTM files of `m` in `dir` (headers for this index, one rule set).
fn open_table_files(dir: &Path, m: &Material) -> Result<(TableFile, TableFile), TbError> {
    let corrupt = |metric, reason: String| TbError::Corrupt {
        path: table_path(dir, m, metric).display().to_string(),
        reason,
    };
    let wdl = super::pipeline::open_for_index(dir, m, Metric::Wdl)
        .map_err(|e| corrupt(Metric::Wdl, e))?;
    let dtm = super::pipeline::open_for_index(dir, m, Metric::Dtm)
        .map_err(|e| corrupt(Metric::Dtm, e))?;
    if wdl.header.rules != dtm.header.rules {
        return Err(corrupt(
            Metric::Dtm,
            format!(
                "rule set {} but the WDL file has rule set {}",
                dtm.header.rules, wdl.header.rules
            ),
        ));
    }
    Ok((wdl, dtm))
}

/// Compute the DTC of the table `m` whose WDL and DTM files are in `dir` and write its DTC
/// file; returns the file's size. `rounds` are the rule rounds of its verdicts
/// ([`RuleRounds`]). The table's values are read from its files (twice, a block at a time),
/// its sub-tables from theirs: the pass holds two bits per position and a byte per decided
/// position (where `backing` puts them, see [`super::generate::dtc_state_bytes`]), the rule
/// rounds and the sub-table block cache. The bytes become the file's stored bytes in place
/// ([`super::generate::generate_dtc_bytes`]), which the writer reads range by range.
pub fn write_dtc_from_files(
    dir: &Path,
    m: &Material,
    rounds: &RuleRounds,
    backing: &Backing,
    progress: &dyn Progress,
) -> Result<u64, TbError> {
    let (wdl, dtm) = open_table_files(dir, m)?;
    let (rules, counts) = (wdl.header.rules, wdl.header.counts);
    let index = PlacementIndex::new(*m)?;
    let src = InFiles::new(dir, *m, wdl, dtm);
    let (stored, longest) = generate_dtc_bytes(
        *m,
        rules,
        &index,
        &src,
        rounds,
        SubTables::Files(dir),
        backing,
        progress,
    )?;
    drop(src);
    let mut written = Written::default();
    write_dtc_bytes(dir, *m, rules, counts, longest, &stored, &mut written)
        .map_err(|e| write_error(m, e))?;
    Ok(written.dtc_bytes)
}

/// Add the DTC file to a table whose WDL and DTM files are in `dir` (valid), reading them
/// block by block (see [`write_dtc_from_files`]); its byte per position goes to a work file
/// when the pass would take more than `memory` (see [`Backing::for_table`]). Returns the
/// file's size.
pub fn add_dtc(
    dir: &Path,
    m: &Material,
    memory: Option<u64>,
    progress: &dyn Progress,
) -> Result<u64, TbError> {
    let (wdl, _) = open_table_files(dir, m)?;
    let rounds = RuleRounds::from_wdl_file(&wdl).map_err(|e| TbError::Corrupt {
        path: wdl.path.display().to_string(),
        reason: e.to_string(),
    })?;
    let n = wdl.header.positions;
    drop(wdl);
    let state = dtc_state_bytes(n);
    let backing = Backing::for_table(*m, state, BASE_BYTES, memory, dir)?;
    write_dtc_from_files(dir, m, &rounds, &backing, progress)
}

/// Read the DTC file of a loaded table into `table.dtc` (DTC in plies for decided
/// positions, [`DRAW`] and [`ILLEGAL`] as in its values).
pub fn load_dtc(dir: &Path, table: &mut Table) -> Result<(), TbError> {
    let m = table.material;
    let path = table_path(dir, &m, Metric::Dtc);
    let corrupt = |reason: String| TbError::Corrupt {
        path: path.display().to_string(),
        reason,
    };
    // (read_all checks every block)
    let f = open_dtc(dir, &m, table.rules).map_err(&corrupt)?;
    let all = f.read_all().map_err(|e| corrupt(e.to_string()))?;
    let n = table.values[0].len();
    let mut dtc = [all[..n].to_vec(), all[n..].to_vec()];
    drop(all);
    // wins from their bytes
    for (s, side) in dtc.iter_mut().enumerate() {
        for (i, (b, &v)) in side.iter_mut().zip(&table.values[s]).enumerate() {
            *b = match v {
                ILLEGAL => ILLEGAL,
                v if v > MAX_DTM => DRAW,
                v if v % 2 == 1 => super::dtc_code::decode_win(v, *b).ok_or_else(|| {
                    corrupt(format!(
                        "side {s} index {i}: DTC byte {b} contradicts the DTM {v}"
                    ))
                })?,
                _ => 0,
            };
        }
    }
    // losses from their moves (into wins of the other side to move)
    for s in 0..2 {
        let (this, other) = if s == 0 {
            let (a, b) = dtc.split_at_mut(1);
            (&mut a[0], &b[0])
        } else {
            let (a, b) = dtc.split_at_mut(1);
            (&mut b[0], &a[0])
        };
        derive_losses(table, s, this, other).map_err(&corrupt)?;
    }
    table.dtc = Some(dtc.map(Buf::from));
    Ok(())
}

/// The DTC of every lost position of side `s` (into `this`), from the wins of the other side
/// to move (`other`): see [`super::dtc_code`].
fn derive_losses(table: &Table, s: usize, this: &mut [u8], other: &[u8]) -> Result<(), String> {
    use super::values::Verdict;
    use crate::board::Position;
    use crate::index::PieceList;
    use rayon::prelude::*;
    const CHUNK: usize = 4096;
    let side = Color::ALL[s];
    let verdict = |t: usize, i: usize| {
        table
            .verdicts
            .as_ref()
            .map_or(Some(Verdict::plain(super::values::Wdl::Win)), |v| {
                Verdict::decode(v[t][i])
            })
    };
    this.par_chunks_mut(CHUNK)
        .enumerate()
        .try_for_each(|(c, chunk)| -> Result<(), String> {
            let mut pieces = PieceList::new();
            for (k, b) in chunk.iter_mut().enumerate() {
                let i = c * CHUNK + k;
                let v = table.values[s][i];
                if v > MAX_DTM || v % 2 == 1 {
                    continue;
                }
                let pos = table
                    .index
                    .unrank_into(i as u64, &mut pieces)
                    .then(|| Position::from_pieces(&pieces, side).ok())
                    .flatten()
                    .ok_or_else(|| format!("side {s} index {i}: decided but undecodable"))?;
                let here =
                    verdict(s, i).ok_or_else(|| format!("side {s} index {i}: no verdict"))?;
                let mut moves = Vec::new();
                for m in pos.legal_moves() {
                    if pos.piece_at(m.to()).is_some() {
                        moves.push(None);
                        continue;
                    }
                    let child = pos.after(m);
                    let j = table
                        .index
                        .rank_position(&child)
                        .ok_or_else(|| format!("{}: a move leaves the index", pos.to_fen()))?
                        as usize;
                    let t = 1 - s;
                    let cv = table.values[t][j];
                    if cv > MAX_DTM || cv.is_multiple_of(2) {
                        return Err(format!(
                            "{}: a lost position with a move that does not lose",
                            pos.to_fen()
                        ));
                    }
                    if here.ruling.is_some() {
                        let ok = verdict(t, j).is_some_and(|x| x.order < here.order);
                        if !ok {
                            continue;
                        }
                    }
                    moves.push(Some(other[j]));
                }
                *b = super::dtc_code::loss_dtc(moves);
            }
            Ok(())
        })?;
    Ok(())
}
