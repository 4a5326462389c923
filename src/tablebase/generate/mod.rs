//! Retrograde generation of one table: WDL under a repetition rule set, and DTM.
//!
//! The pipeline, as [`generate`] runs it:
//!
//! 1. **Start** ([`start`]). Every position of both sides to move is decoded once:
//!    illegal placements (kings facing, side not to move in check) are marked, positions
//!    without a legal move are lost in 0, every other position gets a counter: its number of
//!    distinct successors (by table and index; two moves lead to one successor only when they
//!    give mirror images). Under rule set 1 the positions with a capture into a drawn
//!    sub-table position are noted (a drawing way out of any cycle): one move generation
//!    per side to move counts the moves and lists the captures, each king's attack is
//!    tested once for both sides (the check of one is the illegality of the other), and
//!    one position per chunk is loaded in place.
//! 2. **Plain retrograde analysis** ([`Gen::levels`], round 0). Level by level
//!    (`L` = 0, 1, 2, ...), the positions decided at distance `L`, in this table and in the
//!    tables one capture away, are un-moved (un-captured for the smaller tables) into their
//!    predecessors. At even `L` (losses) every unknown predecessor is a win in `L + 1`; at odd
//!    `L` (wins) each predecessor's counter drops by one, and a predecessor whose last
//!    successor has just turned out a win for the opponent is lost in `L + 1`. Levels go in
//!    order, so wins are as fast and losses as slow as possible. What is decided here is
//!    decided under any rule set: this is rule set 0's whole table.
//! 3. **Repetition rules** ([`cycles`], rule set 1, only when both sides have a rook, horse,
//!    cannon or pawn): rounds of marking, clean-up and ruling that turn positions whose only
//!    way to avoid loss is a perpetual check or chase into losses, each followed by plain
//!    propagation. See that module for the fixpoint and its proof sketch.
//! 4. **Distance to mate under the rules** ([`dtm`], when a ruling happened): the plain
//!    retrograde analysis once more, on the game in which a ruled position's violating moves
//!    are forbidden. It must reproduce the WDL of step 3 exactly.
//! 5. Whatever is undecided cannot be forced either way: a draw.
//!
//! Work is split over index chunks with rayon. Memory: see [`memory`].

mod bytes;
pub(super) mod code;
mod compact;
mod cycles;
mod dtc;
mod dtc_out;
mod dtc_rounds;
mod dtm;
mod dtm_codes;
mod heap;
mod memory;
mod params;
mod resume;
mod retro;
mod round_codes;
mod slot_flags;
mod slots;
mod sparse_verdicts;
mod split_codes;
mod start;
mod start_counts;
mod subs;

pub use dtc::{InMemory, ValueSource, MAX_LEVEL as DTC_MAX};
pub use dtc_out::{generate_dtc, generate_dtc_bytes, StoredDtc};
pub use dtc_rounds::RuleRounds;
use memory::{capdraw_in_value, max_moves};
pub use memory::{dtc_state_bytes, state_bytes, BASE_BYTES, PROCESS_BYTES};
pub use start::asymmetry;
use start::asymmetry_of;

use super::table::{Table, TableSet, TbError};
use super::values::{Ruling, Verdict, Wdl, MAX_DTM};
use super::workfile::{Backing, Buf};
use crate::board::retro::unmove_sources;
use crate::board::rules::RuleSet;
use crate::board::{Bitboard, Color, Piece, Position, Role, Square};
use crate::index::{Material, PieceList, PlacementIndex};
use crate::progress::{Phase, Progress, Silent};
use arrayvec::ArrayVec;
use bytes::{Bits, Bytes};
use rayon::prelude::*;
use slots::{LevelsFile, Slots};
pub use sparse_verdicts::{SparseVerdicts, Window};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use params::CHUNK;
pub use resume::{Checkpoint, Meta, State, Step, METRICS};
pub use subs::SubTables;
use subs::{subs_of, Sub};

