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
//! Memory: one byte per position and side (below) and one bit (set for the wins), besides
//! the rule rounds ([`RuleRounds`]) and the sub-tables. The table's values are not held:
//! they are read a unit at a time from a [`ValueSource`] (the table's WDL and DTM files, or
//! its values in memory), once to mark the decided positions and once at the end to turn
//! the bytes into what the DTC file stores ([`generate_dtc_bytes`], in place). The byte holds
//! the DTC (0..=[`MAX_LEVEL`]) of a decided position, [`NONE`] for draws and illegal
//! placements, [`OPEN_WIN`] for an undecided win and `0x80 | n` for an undecided loss with
//! `n` permitted in-table successors not yet known to win for the opponent ([`LOSS_MARK`]
//! for a loss between the marking and the start).

use super::bytes::{Bits, Bytes};
use super::dtc_rounds::RuleRounds;
use super::slots::Slots;
use super::{subs_of, Gen, SubTables, CHUNK};
use crate::board::rules::RuleSet;
use crate::board::{Color, Position};
use crate::index::{Material, PieceList, PlacementIndex};
use crate::progress::{Phase, Progress};
use crate::tablebase::dtc_code::{self, NOT_STORED};
use crate::tablebase::table::{Table, TbError};
use crate::tablebase::values::{DRAW, ILLEGAL, MAX_DTM};
use crate::tablebase::workfile::{Backing, Buf};
use arrayvec::ArrayVec;
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

/// Draw or illegal placement: no DTC.
const NONE: u8 = 0x7F;
/// Highest DTC the generation byte holds.
pub const MAX_LEVEL: u8 = 0x7E;
/// An undecided win.
const OPEN_WIN: u8 = 0x80;
/// A loss, between the marking and the start (which replaces it).
const LOSS_MARK: u8 = 0;

/// Where the DTC pass reads a table's values: a unit of positions at a time, numbered over
/// the concatenation of both sides to move (Red to move first, as in the table files).
pub trait ValueSource: Sync {
    /// Positions per unit (the last one may be shorter).
    fn unit(&self) -> usize;
    /// The values of unit `u`: a distance to mate for a decided position, more than
    /// [`MAX_DTM`] for a draw. An illegal placement may show any value (the pass tells
    /// them by their placement).
    fn values(&self, u: usize) -> Result<Cow<'_, [u8]>, TbError>;
}

/// A table's values in memory as a [`ValueSource`].
pub struct InMemory<'a>(pub &'a [Buf; 2]);

impl ValueSource for InMemory<'_> {
    fn unit(&self) -> usize {
        1 << 16
    }

    fn values(&self, u: usize) -> Result<Cow<'_, [u8]>, TbError> {
        let [red, black] = self.0;
        let n = red.len();
        let (a, b) = (u * self.unit(), ((u + 1) * self.unit()).min(2 * n));
        Ok(if b <= n {
            Cow::Borrowed(&red[a..b])
        } else if a >= n {
            Cow::Borrowed(&black[a - n..b - n])
        } else {
            Cow::Owned([&red[a..], &black[..b - n]].concat())
        })
    }
}

/// The DTC pass over one table.
struct Dtc<'a> {
    g: Gen<'a>,
    rounds: &'a RuleRounds,
    /// Set for the wins (and for some illegal placements a file source shows as wins,
    /// whose bytes are [`NONE`]: a bit is read only for a decided position or a position
    /// reached by a legal move).
    win: [Bits; 2],
    dtc: [Bytes; 2],
}

