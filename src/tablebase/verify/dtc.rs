//! Verification of the distance to conversion: every decided position's DTC re-derived from
//! its legal successors, by forward move generation and look-ups (no code shared with the
//! generator beyond move generation).
//!
//! A capture converts in one ply, with the result the sub-table gives; a non-capture leads to
//! a position of this table, whose DTC is one ply less than the move's. A win's DTC is the
//! smallest over its winning moves; a loss's is the largest over its moves (for a ruling,
//! over the moves the rules permit: captures and moves into positions decided before its
//! round), 0 without such a move; never above the DTM. This local rule determines the values
//! (along the winner's choices they strictly decrease), so a table that passes is exact for
//! its WDL.
//!
//! [`super::verify`] checks the DTC of each position with the successors it has already
//! looked up for the position's value ([`DtcAt::check`]); [`verify_dtc`] checks the DTC
//! alone.

use super::{Mismatch, Pass, SideView, Succ, VerifyReport, CHUNK, DTC_DERIVED};
use crate::board::{Color, Position};
use crate::index::PieceList;
use crate::progress::{Phase, Progress};
use crate::tablebase::table::{Table, TableSet};
use crate::tablebase::values::{wdl_of, Verdict, Wdl, DRAW, ILLEGAL, MAX_DTM};
use rayon::prelude::*;

/// The DTC of one decided position from its successors (`other`: the DTC of the other side
/// to move; None when a successor cannot be looked up: reported as a mismatch).
fn derive(other: &[u8], succ: &[Succ], v: Verdict) -> Option<u8> {
    let mut best: Option<u8> = None;
    for s in succ {
        let w = wdl_of(s.value)?;
        let d = if s.capture {
            1
        } else {
            let c = *other.get(s.index?)?;
            if v.ruling.is_some() {
                // a ruling may play only moves into positions decided before its round
                let cv = s.stored?;
                if !(cv.wdl == Wdl::Win && cv.order < v.order) {
                    continue;
                }
            }
            if c <= MAX_DTM {
                c + 1
            } else {
                0
            }
        };
        match v.wdl {
            Wdl::Win if w == Wdl::Loss => best = Some(best.map_or(d, |b| b.min(d))),
            Wdl::Loss => best = Some(best.map_or(d, |b| b.max(d))),
            _ => {}
        }
    }
    match v.wdl {
        Wdl::Loss => Some(best.unwrap_or(0)),
        _ => best,
    }
}

/// One position (of a pass's side to move, index `index`) whose DTC is checked.
pub(super) struct DtcAt<'a> {
    pub(super) pass: &'a Pass<'a>,
    /// The DTC of the other side to move.
    pub(super) other_dtc: &'a [u8],
    pub(super) index: usize,
}

impl DtcAt<'_> {
    /// Check the stored DTC (`stored`; [`DTC_DERIVED`] from files for a loss, whose DTC
    /// the file does not store) against the value and, for a decided position, against its
    /// successors (`succ`, looked up here when not given); `pos` is None when the index
    /// holds no position.
    pub(super) fn check(
        &self,
        stored: u8,
        value: u8,
        verdict: Option<Verdict>,
        pos: Option<&Position>,
        succ: Option<&[Succ]>,
        rep: &mut VerifyReport,
    ) {
        let (side, i) = (self.pass.side, self.index);
        let expected_marker = match value {
            ILLEGAL => Some(ILLEGAL),
            v if v > MAX_DTM => Some(DRAW),
            _ => None,
        };
        if let Some(mk) = expected_marker {
            if stored != mk {
                rep.add(Mismatch {
                    fen: format!("index {i} side {side}"),
                    stored,
                    derived: mk,
                    why: "a DTC for a draw or an illegal placement".into(),
                });
            }
            return;
        }
        rep.dtc_checked += 1;
        let Some(pos) = pos else {
            return;
        };
        let derived = verdict
            .and_then(|v| match succ {
                Some(list) => derive(self.other_dtc, list, v),
                None => derive(self.other_dtc, &self.pass.successors(pos), v),
            })
            .unwrap_or(ILLEGAL);
        // a file stores no DTC for a loss: it is its successors' (checked against the DTM)
        let stored = if self.pass.from_files && stored == DTC_DERIVED && value.is_multiple_of(2) {
            derived
        } else {
            stored
        };
        let why = if stored > value {
            Some("DTC above the DTM")
        } else if stored != derived {
            Some("distance to conversion")
        } else {
            None
        };
        if let Some(why) = why {
            rep.add(Mismatch {
                fen: pos.to_fen(),
                stored,
                derived,
                why: why.into(),
            });
        }
    }
}

/// Re-derive every DTC of `table` (its `dtc` loaded; its verdicts too when some rest on the
/// rules); `tables` must hold every table one capture away. A table without DTC gives an
/// empty report.
pub fn verify_dtc(table: &Table, tables: &TableSet, progress: &dyn Progress) -> VerifyReport {
    let Some(dtc) = &table.dtc else {
        return VerifyReport::default();
    };
    let n = table.index.size() as usize;
    let phase = Phase::begin(
        progress,
        &table.material.to_string(),
        "re-deriving DTC",
        2 * n.div_ceil(CHUNK) as u64,
    );
    let mut out = VerifyReport::default();
    for side in Color::ALL {
        let s = side.index();
        let pass = Pass {
            index: &table.index,
            side,
            other: SideView::of_table(table, (!side).index()),
            captures: tables,
            trap: None,
            from_files: false,
        };
        let this = SideView::of_table(table, s);
        let parts: Vec<VerifyReport> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                phase.inc(1);
                let mut rep = VerifyReport::default();
                let mut pieces = PieceList::new();
                for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                    let placed = table.index.unrank_into(i as u64, &mut pieces);
                    let pos = placed
                        .then(|| Position::from_pieces(&pieces, side).ok())
                        .flatten();
                    let at = DtcAt {
                        pass: &pass,
                        other_dtc: &dtc[1 - s],
                        index: i,
                    };
                    at.check(
                        dtc[s][i],
                        this.values[i],
                        this.verdict(i),
                        pos.as_ref(),
                        None,
                        &mut rep,
                    );
                }
                rep
            })
            .collect();
        for p in parts {
            out.merge(p);
        }
    }
    phase.end();
    out
}