/// What [`generate`] builds and how.
#[derive(Copy, Clone)]
pub struct GenOptions<'a> {
    /// Repetition rule set.
    pub rules: RuleSet,
    /// Where the phases of each table's generation are reported (job: the material).
    pub progress: &'a dyn Progress,
    /// Where the state is saved at safe points and restored from (none: no checkpoints).
    pub checkpoint: Option<&'a dyn Checkpoint>,
    /// Messages for the user: resuming from a checkpoint, a checkpoint ignored, waiting
    /// for a table another process generates.
    pub notify: &'a (dyn Fn(&str) + Sync),
    /// When another process holds a table's lock: wait for it (else fail with
    /// [`TbError::Locked`]). Used by [`crate::tablebase::pipeline`].
    pub wait_for_lock: bool,
    /// Out-of-core mode: a table whose generation state (with the process's other needs,
    /// [`BASE_BYTES`]) would take more than this many bytes keeps its arrays, and the table
    /// they turn into, in a work file, and the process's resident set is held near this
    /// (see [`crate::tablebase::workfile`]). None: always in memory.
    pub memory: Option<u64>,
    /// Where work files go (None: the system's temporary folder; the pipeline uses the
    /// table folder).
    pub work_dir: Option<&'a std::path::Path>,
}

fn no_notice(_: &str) {}

impl Default for GenOptions<'_> {
    fn default() -> Self {
        GenOptions {
            rules: RuleSet::CheckChase,
            progress: &Silent,
            checkpoint: None,
            notify: &no_notice,
            wait_for_lock: true,
            memory: None,
            work_dir: None,
        }
    }
}

impl std::fmt::Debug for GenOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GenOptions")
            .field("rules", &self.rules)
            .finish_non_exhaustive()
    }
}

/// True when moving `p` between `a` and `b` (either way) only changes the index's tail
/// (a rook, horse or cannon; a pawn past the river on both points): then
/// [`PlacementIndex::rank_tail_move`] ranks the result.
fn tail_move(p: Piece, a: Square, b: Square) -> bool {
    match p.role {
        Role::Rook | Role::Horse | Role::Cannon => true,
        Role::Pawn => {
            let passed = |s: Square| (p.color == Color::Red) == (s.rank() >= 5);
            passed(a) && passed(b)
        }
        _ => false,
    }
}

/// How a decided successor acts on its predecessors.
#[derive(Copy, Clone)]
enum Mode {
    /// Step 2 in the compact layout (see [`compact`]): decisions get their level in the
    /// value byte.
    Compact,
    /// Step 4 in the compact layout, its markers and counters (see [`dtm`]); the codes of
    /// the positions open after round 0 are in their auxiliary bytes.
    Dtm,
}

/// The generation state of one table.
///
/// Steps 1, 2 and 4 use the compact layout: the value byte, holding the level of a decided
/// position or the counter of an open one (with its capture-draw flag in a table with rule
/// rounds, when [`capdraw_in_value`]), and a bit per position for levels from 128 on (see
/// [`compact`]). In step 3 the value byte holds a code (see [`code`]), and the positions
/// open after round 0 have an auxiliary byte (see [`slots`]): the rule flags while open,
/// the propagation step at which a round decided them; in step 4 their codes.
pub(super) struct Gen<'a> {
    material: Material,
    index: &'a PlacementIndex,
    val: [Bytes; 2],
    /// A table with rule rounds: the auxiliary bytes of the positions open after round 0
    /// (empty before; see [`slots`]). Empty without rule rounds.
    aux: [Slots; 2],
    /// The compact layout's high level bits (None: the DTC pass's state, which has no levels).
    high: Option<[Bits; 2]>,
    /// True when the table runs repetition-rule rounds (step 3).
    rule_rounds: bool,
    /// Under rule set 1 with rule rounds, when the value byte has no room for the flag
    /// (see [`capdraw_in_value`]): positions with a capture into a drawn position.
    capdraw: Option<[Bits; 2]>,
    subs: Vec<Sub>,
    /// The rule set (for checkpoints).
    rules: RuleSet,
    /// Where the state goes at safe points.
    ck: Option<&'a dyn Checkpoint>,
    assigned: AtomicU64,
    overflow: AtomicBool,
    /// An internal inconsistency found by a pass (a bug, reported as an error).
    fault: Mutex<Option<String>>,
}

