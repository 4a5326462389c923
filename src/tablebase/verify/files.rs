//! Verification of a table in its files, within about the generator's memory.
//!
//! [`super::verify`] checks the positions one side to move at a time. For the pass over
//! side `s` this module holds, of the other side `t`, its values and (when some verdict
//! rests on the rules) its WDL bytes, one byte per index each, and its DTC (wins from the
//! file, losses derived from their moves as [`crate::tablebase::dtc_code`] defines them); side `s`
//! itself is read block by block as the pass goes. The tables one capture away are read
//! through a bounded cache of blocks ([`super::source`]). Peak: three bytes per index
//! (1.5 per position) and the trap check's six bits per index, besides the caches.
//!
//! Every block of the table's files and of its sub-tables' files is decoded (and its
//! checksum checked) once before the passes.
//!
//! Out of core (`verify --memory LIMIT`, [`verify_files_limited`]): the sub-table cache is
//! bounded by a quarter of LIMIT ([`cache_bytes`]); when those three bytes per index (and
//! the trap bits), with the cache and [`PROCESS_BYTES`], do not fit under LIMIT,
//! the arrays are regions of a work file (`MATERIAL.verify.work` in the table folder,
//! removed when the check ends; see [`crate::tablebase::workfile`]) instead of anonymous
//! memory; the check reads the same bytes either way.

use super::source::{check_blocks, combine_one, open_file, read_range, stretches, SubFiles};
use super::trap::TrapSets;
use super::{needs_trap_check, Pass, SideView, VerifyReport, CHUNK, DTC_DERIVED};
use crate::board::{Color, Position};
use crate::index::{Material, PieceList, PlacementIndex};
use crate::progress::{Phase, Progress};
use crate::tablebase::dtc_code::{decode_win, loss_dtc};
use crate::tablebase::file::{Metric, TableFile};
use crate::tablebase::table::{table_material, TbError};
use crate::tablebase::values::{Verdict, Wdl, DRAW, ILLEGAL, MAX_DTM, UNKNOWN};
use crate::tablebase::workfile::{Backing, Buf, WorkFile};
use rayon::prelude::*;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// Read the table of `m` and every table one capture away from `dir` (every block of their
/// files is checked on the way) and re-derive every value of the table (and its DTC, when
/// its DTC file is there).
pub fn verify_files(dir: &Path, m: &Material) -> Result<VerifyReport, TbError> {
    verify_files_reporting(dir, m, &crate::progress::Silent)
}

/// What a `verify` process holds besides its arrays and the sub-table block cache: the
/// process and thread pool and the stretches in flight.
pub const PROCESS_BYTES: u64 = 16 << 20;

/// The sub-table block cache of `verify` under `memory` (`--memory LIMIT`): at most a
/// quarter of the limit, and never more than [`super::params::SUB_CACHE_BYTES`].
pub fn cache_bytes(memory: Option<u64>) -> u64 {
    let full = super::params::SUB_CACHE_BYTES as u64;
    memory.map_or(full, |limit| full.min(limit / 4))
}

/// True when `verify --memory` keeps the arrays of a table of `state` bytes (see
/// [`Files::open`]) in a work file: they do not fit under the limit with the process and
/// the cache.
pub fn out_of_core(state: u64, memory: Option<u64>) -> bool {
    memory.is_some_and(|limit| PROCESS_BYTES + cache_bytes(memory) + state > limit)
}

/// The work file of `verify --memory` for `material` in `dir`.
pub fn verify_work_path(dir: &Path, material: &Material) -> std::path::PathBuf {
    dir.join(format!("{material}.verify.work"))
}

/// The files of the table verified.
struct Files {
    index: PlacementIndex,
    /// Index entries (positions per side to move).
    n: usize,
    wdl: TableFile,
    dtm: TableFile,
    dtc: Option<TableFile>,
    /// Some WDL byte rests on the repetition rules: the verdicts are read from the WDL
    /// bytes (else they are the plain ones of the values).
    rule_verdicts: bool,
    /// Where the arrays of a whole side go (the heap, or a work file out of core).
    backing: Backing,
}

/// The bytes of a stretch of one side to move.
struct Stretch {
    wdl: Vec<u8>,
    values: Vec<u8>,
    /// The DTC file's bytes (empty without a DTC file).
    dtc: Vec<u8>,
}

/// A win's DTC in the array of one side's wins ([`Files::win_dtc`]): not a win.
const NOT_WIN: u8 = UNKNOWN;

