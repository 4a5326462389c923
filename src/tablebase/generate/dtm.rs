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

//!
//! The counters: a ruled position counts its permitted moves; every other loss counts all
//! its distinct successors, which the start pass counted already: its value bytes are kept
//! for this in a work file when the table runs rule rounds (see [`super::start_counts`]),
//! and counted again only in a resumed generation.
//!
//! Memory: the compact layout of step 2 (see [`super::compact`]) holds the levels and the
//! counters; a position decided by the rule rounds keeps its code in its auxiliary byte
//! (it was open after round 0, see [`super::slots`]), or its rule round in four bits when
//! the codes are packed (see [`super::dtm_codes`]); every other position is plain.

use super::bytes::Bytes;
use super::start_counts::StartCounts;
use super::{asymmetry_of, code, compact, Gen, Mode, CHUNK};
use crate::board::{Color, Position};
use crate::index::PieceList;
use crate::progress::{Phase, Progress};
use crate::tablebase::table::TbError;
use rayon::prelude::*;

/// The value byte of an undecided won position in step 4: a win waits for its first lost
/// successor and keeps no count.
pub(super) const WIN: u8 = 0xFF;
/// The value byte of a drawn position in step 4 (never decided).
pub(super) const DRAW: u8 = 0xFE;
/// Counters of undecided lost positions run from 1 to this.
const MAX_COUNT: usize = (DRAW - compact::ILLEGAL - 1) as usize;

impl Gen<'_> {
    /// The code of position `i` of side `s` at the start of step 4: in its slot when it was
    /// open after round 0, else its value byte, a plain code or (when the start pass has
    /// turned it already) its step-4 byte.
    #[inline]
    fn start_code(&self, s: usize, i: usize) -> u8 {
        let slots = &self.aux[s];
        if slots.has(i) {
            return slots.get(i);
        }
        match self.val[s].get(i) {
            WIN => code::make(0, code::WIN),
            b if b == compact::ILLEGAL => code::ILLEGAL,
            b if b > compact::ILLEGAL => code::make(0, code::LOSS),
            // a level 0 (a loss) or a code
            b => b,
        }
    }

    /// The step-4 bytes (levels, markers and counters of the restricted game) for the
    /// indices `start..end`, from the codes; the counters of the positions not ruled from
    /// `counts` when the start pass's are kept (see [`super::start_counts`]).
    fn dtm_init_chunk(&self, start: usize, end: usize, counts: Option<&StartCounts>) {
        let mut pieces = PieceList::new();
        // one position for the chunk, loaded in place
        let mut pos = Position::unloaded();
        let saved = self.saved_counts(counts, start, end);
        for i in start..end {
            let codes = [0, 1].map(|s| self.start_code(s, i));
            // wins, draws and illegal placements first: they need no successors
            let mut losses = false;
            for side in Color::ALL {
                let c = codes[side.index()];
                let val = &self.val[side.index()];
                if code::is_win(c) {
                    val.set(i, WIN);
                } else if code::is_loss(c) {
                    losses = true;
                } else if c == code::ILLEGAL {
                    val.set(i, compact::ILLEGAL);
                } else {
                    val.set(i, DRAW);
                }
            }
            if !losses {
                continue;
            }
            // the placement decoded once, for the first loss that needs it
            let mut decoded = false;
            for side in Color::ALL {
                let c = codes[side.index()];
                if !code::is_loss(c) {
                    continue;
                }
                let val = &self.val[side.index()];
                let ruling = code::is_ruling(c);
                if !ruling {
                    if let Some(n) = self.saved_count(&saved, counts, side, i - start) {
                        self.set_counter(val, i, n, compact::ILLEGAL, MAX_COUNT, side);
                        continue;
                    }
                }
                if !self.load_decided(i, side, &mut pieces, &mut pos, &mut decoded) {
                    continue;
                }
                let order = code::order(c);
                let n = if !ruling {
                    self.count_children(&pos, asymmetry_of(&pieces))
                } else {
                    self.permitted_children(&pos, &pieces, |j| {
                        let cc = self.start_code((!side).index(), j);
                        code::is_win(cc) && code::order(cc) < order
                    })
                };
                self.set_counter(val, i, n, compact::ILLEGAL, MAX_COUNT, side);
            }
        }
    }

    /// Position `i` with `side` to move loaded into `pos`, its placement decoded into
    /// `pieces` by the first call for `i` (`*decoded` false before it); false, with the
    /// fault recorded, for an index that cannot be decoded (a decided position always can).
    pub(super) fn load_decided(
        &self,
        i: usize,
        side: Color,
        pieces: &mut PieceList,
        pos: &mut Position,
        decoded: &mut bool,
    ) -> bool {
        if !*decoded {
            if !self.index.unrank_into(i as u64, pieces) {
                self.fail(format!("index {i} decided but undecodable"));
                return false;
            }
            *decoded = true;
        }
        if pos.load_pieces(pieces, side).is_err() {
            self.fail(format!("index {i} decided but undecodable"));
            return false;
        }
        true
    }

    /// The start pass's bytes of both sides for the indices `start..end` (empty without
    /// `counts`, or when they cannot be read: the counts are then made again).
    pub(super) fn saved_counts(
        &self,
        counts: Option<&StartCounts>,
        start: usize,
        end: usize,
    ) -> [Vec<u8>; 2] {
        let Some(counts) = counts else {
            return [Vec::new(), Vec::new()];
        };
        [0, 1].map(|s| {
            let mut b = vec![0u8; end - start];
            match counts.read(s, start, &mut b) {
                Ok(()) => b,
                Err(_) => Vec::new(),
            }
        })
    }

    /// The start pass's count of the position at offset `k` of the chunk of `saved`
    /// ([`Gen::saved_counts`]), side `side` to move; None when not kept.
    #[inline]
    pub(super) fn saved_count(
        &self,
        saved: &[Vec<u8>; 2],
        counts: Option<&StartCounts>,
        side: Color,
        k: usize,
    ) -> Option<usize> {
        let b = *saved[side.index()].get(k)?;
        counts?.count(b)
    }

    /// The distinct successors a ruled position `pos` (placement `pieces`) may still
    /// play in step 4: its captures, and its quiet moves to positions of the opponent that
    /// `earlier_win` says were won in an earlier round than the ruling's (by index).
    pub(super) fn permitted_children(
        &self,
        pos: &Position,
        pieces: &PieceList,
        earlier_win: impl Fn(usize) -> bool,
    ) -> usize {
        let moves = pos.legal_moves();
        // the child of a quiet move is ranked with the mover moved in place
        let mut list = pieces.clone();
        self.distinct_children(pos, &moves, |m, captured| {
            if captured.is_some() {
                return true;
            }
            let Some(k) = list.iter().position(|e| e.1 == m.from()) else {
                return false;
            };
            list[k].1 = m.to();
            let j = self.index.rank_pieces(&list).ok();
            list[k].1 = m.from();
            j.is_some_and(|j| earlier_win(j as usize))
        })
    }

    /// A loss counting `n` successors in step 4 (index `i`, `side` to move): level 0 when
    /// none (mated, or ruled with nothing but violating moves), else `base + n`.
    pub(super) fn set_counter(
        &self,
        val: &Bytes,
        i: usize,
        n: usize,
        base: u8,
        max: usize,
        side: Color,
    ) {
        if n == 0 {
            val.set(i, compact::level_byte(0));
        } else if n > max {
            let fen = self
                .position(i, side)
                .map(|p| p.to_fen())
                .unwrap_or_else(|| format!("index {i}"));
            self.fail(format!("{fen} has {n} successors, more than step 4 counts"));
        } else {
            val.set(i, base + n as u8);
        }
    }

    /// Before step 4: the codes of the positions open after round 0 (the rule rounds'
    /// flags are done) into their slots, unless they are packed (see
    /// [`super::dtm_codes`]); the high bits cleared.
    fn codes_to_slots(&self) {
        let n = self.size();
        for s in 0..2 {
            let (val, slots) = (&self.val[s], &self.aux[s]);
            if slots.packed.is_none() {
                (0..self.chunks()).into_par_iter().for_each(|c| {
                    let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
                    let mut k = slots.slot(start);
                    slots.each(start, end, |i, _| {
                        slots.bytes.set(k, val.get(i));
                        k += 1;
                    });
                });
            }
            // the high bits count step 4's levels from zero
            let high = &self.high_bits()[s];
            for w in 0..high.words() {
                high.take(w);
            }
        }
    }
}

