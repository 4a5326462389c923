//! Generating a set of tables: the capture closure, smallest first, skipping valid files,
//! then save with checksums and a summary per table.

use super::file::{table_path, Metric, TableFile, Written};
use super::generate::{generate, generate_sparse, GenOptions, SubTables};
use super::table::{table_material, Table, TableSet, TbError};
use super::values::ILLEGAL;
use super::workfile::Buf;
use crate::board::rules::RuleSet;
use crate::board::{Color, Position, Role};
use crate::index::{Material, PieceList, PlacementIndex};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Every table needed to generate `targets`: the targets and every material reachable from
/// them by captures, as table names, smallest first.
pub fn closure(targets: &[Material]) -> Vec<Material> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<Material> = targets.iter().map(|m| table_material(*m).0).collect();
    while let Some(m) = stack.pop() {
        if !seen.insert((m.pieces_besides_kings(), m.to_string(), m)) {
            continue;
        }
        for c in Color::ALL {
            for r in Role::ALL {
                if let Some(sub) = m.without(c, r) {
                    stack.push(table_material(sub).0);
                }
            }
        }
    }
    seen.into_iter().map(|(_, _, m)| m).collect()
}

/// What one table's generation did.
#[derive(Clone, Debug)]
pub struct GenSummary {
    /// The table.
    pub material: Material,
    /// True when valid files were already there.
    pub skipped: bool,
    /// Positions (both sides to move).
    pub positions: u64,
    /// Per side to move (Red, Black): wins, draws, losses, illegal.
    pub counts: [[u64; 4]; 2],
    /// Longest mate: plies and a FEN.
    pub longest: Option<(u8, String)>,
    /// Wall time of generation (without saving) and of the DTC pass (with its file).
    pub seconds: f64,
    /// Peak resident memory of the process so far, in bytes.
    pub peak_rss: u64,
    /// Peak resident memory when generation ended, before compressing and saving (with DTC:
    /// when the DTC file is written, which follows saving the WDL and DTM files).
    pub gen_peak_rss: u64,
    /// File sizes.
    pub written: Written,
    /// Why files that were there were not kept (missing files are not mentioned).
    pub replaced: Option<String>,
}

/// Peak resident set of this process (VmHWM), in bytes.
pub fn peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

pub use super::values::outcome_counts;

/// Mark the illegal placements of a table read from files (the files do not store them).
fn mark_illegal(index: &PlacementIndex, values: &mut [Vec<u8>; 2]) {
    let n = index.size() as usize;
    let [red, black] = values;
    red.par_chunks_mut(4096)
        .zip(black.par_chunks_mut(4096))
        .enumerate()
        .for_each(|(c, (r, b))| {
            let mut pieces = PieceList::new();
            for k in 0..r.len() {
                let i = c * 4096 + k;
                debug_assert!(i < n);
                if !index.unrank_into(i as u64, &mut pieces) {
                    continue;
                }
                let Ok(mut pos) = Position::from_pieces(&pieces, Color::Red) else {
                    continue;
                };
                if pos.check_placement_legal().is_err() {
                    r[k] = ILLEGAL;
                }
                pos.play_null();
                if pos.check_placement_legal().is_err() {
                    b[k] = ILLEGAL;
                }
            }
        });
}