impl Files {
    fn open(dir: &Path, name: Material, memory: Option<u64>) -> Result<Files, TbError> {
        let index = PlacementIndex::new(name)?;
        let wdl = open_file(dir, &name, Metric::Wdl, &index)?;
        let dtm = open_file(dir, &name, Metric::Dtm, &index)?;
        let dtc_path = crate::tablebase::file::table_path(dir, &name, Metric::Dtc);
        let dtc = if dtc_path.exists() {
            Some(open_file(dir, &name, Metric::Dtc, &index)?)
        } else {
            None
        };
        for f in std::iter::once(&dtm).chain(&dtc) {
            if f.header.rules != wdl.header.rules {
                return Err(TbError::Corrupt {
                    path: f.path.display().to_string(),
                    reason: format!(
                        "rule set {} but the WDL file has rule set {}",
                        f.header.rules, wdl.header.rules
                    ),
                });
            }
        }
        let rule_verdicts = AtomicBool::new(false);
        check_blocks(&wdl, |_, b| {
            if b.iter().any(|&x| (3..255).contains(&x)) {
                rule_verdicts.store(true, Ordering::Relaxed);
            }
        })?;
        for f in std::iter::once(&dtm).chain(&dtc) {
            check_blocks(f, |_, _| {})?;
        }
        let n = index.size() as usize;
        // at the peak: three bytes per index (see the module documentation), and the trap
        // check's six bits per index
        let trap = needs_trap_check(wdl.header.rules, name);
        let state = 3 * n as u64
            + if trap {
                6 * n.div_ceil(64) as u64 * 8
            } else {
                0
            };
        let backing = match memory {
            Some(limit) if out_of_core(state, memory) => Backing::File(std::sync::Arc::new(
                WorkFile::create(&verify_work_path(dir, &name), state, limit)?,
            )),
            _ => Backing::Heap,
        };
        Ok(Files {
            n,
            backing,
            index,
            wdl,
            dtm,
            dtc,
            rule_verdicts: rule_verdicts.into_inner(),
        })
    }

    /// The bytes of the indices `r` of side `s`.
    fn stretch(&self, s: usize, r: Range<usize>) -> Result<Stretch, TbError> {
        let g = (s * self.n + r.start) as u64..(s * self.n + r.end) as u64;
        let mut wdl = vec![0u8; r.len()];
        let mut dtm = vec![0u8; r.len()];
        read_range(&self.wdl, g.clone(), &mut wdl)?;
        read_range(&self.dtm, g.clone(), &mut dtm)?;
        let values = wdl
            .iter()
            .zip(&dtm)
            .map(|(&w, &d)| combine_one(w, d))
            .collect();
        drop(dtm);
        let mut dtc = Vec::new();
        if let Some(f) = &self.dtc {
            dtc = vec![0u8; r.len()];
            read_range(f, g, &mut dtc)?;
        }
        Ok(Stretch { wdl, values, dtc })
    }

    /// The stretches of side `s` in the WDL file's blocks.
    fn stretches(&self, s: usize) -> Vec<Range<usize>> {
        stretches(self.n, s, self.wdl.header.block_size as usize)
    }

    /// Fill one byte per index of side `s` into `arrays` (each the whole side), stretch by
    /// stretch in parallel: `fill(stretch's first index, its bytes, its part of each array)`.
    fn fill<const K: usize>(
        &self,
        s: usize,
        arrays: [&mut [u8]; K],
        fill: impl Fn(usize, &Stretch, [&mut [u8]; K]) + Sync,
    ) -> Result<(), TbError> {
        let ranges = self.stretches(s);
        let mut parts: Vec<(Range<usize>, [&mut [u8]; K])> = Vec::with_capacity(ranges.len());
        let mut rest = arrays;
        for r in ranges {
            let mut heads: Vec<&mut [u8]> = Vec::with_capacity(K);
            let mut tails: Vec<&mut [u8]> = Vec::with_capacity(K);
            for a in rest {
                let (h, t) = a.split_at_mut(r.len());
                heads.push(h);
                tails.push(t);
            }
            rest = tails
                .try_into()
                .unwrap_or_else(|_| unreachable!("K slices split into K"));
            parts.push((
                r,
                heads
                    .try_into()
                    .unwrap_or_else(|_| unreachable!("K slices split into K")),
            ));
        }
        parts.into_par_iter().try_for_each(|(r, out)| {
            let st = self.stretch(s, r.clone())?;
            fill(r.start, &st, out);
            Ok(())
        })
    }