/// Step 4 (see the module documentation), from the start or, with `from`, resumed at that
/// level (the counters set and the levels below done).
/// The counters of the positions not ruled are the start pass's, from `counts` when kept.
pub(super) fn run(
    g: &Gen<'_>,
    progress: &dyn Progress,
    from: Option<u8>,
    counts: Option<&StartCounts>,
) -> Result<(), TbError> {
    let n = g.size();
    let job = g.material.to_string();
    let t = std::time::Instant::now();
    if from.is_none() {
        let pb = Phase::begin(progress, &job, "distance to mate", g.chunks() as u64);
        g.codes_to_slots();
        if g.is_packed() {
            // two passes: the ruled positions' successors are turned first
            let chunk = |c: usize| (c * CHUNK, ((c + 1) * CHUNK).min(n));
            (0..g.chunks()).into_par_iter().for_each(|c| {
                let (start, end) = chunk(c);
                g.dtm_init_plain(start, end, counts);
            });
            g.check_fault()?;
            (0..g.chunks()).into_par_iter().for_each(|c| {
                let (start, end) = chunk(c);
                g.dtm_init_ruled(start, end);
                pb.inc(1);
            });
        } else {
            // the start codes of a chunk's positions are read before they are turned; a
            // ruled position's successors may lie in chunks already turned (see start_code)
            (0..g.chunks()).into_par_iter().for_each(|c| {
                g.dtm_init_chunk(c * CHUNK, ((c + 1) * CHUNK).min(n), counts);
                pb.inc(1);
            });
        }
        g.check_fault()?;
        pb.end();
        if super::phases() {
            eprintln!(
                "  counters {:.2} s, CPU {:.2} s",
                t.elapsed().as_secs_f64(),
                super::cpu_seconds()
            );
        }
        g.safe_point(super::Step::Dtm { next: 0 })?;
    }
    let pb = Phase::begin(progress, &job, "distance to mate", 0);
    g.levels(Mode::Dtm, from.unwrap_or(0), &pb)?;
    pb.end();
    for side in Color::ALL {
        let val = &g.val[side.index()];
        let stuck = (0..n).into_par_iter().find_any(|&i| {
            let b = val.get(i);
            b > compact::ILLEGAL && b != DRAW
        });
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
