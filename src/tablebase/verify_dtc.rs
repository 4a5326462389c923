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

use super::table::{Table, TableSet};
use super::values::{wdl_of, Verdict, Wdl, DRAW, ILLEGAL, MAX_DTM};
use super::verify::{Mismatch, VerifyReport};
use crate::board::{Color, Position};
use crate::index::PieceList;
use crate::progress::{Phase, Progress};
use rayon::prelude::*;

fn verdict_of(t: &Table, s: usize, i: usize) -> Option<Verdict> {
    match &t.verdicts {
        Some(v) => Verdict::decode(v[s][i]),
        None => wdl_of(t.values[s][i]).map(Verdict::plain),
    }
}

/// The DTC of one decided position from its successors (None when a successor cannot be
/// looked up: reported as a mismatch).
fn derive(
    table: &Table,
    dtc: &[Vec<u8>; 2],
    tables: &TableSet,
    pos: &Position,
    v: Verdict,
) -> Option<u8> {
    let mut best: Option<u8> = None;
    // moves are played and taken back on one copy (an early return drops the copy)
    let mut child = pos.clone();
    for m in pos.legal_moves() {
        let capture = pos.piece_at(m.to()).is_some();
        let undo = child.play(m);
        let (w, d) = if capture {
            (wdl_of(tables.value(&child).ok()?)?, 1)
        } else {
            let j = table.index.rank_position(&child)? as usize;
            let t = child.turn().index();
            let c = dtc[t][j];
            let w = wdl_of(table.values[t][j])?;
            // a ruling may play only moves into positions decided before its round
            let barred = match v.ruling {
                Some(_) => {
                    let cv = verdict_of(table, t, j)?;
                    !(cv.wdl == Wdl::Win && cv.order < v.order)
                }
                None => false,
            };
            if barred {
                child.undo(m, undo);
                continue;
            }
            (w, if c <= MAX_DTM { c + 1 } else { 0 })
        };
        child.undo(m, undo);
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

/// Re-derive every DTC of `table` (its `dtc` loaded; its verdicts too when some rest on the
/// rules); `tables` must hold every table one capture away. A table without DTC gives an
/// empty report.
pub fn verify_dtc(table: &Table, tables: &TableSet, progress: &dyn Progress) -> VerifyReport {
    let Some(dtc) = &table.dtc else {
        return VerifyReport::default();
    };
    let n = table.index.size();
    const CHUNK: u64 = 4096;
    let phase = Phase::begin(
        progress,
        &table.material.to_string(),
        "re-deriving DTC",
        n.div_ceil(CHUNK),
    );
    let parts: Vec<VerifyReport> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            phase.inc(1);
            let mut rep = VerifyReport::default();
            let mut pieces = PieceList::new();
            for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                let i = i as usize;
                for side in Color::ALL {
                    let s = side.index();
                    let (stored, value) = (dtc[s][i], table.values[s][i]);
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
                        continue;
                    }
                    rep.dtc_checked += 1;
                    if !table.index.unrank_into(i as u64, &mut pieces) {
                        continue;
                    }
                    let Ok(pos) = Position::from_pieces(&pieces, side) else {
                        continue;
                    };
                    let derived = verdict_of(table, s, i)
                        .and_then(|v| derive(table, dtc, tables, &pos, v))
                        .unwrap_or(ILLEGAL);
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
            rep
        })
        .collect();
    phase.end();
    let mut out = VerifyReport::default();
    for p in parts {
        out.merge(p);
    }
    out
}
