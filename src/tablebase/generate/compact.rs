//! The compact layout of the generation state: one value byte per position and side to
//! move. A table without repetition-rule rounds (rule set 0, or one side without a rook,
//! horse, cannon or pawn) is decided by the plain retrograde analysis alone (step 2), where
//! every decision has rule round 0, so the value byte of a decided position need not hold a
//! code: it holds the position's level (its distance to mate), whose parity is its outcome
//! (even: lost). A table with rule rounds runs its round 0 and its step 4 in this layout too
//! (see [`super::dtm`] for the markers of step 4); in step 3 its value bytes hold codes.
//!
//! The value byte in this layout:
//!
//! * `0x00..=0x7F`: decided at level `b`, or `b + 128` when the position's bit in
//!   [`Gen::high`] is set (levels 128 up to [`crate::tablebase::values::MAX_DTM`]);
//! * [`ILLEGAL`] (`0x80`): an illegal placement;
//! * `0x81..=0xFF`: open; the low seven bits count the successors not yet known to win for
//!   the opponent (at least 1: a position whose count reaches 0 is decided), or the low six
//!   with the capture-draw flag above them ([`code::CAPDRAW`], a table with rule rounds
//!   that keeps it in the value byte).
//!
//! A level's scan looks for the bytes equal to `level & 0x7F` (for levels from 128 on, only
//! those with the high bit), exactly the positions the auxiliary byte of the wide layout
//! would show at that level: the levels, the order of decisions and so the values are those
//! of the wide layout (a level byte beside each code, as the generator kept it before).
//! Memory: one byte per position, and one bit (only touched for levels from 128 on).

use super::bytes::{Bits, Bytes};
use super::{code, Gen};
use crate::board::Color;
use crate::tablebase::values::{DRAW, ILLEGAL as ILLEGAL_VALUE};
use crate::tablebase::workfile::Buf;
use std::sync::atomic::Ordering::Relaxed;

use super::params::CHUNK;

/// The value byte of an illegal placement (the state's initial fill).
pub(super) const ILLEGAL: u8 = 0x80;

/// The byte a position decided at `level` holds.
#[inline(always)]
pub(super) fn level_byte(level: u8) -> u8 {
    level & 0x7F
}

/// The wide layout's code of a position decided at `level` (its outcome, rule round 0), as
/// the un-moving functions take it.
#[inline(always)]
pub(super) fn level_code(level: u8) -> u8 {
    code::make(
        0,
        if level.is_multiple_of(2) {
            code::LOSS
        } else {
            code::WIN
        },
    )
}

impl Gen<'_> {
    /// The high bits of the compact layout (the DTC pass's state has none: a bug).
    pub(super) fn high_bits(&self) -> &[Bits; 2] {
        match &self.high {
            Some(h) => h,
            None => unreachable!("the compact layout's functions run only on a compact state"),
        }
    }

    /// Call `f` for every position of side `x` in `start..end` decided at `level`.
    #[inline]
    pub(super) fn scan_level_compact(
        &self,
        x: Color,
        start: usize,
        end: usize,
        level: u8,
        mut f: impl FnMut(usize),
    ) {
        let high = &self.high_bits()[x.index()];
        // below 128 no high bit is set yet: the byte alone says the level
        self.val[x.index()].scan(start, end, level_byte(level), |i| {
            if level < 128 || high.get(i) {
                f(i)
            }
        });
    }

    /// A decided successor (lost or not) reaches the predecessor `q` (side `side` to move),
    /// in the level before `stamp`: a win in `stamp` when the successor is lost, else one
    /// counter down, and a loss in `stamp` when it was the last.
    #[inline]
    pub(super) fn apply_compact(&self, q: usize, side: Color, child_loss: bool, stamp: u8) {
        let val = &self.val[side.index()];
        let byte = level_byte(stamp);
        let decided = if child_loss {
            val.update(q, |b| (b > ILLEGAL).then_some(byte)).is_ok()
        } else {
            // (a table with rule rounds may keep its capture-draw flag above the counter)
            let mask = self.counter_mask();
            let r = val.update(q, |b| {
                (b > ILLEGAL).then_some(if b & mask == 1 { byte } else { b - 1 })
            });
            // only the thread that takes the last successor sees a count of 1
            matches!(r, Ok(b) if b & mask == 1)
        };
        if decided {
            if stamp >= 128 {
                // read only by the scans of later levels (from 128 on), after this pass
                self.high_bits()[side.index()].set(q);
            }
            self.assigned.fetch_add(1, Relaxed);
        }
    }
}

