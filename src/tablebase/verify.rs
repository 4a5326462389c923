//! Independent verification: every position's value re-derived from its legal successors
//! by forward move generation and look-ups in this table and the smaller ones, and the
//! repetition rules checked where they decide.
//!
//! Per position (side to move `s`, stored verdict and distance):
//! * **Plain positions** (not a ruling): the distance is the ordinary one of the successors'
//!   (fastest win through a lost successor, else the slowest loss when every successor wins
//!   for the opponent, else a draw). Under rule set 1 the round is checked too: a win belongs
//!   to the earliest round of its lost successors, a loss to the latest round of its
//!   successors (a capture's result counts as round 0).
//! * **Rulings** (rule set 1: the side to move loses for perpetual check or chase in round
//!   `k`): the successors decided before round `k` must all win for the opponent; every other
//!   move must continue the violation (give check, or attack a piece anew), and at least one
//!   such move must exist; the distance is one more than the longest permitted successor's
//!   (0 when there is none).
//! * **Draws and perpetual check** (rule set 1, both sides attacking): no set of drawn
//!   positions may trap a side into checking forever: the largest set of drawn positions
//!   whose side to move must check (every other move loses) into a drawn position whose side
//!   can answer back into the set is computed; mutual checkers leave it; what remains would
//!   be a ruling the table missed.
//!
//! None of this shares code with the generator beyond move generation and the rules module.

use super::pipeline::load_table;
use super::table::{table_material, Table, TableSet, TbError};
use super::values::{value_from_children, wdl_of, Ruling, Verdict, Wdl, DRAW, ILLEGAL, MAX_DTM};
use super::verify_dtc::DtcAt;
use crate::board::rules::{new_attacks, RuleSet};
use crate::board::{Color, Move, Position, Role, MAX_MOVES};
use crate::index::{Material, PieceList};
use arrayvec::ArrayVec;
use rayon::prelude::*;
use std::path::Path;
use std::sync::Arc;

/// One position whose stored value disagrees with its successors.
#[derive(Debug, Clone)]
pub struct Mismatch {
    /// The position.
    pub fen: String,
    /// Stored value.
    pub stored: u8,
    /// Value derived from the successors (ILLEGAL when the placement is illegal).
    pub derived: u8,
    /// What is wrong, in words.
    pub why: String,
}

/// Result of a verification.
#[derive(Debug, Clone, Default)]
pub struct VerifyReport {
    /// Positions checked (both sides to move).
    pub checked: u64,
    /// Number of mismatches.
    pub mismatches: u64,
    /// The first few mismatches.
    pub examples: Vec<Mismatch>,
    /// Positions decided by a ruling (rule set 1).
    pub rulings: u64,
    /// Decided positions whose DTC was re-derived (0 without a DTC file).
    pub dtc_checked: u64,
}

impl VerifyReport {
    pub(super) fn add(&mut self, m: Mismatch) {
        self.mismatches += 1;
        if self.examples.len() < 10 {
            self.examples.push(m);
        }
    }

    pub(super) fn merge(&mut self, p: VerifyReport) {
        self.checked += p.checked;
        self.dtc_checked += p.dtc_checked;
        self.rulings += p.rulings;
        self.mismatches += p.mismatches;
        for e in p.examples {
            if self.examples.len() < 10 {
                self.examples.push(e);
            }
        }
    }
}

/// Read the table of `m` and every table one capture away from `dir` (every block of their
/// files is checked on the way) and re-derive every value of the table.
pub fn verify_files(dir: &Path, m: &Material) -> Result<VerifyReport, TbError> {
    verify_files_reporting(dir, m, &crate::progress::Silent)
}

/// [`verify_files`], reporting the re-derivation as a phase of `progress` (one step per
/// block of 4,096 indices).
pub fn verify_files_reporting(
    dir: &Path,
    m: &Material,
    progress: &dyn crate::progress::Progress,
) -> Result<VerifyReport, TbError> {
    let (name, _) = table_material(*m);
    let mut table = load_table(dir, &name, true)?;
    let with_dtc = super::file::table_path(dir, &name, super::file::Metric::Dtc).exists();
    if with_dtc {
        super::pipeline_dtc::load_dtc(dir, &mut table)?;
    }
    let table = Arc::new(table);
    let mut set = TableSet::new();
    for c in Color::ALL {
        for r in Role::ALL {
            if let Some(sub) = name.without(c, r) {
                let sub = table_material(sub).0;
                if set.get(&sub).is_none() {
                    let t = load_table(dir, &sub, false)?;
                    if t.rules != table.rules {
                        return Err(TbError::RuleMismatch {
                            table: name,
                            rules: table.rules,
                            sub,
                            sub_rules: t.rules,
                        });
                    }
                    set.insert(Arc::new(t));
                }
            }
        }
    }
    set.insert(table.clone());
    Ok(verify_table_reporting(&table, &set, progress))
}