/// Read a table's two files into memory (checking every block). With `verdicts`, the WDL
/// bytes are kept too when some verdict rests on the repetition rules (verification needs
/// them; a table used as a sub-table does not).
pub fn load_table(dir: &Path, m: &Material, verdicts: bool) -> Result<Table, TbError> {
    let index = PlacementIndex::new(*m)?;
    let open = |metric| TableFile::open(&table_path(dir, m, metric), Some((*m, metric)));
    let corrupt = |e: super::file::FileError| TbError::Corrupt {
        path: table_path(dir, m, Metric::Wdl).display().to_string(),
        reason: e.to_string(),
    };
    let wdl = open(Metric::Wdl).map_err(corrupt)?;
    let dtm = open(Metric::Dtm).map_err(corrupt)?;
    let n = index.size();
    if wdl.header.positions != n || dtm.header.positions != n {
        return Err(TbError::Corrupt {
            path: wdl.path.display().to_string(),
            reason: format!(
                "{} positions per side, the index has {n}",
                wdl.header.positions
            ),
        });
    }
    if wdl.header.rules != dtm.header.rules {
        return Err(TbError::Corrupt {
            path: dtm.path.display().to_string(),
            reason: format!(
                "rule set {} but the WDL file has rule set {}",
                dtm.header.rules, wdl.header.rules
            ),
        });
    }
    let w = wdl.read_all().map_err(corrupt)?;
    let d = dtm.read_all().map_err(corrupt)?;
    let all = super::file::combine(&w, &d);
    let n = n as usize;
    let mut values = [all[..n].to_vec(), all[n..].to_vec()];
    drop(all);
    mark_illegal(&index, &mut values);
    let verdicts = (verdicts && w.iter().any(|&b| (3..255).contains(&b))).then(|| {
        let mut v = [w[..n].to_vec(), w[n..].to_vec()];
        for s in 0..2 {
            for (b, &x) in v[s].iter_mut().zip(&values[s]) {
                if x == ILLEGAL {
                    *b = 255;
                }
            }
        }
        v
    });
    Ok(Table {
        material: *m,
        index,
        values: values.map(Buf::from),
        rules: wdl.header.rules,
        verdicts: verdicts.map(|v| v.map(Buf::from)),
        dtc: None,
    })
}

/// What a table folder holds for one material.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FilesState {
    /// No files (or not both).
    Missing,
    /// Both files whole (every block checked) for this index, of this rule set.
    Valid(RuleSet),
    /// Files that cannot be used (the reason).
    Invalid(String),
}

/// Check both files of `m` whole: headers for this index, one rule set, and every block
/// (decompressed, its checksum and length checked). The error says what is wrong with which
/// file.
pub fn check_files(dir: &Path, m: &Material) -> Result<RuleSet, String> {
    let mut rules = Vec::new();
    for metric in [Metric::Wdl, Metric::Dtm] {
        let f = open_whole(dir, m, metric)?;
        rules.push(f.header.rules);
    }
    if rules[0] != rules[1] {
        return Err(format!("{m}: the WDL and DTM files differ in rule set"));
    }
    Ok(rules[0])
}

/// Open the `metric` file of `m` and check that its header is for this index. The error
/// names the file.
pub fn open_for_index(dir: &Path, m: &Material, metric: Metric) -> Result<TableFile, String> {
    let index = PlacementIndex::new(*m).map_err(|e| e.to_string())?;
    let f = TableFile::open(&table_path(dir, m, metric), Some((*m, metric)))
        .map_err(|e| e.to_string())?;
    if f.header.positions != index.size() {
        return Err(format!(
            "{}: {} positions per side, the index has {}",
            f.path.display(),
            f.header.positions,
            index.size()
        ));
    }
    Ok(f)
}

/// [`open_for_index`], and every block decompresses with its checksum and length.
pub fn open_whole(dir: &Path, m: &Material, metric: Metric) -> Result<TableFile, String> {
    let f = open_for_index(dir, m, metric)?;
    check_blocks(&f).map_err(|e| e.to_string())?;
    Ok(f)
}

/// Decompress every block of `f` (checksum and length checked), a block at a time (the
/// file is not held whole: checking a big table's files does not raise the peak memory).
pub fn check_blocks(f: &TableFile) -> Result<(), super::file::FileError> {
    (0..f.blocks())
        .into_par_iter()
        .try_for_each(|k| f.block(k).map(drop))
}

/// The state of the files of `m` in `dir` (see [`check_files`]).
pub fn files_state(dir: &Path, m: &Material) -> FilesState {
    // a table is there through its WDL file (written last): other files alone are what an
    // interrupted commit left, a table still missing
    let present = table_path(dir, m, Metric::Wdl).exists();
    match check_files(dir, m) {
        Ok(r) => FilesState::Valid(r),
        Err(_) if !present => FilesState::Missing,
        Err(e) => FilesState::Invalid(e),
    }
}

