//! The receivers of generated moves ([`super::movegen`]): a list, a count, a count with the
//! captures listed, a yes/no, and a list restricted per piece (the quiet moves that may
//! give check).

use super::bitboard::FULL_MASK;
use super::{Move, MoveList, Square};

/// Receives the moves of a generation, one at a time or as a target bitboard per piece.
pub(super) trait Sink {
    /// Whether [`Sink::mask`] restricts the targets (false: every target is wanted, and
    /// the mask is not asked).
    const MASKED: bool = false;
    /// The targets wanted of the piece on `from` (asked only when `MASKED`).
    #[inline(always)]
    fn mask(&self, _from: Square) -> u128 {
        FULL_MASK
    }
    /// One legal move.
    fn one(&mut self, m: Move);
    /// The legal moves from `from` to each point of `targets`.
    fn many(&mut self, from: Square, targets: u128);
    /// True when the generation may stop (the answer is known).
    fn done(&self) -> bool;
}

/// Lists the moves.
pub(super) struct ListSink<'a>(pub(super) &'a mut MoveList);

impl Sink for ListSink<'_> {
    #[inline(always)]
    fn one(&mut self, m: Move) {
        // Never more than MAX_MOVES moves: bounded by the piece counts of the game.
        let _ = self.0.try_push(m);
    }
    #[inline(always)]
    fn many(&mut self, from: Square, targets: u128) {
        let mut t = targets;
        while t != 0 {
            // SAFETY: target bitboards only have bits below 90.
            let to = unsafe { Square::new_unchecked(t.trailing_zeros() as u8) };
            t &= t - 1;
            let _ = self.0.try_push(Move::new(from, to));
        }
    }
    #[inline(always)]
    fn done(&self) -> bool {
        false
    }
}

/// Lists the moves of the pieces on `free` and the others' moves to `to` (for horses, also
/// to `horse_to`; `horses` are the mover's horses).
pub(super) struct MaskedSink<'a> {
    pub(super) list: &'a mut MoveList,
    pub(super) free: u128,
    pub(super) to: u128,
    pub(super) horses: u128,
    pub(super) horse_to: u128,
}

impl Sink for MaskedSink<'_> {
    const MASKED: bool = true;
    #[inline(always)]
    fn mask(&self, from: Square) -> u128 {
        let b = from.bit();
        if self.free & b != 0 {
            FULL_MASK
        } else if self.horses & b != 0 {
            self.to | self.horse_to
        } else {
            self.to
        }
    }
    #[inline(always)]
    fn one(&mut self, m: Move) {
        ListSink(self.list).one(m);
    }
    #[inline(always)]
    fn many(&mut self, from: Square, targets: u128) {
        ListSink(self.list).many(from, targets);
    }
    #[inline(always)]
    fn done(&self) -> bool {
        false
    }
}

/// Counts the moves.
pub(super) struct CountSink(pub(super) usize);

impl Sink for CountSink {
    #[inline(always)]
    fn one(&mut self, _: Move) {
        self.0 += 1;
    }
    #[inline(always)]
    fn many(&mut self, _: Square, targets: u128) {
        self.0 += targets.count_ones() as usize;
    }
    #[inline(always)]
    fn done(&self) -> bool {
        false
    }
}

/// Counts every legal move and lists the captures (enemy pieces: the bits of `.2`).
pub(super) struct CountCapturesSink<'a>(
    pub(super) usize,
    pub(super) &'a mut MoveList,
    pub(super) u128,
);

impl Sink for CountCapturesSink<'_> {
    #[inline(always)]
    fn one(&mut self, m: Move) {
        self.0 += 1;
        if self.2 & m.to().bit() != 0 {
            let _ = self.1.try_push(m);
        }
    }
    #[inline(always)]
    fn many(&mut self, from: Square, targets: u128) {
        self.0 += targets.count_ones() as usize;
        ListSink(self.1).many(from, targets & self.2);
    }
    #[inline(always)]
    fn done(&self) -> bool {
        false
    }
}

/// Whether there is a move at all.
pub(super) struct AnySink(pub(super) bool);

impl Sink for AnySink {
    #[inline(always)]
    fn one(&mut self, _: Move) {
        self.0 = true;
    }
    #[inline(always)]
    fn many(&mut self, _: Square, targets: u128) {
        self.0 |= targets != 0;
    }
    #[inline(always)]
    fn done(&self) -> bool {
        self.0
    }
}

/// Hands each move to a function in generation order until it answers true (the moves
/// after that one are neither handed over nor, where the generation can tell, tested).
pub(super) struct UntilSink<F: FnMut(Move) -> bool> {
    pub(super) f: F,
    pub(super) stopped: bool,
}

impl<F: FnMut(Move) -> bool> Sink for UntilSink<F> {
    #[inline(always)]
    fn one(&mut self, m: Move) {
        if !self.stopped {
            self.stopped = (self.f)(m);
        }
    }
    #[inline(always)]
    fn many(&mut self, from: Square, targets: u128) {
        let mut t = targets;
        while t != 0 && !self.stopped {
            // SAFETY: target bitboards only have bits below 90.
            let to = unsafe { Square::new_unchecked(t.trailing_zeros() as u8) };
            t &= t - 1;
            self.stopped = (self.f)(Move::new(from, to));
        }
    }
    #[inline(always)]
    fn done(&self) -> bool {
        self.stopped
    }
}
