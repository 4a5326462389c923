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
//! The positions are checked one side to move at a time: a quiet move leads to the other
//! side to move, so a pass over the positions of one side reads the other side's values
//! (and verdicts and DTC) at random and its own in index order. A table in memory
//! ([`verify_table`]) is read in place; a table in its files ([`verify_files`], see
//! [`files`]) holds only the other side decoded, its own side streamed block
//! by block, and its sub-tables read through a bounded cache of blocks
//! ([`source`]); the trap check keeps bitsets ([`trap`]).
//!
//! None of this shares code with the generator beyond move generation and the rules module.

pub mod dtc;
mod files;
pub mod params;
mod source;
mod trap;

use super::table::{Table, TableSet};
use super::values::{value_from_children, wdl_of, Ruling, Verdict, Wdl, DRAW, ILLEGAL, MAX_DTM};
use crate::board::rules::{new_attacks, RuleSet};
use crate::board::{Color, Move, Position, MAX_MOVES};
use crate::index::{Material, PieceList, PlacementIndex};
use arrayvec::ArrayVec;
use dtc::DtcAt;
use rayon::prelude::*;
use trap::{both_attack, TrapSets};

pub use files::{
    cache_bytes, out_of_core, verify_files, verify_files_limited, verify_files_reporting,
    verify_work_path, PROCESS_BYTES,
};

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
    /// The work file the arrays were kept in (`verify --memory`), when out of core.
    pub work_file: Option<std::path::PathBuf>,
}

impl VerifyReport {
    fn add(&mut self, m: Mismatch) {
        self.mismatches += 1;
        if self.examples.len() < 10 {
            self.examples.push(m);
        }
    }

    fn merge(&mut self, p: VerifyReport) {
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

/// What the verifier reads of one side to move of a table, one byte per index (of the whole
/// side, or of a stretch of it): values, verdicts when some rest on the rules (None: the
/// plain verdicts of the values), DTC when checked.
#[derive(Clone, Copy)]
struct SideView<'a> {
    values: &'a [u8],
    verdicts: Option<&'a [u8]>,
    dtc: Option<&'a [u8]>,
}

impl<'a> SideView<'a> {
    /// Side `s` of a table in memory.
    fn of_table(t: &'a Table, s: usize) -> SideView<'a> {
        SideView {
            values: &t.values[s],
            verdicts: t.verdicts.as_ref().map(|v| &v[s][..]),
            dtc: t.dtc.as_ref().map(|d| &d[s][..]),
        }
    }

    /// The stretch `r` of it.
    fn slice(&self, r: std::ops::Range<usize>) -> SideView<'a> {
        SideView {
            values: &self.values[r.clone()],
            verdicts: self.verdicts.map(|v| &v[r.clone()]),
            dtc: self.dtc.map(|d| &d[r]),
        }
    }

    /// The verdict stored for index `i`.
    fn verdict(&self, i: usize) -> Option<Verdict> {
        match self.verdicts {
            Some(v) => Verdict::decode(v[i]),
            None => wdl_of(self.values[i]).map(Verdict::plain),
        }
    }
}

/// The values of captures' results: the tables one capture away.
trait Captures: Sync {
    /// The value of `pos` (a position of a smaller material), ILLEGAL when it has none.
    fn capture_value(&self, pos: &Position) -> u8;
}

impl Captures for TableSet {
    fn capture_value(&self, pos: &Position) -> u8 {
        self.value(pos).unwrap_or(ILLEGAL)
    }
}

/// The DTC byte of a lost position read from its file, where the file stores none (the
/// loss's DTC follows from its moves, see [`super::dtc_code`]): it is derived.
const DTC_DERIVED: u8 = super::values::UNKNOWN;

/// One pass of the verifier: the positions of `side` to move, checked against the other
/// side's values (`other`, read at random) and the tables one capture away.
struct Pass<'a> {
    index: &'a PlacementIndex,
    side: Color,
    other: SideView<'a>,
    captures: &'a dyn Captures,
    /// The trap check's sets, when the table needs the check.
    trap: Option<&'a TrapSets>,
    /// The values come from files, which do not store illegal placements (each position's
    /// legality decides) nor the DTC of losses ([`DTC_DERIVED`]).
    from_files: bool,
}

/// A successor: its move, distance byte and, for one in this table, its index and verdict.
struct Succ {
    mv: Move,
    value: u8,
    /// The stored verdict (a capture's from its value); None when it cannot be read.
    stored: Option<Verdict>,
    /// A quiet move's index in this table (None for a capture or an unrankable position).
    index: Option<usize>,
    capture: bool,
}

impl Succ {
    /// The verdict, an unreadable one counting as a plain draw.
    fn verdict(&self) -> Verdict {
        self.stored.unwrap_or(Verdict::plain(Wdl::Draw))
    }
}

