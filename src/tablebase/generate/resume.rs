//! Checkpoints of one table's generation: the safe points where the generator offers its
//! state, and the [`Checkpoint`] trait through which it is saved and restored.
//!
//! A *safe point* is a moment between two passes, when no thread writes the state: after the
//! start pass, after each level of the retrograde analysis (step 2) and of the distance to
//! mate (step 4), at the start of each round of the repetition rules (step 3) and between
//! steps 3 and 4. The whole state at such a point is a few byte arrays (the value bytes and
//! high level bits of both sides to move, the value bytes of the rule rounds being held
//! sparse and saved as the dense codes they stand for, see [`super::round_codes`]; with
//! rule rounds also the capture-draw bits of a
//! table that keeps them apart, see [`super::capdraw_in_value`], the bits of the positions
//! open after round 0 and their auxiliary bytes, whose number the checkpoint gives when it
//! is restored, see [`State::resize`]) and a [`Step`] saying where
//! to go on. Every pass is deterministic given that state (results never depend on thread
//! timing), so a generation resumed from a checkpoint writes the same files as one that never
//! stopped.
//!
//! The generator only offers; a [`Checkpoint`] decides whether a point is worth saving (the
//! file implementation, [`crate::tablebase::checkpoint::FileCheckpoint`], saves only when the
//! time since the last save is well above the save's cost).

use super::bytes::{Bits, Bytes};
use super::dtm_codes::Packed;
use super::round_codes::RoundCodes;
use super::slots::Slots;
use super::Gen;
use crate::board::rules::RuleSet;
use crate::index::Material;
use crate::tablebase::table::TbError;
use crate::tablebase::workfile::Backing;
use std::sync::Mutex;

/// Where a checkpointed generation goes on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Step 2 (plain retrograde analysis): start pass done, levels below `next` done.
    Levels {
        /// The next level to run.
        next: u8,
    },
    /// Step 3 (repetition rules): the base marks are set, rounds below `round` are done.
    Rules {
        /// The next round to run.
        round: u8,
        /// The sides (Red, Black, as the winning side) whose rounds rule nothing more.
        done: [bool; 2],
        /// True when some round ruled a position.
        ruled: bool,
    },
    /// Step 3 finished with rulings: step 4 (distance to mate) next.
    RulesDone,
    /// Step 4: its counters are set, levels below `next` done.
    Dtm {
        /// The next level to run.
        next: u8,
    },
}

impl Step {
    /// The step as 8 bytes (kind, then its fields).
    pub fn encode(self) -> [u8; 8] {
        let mut b = [0u8; 8];
        match self {
            Step::Levels { next } => b[..2].copy_from_slice(&[1, next]),
            Step::Rules { round, done, ruled } => {
                b[..5].copy_from_slice(&[2, round, done[0] as u8, done[1] as u8, ruled as u8])
            }
            Step::RulesDone => b[0] = 3,
            Step::Dtm { next } => b[..2].copy_from_slice(&[4, next]),
        }
        b
    }

    /// The step of [`Step::encode`]'s bytes (None when they are not one).
    pub fn decode(b: [u8; 8]) -> Option<Step> {
        let flag = |x: u8| match x {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        };
        let step = match b[0] {
            1 => Step::Levels { next: b[1] },
            2 => Step::Rules {
                round: b[1],
                done: [flag(b[2])?, flag(b[3])?],
                ruled: flag(b[4])?,
            },
            3 => Step::RulesDone,
            4 => Step::Dtm { next: b[1] },
            _ => return None,
        };
        (step.encode() == b).then_some(step)
    }
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Levels { next } => write!(f, "retrograde level {next}"),
            Step::Rules { round, .. } => write!(f, "rule round {round}"),
            Step::RulesDone => write!(f, "distance to mate, start"),
            Step::Dtm { next } => write!(f, "distance to mate level {next}"),
        }
    }
}

/// What a checkpoint belongs to: a checkpoint is used only for the same table, rule set,
/// metrics and index size.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    /// The table.
    pub material: Material,
    /// Its repetition rule set.
    pub rules: RuleSet,
    /// The metrics the generation computes, as bits (1 WDL, 2 DTM).
    pub metrics: u8,
    /// Positions per side to move.
    pub positions: u64,
}

/// The metrics today's generator computes (WDL and DTM), as [`Meta::metrics`] bits.
pub const METRICS: u8 = 0b11;