    /// The values of side `s` and, when some verdict rests on the rules, its WDL bytes.
    fn side_values(&self, s: usize) -> Result<(Buf, Option<Buf>), TbError> {
        let mut values = self.backing.buf(self.n, 0)?;
        if !self.rule_verdicts {
            self.fill(s, [&mut values[..]], |_, st, [v]| {
                v.copy_from_slice(&st.values)
            })?;
            return Ok((values, None));
        }
        let mut wdl = self.backing.buf(self.n, 0)?;
        self.fill(s, [&mut values[..], &mut wdl[..]], |_, st, [v, w]| {
            v.copy_from_slice(&st.values);
            w.copy_from_slice(&st.wdl);
        })?;
        Ok((values, Some(wdl)))
    }

    /// The DTC of the wins of side `s` ([`NOT_WIN`] elsewhere, [`ILLEGAL`] where the byte
    /// contradicts the DTM) and, when some verdict rests on the rules, its WDL bytes.
    fn win_dtc(&self, s: usize) -> Result<(Buf, Option<Buf>), TbError> {
        let win = |st: &Stretch, out: &mut [u8]| {
            for (k, o) in out.iter_mut().enumerate() {
                let v = st.values[k];
                *o = if v <= MAX_DTM && v % 2 == 1 {
                    decode_win(v, st.dtc[k]).unwrap_or(ILLEGAL)
                } else {
                    NOT_WIN
                };
            }
        };
        let mut dtc = self.backing.buf(self.n, 0)?;
        if !self.rule_verdicts {
            self.fill(s, [&mut dtc[..]], |_, st, [d]| win(st, d))?;
            return Ok((dtc, None));
        }
        let mut wdl = self.backing.buf(self.n, 0)?;
        self.fill(s, [&mut dtc[..], &mut wdl[..]], |_, st, [d, w]| {
            win(st, d);
            w.copy_from_slice(&st.wdl);
        })?;
        Ok((dtc, Some(wdl)))
    }

    /// The DTC of every position of side `t`: wins from the file, losses from their moves
    /// into the wins of the other side (as the DTC file defines them; [`UNKNOWN`] when a
    /// move does not lead to a win), [`DRAW`] and [`ILLEGAL`] as the values.
    fn full_dtc(&self, t: usize) -> Result<Buf, TbError> {
        let (wins, verdicts) = self.win_dtc(1 - t)?;
        let side = Color::ALL[t];
        let mut out = self.backing.buf(self.n, 0)?;
        self.fill(t, [&mut out[..]], |start, st, [o]| {
            o.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
                let mut pieces = PieceList::new();
                for (k, b) in chunk.iter_mut().enumerate() {
                    let at = c * CHUNK + k;
                    let v = st.values[at];
                    *b = match v {
                        ILLEGAL => ILLEGAL,
                        v if v > MAX_DTM => DRAW,
                        v if v % 2 == 1 => decode_win(v, st.dtc[at]).unwrap_or(ILLEGAL),
                        _ => {
                            let here = if self.rule_verdicts {
                                Verdict::decode(st.wdl[at])
                            } else {
                                Some(Verdict::plain(Wdl::Loss))
                            };
                            self.loss_dtc(
                                start + at,
                                side,
                                here,
                                &mut pieces,
                                &wins,
                                verdicts.as_deref(),
                            )
                        }
                    };
                }
            });
        })?;
        Ok(out)
    }

    /// The DTC of the lost position `i` of `side` (verdict `here`) from the DTC of the wins
    /// of the other side (`wins`, verdicts `verdicts`): ILLEGAL for an illegal placement,
    /// UNKNOWN when it cannot be derived.
    fn loss_dtc(
        &self,
        i: usize,
        side: Color,
        here: Option<Verdict>,
        pieces: &mut PieceList,
        wins: &[u8],
        verdicts: Option<&[u8]>,
    ) -> u8 {
        if !self.index.unrank_into(i as u64, pieces) {
            return ILLEGAL;
        }
        let Ok(pos) = Position::from_pieces(pieces, side) else {
            return ILLEGAL;
        };
        if pos.check_placement_legal().is_err() {
            return ILLEGAL;
        }
        let Some(here) = here else {
            return UNKNOWN;
        };
        let mut moves = arrayvec::ArrayVec::<Option<u8>, { crate::board::MAX_MOVES }>::new();
        for m in pos.legal_moves() {
            if pos.piece_at(m.to()).is_some() {
                moves.push(None);
                continue;
            }
            let Some(j) = self.index.rank_position(&pos.after(m)) else {
                return UNKNOWN;
            };
            let c = wins[j as usize];
            if c > MAX_DTM {
                return UNKNOWN;
            }
            if here.ruling.is_some() {
                let ok = verdicts
                    .and_then(|v| Verdict::decode(v[j as usize]))
                    .is_some_and(|x| x.order < here.order);
                if !ok {
                    continue;
                }
            }
            moves.push(Some(c));
        }
        loss_dtc(moves)
    }
}