impl Gen<'_> {
    fn size(&self) -> usize {
        self.index.size() as usize
    }

    fn chunks(&self) -> usize {
        self.size().div_ceil(CHUNK)
    }

    fn fail(&self, what: String) {
        let mut f = self.fault.lock().unwrap_or_else(|e| e.into_inner());
        f.get_or_insert(what);
    }

    fn check_fault(&self) -> Result<(), TbError> {
        let f = self.fault.lock().unwrap_or_else(|e| e.into_inner());
        match &*f {
            Some(what) => Err(TbError::Internal(self.material, what.clone())),
            None => Ok(()),
        }
    }

    /// Position `i` with `side` to move (None for an undecodable index).
    fn position(&self, i: usize, side: Color) -> Option<Position> {
        let pieces = self.index.unrank_pieces(i as u64).ok()?;
        Position::from_pieces(&pieces, side).ok()
    }

    /// Index of a position of this table.
    fn rank(&self, pos: &Position) -> Option<usize> {
        self.index.rank_position(pos).map(|i| i as usize)
    }

    /// The counter bits of an open position's value byte: six ([`code::COUNTER`]) in a
    /// table with rule rounds and the capture-draw flag in the value byte (no capture-draw
    /// bit arrays), else seven.
    #[inline(always)]
    fn counter_mask(&self) -> u8 {
        if self.rule_rounds && self.capdraw.is_none() {
            code::COUNTER
        } else {
            0x7F
        }
    }

    /// The value byte of an illegal placement in steps 1 and 2.
    fn illegal_byte(&self) -> u8 {
        compact::ILLEGAL
    }

    /// True when a table of `material` under `rules` runs repetition-rule rounds (step 3):
    /// rule set 1 and both sides attacking. Only those need codes and auxiliary bytes.
    fn has_rule_rounds(material: Material, rules: RuleSet) -> bool {
        rules == RuleSet::CheckChase && Gen::both_attack(material)
    }

    /// True when both sides have a piece that can attack (rook, horse, cannon or pawn):
    /// only then can a cycle be a perpetual check or chase.
    fn both_attack(material: Material) -> bool {
        Color::ALL.iter().all(|&c| {
            [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn]
                .iter()
                .any(|&r| material.count(c, r) > 0)
        })
    }
}

/// Generate the table of `material` (stronger side as Red) under `opts.rules`; every table
/// one capture away must be in `subs`, generated under the same rule set.
pub fn generate(
    material: Material,
    subs: &TableSet,
    opts: GenOptions<'_>,
) -> Result<Table, TbError> {
    generate_from(material, SubTables::Memory(subs), opts)
}

/// [`generate`] with the tables one capture away in memory or in the files of a folder
/// (read block by block, see [`SubTables`]).
pub fn generate_from(
    material: Material,
    subs: SubTables<'_>,
    opts: GenOptions<'_>,
) -> Result<Table, TbError> {
    let (mut table, verdicts) = generate_sparse(material, subs, opts)?;
    if let Some(v) = verdicts {
        let dense = v.dense(&table.values).map_err(|source| TbError::Io {
            path: format!("{material}: the verdicts' work file"),
            source,
        })?;
        table.verdicts = Some(dense);
    }
    Ok(table)
}

