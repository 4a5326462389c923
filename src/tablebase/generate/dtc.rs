//! Distance to conversion (DTC): plies to the next capture or mate under optimal play, for a
//! finished table (its WDL and DTM known).
//!
//! **The game.** A capture ends the game inside this table: its value is the capturing side's
//! result in the sub-table (a capture into a position the sub-table loses for the side then
//! to move is a conversion in one ply). A position without a legal move is converted now
//! (mate, DTC 0). The winner converts as fast as it can without giving up the win, the loser
//! delays as long as it can. Positions decided by the repetition rules follow the same
//! convention as DTM (see `dtm`, FORMAT.md): a ruled position may not play its violating
//! moves (non-captures into positions decided in the ruling's round or later), so its DTC
//! counts to the capture or mate after the violator is forced to deviate; with nothing but
//! violating moves and no capture its DTC is 0 (it loses by the ruling now).
//!
//! **The fixpoint.** Level by level as step 2 of the generator, but wins and losses share
//! the levels (a loss forced to capture has DTC 1, a win with a winning capture too), so
//! each decided position's outcome comes from the table's values, not from the level's
//! parity:
//!
//! * level 0 and 1 are set at the start: mates and ruled positions without a permitted
//!   move (0), wins with a winning capture and losses with captures only (1);
//! * a position of level `L` that loses makes every open (won) predecessor a win in `L + 1`;
//!   one that wins counts down its lost predecessors' permitted in-table successors, and the
//!   one that loses its last is lost in `L + 1` (a loss with captures left keeps at least 1).
//!
//! Wins are thus as fast and losses as slow as possible. The set of positions decided is the
//! attractor of the same game as step 4's, whatever the order, so it must be exactly the
//! table's wins and losses: a position left open is reported as an internal error.
//!
//! Memory: one byte per position and side (below), besides the table and its sub-tables.
//! The byte holds the DTC (0..=[`MAX_LEVEL`]) of a decided position, [`NONE`] for draws and
//! illegal placements, [`OPEN_WIN`] for an undecided win and `0x80 | n` for an undecided
//! loss with `n` permitted in-table successors not yet known to win for the opponent.

use super::bytes::Bytes;
use super::{subs_of, Gen, SubTables, CHUNK};
use crate::board::{Color, Position};
use crate::index::PieceList;
use crate::progress::{Phase, Progress};
use crate::tablebase::table::{Table, TbError};
use crate::tablebase::values::{Verdict, DRAW, ILLEGAL, MAX_DTM};
use crate::tablebase::workfile::Buf;
use arrayvec::ArrayVec;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

/// Draw or illegal placement: no DTC.
const NONE: u8 = 0x7F;
/// Highest DTC the generation byte holds.
pub const MAX_LEVEL: u8 = 0x7E;
/// An undecided win.
const OPEN_WIN: u8 = 0x80;

/// What the DTC pass needs of a table's verdicts: the rule round of each position decided
/// by the repetition rules and whether it is a ruling. Either the verdicts themselves (a
/// byte per position) or, when fewer than one position in eight is decided by the rules,
/// only those positions (a sorted list per side to move, 8 bytes each,
/// `index << 8 | order << 1 | ruling`), whichever is smaller.
pub enum RuleRounds {
    /// No position decided by the rules (rule set 0, or a table without verdicts).
    None,
    /// The positions decided by the rules, per side to move.
    Sparse([Vec<u64>; 2]),
    /// The verdicts (WDL-file bytes per side to move).
    Dense([Buf; 2]),
}

/// The packed entry of a verdict byte: `order << 1 | ruling`, 0 when the rules did not
/// decide it.
fn packed(b: u8) -> u64 {
    Verdict::decode(b).map_or(0, |v| {
        u64::from(v.order) << 1 | u64::from(v.ruling.is_some())
    })
}

impl RuleRounds {
    /// The verdicts as they are (what [`RuleRounds::into_verdicts`] gives back).
    pub fn dense(verdicts: Option<[Buf; 2]>) -> RuleRounds {
        verdicts.map_or(RuleRounds::None, RuleRounds::Dense)
    }

    /// The smaller form of `verdicts` (they are dropped when the list is smaller).
    pub fn compact(verdicts: Option<[Buf; 2]>) -> RuleRounds {
        let Some(v) = verdicts else {
            return RuleRounds::None;
        };
        let counts = [0, 1].map(|s| v[s].par_iter().filter(|&&b| packed(b) != 0).count());
        let total = counts[0] + counts[1];
        if total * 8 >= v[0].len() + v[1].len() {
            return RuleRounds::Dense(v);
        }
        let side = [0, 1].map(|s| {
            let mut list = Vec::with_capacity(counts[s]);
            list.extend(v[s].iter().enumerate().filter_map(|(i, &b)| {
                let p = packed(b);
                (p != 0).then_some((i as u64) << 8 | p)
            }));
            list
        });
        RuleRounds::Sparse(side)
    }