/// The verdict stored for index `i`, side `s`.
pub(super) fn stored_verdict(t: &Table, s: usize, i: usize) -> Option<Verdict> {
    match &t.verdicts {
        Some(v) => Verdict::decode(v[s][i]),
        None => wdl_of(t.values[s][i]).map(Verdict::plain),
    }
}

/// A successor: its move, distance byte and, for one in this table, its index and verdict.
pub(super) struct Succ {
    pub(super) mv: Move,
    pub(super) value: u8,
    /// The stored verdict (a capture's from its value); None when it cannot be read.
    pub(super) stored: Option<Verdict>,
    /// A quiet move's index in this table (None for a capture or an unrankable position).
    pub(super) index: Option<usize>,
    pub(super) capture: bool,
}

impl Succ {
    /// The verdict, an unreadable one counting as a plain draw.
    fn verdict(&self) -> Verdict {
        self.stored.unwrap_or(Verdict::plain(Wdl::Draw))
    }
}

/// The successors of `pos`. A quiet move stays in `table` (same material, same orientation),
/// so it is ranked once there for its value, verdict and DTC; a capture is looked up in the
/// table set. Moves are played and taken back on one copy of the position.
pub(super) fn successors(
    table: &Table,
    tables: &TableSet,
    pos: &Position,
) -> ArrayVec<Succ, MAX_MOVES> {
    let mut out = ArrayVec::new();
    let mut child = pos.clone();
    for m in pos.legal_moves() {
        let capture = pos.piece_at(m.to()).is_some();
        let undo = child.play(m);
        let (value, stored, index) = if capture {
            let value = tables.value(&child).unwrap_or(ILLEGAL);
            (value, wdl_of(value).map(Verdict::plain), None)
        } else {
            let s = child.turn().index();
            match table.index.rank_position(&child) {
                Some(j) => {
                    let j = j as usize;
                    (table.values[s][j], stored_verdict(table, s, j), Some(j))
                }
                None => (ILLEGAL, None, None),
            }
        };
        child.undo(m, undo);
        out.push(Succ {
            mv: m,
            value,
            stored,
            index,
            capture,
        });
    }
    out
}

/// Check one legal position; Err(why, derived value) on a disagreement.
fn check_position(
    succ: &[Succ],
    pos: &Position,
    stored: u8,
    verdict: Verdict,
) -> Result<(), (String, u8)> {
    if let Some(kind) = verdict.ruling {
        let k = verdict.order;
        let permitted = |s: &Succ| s.capture || s.verdict().order < k;
        let mut longest: Option<u8> = None;
        let mut violating = 0;
        for s in succ {
            if permitted(s) {
                if wdl_of(s.value) != Some(Wdl::Win) {
                    return Err((
                        "a ruling with a move that does not lose, decided before its round".into(),
                        DRAW,
                    ));
                }
                longest = Some(longest.map_or(s.value, |l| l.max(s.value)));
            } else {
                violating += 1;
                let continues = match kind {
                    Ruling::PerpetualCheck => pos.after(s.mv).in_check(),
                    Ruling::PerpetualChase => !s.capture && !new_attacks(pos, s.mv).is_empty(),
                };
                if !continues {
                    return Err((
                        format!("ruled for {kind:?}, but a move neither loses nor continues it"),
                        DRAW,
                    ));
                }
            }
        }
        if violating == 0 {
            return Err((
                "ruled, but every move loses without the rule".into(),
                value_from_children(succ.iter().map(|s| s.value)).unwrap_or(ILLEGAL),
            ));
        }
        let derived = longest.map_or(0, |l| l + 1);
        if derived != stored {
            return Err(("distance of a ruling".into(), derived));
        }
        return Ok(());
    }
    let derived = value_from_children(succ.iter().map(|s| s.value)).unwrap_or(ILLEGAL);
    if derived != stored {
        return Err(("distance".into(), derived));
    }
    let expected_order = match verdict.wdl {
        Wdl::Win => succ
            .iter()
            .filter(|s| wdl_of(s.value) == Some(Wdl::Loss))
            .map(|s| s.verdict().order)
            .min(),
        Wdl::Loss => succ.iter().map(|s| s.verdict().order).max(),
        Wdl::Draw => Some(0),
    }
    .unwrap_or(0);
    if expected_order != verdict.order {
        return Err((
            format!(
                "decided in rule round {}, its successors say round {expected_order}",
                verdict.order
            ),
            derived,
        ));
    }
    Ok(())
}

