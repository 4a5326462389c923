//! Witnesses of the lose flags a full reset gives back only for the clean-up to remove them
//! at once (see the parent module, steps 1 and 2).
//!
//! A position `p` keeps `CL` only while each of its moves is bad or reaches an open
//! position with `CW`. When `p` can never carry `CW` itself (no `IN_CHECK` among its base
//! flags: no mutual check at `p`) and one of its quiet moves reaches an open position `j`
//! without `IN_CHECK` (so `j` never carries `CW`), the clean-up removes `CL` from `p` in
//! every state below the reset, whatever the other flags ([`Gen::remove_lose`]: in each of
//! its branches a move into `j` clears `CL` of a position without `CW`); likewise `ZL` when
//! `p` lacks `IN_CHASE` (never `ZW`), is not both `CHECK` and `IN_CHECK` (never the mutual
//! check branch, which leaves `ZL` alone) and a move reaches an open position without
//! `IN_CHASE`. Such a flag is not in the greatest fixpoint `G` below the reset `R`, so the
//! clean-up reaches the same `G` from `R` without it (any start between `G` and `R` gives
//! `G`: see [`super::reopen`]).
//!
//! The first lose sweep after a full reset records, per open position whose every lose
//! flag of the reset it removed that way ([`coverable`], the `fixed` flags of
//! [`Gen::remove_lose`]), the position's value byte: the open bit, the capture-draw flag and
//! the counter of successors not yet known to be won for the opponent. While that byte is
//! unchanged no successor of `p` was decided (a lost one decides `p`; a won one counts the
//! counter down, and the counters are exact: see the start pass), so the witness `j` is
//! still open and the argument above still holds: the next full reset gives `p` no lose
//! flag and the first lose sweep does not visit it. A changed byte (or none recorded) resets
//! the position as before, and the sweep may record it again.
//!
//! Memory: a byte per flag byte of the rounds (per open position with base flags), beside
//! the state in its work file like the worklist bits. A resumed run starts without
//! witnesses.

use super::{reopen, Gen, BASE, CHECK, CL, IN_CHASE, IN_CHECK, ZL};
use crate::board::Color;
use crate::tablebase::generate::bytes::Bytes;
use crate::tablebase::generate::code;
use crate::tablebase::table::TbError;
use crate::tablebase::workfile::Backing;

/// The recorded value bytes (0: none), by side and flag byte (`Slots::flag_slot`).
pub(super) struct Witness {
    snap: [Bytes; 2],
}

/// The lose flags of a position with base flags `f` that a witness may stand for (see the
/// module documentation).
pub(super) fn coverable(f: u8) -> u8 {
    let mut c = 0;
    if f & IN_CHECK == 0 {
        c |= CL;
    }
    if f & IN_CHASE == 0 && f & (CHECK | IN_CHECK) != CHECK | IN_CHECK {
        c |= ZL;
    }
    c
}

impl Witness {
    /// No witness yet, room for one per flag byte of each side.
    pub(super) fn new(g: &Gen<'_>, backing: &Backing) -> Result<Witness, TbError> {
        let [a, b] = [0, 1].map(|s| g.aux[s].flag_bytes());
        Ok(Witness {
            snap: [Bytes::with(backing, a, 0)?, Bytes::with(backing, b, 0)?],
        })
    }

    /// Record the witness of the open position in slot `k` of `side`.
    pub(super) fn note(&self, g: &Gen<'_>, side: Color, k: usize) {
        let snap = &self.snap[side.index()];
        if let Some(r) = g.aux[side.index()].flag_slot(k) {
            if r < snap.len() {
                // an open position's byte has the open bit: never 0, "none recorded"
                snap.set(r, exact(g, side, k) | code::OPEN);
            }
        }
    }

    /// True when the witness recorded for the open position in slot `k` of `side` still
    /// holds: its value byte is as it was then.
    pub(super) fn holds(&self, g: &Gen<'_>, side: Color, k: usize) -> bool {
        let snap = &self.snap[side.index()];
        g.aux[side.index()].flag_slot(k).is_some_and(|r| {
            let v = if r < snap.len() { snap.get(r) } else { 0 };
            // the value byte read only when a witness was recorded
            v != 0 && v == exact(g, side, k) | code::OPEN
        })
    }
}

/// The value byte of slot `k` of `side` with its counter (split codes show an open
/// position's counter only in their work file: see [`super::super::split_codes`]).
fn exact(g: &Gen<'_>, side: Color, k: usize) -> u8 {
    let s = &g.aux[side.index()];
    match &s.split {
        Some(c) => c.exact(k),
        None => s.codes.get(k),
    }
}

impl Gen<'_> {
    /// Step 1 of a round: working flags from the base flags, without the lose flags that a
    /// witness still rules out (see the module documentation).
    pub(super) fn reset_flags(&self, witness: &Witness) {
        for side in Color::ALL {
            let aux = &self.aux[side.index()];
            self.each_open(side, |i, k| {
                let f = aux.flag_at(k) & BASE;
                if f != 0 {
                    let v = aux.code(k);
                    let mut w = reopen::reset_work(f, self.capture_draw_in(side, i, v));
                    if w & (CL | ZL) != 0 && witness.holds(self, side, k) {
                        w &= !(CL | ZL);
                    }
                    aux.set_flag_at(k, f | w);
                }
                false
            });
        }
    }
}