    /// The verdicts back when they were kept whole.
    pub fn into_verdicts(self) -> Option<[Buf; 2]> {
        match self {
            RuleRounds::Dense(v) => Some(v),
            _ => None,
        }
    }

    /// Rule round of a position and whether it is itself a ruling ((0, false) for a position
    /// the rules did not decide).
    fn get(&self, side: usize, i: usize) -> (u8, bool) {
        let p = match self {
            RuleRounds::None => 0,
            RuleRounds::Dense(v) => packed(v[side][i]),
            RuleRounds::Sparse(lists) => {
                let list = &lists[side];
                let key = i as u64;
                match list.binary_search_by(|e| (e >> 8).cmp(&key)) {
                    Ok(k) => list[k] & 0xFF,
                    Err(_) => 0,
                }
            }
        };
        ((p >> 1) as u8, p & 1 == 1)
    }
}

/// The DTC pass over one table.
struct Dtc<'a> {
    g: Gen<'a>,
    table: &'a Table,
    rounds: &'a RuleRounds,
    dtc: [Bytes; 2],
}

impl Dtc<'_> {
    /// Rule round of a position and whether it is itself a ruling.
    fn verdict(&self, side: usize, i: usize) -> (u8, bool) {
        self.rounds.get(side, i)
    }

    /// The start for the indices `start..end`.
    fn init_chunk(&self, start: usize, end: usize) {
        let mut pieces = PieceList::new();
        for i in start..end {
            let vals = [self.table.values[0][i], self.table.values[1][i]];
            if vals.iter().all(|&v| v > MAX_DTM) {
                continue;
            }
            if !self.g.index.unrank_into(i as u64, &mut pieces) {
                self.g.fail(format!("index {i} decided but undecodable"));
                continue;
            }
            for side in Color::ALL {
                let s = side.index();
                let v = vals[s];
                if v > MAX_DTM {
                    continue;
                }
                let Ok(pos) = Position::from_pieces(&pieces, side) else {
                    self.g.fail(format!("index {i} decided but undecodable"));
                    continue;
                };
                let moves = pos.legal_moves();
                let b = if v % 2 == 1 {
                    let converts = moves.iter().any(|&m| {
                        pos.piece_at(m.to()).is_some_and(|c| {
                            self.g
                                .sub_value(&pos.after(m), c)
                                .is_some_and(|w| w <= MAX_DTM && w % 2 == 0)
                        })
                    });
                    if converts {
                        1
                    } else {
                        OPEN_WIN
                    }
                } else if moves.is_empty() {
                    0
                } else {
                    let (order, ruling) = self.verdict(s, i);
                    let captures = moves.iter().any(|&m| pos.piece_at(m.to()).is_some());
                    let n = self.g.distinct_children(&pos, &moves, |m, captured| {
                        if captured.is_some() {
                            return false;
                        }
                        if !ruling {
                            return true;
                        }
                        let child = pos.after(m);
                        self.g.rank(&child).is_some_and(|j| {
                            let t = child.turn().index();
                            let cv = self.table.values[t][j];
                            cv <= MAX_DTM && cv % 2 == 1 && self.verdict(t, j).0 < order
                        })
                    });
                    if n > 127 {
                        self.g.fail(format!(
                            "{} has {n} successors, more than a counter holds",
                            pos.to_fen()
                        ));
                        continue;
                    }
                    match (n, captures) {
                        (0, false) => 0,
                        (0, true) => 1,
                        _ => 0x80 | n as u8,
                    }
                };
                self.dtc[s].set(i, b);
            }
        }
    }

    /// The position `i` (side `x` to move) of DTC `level` acts on its predecessors.
    fn retro(&self, i: usize, x: Color, level: u8) {
        let child_loss = self.table.values[x.index()][i].is_multiple_of(2);
        let child_order = self.verdict(x.index(), i).0;
        let mut preds: ArrayVec<u64, 512> = ArrayVec::new();
        let Some(dedupe) = self.g.predecessors(i as u64, x, &mut preds) else {
            return;
        };
        if dedupe {
            preds.sort_unstable();
        }
        let y = !x;
        let dtc = &self.dtc[y.index()];
        let next = level + 1;
        let mut last = u64::MAX;
        for &q in preds.iter() {
            if dedupe && q == last {
                continue;
            }
            last = q;
            let q = q as usize;
            let b = dtc.get(q);
            if b & 0x80 == 0 {
                continue;
            }
            if child_loss {
                if b != OPEN_WIN {
                    self.g
                        .fail(format!("index {q}: a loss with a lost successor"));
                    continue;
                }
                if dtc.update(q, |c| (c == OPEN_WIN).then_some(next)).is_ok() {
                    self.g.assigned.fetch_add(1, Relaxed);
                }
            } else {
                if b == OPEN_WIN {
                    continue;
                }
                let (order, ruling) = self.verdict(y.index(), q);
                if ruling && child_order >= order {
                    // a violating move: the ruled position may not play it
                    continue;
                }
                let r = dtc.update(q, |c| {
                    (c & 0x80 != 0 && c != OPEN_WIN).then_some(if c & 0x7F == 1 {
                        next
                    } else {
                        c - 1
                    })
                });
                if r == Ok(0x81) {
                    // only the thread that takes the last successor gets here
                    self.g.assigned.fetch_add(1, Relaxed);
                }
            }
        }
    }
}