/// [`generate_from`] with the verdicts apart, kept only for the positions open after round 0
/// (every other verdict is the plain one of its value): the table's `verdicts` are None.
/// What `gen` writes its files from (see [`crate::tablebase::file::write_files_sparse`]).
pub fn generate_sparse(
    material: Material,
    subs: SubTables<'_>,
    opts: GenOptions<'_>,
) -> Result<(Table, Option<SparseVerdicts>), TbError> {
    heap::settle_heap();
    let index = PlacementIndex::new(material)?;
    let n = index.size() as usize;
    let sub_list = subs_of(material, subs, opts.rules)?;
    let cycles = Gen::has_rule_rounds(material, opts.rules);
    let tmp = std::env::temp_dir();
    let backing = Backing::for_table(
        material,
        state_bytes(material, n as u64, opts.rules),
        BASE_BYTES,
        opts.memory,
        opts.work_dir.unwrap_or(&tmp),
    )?;
    if let Backing::File(w) = &backing {
        (opts.notify)(&format!(
            "{material}: out of core, arrays in {}",
            w.path().display()
        ));
    }
    let bytes = |fill| Bytes::with(&backing, n, fill);
    // steps 1 and 2 in the compact layout for every table (see [`compact`])
    let val = [bytes(compact::ILLEGAL)?, bytes(compact::ILLEGAL)?];
    let high = [Bits::with(&backing, n)?, Bits::with(&backing, n)?];
    let slots = || Slots::empty(&backing, n, cycles);
    let mut g = Gen {
        material,
        index: &index,
        val,
        aux: [slots()?, slots()?],
        high: Some(high),
        rule_rounds: cycles,
        // the capture-draw flags: in the value bytes when the counters leave room
        capdraw: match cycles && !capdraw_in_value(material) {
            true => Some([Bits::with(&backing, n)?, Bits::with(&backing, n)?]),
            false => None,
        },
        subs: sub_list,
        rules: opts.rules,
        ck: opts.checkpoint,
        assigned: AtomicU64::new(0),
        overflow: AtomicBool::new(false),
        fault: Mutex::new(None),
    };
    let phases = phases();
    let t0 = std::time::Instant::now();
    let lap = |what: &str| {
        if phases {
            eprintln!(
                "{material} {what}: {:.2} s, CPU {:.2} s",
                t0.elapsed().as_secs_f64(),
                cpu_seconds()
            );
        }
    };
    let job = material.to_string();
    // a file of round 0's levels left by a killed run is garbage
    let levels_path = LevelsFile::path(material, opts.work_dir);
    if cycles && levels_path.exists() {
        let _ = std::fs::remove_file(&levels_path);
    }
    // step 4's packed codes go to a work file (see [`dtm_codes`]); one left by a killed
    // run is garbage too (a resumed step 4 writes it again from the checkpoint)
    let codes_path = slots::work_path(material, opts.work_dir, "codes");
    if cycles && codes_path.exists() {
        let _ = std::fs::remove_file(&codes_path);
    }
    let resumed = g.resume(opts.notify)?;
    if resumed.is_none() {
        let pb = Phase::begin(opts.progress, &job, "start", g.chunks() as u64);
        (0..g.chunks()).into_par_iter().for_each(|c| {
            g.init_chunk(c * CHUNK, ((c + 1) * CHUNK).min(n));
            pb.inc(1);
        });
        pb.end();
        g.check_fault()?;
        g.safe_point(Step::Levels { next: 0 })?;
    }
    // the start pass's counters, for step 4 (see [`start_counts`]): a saving only, so a
    // resumed generation, or one whose work file cannot be written, counts again
    let counts = (cycles && resumed.is_none())
        .then(|| {
            let path = slots::work_path(material, opts.work_dir, "counts");
            start_counts::StartCounts::save(&g, &path).ok()
        })
        .flatten();

    if let Some(from) = resume::levels_from(resumed) {
        let pb = Phase::begin(opts.progress, &job, "retrograde levels", 0);
        lap("start");
        g.levels(Mode::Compact, from, &pb)?;
        pb.end();
        lap("round 0");
    }

    if cycles {
        // the start pass was the last to probe the sub-tables at random: their cache makes
        // room for the rule rounds (see [`params::SUB_CACHE_KEPT_BYTES`])
        g.bound_sub_caches(params::SUB_CACHE_KEPT_BYTES);
    }
    let mut ruled = matches!(resumed, Some(Step::RulesDone | Step::Dtm { .. }));
    // round 0's levels, kept in a work file through the rule rounds: the table's values
    // when no position is ruled (else step 4 computes them all again)
    let mut levels: Option<LevelsFile> = None;
    if cycles && !ruled {
        let from = resume::rules_from(resumed);
        // the open positions' code bytes in the rounds (see [`split_codes`]): a work file
        // in the work folder, unlinked at once
        let round_codes_path = slots::work_path(material, opts.work_dir, "round-codes");
        if from.is_none() {
            let file = LevelsFile::save(&g, levels_path.clone())?;
            g.open_rounds(&file, &round_codes_path)?;
            levels = Some(file);
        } else {
            // a checkpoint holds the rounds' codes dense
            g.go_sparse(&round_codes_path)?;
        }
        // the marks' flags spilled while the sparse flags are built (see
        // [`Gen::sparse_flags`]): in the work folder, as the other work files
        let flags_path = slots::work_path(material, opts.work_dir, "flags");
        ruled = cycles::run(&mut g, opts.progress, from, &flags_path)?;
        lap("rules");
        if ruled {
            g.close_rounds(levels.as_ref(), &codes_path)?;
            drop(levels.take());
            g.safe_point(Step::RulesDone)?;
        }
    }
    if cycles && !ruled {
        match &levels {
            // back to round 0's levels
            Some(file) => {
                g.unsparse()?;
                file.restore(&g)?
            }
            // resumed in the rule rounds, where round 0's levels are not kept: step 4
            // (the plain analysis, nothing being ruled) computes them again
            None => {
                g.close_rounds(None, &codes_path)?;
                ruled = true
            }
        }
    }
    if ruled {
        // (resumed at step 4: the codes restored in the slots are packed now)
        g.pack_for_dtm(&codes_path)?;
        dtm::run(
            &g,
            opts.progress,
            resume::dtm_from(resumed),
            counts.as_ref(),
        )?;
        lap("dtm");
    }
    drop(levels);
    drop(counts);
    let material = g.material;
    let (values, verdicts) = finish(g, ruled)?;
    Ok((
        Table {
            material,
            index,
            values,
            rules: opts.rules,
            verdicts: None,
            dtc: None,
        },
        verdicts,
    ))
}