/// True when both files of `m` exist and are whole (see [`check_files`]).
pub fn files_valid(dir: &Path, m: &Material) -> bool {
    check_files(dir, m).is_ok()
}

/// Summary of an in-memory table.
pub fn summarize(
    t: &Table,
    seconds: f64,
    gen_peak_rss: u64,
    written: Written,
    skipped: bool,
) -> GenSummary {
    let longest = t.longest().and_then(|(v, i, side)| {
        let pieces = t.index.unrank_pieces(i).ok()?;
        let pos = Position::from_pieces(&pieces, side).ok()?;
        Some((v, pos.to_fen()))
    });
    GenSummary {
        material: t.material,
        skipped,
        positions: t.positions(),
        counts: super::file::counts_and_max(&t.values).0,
        longest,
        seconds,
        peak_rss: peak_rss(),
        gen_peak_rss,
        written,
        replaced: None,
    }
}

/// How [`generate_set`] treats files already in the folder.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Existing {
    /// Keep valid files of the requested rule set; files of another rule set are an error.
    #[default]
    Keep,
    /// Keep valid files of the requested rule set; regenerate (replace) those of another.
    ReplaceOtherRules,
}

/// Generate `targets` and everything they need into `dir`, smallest first; tables whose
/// files are present and valid are skipped (and read when a bigger table needs them).
/// `report` is called after each table.
pub fn generate_set(
    targets: &[Material],
    dir: &Path,
    opts: GenOptions<'_>,
    existing: Existing,
    report: impl FnMut(&GenSummary),
) -> Result<Vec<GenSummary>, TbError> {
    generate_in_order(&closure(targets), dir, opts, existing, report)
}

/// Generate exactly the tables of `order` (table names, smallest first) into `dir`, as
/// [`generate_set`] does; the sub-tables of each must be in `dir` or earlier in `order`
/// (`gen --no-deps` checks this first: [`super::plan::missing_subtables`]).
pub fn generate_in_order(
    order: &[Material],
    dir: &Path,
    opts: GenOptions<'_>,
    existing: Existing,
    report: impl FnMut(&GenSummary),
) -> Result<Vec<GenSummary>, TbError> {
    generate_in_order_with(order, dir, opts, false, existing, report)
}