/// [`verify_files`], reporting the re-derivation as a phase of `progress` (one step per side
/// and block of 4,096 indices).
pub fn verify_files_reporting(
    dir: &Path,
    m: &Material,
    progress: &dyn Progress,
) -> Result<VerifyReport, TbError> {
    verify_files_limited(dir, m, None, progress)
}

/// [`verify_files_reporting`] within `memory` bytes when given (`verify --memory LIMIT`):
/// a table whose arrays do not fit keeps them in a work file (see the module
/// documentation).
pub fn verify_files_limited(
    dir: &Path,
    m: &Material,
    memory: Option<u64>,
    progress: &dyn Progress,
) -> Result<VerifyReport, TbError> {
    let (name, _) = table_material(*m);
    let files = Files::open(dir, name, memory)?;
    let rules = files.wdl.header.rules;
    let subs = SubFiles::open(dir, name, rules, cache_bytes(memory) as usize)?;
    let n = files.n;
    let trap = match needs_trap_check(rules, name) {
        true => Some(TrapSets::new(&files.backing, n)?),
        false => None,
    };
    let steps: usize = (0..2)
        .flat_map(|s| files.stretches(s))
        .map(|r| r.len().div_ceil(CHUNK))
        .sum();
    let phase = Phase::begin(
        progress,
        &name.to_string(),
        "re-deriving values",
        steps as u64,
    );
    let mut out = VerifyReport {
        work_file: match &files.backing {
            Backing::File(w) => Some(w.path().to_path_buf()),
            Backing::Heap => None,
        },
        ..VerifyReport::default()
    };
    for side in Color::ALL {
        let (s, t) = (side.index(), (!side).index());
        let other_dtc = match files.dtc {
            Some(_) => Some(files.full_dtc(t)?),
            None => None,
        };
        let (other_values, other_verdicts) = files.side_values(t)?;
        let pass = Pass {
            index: &files.index,
            side,
            other: SideView {
                values: &other_values,
                verdicts: other_verdicts.as_deref(),
                dtc: other_dtc.as_deref(),
            },
            captures: &subs,
            trap: trap.as_ref(),
            from_files: true,
        };
        let parts: Result<Vec<VerifyReport>, TbError> = files
            .stretches(s)
            .into_par_iter()
            .map(|r| {
                let st = files.stretch(s, r.clone())?;
                let dtc = files.dtc.as_ref().map(|_| own_dtc(&st));
                let view = SideView {
                    values: &st.values,
                    verdicts: files.rule_verdicts.then_some(&st.wdl[..]),
                    dtc: dtc.as_deref(),
                };
                let len = r.len();
                let rep = (0..len.div_ceil(CHUNK))
                    .into_par_iter()
                    .map(|c| {
                        phase.inc(1);
                        let mut rep = VerifyReport::default();
                        let k = c * CHUNK..((c + 1) * CHUNK).min(len);
                        pass.check_range(r.start + k.start, &view.slice(k), &mut rep);
                        rep
                    })
                    .reduce(VerifyReport::default, |mut a, b| {
                        a.merge(b);
                        a
                    });
                Ok(rep)
            })
            .collect();
        for p in parts? {
            out.merge(p);
        }
        if let Some(e) = subs.error() {
            return Err(e);
        }
    }
    phase.end();
    if let Some(trap) = trap {
        out.merge(trap.finish(&files.index));
    }
    Ok(out)
}

/// The stored DTC of a stretch's positions as the check reads them: wins from the file
/// (ILLEGAL where the byte contradicts the DTM), [`DTC_DERIVED`] for losses, the values'
/// markers elsewhere.
fn own_dtc(st: &Stretch) -> Vec<u8> {
    st.values
        .iter()
        .zip(&st.dtc)
        .map(|(&v, &b)| match v {
            ILLEGAL => ILLEGAL,
            v if v > MAX_DTM => DRAW,
            v if v % 2 == 1 => decode_win(v, b).unwrap_or(ILLEGAL),
            _ => DTC_DERIVED,
        })
        .collect()
}
