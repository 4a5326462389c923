//! What a table folder holds of a set: `xqdb status`.
//!
//! Per table: present (both files, headers whole), missing, partial (a checkpoint of an
//! interrupted generation, or some but not all files: a commit cut short), or damaged;
//! whether some process holds its lock now; whether it is verified (a stamp written by a
//! clean `verify` that still matches the files); file sizes, rule set, metrics. With `deep`,
//! every block of the files is checked as well. Temporary files (`*.tmp`) are ignored.
//!
//! The verification stamp `<MATERIAL>.xqverified` is a short text file (see FORMAT.md)
//! recording, per table file, its size and its header CRC (which covers the header and every
//! block's offset); `verify` writes it after a verification without mismatches, and a file
//! replaced or changed since no longer matches it.

use super::checkpoint;
use super::file::{table_path, Metric, TableFile};
use super::generate::Step;
use super::lock::{self, Holder};
use crate::board::rules::RuleSet;
use crate::index::{Material, PlacementIndex};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Extension of verification stamps.
pub const STAMP_EXTENSION: &str = "xqverified";

/// The metrics every table has files for, in order.
const METRICS: [Metric; 2] = [Metric::Wdl, Metric::Dtm];

/// The metrics whose files a table may have besides (`gen --metrics`).
const OPTIONAL: [Metric; 1] = [Metric::Dtc];

/// Path of the verification stamp of `m` in `dir`.
pub fn stamp_path(dir: &Path, m: &Material) -> PathBuf {
    dir.join(format!("{m}.{STAMP_EXTENSION}"))
}

/// How much of a table is there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Presence {
    /// Every file, headers whole (and, with `deep`, every block).
    Present,
    /// Nothing.
    Missing,
    /// An interrupted generation: a checkpoint, or some files but not all.
    Partial,
    /// Files that cannot be used (why).
    Damaged(String),
}

impl Presence {
    /// One word for tables and JSON.
    pub fn word(&self) -> &'static str {
        match self {
            Presence::Present => "present",
            Presence::Missing => "missing",
            Presence::Partial => "partial",
            Presence::Damaged(_) => "damaged",
        }
    }
}

/// The state of one table in a folder.
#[derive(Clone, Debug)]
pub struct TableStatus {
    /// The table.
    pub material: Material,
    /// Positions (both sides to move).
    pub positions: u64,
    /// How much is there.
    pub presence: Presence,
    /// The process generating it now, if any.
    pub locked: Option<Holder>,
    /// The checkpoint of an interrupted generation: where it goes on and its size (or why
    /// its header cannot be read).
    pub checkpoint: Option<Result<(Step, u64), String>>,
    /// A clean `verify` stamp that matches the files.
    pub verified: bool,
    /// Sizes of the files present, by metric (extension, bytes).
    pub files: Vec<(&'static str, u64)>,
    /// Rule set (from the WDL file's header).
    pub rules: Option<RuleSet>,
}

/// Size and header CRC of a table file (None when it cannot be read).
fn fingerprint(path: &Path) -> Option<(u64, u32)> {
    let mut f = fs::File::open(path).ok()?;
    let size = f.metadata().ok()?.len();
    let mut h = [0u8; 140];
    f.read_exact(&mut h).ok()?;
    Some((size, u32::from_le_bytes([h[136], h[137], h[138], h[139]])))
}

/// The stamp text for the files of `m` in `dir` as they are now (None when one is
/// missing).
fn stamp_text(dir: &Path, m: &Material) -> Option<String> {
    let mut s = String::from("xqdb verified 1\n");
    for metric in METRICS {
        let (size, crc) = fingerprint(&table_path(dir, m, metric))?;
        s.push_str(&format!("{} {size} {crc:08x}\n", metric.extension()));
    }
    // a DTC file added after the stamp makes it stale: verify has not seen it
    for metric in OPTIONAL {
        if let Some((size, crc)) = fingerprint(&table_path(dir, m, metric)) {
            s.push_str(&format!("{} {size} {crc:08x}\n", metric.extension()));
        }
    }
    Some(s)
}

/// Record that the files of `m` in `dir` were verified clean (called by `verify`).
pub fn write_stamp(dir: &Path, m: &Material) -> std::io::Result<()> {
    let text = stamp_text(dir, m).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{m}: a table file is missing"),
        )
    })?;
    let path = stamp_path(dir, m);
    let tmp = super::file::temp_path(&path);
    fs::write(&tmp, text)?;
    fs::rename(&tmp, &path).inspect_err(|_| {
        let _ = fs::remove_file(&tmp);
    })
}