/// [`generate_in_order`], with the DTC file too when `dtc` (see [`super::pipeline_dtc`]):
/// computed beside new tables, and added to present ones that lack a valid one (their
/// WDL and DTM files are kept; the summary of such a table is `skipped` with its DTC size).
pub fn generate_in_order_with(
    order: &[Material],
    dir: &Path,
    opts: GenOptions<'_>,
    dtc: bool,
    existing: Existing,
    mut report: impl FnMut(&GenSummary),
) -> Result<Vec<GenSummary>, TbError> {
    // work files (out-of-core mode) go beside the tables unless said otherwise
    let opts = GenOptions {
        work_dir: opts.work_dir.or(Some(dir)),
        ..opts
    };
    let mut out = Vec::new();
    for m in order {
        let mut state = files_state(dir, m);
        let complete = |state: &FilesState| match state {
            FilesState::Valid(r) if *r == opts.rules => {
                !dtc || super::pipeline_dtc::check_dtc_file(dir, m, *r).is_ok()
            }
            _ => false,
        };
        // a table to build (or to complete with its DTC file) is locked first, then looked
        // at again (its holder may have finished it meanwhile); the lock is released at the
        // end of this iteration
        let held = if complete(&state) {
            None
        } else {
            let lock = super::lock::acquire(dir, m, opts.wait_for_lock, opts.notify)?;
            state = files_state(dir, m);
            Some(lock)
        };
        match &state {
            FilesState::Valid(r) if *r == opts.rules => {
                // a run cut off between committing the files and removing its checkpoint
                // left a checkpoint of a finished table: the files are what counts
                if let (Some(ck), Some(_)) = (opts.checkpoint, &held) {
                    ck.finished(&super::generate::Meta {
                        material: *m,
                        rules: opts.rules,
                        metrics: super::generate::METRICS,
                        positions: PlacementIndex::new(*m)?.size(),
                    })?;
                }
                let mut written = Written::default();
                if dtc && held.is_some() && !complete(&state) {
                    written.dtc_bytes =
                        super::pipeline_dtc::add_dtc(dir, m, opts.memory, opts.progress)?;
                }
                let s = GenSummary {
                    material: *m,
                    skipped: true,
                    positions: 2 * PlacementIndex::new(*m)?.size(),
                    counts: [[0; 4]; 2],
                    longest: None,
                    seconds: 0.0,
                    peak_rss: peak_rss(),
                    gen_peak_rss: 0,
                    written,
                    replaced: None,
                };
                report(&s);
                out.push(s);
                continue;
            }
            FilesState::Valid(r) if existing == Existing::Keep => {
                return Err(TbError::RulesInFolder {
                    material: *m,
                    dir: dir.display().to_string(),
                    found: *r,
                    wanted: opts.rules,
                });
            }
            _ => {}
        }
        // the tables one capture away are read from their files, block by block
        let start = Instant::now();
        // the verdicts apart, kept for the positions open after round 0 only
        let (mut table, sparse) = generate_sparse(*m, SubTables::Files(dir), opts)?;
        let seconds = start.elapsed().as_secs_f64();
        let gen_peak = peak_rss();
        let written =
            super::file::write_files_sparse(dir, &mut table, sparse).map_err(|e| match e {
                super::file::FileError::Io { path, source } => TbError::Io {
                    path: format!("writing table {m}: {path}"),
                    source,
                },
                other => TbError::Corrupt {
                    path: format!("writing table {m}"),
                    reason: other.to_string(),
                },
            })?;
        if let Some(ck) = opts.checkpoint {
            ck.finished(&super::generate::Meta {
                material: *m,
                rules: opts.rules,
                metrics: super::generate::METRICS,
                positions: table.index.size(),
            })?;
        }
        let mut s = summarize(&table, seconds, gen_peak, written, false);
        // the DTC file follows the table's own files: a run cut off in between leaves a
        // table without DTC, which the next run completes (the branch above). The pass
        // reads the table's values and verdicts from its files: they are dropped first.
        if dtc {
            table.values = [Buf::from(Vec::new()), Buf::from(Vec::new())];
            release_freed_memory();
            let start = Instant::now();
            s.written.dtc_bytes = super::pipeline_dtc::add_dtc(dir, m, opts.memory, opts.progress)?;
            s.seconds += start.elapsed().as_secs_f64();
            s.gen_peak_rss = peak_rss();
            s.peak_rss = s.gen_peak_rss;
        }
        s.replaced = match state {
            FilesState::Valid(r) => Some(format!("it followed rule set {r}")),
            FilesState::Invalid(why) => Some(why),
            FilesState::Missing => None,
        };
        report(&s);
        out.push(s);
        drop(table);
        release_freed_memory();
    }
    Ok(out)
}

/// Hand the memory freed by a table's generation back to the system. glibc keeps freed
/// blocks below its (growing) mmap threshold in its heaps; the next, larger table then starts
/// with the smaller tables' leftovers resident (measured: KRNKR's closure peaked 12 MiB above
/// KRNKR generated alone).
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap memory to the system; it is thread-safe.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Generate `targets` and every table they need in memory (no files), smallest first.
pub fn generate_closure(targets: &[Material], opts: GenOptions<'_>) -> Result<TableSet, TbError> {
    let mut set = TableSet::new();
    for m in closure(targets) {
        let t = generate(m, &set, opts)?;
        set.insert(Arc::new(t));
    }
    Ok(set)
}