enum Array<'a> {
    Bytes(&'a Bytes),
    /// The value bytes during the rule rounds, held sparse and seen dense (see
    /// [`super::round_codes`]): only saved (a restored state is dense).
    Codes(RoundCodes<'a>, usize),
    Bits(&'a Bits),
    /// One side's open bits in step 4, either form (see [`Slots::go_sparse`]): only saved
    /// (a restored state holds them dense).
    Open(&'a Slots),
    /// Bytes whose number the saved state decides (see [`State::resize`]).
    Sized(&'a SizedBytes),
    /// One side's flags in the rule rounds, kept sparse and seen as a byte per slot (see
    /// [`super::slots::Flags`]): only saved (a restored state holds them dense).
    Flags(&'a Slots),
    /// One side's codes in step 4's work file while its slots hold them packed (see
    /// [`super::dtm_codes`]): only saved (a restored state holds them in its slots).
    Work(&'a Packed),
}

/// Bytes restored from a checkpoint whose number only the checkpoint knows: the slots of
/// the positions open after round 0 (see [`super::slots`]).
pub(super) struct SizedBytes {
    backing: Backing,
    bytes: Mutex<Bytes>,
}

impl SizedBytes {
    fn new(backing: Backing) -> SizedBytes {
        SizedBytes {
            backing,
            bytes: Mutex::new(Bytes::new(0, 0)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Bytes> {
        self.bytes.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn into_inner(self) -> Bytes {
        self.bytes.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// The generation state at a safe point: a fixed list of byte arrays (bit arrays are seen as
/// their little-endian 64-bit words). The same list is offered for saving and for
/// restoring, of the same lengths but those of the arrays whose length the saved state
/// decides ([`State::sized_by_checkpoint`]: a restorer sets it with [`State::resize`]).
pub struct State<'a> {
    arrays: Vec<Array<'a>>,
}

impl State<'_> {
    /// Number of arrays.
    pub fn arrays(&self) -> usize {
        self.arrays.len()
    }

    /// Length of array `k` in bytes.
    pub fn len(&self, k: usize) -> usize {
        match self.arrays[k] {
            Array::Bytes(b) => b.len(),
            Array::Codes(_, n) => n,
            Array::Bits(b) => b.words() * 8,
            Array::Open(s) => s.open_words() * 8,
            Array::Sized(b) => b.lock().len(),
            Array::Work(p) => p.count,
            Array::Flags(s) => s.count(),
        }
    }

    /// True when the length of array `k` is the saved state's (when restoring, see
    /// [`State::resize`]); the other arrays' lengths follow from the table.
    pub fn sized_by_checkpoint(&self, k: usize) -> bool {
        matches!(self.arrays[k], Array::Sized(_))
    }

    /// When restoring: make array `k` (one [`State::sized_by_checkpoint`]) `len` bytes long.
    pub fn resize(&self, k: usize, len: usize) -> Result<(), TbError> {
        if let Array::Sized(b) = self.arrays[k] {
            *b.lock() = Bytes::with(&b.backing, len, 0)?;
        }
        Ok(())
    }

    /// True when there is no array.
    pub fn is_empty(&self) -> bool {
        self.arrays.is_empty()
    }

    /// Copy bytes `start..start + out.len()` of array `k` (`start` a multiple of 8); an
    /// array in a work file may fail to be read.
    pub fn read(&self, k: usize, start: usize, out: &mut [u8]) -> std::io::Result<()> {
        match self.arrays[k] {
            Array::Bytes(b) => b.read_range(start, out),
            Array::Codes(c, _) => c.read_range(start, out),
            Array::Bits(b) => b.read_range(start, out),
            Array::Open(s) => s.read_open(start, out),
            Array::Sized(b) => b.lock().read_range(start, out),
            Array::Work(p) => return p.file.read_at(out, p.offset + start as u64),
            Array::Flags(s) => s.read_flags(start, out),
        }
        Ok(())
    }

    /// Overwrite bytes `start..start + data.len()` of array `k` (`start` a multiple of 8).
    pub fn write(&self, k: usize, start: usize, data: &[u8]) {
        match self.arrays[k] {
            Array::Bytes(b) => b.write_range(start, data),
            Array::Codes(..) | Array::Work(_) | Array::Flags(_) | Array::Open(_) => {
                unreachable!("a checkpoint is restored into a dense state")
            }
            Array::Bits(b) => b.write_range(start, data),
            Array::Sized(b) => b.lock().write_range(start, data),
        }
    }
}

/// Where a generation's state is saved at safe points and restored from (for example
/// [`crate::tablebase::checkpoint::FileCheckpoint`]; tests and library users may supply
/// their own).
pub trait Checkpoint: Sync {
    /// At a safe point: save `state` (to go on at `step`) when the implementation's policy
    /// says it is due.
    fn safe_point(&self, meta: &Meta, step: Step, state: &State<'_>) -> Result<(), TbError>;

    /// When a generation starts: restore the last saved state of `meta` into `state` and
    /// return its step, or None to start from the beginning (nothing saved, or a saved
    /// state that does not belong to `meta` or is damaged: then `notify` says why).
    fn restore(
        &self,
        meta: &Meta,
        state: &State<'_>,
        notify: &dyn Fn(&str),
    ) -> Result<Option<Step>, TbError>;

    /// The table of `meta` is safely stored: its saved state can go.
    fn finished(&self, meta: &Meta) -> Result<(), TbError>;
}

impl Gen<'_> {
    fn meta(&self) -> Meta {
        Meta {
            material: self.material,
            rules: self.rules,
            metrics: METRICS,
            positions: self.size() as u64,
        }
    }

    /// The arrays of the state: the value bytes and high level bits of both sides; with
    /// rule rounds also the capture-draw bits (when apart), the bits of the positions open
    /// after round 0 and their auxiliary bytes (`sized`: to be restored, their number being
    /// the checkpoint's).
    fn state_with<'s>(&'s self, sized: Option<&'s [SizedBytes; 2]>) -> State<'s> {
        let mut arrays = if self.is_sparse() {
            // the same image as dense codes
            let n = self.size();
            vec![
                Array::Codes(self.codes(0), n),
                Array::Codes(self.codes(1), n),
            ]
        } else {
            vec![Array::Bytes(&self.val[0]), Array::Bytes(&self.val[1])]
        };
        if let Some([a, b]) = &self.high {
            arrays.push(Array::Bits(a));
            arrays.push(Array::Bits(b));
        }
        if self.rule_rounds {
            if let Some([a, b]) = &self.capdraw {
                arrays.push(Array::Bits(a));
                arrays.push(Array::Bits(b));
            }
            for slots in &self.aux {
                arrays.push(match sized {
                    // restored dense
                    Some(_) => Array::Bits(&slots.open),
                    None => Array::Open(slots),
                });
            }
            match sized {
                Some([a, b]) => {
                    arrays.push(Array::Sized(a));
                    arrays.push(Array::Sized(b));
                }
                None => {
                    for slots in &self.aux {
                        arrays.push(match &slots.packed {
                            Some(p) => Array::Work(p),
                            None if slots.has_sparse_flags() => Array::Flags(slots),
                            None => Array::Bytes(&slots.bytes),
                        });
                    }
                }
            }
        }
        State { arrays }
    }

    fn state(&self) -> State<'_> {
        self.state_with(None)
    }

    /// A safe point: offer the state to the checkpoint, if any.
    pub(super) fn safe_point(&self, step: Step) -> Result<(), TbError> {
        match self.ck {
            Some(ck) => ck.safe_point(&self.meta(), step, &self.state()),
            None => Ok(()),
        }
    }

    /// Restore the state from the checkpoint, if any; the step to go on at.
    pub(super) fn resume(&mut self, notify: &dyn Fn(&str)) -> Result<Option<Step>, TbError> {
        let Some(ck) = self.ck else {
            return Ok(None);
        };
        let backing = self.val[0].backing();
        let sized = [SizedBytes::new(backing.clone()), SizedBytes::new(backing)];
        let step = ck.restore(&self.meta(), &self.state_with(Some(&sized)), notify)?;
        if step.is_some() && self.rule_rounds {
            for (slots, b) in self.aux.iter_mut().zip(sized) {
                slots.bytes = b.into_inner();
                if slots.index_bits() != slots.bytes.len() {
                    return Err(TbError::Internal(
                        self.material,
                        "a checkpoint's open positions and auxiliary bytes disagree".into(),
                    ));
                }
            }
        }
        if let Some(step) = step {
            notify(&format!(
                "resuming {} from checkpoint ({step})",
                self.material
            ));
        }
        Ok(step)
    }
}

/// The level step 2 starts from: 0 for a fresh start, the saved one when resuming in step 2,
/// None when resuming past it.
pub(super) fn levels_from(resumed: Option<Step>) -> Option<u8> {
    match resumed {
        None => Some(0),
        Some(Step::Levels { next }) => Some(next),
        Some(_) => None,
    }
}

/// Where step 3 starts: None for its beginning (the base marks), else the saved round,
/// sides done and whether a position was ruled.
pub(super) fn rules_from(resumed: Option<Step>) -> Option<(u8, [bool; 2], bool)> {
    match resumed {
        Some(Step::Rules { round, done, ruled }) => Some((round, done, ruled)),
        _ => None,
    }
}

/// Where step 4 starts: None for its beginning (the counters), else the saved level.
pub(super) fn dtm_from(resumed: Option<Step>) -> Option<u8> {
    match resumed {
        Some(Step::Dtm { next }) => Some(next),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_round_trip() {
        let steps = [
            Step::Levels { next: 0 },
            Step::Levels { next: 200 },
            Step::Rules {
                round: 3,
                done: [true, false],
                ruled: true,
            },
            Step::RulesDone,
            Step::Dtm { next: 17 },
        ];
        for s in steps {
            assert_eq!(Step::decode(s.encode()), Some(s));
        }
        assert_eq!(Step::decode([9, 0, 0, 0, 0, 0, 0, 0]), None);
        assert_eq!(Step::decode([2, 1, 2, 0, 0, 0, 0, 0]), None);
        assert_eq!(Step::decode([3, 1, 0, 0, 0, 0, 0, 0]), None);
    }
}