impl Pass<'_> {
    /// The successors of `pos` (of the pass's side to move). A quiet move stays in the table
    /// (same material, same orientation, the other side to move), so it is ranked once
    /// there for its value, verdict and DTC; a capture is looked up among the smaller
    /// tables. Moves are played and taken back on one copy of the position.
    fn successors(&self, pos: &Position) -> ArrayVec<Succ, MAX_MOVES> {
        let mut out = ArrayVec::new();
        let mut child = pos.clone();
        for m in pos.legal_moves() {
            let capture = pos.piece_at(m.to()).is_some();
            let undo = child.play(m);
            let (value, stored, index) = if capture {
                let value = self.captures.capture_value(&child);
                (value, wdl_of(value).map(Verdict::plain), None)
            } else {
                match self.index.rank_position(&child) {
                    Some(j) => {
                        let j = j as usize;
                        (self.other.values[j], self.other.verdict(j), Some(j))
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

    /// Check the positions `start..start + this.values.len()` of the pass's side (`this`:
    /// their stored bytes).
    fn check_range(&self, start: usize, this: &SideView, rep: &mut VerifyReport) {
        let side = self.side;
        let mut pieces = PieceList::new();
        for k in 0..this.values.len() {
            let i = start + k;
            let stored_dtc = this.dtc.map(|d| d[k]);
            if !self.index.unrank_into(i as u64, &mut pieces) {
                // no position here: only the DTC's marker is checked (files store none)
                if let (Some(dtc), false) = (stored_dtc, self.from_files) {
                    let at = self.dtc_at(i);
                    at.check(dtc, this.values[k], None, None, None, rep);
                }
                continue;
            }
            rep.checked += 1;
            let pos = Position::from_pieces(&pieces, side);
            let legal = pos
                .as_ref()
                .is_ok_and(|p| p.check_placement_legal().is_ok());
            let (stored, stored_dtc) = if self.from_files && !legal {
                (ILLEGAL, stored_dtc.map(|_| ILLEGAL))
            } else {
                (this.values[k], stored_dtc)
            };
            let fen = || pos.as_ref().map(|p| p.to_fen()).unwrap_or_default();
            let verdict = if legal { this.verdict(k) } else { None };
            let mut succ = None;
            let result = match (&pos, legal, verdict) {
                (_, false, _) if stored == ILLEGAL => Ok(()),
                (_, false, _) => Err(("an illegal placement with a value".into(), ILLEGAL)),
                (Ok(p), true, Some(v))
                    if wdl_of(stored).is_some()
                        && (stored == DRAW) == (v.wdl == Wdl::Draw)
                        && (stored > MAX_DTM || (stored % 2 == 1) == (v.wdl == Wdl::Win)) =>
                {
                    if v.ruling.is_some() {
                        rep.rulings += 1;
                    }
                    let list = succ.insert(self.successors(p));
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
            if let (Some(trap), Ok(p), DRAW) = (self.trap, &pos, stored) {
                let list = succ.get_or_insert_with(|| self.successors(p));
                trap.note(side, i, p, list);
            }
            if let Some(dtc) = stored_dtc {
                let at = self.dtc_at(i);
                at.check(
                    dtc,
                    stored,
                    verdict,
                    pos.as_ref().ok(),
                    succ.as_deref(),
                    rep,
                );
            }
        }
    }

    /// The DTC check of index `i` of the pass's side.
    fn dtc_at(&self, i: usize) -> DtcAt<'_> {
        DtcAt {
            pass: self,
            other_dtc: self.other.dtc.unwrap_or(&[]),
            index: i,
        }
    }
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

/// Re-derive every value of `table` (and its DTC, when loaded); `tables` must hold every
/// table one capture away.
pub fn verify_table(table: &Table, tables: &TableSet) -> VerifyReport {
    verify_table_reporting(table, tables, &crate::progress::Silent)
}

/// Positions per step of the verification's progress and per parallel task.
const CHUNK: usize = 4096;

/// [`verify_table`], reporting its progress (one step per side and block of 4,096
/// indices).
pub fn verify_table_reporting(
    table: &Table,
    tables: &TableSet,
    progress: &dyn crate::progress::Progress,
) -> VerifyReport {
    let n = table.index.size() as usize;
    let phase = crate::progress::Phase::begin(
        progress,
        &table.material.to_string(),
        "re-deriving values",
        2 * n.div_ceil(CHUNK) as u64,
    );
    let trap = needs_trap_check(table.rules, table.material).then(|| {
        TrapSets::new(&crate::tablebase::workfile::Backing::Heap, n)
            .unwrap_or_else(|_| unreachable!("heap bits cannot fail"))
    });
    let mut out = VerifyReport::default();
    for side in Color::ALL {
        let pass = Pass {
            index: &table.index,
            side,
            other: SideView::of_table(table, (!side).index()),
            captures: tables,
            trap: trap.as_ref(),
            from_files: false,
        };
        let this = SideView::of_table(table, side.index());
        let parts: Vec<VerifyReport> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                phase.inc(1);
                let mut rep = VerifyReport::default();
                let r = c * CHUNK..((c + 1) * CHUNK).min(n);
                pass.check_range(r.start, &this.slice(r), &mut rep);
                rep
            })
            .collect();
        for p in parts {
            out.merge(p);
        }
    }
    phase.end();
    if let Some(trap) = trap {
        out.merge(trap.finish(&table.index));
    }
    out
}

/// True when the table needs the trap check of draws (see the module documentation).
fn needs_trap_check(rules: RuleSet, m: Material) -> bool {
    rules == RuleSet::CheckChase && both_attack(m)
}