/// The compact state's value bytes turned into the table's values (distance to mate,
/// [`DRAW`] for open positions, [`ILLEGAL_VALUE`] for illegal placements), in place.
pub(super) fn finish_compact(val: [Bytes; 2], high: [Bits; 2]) -> [Buf; 2] {
    let mut out: [Buf; 2] = [Buf::from(Vec::new()), Buf::from(Vec::new())];
    for (s, (v, h)) in val.into_iter().zip(high).enumerate() {
        let mut v = v.into_buf();
        // (in a work file, a slice at a time with the resident set checked in between)
        let work = v.work_file().cloned();
        for (c, slice) in v.chunks_mut(CHUNK).enumerate() {
            if let Some(w) = &work {
                w.tick();
            }
            // CHUNK is a multiple of 64: the slice's high bits are whole words
            let first = c * CHUNK / 64;
            for (k, part) in slice.chunks_mut(64).enumerate() {
                let bits = h.take(first + k);
                for (j, b) in part.iter_mut().enumerate() {
                    *b = match *b {
                        ILLEGAL => ILLEGAL_VALUE,
                        x if x > ILLEGAL => DRAW,
                        x => x + 128 * ((bits >> j) & 1) as u8,
                    };
                }
            }
        }
        out[s] = v;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::rules::RuleSet;
    use crate::index::{Material, PlacementIndex};
    use crate::tablebase::generate::slots::Slots;
    use crate::tablebase::values::{DRAW, ILLEGAL as ILLEGAL_VALUE};
    use crate::tablebase::workfile::Backing;
    use std::sync::atomic::{AtomicBool, AtomicU64};
    use std::sync::Mutex;

    fn compact_gen(index: &PlacementIndex) -> Gen<'_> {
        let n = index.size() as usize;
        Gen {
            material: "KRK".parse::<Material>().expect("a material"),
            index,
            val: [Bytes::new(n, ILLEGAL), Bytes::new(n, ILLEGAL)],
            aux: [
                Slots::empty(&Backing::Heap, n, false).expect("heap"),
                Slots::empty(&Backing::Heap, n, false).expect("heap"),
            ],
            high: Some([Bits::new(n), Bits::new(n)]),
            rule_rounds: false,
            capdraw: None,
            subs: Vec::new(),
            rules: RuleSet::CyclesDraw,
            ck: None,
            assigned: AtomicU64::new(0),
            overflow: AtomicBool::new(false),
            fault: Mutex::new(None),
        }
    }

    /// Levels from 128 on: the byte wraps, the high bit tells them from the low levels, and
    /// the finished values carry the whole level.
    #[test]
    fn high_levels_scan_and_finish() {
        let m = "KRK".parse::<Material>().expect("a material");
        let index = PlacementIndex::new(m).expect("an index");
        let g = compact_gen(&index);
        let (red, black) = (Color::Red.index(), Color::Black.index());
        // 10 decided at level 3 long ago; 11 open with two successors left; 12 open
        g.val[red].set(10, 3);
        g.val[red].set(11, 0x82);
        g.val[red].set(12, 0x85);
        g.val[black].set(20, 0x81);
        // level 130 decides 12 (a lost successor: a win in 131) and 11 only at its last
        g.apply_compact(12, Color::Red, true, 131);
        g.apply_compact(11, Color::Red, false, 131);
        assert_eq!(g.val[red].get(11), 0x81, "one successor left");
        g.apply_compact(11, Color::Red, false, 131);
        g.apply_compact(20, Color::Black, false, 128);
        // illegal placements stay as they are
        g.apply_compact(30, Color::Red, true, 131);
        assert_eq!(g.assigned.load(Relaxed), 3);
        let mut at = Vec::new();
        g.scan_level_compact(Color::Red, 0, 64, 131, |i| at.push(i));
        assert_eq!(at, vec![11, 12], "level 131, not level 3");
        at.clear();
        g.scan_level_compact(Color::Red, 0, 64, 130, |i| at.push(i));
        assert!(at.is_empty(), "nothing at 130: {at:?}");
        g.scan_level_compact(Color::Black, 0, 64, 128, |i| at.push(i));
        assert_eq!(at, vec![20]);
        let Gen { val, high, .. } = g;
        let values = finish_compact(val, high.expect("compact"));
        assert_eq!(
            (values[0][10], values[0][11], values[0][12], values[1][20]),
            (3, 131, 131, 128)
        );
        assert_eq!(
            (values[0][30], values[0][0]),
            (ILLEGAL_VALUE, ILLEGAL_VALUE)
        );
        assert_eq!(level_code(130), code::make(0, code::LOSS));
        assert_eq!(level_code(131), code::make(0, code::WIN));
        let open = Bytes::new(8, 0x83);
        let values = finish_compact([open, Bytes::new(8, 0)], [Bits::new(8), Bits::new(8)]);
        assert_eq!((values[0][0], values[1][7]), (DRAW, 0));
    }
}