/// True when the stamp of `m` in `dir` matches its files as they are now.
pub fn stamp_matches(dir: &Path, m: &Material) -> bool {
    match (fs::read_to_string(stamp_path(dir, m)), stamp_text(dir, m)) {
        (Ok(stamp), Some(now)) => stamp == now,
        _ => false,
    }
}

/// The state of the table `m` (a table name: stronger side as Red) in `dir`; with `deep`
/// every block of its files is checked.
pub fn table_status(dir: &Path, m: &Material, deep: bool) -> TableStatus {
    let positions = PlacementIndex::new(*m).map_or(0, |i| 2 * i.size());
    let mut files = Vec::new();
    let mut problems = Vec::new();
    let mut rules = None;
    let mut core = 0;
    for metric in METRICS.into_iter().chain(OPTIONAL) {
        let path = table_path(dir, m, metric);
        if !path.exists() {
            continue;
        }
        match TableFile::open(&path, Some((*m, metric))) {
            Ok(f) => {
                files.push((metric.extension(), f.file_size()));
                core += usize::from(METRICS.contains(&metric));
                if metric == Metric::Wdl {
                    rules = Some(f.header.rules);
                }
                if deep {
                    if let Err(e) = f.read_all() {
                        problems.push(e.to_string());
                    }
                }
            }
            Err(e) => {
                let size = fs::metadata(&path).map_or(0, |md| md.len());
                files.push((metric.extension(), size));
                problems.push(e.to_string());
            }
        }
    }
    let checkpoint = checkpoint::peek(dir, m);
    let presence = if !problems.is_empty() {
        Presence::Damaged(problems.join("; "))
    } else if core == METRICS.len() {
        // (whole files beside a checkpoint: a commit that finished before the checkpoint
        // was removed; the files are whole, the checkpoint is stale)
        Presence::Present
    } else if core == 0 && checkpoint.is_none() {
        Presence::Missing
    } else {
        Presence::Partial
    };
    let verified = presence == Presence::Present && stamp_matches(dir, m);
    TableStatus {
        material: *m,
        positions,
        presence,
        locked: lock::holder(dir, m),
        checkpoint,
        verified,
        files,
        rules,
    }
}

/// The state of each of `tables` in `dir`, in order.
pub fn set_status(dir: &Path, tables: &[Material], deep: bool) -> Vec<TableStatus> {
    tables.iter().map(|m| table_status(dir, m, deep)).collect()
}

/// Totals over a set's states.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Tables.
    pub tables: usize,
    /// Present.
    pub present: usize,
    /// Present and verified.
    pub verified: usize,
    /// Missing.
    pub missing: usize,
    /// Partial.
    pub partial: usize,
    /// Damaged.
    pub damaged: usize,
    /// Locked now.
    pub locked: usize,
    /// Bytes of the files present.
    pub bytes: u64,
    /// Positions of the present tables.
    pub positions_present: u64,
}

/// Totals of `states`.
pub fn totals(states: &[TableStatus]) -> Totals {
    let mut t = Totals {
        tables: states.len(),
        ..Totals::default()
    };
    for s in states {
        match s.presence {
            Presence::Present => {
                t.present += 1;
                t.positions_present += s.positions;
            }
            Presence::Missing => t.missing += 1,
            Presence::Partial => t.partial += 1,
            Presence::Damaged(_) => t.damaged += 1,
        }
        t.verified += s.verified as usize;
        t.locked += s.locked.is_some() as usize;
        t.bytes += s.files.iter().map(|f| f.1).sum::<u64>();
    }
    t
}
