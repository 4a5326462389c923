//! Step 4: distance to mate under rule set 1.
//!
//! A position lost by ruling can avoid mate only by going on with its perpetual check or
//! chase, which the rules forbid. So distances to mate are those of the game in which every
//! ruled position may not play its *violating* moves: the moves into positions decided in the
//! ruling's own round or later (at the ruling they were open and continued the cycle). Its
//! other moves all lose by the values known before the ruling. In that game:
//!
//! * a ruled position's distance is one more than the longest of its permitted moves
//!   (the violator deviates as late as it can), or 0 when every legal move violates (it loses
//!   by ruling now, as a position without a legal move loses);
//! * every other position follows the ordinary rule (fastest win, slowest loss), through
//!   ruled positions too: a winner may steer into a ruling when that mates sooner.
//!
//! This is the plain level-by-level analysis of step 2 on that game, so the values are exact
//! for it; it must reproduce the wins and losses of step 3 exactly (checked: a disagreement
//! is an internal error, not a table).

use super::{asymmetry_of, code, Gen, Mode, CHUNK};
use crate::board::{Color, Position};
use crate::index::PieceList;
use crate::progress::{Phase, Progress};
use crate::tablebase::table::TbError;
use rayon::prelude::*;

/// The auxiliary byte of an undecided won position in step 4 (see [`Gen::dtm_init_chunk`]).
const WIN_COUNTER: u8 = 0xFE;

impl Gen<'_> {
    /// Counters of the restricted game for the indices `start..end`.
    fn dtm_init_chunk(&self, start: usize, end: usize) {
        let mut pieces = PieceList::new();
        for i in start..end {
            // wins and undecided positions first: they need no successors
            let mut losses = false;
            for side in Color::ALL {
                let (val, aux) = (&self.val[side.index()], &self.aux[side.index()]);
                let c = val.get(i) & 0x7F;
                if code::is_win(c) {
                    // A win is decided by its first lost successor: it needs no count of its
                    // successors (step 4 never counts a win down). The marker is above every
                    // level, so a scan never mistakes it for one.
                    aux.set(i, WIN_COUNTER);
                    val.set(i, c | code::OPEN);
                } else if code::is_loss(c) {
                    losses = true;
                } else {
                    aux.set(i, 0xFF);
                }
            }
            if !losses {
                continue;
            }
            if !self.index.unrank_into(i as u64, &mut pieces) {
                self.fail(format!("index {i} decided but undecodable"));
                continue;
            }
            for side in Color::ALL {
                let (val, aux) = (&self.val[side.index()], &self.aux[side.index()]);
                let c = val.get(i);
                if c & code::OPEN != 0 || !code::is_loss(c) {
                    continue;
                }
                let Ok(pos) = Position::from_pieces(&pieces, side) else {
                    self.fail(format!("index {i} decided but undecodable"));
                    continue;
                };
                let order = code::order(c);
                let ruling = code::is_ruling(c);
                let n = if !ruling {
                    self.count_children(&pos, asymmetry_of(&pieces))
                } else {
                    let moves = pos.legal_moves();
                    // the child of a quiet move is ranked with the mover moved in place
                    let mut list = pieces.clone();
                    let child_vals = &self.val[(!side).index()];
                    self.distinct_children(&pos, &moves, |m, captured| {
                        if captured.is_some() {
                            return true;
                        }
                        let Some(k) = list.iter().position(|e| e.1 == m.from()) else {
                            return false;
                        };
                        list[k].1 = m.to();
                        let j = self.index.rank_pieces(&list).ok();
                        list[k].1 = m.from();
                        j.is_some_and(|j| {
                            let cc = child_vals.get(j as usize) & 0x7F;
                            code::is_win(cc) && code::order(cc) < order
                        })
                    })
                };
                if n == 0 {
                    // mated, or ruled with nothing but violating moves
                    aux.set(i, 0);
                } else {
                    aux.set(i, n as u8);
                    val.set(i, c | code::OPEN);
                }
            }
        }
    }
}

/// Step 4 (see the module documentation), from the start or, with `from`, resumed at that
/// level (the counters set and the levels below done).
pub(super) fn run(g: &Gen<'_>, progress: &dyn Progress, from: Option<u8>) -> Result<(), TbError> {
    let n = g.size();
    let job = g.material.to_string();
    if from.is_none() {
        let pb = Phase::begin(progress, &job, "distance to mate", g.chunks() as u64);
        (0..g.chunks()).into_par_iter().for_each(|c| {
            g.dtm_init_chunk(c * CHUNK, ((c + 1) * CHUNK).min(n));
            pb.inc(1);
        });
        g.check_fault()?;
        pb.end();
        if std::env::var_os("XQDB_PHASES").is_some() {
            eprintln!("  counters, CPU {:.2} s", super::cpu_seconds());
        }
        g.safe_point(super::Step::Dtm { next: 0 })?;
    }
    let pb = Phase::begin(progress, &job, "distance to mate", 0);
    g.levels(Mode::Dtm, from.unwrap_or(0), &pb)?;
    pb.end();
    for side in Color::ALL {
        let val = &g.val[side.index()];
        let stuck = (0..n)
            .into_par_iter()
            .find_any(|&i| val.get(i) & code::OPEN != 0);
        if let Some(i) = stuck {
            let fen = g
                .position(i, side)
                .map(|p| p.to_fen())
                .unwrap_or_else(|| format!("index {i}"));
            return Err(TbError::Internal(
                g.material,
                format!("{fen}: decided by the rules, but no distance to mate follows"),
            ));
        }
    }
    Ok(())
}
