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
//! Memory: per position and side a bit set for the decided positions, and for each decided
//! position only a byte (below) and a bit set for the wins, found by a rank over the
//! decided bits ([`Slots`], lean: an eighth of a bit per position); besides the rule rounds
//! ([`RuleRounds`]) and the sub-tables. KRNKR: 51 % of its positions decided, 43 % illegal
//! placements, so 0.73 bytes per position instead of 1.13 with a byte and a win bit for
//! each (the win bits are set by position while the positions are marked, and move to the
//! bytes' order once these are allocated). The
//! table's values are not held: they are read a unit at a time from a [`ValueSource`] (the
//! table's WDL and DTM files, or its values in memory), once to mark the decided positions
//! (a file source's illegal placements, which show their neighbours' values, are unmarked
//! from their placement before the bytes are allocated) and once at the end to turn the
//! bytes into what the DTC file stores ([`generate_dtc_bytes`], in place; the file's writer
//! reads them by range, [`StoredDtc`]). The byte holds the DTC (0..=[`MAX_LEVEL`]) of a
//! decided position, [`NONE`] for an illegal placement a source did not show as such,
//! [`OPEN_WIN`] for an undecided win and `0x80 | n` for an undecided loss with `n`
//! permitted in-table successors not yet known to win for the opponent ([`LOSS_MARK`] for a
//! loss between the marking and the start).

use super::bytes::{Bits, Bytes};
use super::dtc_rounds::RuleRounds;
use super::slots::Slots;
use super::{subs_of, Gen, SubTables, CHUNK};
use crate::board::rules::RuleSet;
use crate::board::{Color, Position};
use crate::index::{Material, PieceList, PlacementIndex};
use crate::progress::{Phase, Progress};
use crate::tablebase::table::TbError;
use crate::tablebase::values::{Wdl, MAX_DTM};
use crate::tablebase::workfile::{Backing, Buf};
use arrayvec::ArrayVec;
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

/// Draw or illegal placement: no DTC.
pub(super) const NONE: u8 = 0x7F;
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
    /// them by their placement) unless [`ValueSource::shows_illegal`] answers false.
    fn values(&self, u: usize) -> Result<Cow<'_, [u8]>, TbError>;

    /// False when every illegal placement shows a value above [`MAX_DTM`] (the pass then
    /// does not look for them among the decided positions).
    fn shows_illegal(&self) -> bool {
        true
    }

    /// The pass will not read the values for a while (through its levels): a source may
    /// give up what it holds to read them (the pages of mapped files) until the next
    /// [`ValueSource::values`].
    fn release(&self) {}
}

/// A table's values in memory as a [`ValueSource`].
pub struct InMemory<'a>(pub &'a [Buf; 2]);