/// Re-derive every value of `table` (and its DTC, when loaded); `tables` must hold it and
/// every table one capture away.
pub fn verify_table(table: &Table, tables: &TableSet) -> VerifyReport {
    verify_table_reporting(table, tables, &crate::progress::Silent)
}

/// [`verify_table`], reporting its progress (one step per block of 4,096 indices).
pub fn verify_table_reporting(
    table: &Table,
    tables: &TableSet,
    progress: &dyn crate::progress::Progress,
) -> VerifyReport {
    let n = table.index.size();
    const CHUNK: u64 = 4096;
    let phase = crate::progress::Phase::begin(
        progress,
        &table.material.to_string(),
        "re-deriving values",
        n.div_ceil(CHUNK),
    );
    let parts: Vec<VerifyReport> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            phase.inc(1);
            let mut rep = VerifyReport::default();
            let mut pieces = PieceList::new();
            for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                let dtc_at = |side: Color| {
                    table.dtc.as_ref().map(|dtc| DtcAt {
                        table,
                        dtc,
                        tables,
                        side,
                        index: i as usize,
                    })
                };
                if !table.index.unrank_into(i, &mut pieces) {
                    // no position here: only the DTC's marker is checked
                    for side in Color::ALL {
                        if let Some(at) = dtc_at(side) {
                            at.check(None, None, &mut rep);
                        }
                    }
                    continue;
                }
                for side in Color::ALL {
                    let s = side.index();
                    let stored = table.values[s][i as usize];
                    rep.checked += 1;
                    let pos = Position::from_pieces(&pieces, side);
                    let legal = pos
                        .as_ref()
                        .is_ok_and(|p| p.check_placement_legal().is_ok());
                    let fen = || pos.as_ref().map(|p| p.to_fen()).unwrap_or_default();
                    let verdict = stored_verdict(table, s, i as usize);
                    let mut succ = None;
                    let result = match (&pos, legal, verdict) {
                        (_, false, _) if stored == ILLEGAL => Ok(()),
                        (_, false, _) => Err(("an illegal placement with a value".into(), ILLEGAL)),
                        (Ok(p), true, Some(v))
                            if wdl_of(stored).is_some()
                                && (stored == DRAW) == (v.wdl == Wdl::Draw)
                                && (stored > MAX_DTM
                                    || (stored % 2 == 1) == (v.wdl == Wdl::Win)) =>
                        {
                            if v.ruling.is_some() {
                                rep.rulings += 1;
                            }
                            let list = succ.insert(successors(table, tables, p));
                            check_position(list, p, stored, v)
                        }
                        _ => Err(("the WDL and DTM values disagree".into(), stored)),
                    };
                    if let Err((why, derived)) = result {
                        rep.add(Mismatch {
                            fen: fen(),
                            stored,
                            derived,
                            why,
                        });
                    }
                    if let Some(at) = dtc_at(side) {
                        at.check(pos.as_ref().ok(), succ.as_deref(), &mut rep);
                    }
                }
            }
            rep
        })
        .collect();
    let mut out = VerifyReport::default();
    for p in parts {
        out.merge(p);
    }
    if table.rules == RuleSet::CheckChase && both_attack(table.material) {
        out.merge(check_trap_among_draws(table, tables));
    }
    out
}

fn both_attack(m: Material) -> bool {
    Color::ALL.iter().all(|&c| {
        [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn]
            .iter()
            .any(|&r| m.count(c, r) > 0)
    })
}

/// One bit per index of a table, for the trap check's sets.
struct BitSet(Vec<u64>);

impl BitSet {
    fn new(n: usize) -> BitSet {
        BitSet(vec![0; n.div_ceil(64)])
    }
    fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }
    fn set(&mut self, i: usize, v: bool) {
        let (w, b) = (i / 64, 1u64 << (i % 64));
        if v {
            self.0[w] |= b;
        } else {
            self.0[w] &= !b;
        }
    }
    fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            let mut b = bits;
            std::iter::from_fn(move || {
                (b != 0).then(|| {
                    let i = b.trailing_zeros() as usize;
                    b &= b - 1;
                    w * 64 + i
                })
            })
        })
    }
}