/// Whether the generator reports its phases (timings and counts) on standard error: the
/// measuring aid `XQDB_PHASES` set in the environment (read once).
pub(crate) fn phases() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("XQDB_PHASES").is_some())
}

/// CPU time (user and system) of this process so far, for the phase timings that
/// `XQDB_PHASES` prints (wall time means little on a shared machine).
pub(super) fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes into the zeroed struct we pass; RUSAGE_SELF is always valid.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        ru
    };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
    t(ru.ru_utime) + t(ru.ru_stime)
}

/// The generation state as DTM values and, when some verdict rests on the rules (a
/// position ruled), the verdicts of the positions open after round 0.
fn finish(g: Gen<'_>, ruled: bool) -> Result<([Buf; 2], Option<SparseVerdicts>), TbError> {
    let Gen {
        val,
        mut aux,
        high,
        rule_rounds,
        ..
    } = g;
    let high = match high {
        Some(h) => h,
        None => unreachable!("a generation state has the compact layout's high bits"),
    };
    let packed = aux[0].packed.is_some();
    if packed {
        // the packed rounds are done with before the values are made
        for slots in &mut aux {
            slots.bytes = Bytes::new(0, 0);
        }
    }
    let values = compact::finish_compact(val, high);
    if !rule_rounds || !ruled {
        return Ok((values, None));
    }
    if packed {
        return Ok((values, Some(dtm_codes::packed_verdicts(aux)?)));
    }
    // the slots hold the codes of step 4: in place, their verdicts
    for slots in &aux {
        let b = &slots.bytes;
        for k in 0..b.len() {
            b.set(k, verdict_of(b.get(k)).map_or(255, |x| x.encode()));
        }
    }
    Ok((values, Some(SparseVerdicts::new(aux))))
}

/// The verdict of a final generation code (None for illegal).
fn verdict_of(c: u8) -> Option<Verdict> {
    if c & code::OPEN != 0 || c == code::DRAW {
        return Some(Verdict::plain(Wdl::Draw));
    }
    if c == code::ILLEGAL {
        return None;
    }
    let order = code::order(c);
    let (wdl, ruling) = match c & 3 {
        code::WIN => (Wdl::Win, None),
        code::RULE_CHECK => (Wdl::Loss, Some(Ruling::PerpetualCheck)),
        code::RULE_CHASE => (Wdl::Loss, Some(Ruling::PerpetualChase)),
        _ => (Wdl::Loss, None),
    };
    Some(Verdict { wdl, order, ruling })
}