impl ValueSource for InMemory<'_> {
    fn unit(&self) -> usize {
        1 << 16
    }

    fn shows_illegal(&self) -> bool {
        // a table's values mark them (ILLEGAL)
        false
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
pub(super) struct Dtc<'a> {
    pub(super) g: Gen<'a>,
    rounds: &'a RuleRounds,
    /// Set for the wins: by index while the decided positions are marked, then by the
    /// position of their bytes ([`Dtc::win_by_slot`]; a position without a byte is no win).
    win: [Bits; 2],
    /// The byte of each decided position (its bit set), found by a rank (see [`Slots`]);
    /// a position without one is a draw or an illegal placement ([`NONE`]).
    pub(super) dtc: [Slots; 2],
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

    /// Mark the decided positions of unit `u` of `src`: their bits, and a win's bit.
    fn mark_unit(&self, src: &dyn ValueSource, u: usize) -> Result<(), TbError> {
        let first = u * src.unit();
        let values = src.values(u)?;
        for (k, &v) in values.iter().enumerate() {
            if v > MAX_DTM {
                continue;
            }
            let (s, i) = self.split(first + k);
            self.dtc[s].open.set(i);
            if v % 2 == 1 {
                self.win[s].set(i);
            }
        }
        Ok(())
    }

    /// Unmark the illegal placements among the marked positions of the indices
    /// `start..end` (a file source shows them as it shows their neighbours).
    fn unmark_illegal(&self, start: usize, end: usize) {
        let mut pieces = PieceList::new();
        for i in start..end {
            let marked = [self.dtc[0].has(i), self.dtc[1].has(i)];
            if marked == [false, false] {
                continue;
            }
            // one board for both sides to move, turned by a null move
            let mut pos = match self.g.index.unrank_into(i as u64, &mut pieces) {
                true => Position::from_pieces(&pieces, Color::Red).ok(),
                false => None,
            };
            for side in Color::ALL {
                if side == Color::Black {
                    if let Some(p) = pos.as_mut() {
                        p.play_null();
                    }
                }
                let s = side.index();
                let legal = pos
                    .as_ref()
                    .is_some_and(|p| p.check_placement_legal().is_ok());
                if marked[s] && !legal {
                    self.dtc[s].open.clear(i);
                    self.win[s].clear(i);
                }
            }
        }
    }

    /// The win bits by the position of the decided positions' bytes (allocated), those by
    /// index given up: a bit for each decided position instead of one per position.
    fn win_by_slot(&mut self, backing: &Backing) -> Result<(), TbError> {
        let n = self.g.size();
        for s in 0..2 {
            let by_slot = Bits::with(backing, self.dtc[s].bytes.len())?;
            let (slots, by_index) = (&self.dtc[s], &self.win[s]);
            (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
                slots.each_slot(c * CHUNK, ((c + 1) * CHUNK).min(n), |i, k| {
                    if by_index.get(i) {
                        by_slot.set(k);
                    }
                });
            });
            self.win[s] = by_slot;
        }
        Ok(())
    }

    /// True when position `i` of side `s` is a win (after [`Dtc::win_by_slot`]).
    #[inline(always)]
    fn is_win(&self, s: usize, i: usize) -> bool {
        self.dtc[s].has(i) && self.win[s].get(self.dtc[s].slot(i))
    }

    /// The mark of a position before the start: [`OPEN_WIN`] for a win, [`LOSS_MARK`]
    /// for a loss, [`NONE`] for the others.
    #[inline(always)]
    fn mark(&self, s: usize, i: usize) -> u8 {
        match self.dtc[s].has(i) {
            false => NONE,
            true if self.win[s].get(self.dtc[s].slot(i)) => OPEN_WIN,
            true => LOSS_MARK,
        }
    }

    /// The start for the indices `start..end`.
    fn init_chunk(&self, start: usize, end: usize) {
        let mut pieces = PieceList::new();
        for i in start..end {
            let marks = [self.mark(0, i), self.mark(1, i)];
            if marks == [NONE, NONE] {
                continue;
            }
            let decodable = self.g.index.unrank_into(i as u64, &mut pieces);
            for side in Color::ALL {
                let s = side.index();
                if marks[s] == NONE {
                    continue;
                }
                // (an illegal placement a source shows decided is unmarked before; this
                // keeps the pass safe from one that does not say so)
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
                                .sub_outcome(&pos.after(m), c)
                                .is_some_and(|w| w == Wdl::Loss)
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
                            self.is_win(t, j) && self.verdict(t, j).0 < order
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
        let child_loss = !self.is_win(x.index(), i);
        let child_order = self.verdict(x.index(), i).0;
        let mut preds: ArrayVec<u64, 512> = ArrayVec::new();
        let Some(dedupe) = self.g.predecessors(i as u64, x, &mut preds) else {
            return;
        };
        if dedupe {
            preds.sort_unstable();
        }
        let y = !x;
        let slots = &self.dtc[y.index()];
        let dtc = &slots.bytes;
        let next = level + 1;
        let mut last = u64::MAX;
        for &q in preds.iter() {
            if dedupe && q == last {
                continue;
            }
            last = q;
            let q = q as usize;
            if !slots.has(q) {
                // a draw or an illegal placement
                continue;
            }
            // the predecessor's byte
            let k = slots.slot(q);
            let b = dtc.get(k);
            if b & 0x80 == 0 {
                continue;
            }
            if child_loss {
                if b != OPEN_WIN {
                    self.g
                        .fail(format!("index {q}: a loss with a lost successor"));
                    continue;
                }
                if dtc.update(k, |c| (c == OPEN_WIN).then_some(next)).is_ok() {
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
                let r = dtc.update(k, |c| {
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
    pub(super) fn left_open(&self, s: usize, k: usize) -> TbError {
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
pub(super) struct Input<'a> {
    pub(super) material: Material,
    pub(super) rules: RuleSet,
    pub(super) index: &'a PlacementIndex,
    pub(super) src: &'a dyn ValueSource,
    pub(super) rounds: &'a RuleRounds,
    /// Where the bits and bytes go.
    pub(super) backing: &'a Backing,
}

/// The fixpoint (see the module documentation): the pass with every decided position's
/// DTC in its byte.
pub(super) fn run<'a>(
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
    // (as the generation of a table does: large buffers outside the heap)
    super::heap::settle_heap();
    let n = index.size() as usize;
    let mut d = Dtc {
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
            Slots::empty(backing, n, true)?,
            Slots::empty(backing, n, true)?,
        ],
    };
    let job = material.to_string();
    let phases = super::phases();
    let lap = |what: &str| {
        if phases {
            eprintln!("{material} DTC {what}: CPU {:.2} s", super::cpu_seconds());
        }
    };
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
    // not read again before the end of the levels
    src.release();
    lap("marks");
    if src.shows_illegal() {
        (0..chunks).into_par_iter().for_each(|c| {
            d.unmark_illegal(c * CHUNK, ((c + 1) * CHUNK).min(n));
        });
    }
    // a byte for each decided position (every one is set at the start)
    for slots in &mut d.dtc {
        slots.allocate_lean(backing, NONE)?;
    }
    d.win_by_slot(backing)?;
    lap("illegal placements unmarked");
    (0..chunks).into_par_iter().for_each(|c| {
        d.init_chunk(c * CHUNK, ((c + 1) * CHUNK).min(n));
        pb.inc(1);
    });
    pb.end();
    d.g.check_fault()?;
    lap("start");
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
    lap("levels");
    Ok(d)
}
