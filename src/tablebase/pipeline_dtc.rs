//! The DTC file in the generation pipeline: computing it for a table in memory, adding it
//! to a table whose WDL and DTM files are already there, and reading it back.

use super::file::{table_path, write_dtc_file, FileError, Metric, TableFile, Written};
use super::generate::generate_dtc;
use super::pipeline::load_table;
use super::table::{table_material, Table, TableSet, TbError};
use super::values::{DRAW, ILLEGAL, MAX_DTM};
use crate::board::{Color, Role};
use crate::index::Material;
use crate::progress::Progress;
use std::path::Path;
use std::sync::Arc;

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
    table.dtc = Some(generate_dtc(table, subs, progress)?);
    Ok(())
}

/// Write the DTC file of `table` (its `dtc` set) into `dir`, its size into `written`.
pub fn save_dtc(dir: &Path, table: &Table, written: &mut Written) -> Result<(), TbError> {
    write_dtc_file(dir, table, written).map_err(|e| write_error(&table.material, e))
}

/// Check the DTC file of `m` whole (header for this index and rule set, every block).
pub fn check_dtc_file(
    dir: &Path,
    m: &Material,
    rules: crate::board::rules::RuleSet,
) -> Result<(), String> {
    let index = crate::index::PlacementIndex::new(*m).map_err(|e| e.to_string())?;
    let f = TableFile::open(&table_path(dir, m, Metric::Dtc), Some((*m, Metric::Dtc)))
        .map_err(|e| e.to_string())?;
    if f.header.positions != index.size() {
        return Err(format!(
            "{}: {} positions per side, the index has {}",
            f.path.display(),
            f.header.positions,
            index.size()
        ));
    }
    if f.header.rules != rules {
        return Err(format!(
            "{}: rule set {} but the WDL file has rule set {rules}",
            f.path.display(),
            f.header.rules
        ));
    }
    f.read_all().map_err(|e| e.to_string())?;
    Ok(())
}

/// Add the DTC file to a table whose WDL and DTM files are in `dir` (valid), reading it and
/// its sub-tables (into `set`, for later tables too). Returns the file's size.
pub fn add_dtc(
    dir: &Path,
    m: &Material,
    set: &mut TableSet,
    progress: &dyn Progress,
) -> Result<u64, TbError> {
    for c in Color::ALL {
        for r in Role::ALL {
            if let Some(sub) = m.without(c, r) {
                let name = table_material(sub).0;
                if set.get(&name).is_none() {
                    set.insert(Arc::new(load_table(dir, &name, false)?));
                }
            }
        }
    }
    let mut table = load_table(dir, m, true)?;
    compute_dtc(&mut table, set, progress)?;
    table.verdicts = None;
    let mut written = Written::default();
    save_dtc(dir, &table, &mut written)?;
    Ok(written.dtc_bytes)
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
    check_dtc_file(dir, &m, table.rules).map_err(&corrupt)?;
    let f = TableFile::open(&path, Some((m, Metric::Dtc))).map_err(|e| corrupt(e.to_string()))?;
    let all = f.read_all().map_err(|e| corrupt(e.to_string()))?;
    let n = table.values[0].len();
    let mut dtc = [all[..n].to_vec(), all[n..].to_vec()];
    for (s, side) in dtc.iter_mut().enumerate() {
        for (i, (b, &v)) in side.iter_mut().zip(&table.values[s]).enumerate() {
            *b = match v {
                ILLEGAL => ILLEGAL,
                v if v > MAX_DTM => DRAW,
                v => super::dtc_code::decode(v, *b).ok_or_else(|| {
                    corrupt(format!(
                        "side {s} index {i}: DTC byte {b} contradicts the DTM {v}"
                    ))
                })?,
            };
        }
    }
    table.dtc = Some(dtc);
    Ok(())
}
