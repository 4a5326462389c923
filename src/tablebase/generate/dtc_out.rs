//! The DTC pass's results ([`super::dtc`]): the DTC of every position of a table in memory
//! ([`generate_dtc`]), or what its DTC file stores, a byte for each decided position
//! ([`generate_dtc_bytes`], [`StoredDtc`]), which the file's writer reads range by range
//! without a byte per position ever being held.

use super::dtc::{run, Dtc, InMemory, Input, ValueSource, NONE};
use super::dtc_rounds::RuleRounds;
use super::slots::Slots;
use super::SubTables;
use crate::board::rules::RuleSet;
use crate::index::{Material, PlacementIndex};
use crate::progress::{Phase, Progress};
use crate::tablebase::dtc_code::{self, NOT_STORED};
use crate::tablebase::table::{Table, TbError};
use crate::tablebase::values::{DRAW, ILLEGAL};
use crate::tablebase::workfile::{Backing, Buf};
use rayon::prelude::*;

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
    let n = table.values[0].len();
    let mut out = [backing.buf(n, DRAW)?, backing.buf(n, DRAW)?];
    for (s, side) in out.iter_mut().enumerate() {
        for (b, &val) in side.iter_mut().zip(table.values[s].iter()) {
            if val == ILLEGAL {
                *b = ILLEGAL;
            }
        }
        let mut open = None;
        d.dtc[s].each(0, n, |k, b| match b {
            NONE => {}
            b if b & 0x80 != 0 => {
                open.get_or_insert(k);
            }
            b => side[k] = b,
        });
        if let Some(k) = open {
            return Err(d.left_open(s, k));
        }
    }
    Ok(out)
}

/// What the DTC file of a table stores ([`dtc_code`]), per side to move a byte for each
/// decided position (the stored byte or [`NOT_STORED`]), found by a rank; every other
/// position is not stored. See [`StoredDtc::range`].
pub struct StoredDtc {
    bytes: [Slots; 2],
    /// Positions per side to move.
    n: usize,
}

impl StoredDtc {
    /// The bytes of positions `range` of the concatenation of both sides to move (Red to
    /// move first) as the file holds them: a position not stored repeats the byte before
    /// it (0 at the range's start).
    pub fn range(&self, range: std::ops::Range<usize>) -> Vec<u8> {
        let n = self.n;
        let mut out = Vec::with_capacity(range.len());
        let mut prev = 0u8;
        for (s, side) in self.bytes.iter().enumerate() {
            let (a, b) = (
                range.start.clamp(s * n, (s + 1) * n) - s * n,
                range.end.clamp(s * n, (s + 1) * n) - s * n,
            );
            let mut next = a;
            side.each(a, b, |i, byte| {
                out.resize(out.len() + (i - next), prev);
                if byte != NOT_STORED {
                    prev = byte;
                }
                out.push(prev);
                next = i + 1;
            });
            out.resize(out.len() + (b - next), prev);
        }
        out
    }

    /// Positions per side to move.
    pub fn positions(&self) -> usize {
        self.n
    }
}

/// What the DTC file of a table stores ([`dtc_code`]), computed from its values in `src`
/// (the table's files: [`InFiles`]) without holding them: a byte for each decided position
/// (see [`StoredDtc`]), where `backing` puts them; and the longest DTC (0 when nothing is
/// decided).
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
) -> Result<(StoredDtc, u8), TbError> {
    let input = Input {
        material,
        rules,
        index,
        src,
        rounds,
        backing,
    };
    let mut d = run(input, subs, progress)?;
    // the sub-tables are done with: their block cache goes before the table's files are
    // read again (else both would add up to the pass's peak)
    d.g.subs = Vec::new();
    super::heap::release_freed_memory();
    let n = index.size() as usize;
    let units = (2 * n).div_ceil(src.unit());
    let pb = Phase::begin(progress, &material.to_string(), "DTC bytes", units as u64);
    let longest = (0..units)
        .into_par_iter()
        .map(|u| -> Result<u8, TbError> {
            let first = u * src.unit();
            let values = src.values(u)?;
            let end = first + values.len();
            let mut longest = 0;
            let mut open = None;
            for s in 0..2 {
                let (a, b) = (
                    first.clamp(s * n, (s + 1) * n) - s * n,
                    end.clamp(s * n, (s + 1) * n) - s * n,
                );
                let slots = &d.dtc[s];
                slots.each_slot(a, b, |i, k| {
                    let b = slots.bytes.get(k);
                    let stored = if b == NONE {
                        NOT_STORED
                    } else if b & 0x80 != 0 {
                        open.get_or_insert((s, i));
                        NOT_STORED
                    } else {
                        longest = longest.max(b);
                        dtc_code::encode(values[s * n + i - first], b).unwrap_or(NOT_STORED)
                    };
                    slots.bytes.set(k, stored);
                });
            }
            if let Some((s, i)) = open {
                return Err(d.left_open(s, i));
            }
            pb.inc(1);
            Ok(longest)
        })
        .try_reduce(|| 0, |a, b| Ok(a.max(b)))?;
    pb.end();
    let Dtc { dtc, .. } = d;
    Ok((StoredDtc { bytes: dtc, n }, longest))
}