impl Dtc<'_> {
    /// Rule round of a position and whether it is itself a ruling.
    fn verdict(&self, side: usize, i: usize) -> (u8, bool) {
        self.rounds.get(side, i)
    }

    /// Side to move and index of position `at` of the concatenation.
    fn split(&self, at: usize) -> (usize, usize) {
        let n = self.g.size();
        if at < n {
            (0, at)
        } else {
            (1, at - n)
        }
    }

    /// Mark the decided positions of unit `u` of `src`: a win's bit and [`OPEN_WIN`], a
    /// loss's [`LOSS_MARK`].
    fn mark_unit(&self, src: &dyn ValueSource, u: usize) -> Result<(), TbError> {
        let first = u * src.unit();
        let values = src.values(u)?;
        for (k, &v) in values.iter().enumerate() {
            if v > MAX_DTM {
                continue;
            }
            let (s, i) = self.split(first + k);
            if v % 2 == 1 {
                self.win[s].set(i);
                self.dtc[s].set(i, OPEN_WIN);
            } else {
                self.dtc[s].set(i, LOSS_MARK);
            }
        }
        Ok(())
    }

    /// The start for the indices `start..end`.
    fn init_chunk(&self, start: usize, end: usize) {
        let mut pieces = PieceList::new();
        for i in start..end {
            let marks = [self.dtc[0].get(i), self.dtc[1].get(i)];
            if marks == [NONE, NONE] {
                continue;
            }
            let decodable = self.g.index.unrank_into(i as u64, &mut pieces);
            for side in Color::ALL {
                let s = side.index();
                if marks[s] == NONE {
                    continue;
                }
                // (a file source shows illegal placements as it shows their neighbours)
                let pos = decodable
                    .then(|| Position::from_pieces(&pieces, side).ok())
                    .flatten()
                    .filter(|p| p.check_placement_legal().is_ok());
                let Some(pos) = pos else {
                    self.dtc[s].set(i, NONE);
                    continue;
                };
                let moves = pos.legal_moves();
                let b = if marks[s] == OPEN_WIN {
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
                            self.win[t].get(j) && self.verdict(t, j).0 < order
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
        let child_loss = !self.win[x.index()].get(i);
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

    /// The error for a decided position `k` of side `s` left without a DTC.
    fn left_open(&self, s: usize, k: usize) -> TbError {
        let fen = self
            .g
            .position(k, Color::ALL[s])
            .map(|p| p.to_fen())
            .unwrap_or_else(|| format!("index {k}"));
        TbError::Internal(
            self.g.material,
            format!("{fen}: decided, but no distance to conversion follows"),
        )
    }
}

/// What the pass is run on.
struct Input<'a> {
    material: Material,
    rules: RuleSet,
    index: &'a PlacementIndex,
    src: &'a dyn ValueSource,
    rounds: &'a RuleRounds,
    /// Where the byte per position goes.
    backing: &'a Backing,
}

/// The fixpoint (see the module documentation): the pass with every decided position's
/// DTC in its byte.
fn run<'a>(
    input: Input<'a>,
    subs: SubTables<'a>,
    progress: &dyn Progress,
) -> Result<Dtc<'a>, TbError> {
    let Input {
        material,
        rules,
        index,
        src,
        rounds,
        backing,
    } = input;
    let n = index.size() as usize;
    let d = Dtc {
        g: Gen {
            material,
            rules,
            ck: None,
            index,
            val: [Bytes::new(0, 0), Bytes::new(0, 0)],
            aux: [
                Slots::empty(backing, 0, false)?,
                Slots::empty(backing, 0, false)?,
            ],
            high: None,
            rule_rounds: false,
            capdraw: None,
            subs: subs_of(material, subs, rules)?,
            assigned: AtomicU64::new(0),
            overflow: AtomicBool::new(false),
            fault: Mutex::new(None),
        },
        rounds,
        win: [Bits::with(backing, n)?, Bits::with(backing, n)?],
        dtc: [
            Bytes::with(backing, n, NONE)?,
            Bytes::with(backing, n, NONE)?,
        ],
    };
    let job = material.to_string();
    let units = (2 * n).div_ceil(src.unit());
    let chunks = n.div_ceil(CHUNK);
    let pb = Phase::begin(
        progress,
        &job,
        "distance to conversion",
        (units + chunks) as u64,
    );
    (0..units).into_par_iter().try_for_each(|u| {
        d.mark_unit(src, u)?;
        pb.inc(1);
        Ok::<(), TbError>(())
    })?;
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
    Ok(d)
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
    // beside the table: in its work file when it has one
    let backing = table.values[0].backing();
    let src = InMemory(&table.values);
    let input = Input {
        material: table.material,
        rules: table.rules,
        index: &table.index,
        src: &src,
        rounds,
        backing: &backing,
    };
    let d = run(input, subs, progress)?;
    let mut out: [Buf; 2] = [Buf::from(Vec::new()), Buf::from(Vec::new())];
    for s in 0..2 {
        for (k, &val) in table.values[s].iter().enumerate() {
            if d.dtc[s].get(k) & 0x80 != 0 {
                return Err(d.left_open(s, k));
            }
            if d.dtc[s].get(k) == NONE {
                d.dtc[s].set(k, if val == ILLEGAL { ILLEGAL } else { DRAW });
            }
        }
    }
    let Dtc { dtc, .. } = d;
    for (s, b) in dtc.into_iter().enumerate() {
        out[s] = b.into_buf();
    }
    Ok(out)
}

/// What the DTC file of a table stores ([`dtc_code`]), computed from its values in `src`
/// (the table's files: [`InFiles`]) without holding them: per side to move, the stored
/// byte of each position or [`NOT_STORED`] (to be written as the byte before it), in
/// buffers where `backing` puts them; and the longest DTC (0 when nothing is decided).
#[allow(clippy::too_many_arguments)]
pub fn generate_dtc_bytes(
    material: Material,
    rules: RuleSet,
    index: &PlacementIndex,
    src: &dyn ValueSource,
    rounds: &RuleRounds,
    subs: SubTables<'_>,
    backing: &Backing,
    progress: &dyn Progress,
) -> Result<([Buf; 2], u8), TbError> {
    let input = Input {
        material,
        rules,
        index,
        src,
        rounds,
        backing,
    };
    let d = run(input, subs, progress)?;
    let units = (2 * index.size() as usize).div_ceil(src.unit());
    let pb = Phase::begin(progress, &material.to_string(), "DTC bytes", units as u64);
    let longest = (0..units)
        .into_par_iter()
        .map(|u| -> Result<u8, TbError> {
            let first = u * src.unit();
            let values = src.values(u)?;
            let mut longest = 0;
            for (k, &v) in values.iter().enumerate() {
                let (s, i) = d.split(first + k);
                let b = d.dtc[s].get(i);
                let stored = if b == NONE {
                    NOT_STORED
                } else if b & 0x80 != 0 {
                    return Err(d.left_open(s, i));
                } else {
                    longest = longest.max(b);
                    dtc_code::encode(v, b).unwrap_or(NOT_STORED)
                };
                d.dtc[s].set(i, stored);
            }
            pb.inc(1);
            Ok(longest)
        })
        .try_reduce(|| 0, |a, b| Ok(a.max(b)))?;
    pb.end();
    let Dtc { dtc, .. } = d;
    let [red, black] = dtc;
    Ok(([red.into_buf(), black.into_buf()], longest))
}