/// The DTC of every position of `table` (whose sub-tables are in `subs`, in memory or in files): per side to move,
/// plies to conversion for decided positions, [`DRAW`] and [`ILLEGAL`] as in its values.
/// `rounds` are the rule rounds of its verdicts ([`RuleRounds`]); the table's own
/// verdicts are not read (they may be dropped).
pub fn generate_dtc(
    table: &Table,
    rounds: &RuleRounds,
    subs: SubTables<'_>,
    progress: &dyn Progress,
) -> Result<[Buf; 2], TbError> {
    let material = table.material;
    let n = table.index.size() as usize;
    // beside the table: in its work file when it has one
    let backing = table.values[0].backing();
    let d = Dtc {
        g: Gen {
            material,
            rules: table.rules,
            ck: None,
            index: &table.index,
            val: [Bytes::new(0, 0), Bytes::new(0, 0)],
            aux: [Bytes::new(0, 0), Bytes::new(0, 0)],
            high: None,
            capdraw: None,
            subs: subs_of(material, subs, table.rules)?,
            assigned: AtomicU64::new(0),
            overflow: AtomicBool::new(false),
            fault: Mutex::new(None),
        },
        table,
        rounds,
        dtc: [
            Bytes::with(&backing, n, NONE)?,
            Bytes::with(&backing, n, NONE)?,
        ],
    };
    let job = material.to_string();
    let chunks = n.div_ceil(CHUNK);
    let pb = Phase::begin(progress, &job, "distance to conversion", chunks as u64);
    (0..chunks).into_par_iter().for_each(|c| {
        d.init_chunk(c * CHUNK, ((c + 1) * CHUNK).min(n));
        pb.inc(1);
    });
    pb.end();
    d.g.check_fault()?;
    let pb = Phase::begin(progress, &job, "conversion levels", 0);
    let mut level = 0u8;
    loop {
        if level >= MAX_LEVEL {
            // this level would give its predecessors a DTC beyond the generation byte
            return Err(TbError::DtcOverflow(material));
        }
        d.g.assigned.store(0, Relaxed);
        (0..chunks).into_par_iter().for_each(|c| {
            let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
            for x in Color::ALL {
                d.dtc[x.index()].scan(start, end, level, |i| d.retro(i, x, level));
            }
        });
        pb.status(&format!("level {level}"));
        pb.inc(1);
        let assigned = d.g.assigned.load(Relaxed);
        if level >= 1 && assigned == 0 {
            break;
        }
        level += 1;
    }
    pb.end();
    d.g.check_fault()?;
    let Dtc { g, dtc, .. } = d;
    let mut out: [Buf; 2] = [Buf::from(Vec::new()), Buf::from(Vec::new())];
    for (s, b) in dtc.into_iter().enumerate() {
        let mut v = b.into_buf();
        for (k, (x, &val)) in v.iter_mut().zip(&table.values[s]).enumerate() {
            if *x & 0x80 != 0 {
                let fen = g
                    .position(k, Color::ALL[s])
                    .map(|p| p.to_fen())
                    .unwrap_or_else(|| format!("index {k}"));
                return Err(TbError::Internal(
                    material,
                    format!("{fen}: decided, but no distance to conversion follows"),
                ));
            }
            if *x == NONE {
                *x = if val == ILLEGAL { ILLEGAL } else { DRAW };
            }
        }
        out[s] = v;
    }
    Ok(out)
}