/// A drawn position that takes part in the trap check (forced to check, or in check): side
/// to move, index, and its drawn quiet successors as `side << 63 | index`.
struct TrapRow {
    side: usize,
    index: usize,
    forced: bool,
    in_check: bool,
    next: Vec<u64>,
}

/// The largest set of drawn positions whose side to move must check perpetually (see the
/// module documentation); a non-empty remainder is a missed ruling.
///
/// Memory: two bits per position for the sets, and successor lists only for the drawn
/// positions that are forced to check or in check (the only ones the fixpoint reads).
fn check_trap_among_draws(table: &Table, tables: &TableSet) -> VerifyReport {
    let n = table.index.size() as usize;
    let draw = |s: usize, i: usize| table.values[s][i] == DRAW;
    let position = |s: usize, i: usize| -> Option<Position> {
        let pieces = table.index.unrank_pieces(i as u64).ok()?;
        Position::from_pieces(&pieces, Color::ALL[s]).ok()
    };
    // forced: every move of the drawn position checks into a drawn position or loses;
    // in check: the drawn position's side is in check; next: its drawn quiet successors
    let mut rows: Vec<TrapRow> = Vec::new();
    for s in 0..2 {
        let part: Vec<TrapRow> = (0..n)
            .into_par_iter()
            .filter(|&i| draw(s, i))
            .filter_map(|i| {
                let pos = position(s, i)?;
                let in_check = pos.in_check();
                let mut all_check = true;
                let mut next = Vec::new();
                for m in pos.legal_moves() {
                    let child = pos.after(m);
                    let v = tables.value(&child).unwrap_or(ILLEGAL);
                    let capture = pos.piece_at(m.to()).is_some();
                    let j = (!capture)
                        .then(|| table.index.rank_position(&child))
                        .flatten();
                    match (wdl_of(v), j) {
                        (Some(Wdl::Win), _) => {}
                        (Some(Wdl::Draw), Some(j)) => {
                            if !child.in_check() {
                                all_check = false;
                            }
                            next.push((child.turn().index() as u64) << 63 | j);
                        }
                        _ => all_check = false,
                    }
                    if !all_check && !in_check {
                        // neither set can hold it: its successors are never read
                        return None;
                    }
                }
                let forced = all_check && !next.is_empty();
                (forced || in_check).then(|| {
                    next.shrink_to_fit();
                    TrapRow {
                        side: s,
                        index: i,
                        forced,
                        in_check,
                        next,
                    }
                })
            })
            .collect();
        rows.extend(part);
    }
    // greatest fixpoint: L = forced positions whose checks all reach W; W = checked drawn
    // positions with a reply into L
    let mut l = [BitSet::new(n), BitSet::new(n)];
    let mut w = [BitSet::new(n), BitSet::new(n)];
    for r in &rows {
        l[r.side].set(r.index, r.forced);
        w[r.side].set(r.index, r.in_check);
    }
    let at = |set: &[BitSet; 2], e: u64| set[(e >> 63) as usize].get((e & !(1 << 63)) as usize);
    let settle = |l: &mut [BitSet; 2], w: &mut [BitSet; 2]| loop {
        let mut changed = false;
        for r in &rows {
            let (s, i) = (r.side, r.index);
            if l[s].get(i) && !r.next.iter().all(|&e| at(w, e)) {
                l[s].set(i, false);
                changed = true;
            }
            if w[s].get(i) && !r.next.iter().any(|&e| at(l, e)) {
                w[s].set(i, false);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    };
    settle(&mut l, &mut w);
    // mutual perpetual checks are draws: their positions leave both sets
    for r in &rows {
        let (s, i) = (r.side, r.index);
        if l[s].get(i) && w[s].get(i) {
            l[s].set(i, false);
            w[s].set(i, false);
        }
    }
    settle(&mut l, &mut w);
    let mut rep = VerifyReport::default();
    for (s, row) in l.iter().enumerate() {
        for i in row.ones() {
            rep.add(Mismatch {
                fen: position(s, i).map(|p| p.to_fen()).unwrap_or_default(),
                stored: DRAW,
                derived: DRAW,
                why: "drawn, yet its side can only check perpetually: a missed ruling".into(),
            });
        }
    }
    rep
}
