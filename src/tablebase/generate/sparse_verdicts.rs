//! The verdicts a table's generation hands over when its rule rounds ruled some position:
//! kept only for the positions open after round 0 (a byte each, the WDL-file byte, found by
//! the rank of [`Slots`]); every other position's verdict is the plain one of its value.
//! Before its WDL file is compressed the bytes go to a work file
//! ([`SparseVerdicts::spill`]) and the writer reads them a block at a time
//! ([`SparseVerdicts::window`]): the compression's contexts and buffers come on top of the
//! values alone.

use super::bytes::Bytes;
use super::slots::Slots;
use crate::tablebase::values::{wdl_of, Verdict};
use crate::tablebase::workfile::Buf;
use std::io::Write;
use std::path::PathBuf;

/// The verdicts of the positions open after round 0 (see the module documentation).
pub struct SparseVerdicts {
    pub(super) slots: [Slots; 2],
    /// The bytes in a work file instead of memory.
    spilled: Option<Spilled>,
}

/// A work file of the verdict bytes (Red's, then Black's), removed when dropped.
struct Spilled {
    file: std::fs::File,
    path: PathBuf,
    /// Bytes per side.
    counts: [usize; 2],
}

impl Drop for Spilled {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The verdict bytes of a range of positions (see [`SparseVerdicts::window`]).
pub struct Window<'a> {
    v: &'a SparseVerdicts,
    /// Per side: the slot of the first position of the range and the bytes from there
    /// (read from the work file; empty when the bytes are in memory).
    parts: [(usize, Vec<u8>); 2],
}

impl Window<'_> {
    /// The WDL-file byte of index `i` with side `s` to move (inside the window's range),
    /// None when it is the plain verdict of its value.
    #[inline]
    pub fn get(&self, s: usize, i: usize) -> Option<u8> {
        if self.v.spilled.is_none() {
            return self.v.get(s, i);
        }
        let slots = &self.v.slots[s];
        let (first, bytes) = &self.parts[s];
        slots.has(i).then(|| bytes[slots.slot(i) - first])
    }
}

impl SparseVerdicts {
    pub(super) fn new(slots: [Slots; 2]) -> SparseVerdicts {
        SparseVerdicts {
            slots,
            spilled: None,
        }
    }

    /// The WDL-file byte of index `i` with side `s` to move (0 Red, 1 Black), None when it
    /// is the plain verdict of its value; the bytes must be in memory (not spilled).
    #[inline]
    pub fn get(&self, s: usize, i: usize) -> Option<u8> {
        let slots = &self.slots[s];
        slots.has(i).then(|| slots.get(i))
    }

    /// The verdicts of every position (a byte each, 255 for illegal placements), given the
    /// table's values (the bytes in memory).
    pub fn dense(&self, values: &[Buf; 2]) -> [Buf; 2] {
        [0, 1].map(|s| {
            let v: Vec<u8> = values[s]
                .iter()
                .enumerate()
                .map(|(i, &x)| match self.get(s, i) {
                    Some(b) => b,
                    None => wdl_of(x).map_or(255, |w| Verdict::plain(w).encode()),
                })
                .collect();
            Buf::from(v)
        })
    }

    /// Move the bytes to the work file `path` (removed when the verdicts are dropped).
    pub fn spill(&mut self, path: PathBuf) -> std::io::Result<()> {
        if self.spilled.is_some() {
            return Ok(());
        }
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)?;
        let mut spilled = Spilled {
            file,
            path: path.clone(),
            counts: [0; 2],
        };
        {
            let mut w = std::io::BufWriter::new(&spilled.file);
            let mut buf = vec![0u8; 1 << 16];
            for (s, slots) in self.slots.iter().enumerate() {
                let b = &slots.bytes;
                spilled.counts[s] = b.len();
                for start in (0..b.len()).step_by(buf.len()) {
                    let len = buf.len().min(b.len() - start);
                    b.read_range(start, &mut buf[..len]);
                    w.write_all(&buf[..len])?;
                }
            }
            w.flush()?;
        }
        for slots in &mut self.slots {
            slots.bytes = Bytes::new(0, 0);
        }
        self.spilled = Some(spilled);
        Ok(())
    }

    /// The bytes of the positions `range` of the concatenation of both sides to move
    /// (Red's `n` first), read at once from the work file when spilled.
    pub fn window(&self, n: usize, range: std::ops::Range<usize>) -> std::io::Result<Window<'_>> {
        let mut parts = [(0, Vec::new()), (0, Vec::new())];
        if let Some(sp) = &self.spilled {
            for (s, part) in parts.iter_mut().enumerate() {
                let (lo, hi) = (s * n, (s + 1) * n);
                let (a, b) = (range.start.max(lo), range.end.min(hi));
                if a >= b {
                    continue;
                }
                let slots = &self.slots[s];
                let slot = |i: usize| {
                    if i >= slots.open.words() * 64 {
                        sp.counts[s]
                    } else {
                        slots.slot(i)
                    }
                };
                let (first, last) = (slot(a - lo), slot(b - lo));
                let mut bytes = vec![0u8; last - first];
                let off = (if s == 1 { sp.counts[0] } else { 0 } + first) as u64;
                std::os::unix::fs::FileExt::read_exact_at(&sp.file, &mut bytes, off)?;
                *part = (first, bytes);
            }
        }
        Ok(Window { v: self, parts })
    }
}
