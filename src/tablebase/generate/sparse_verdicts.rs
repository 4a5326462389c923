//! The verdicts a table's generation hands over when its rule rounds ruled some position:
//! kept only for the positions open after round 0 (a byte each, the WDL-file byte, found by
//! the rank of [`Slots`]); every other position's verdict is the plain one of its value.
//! Before its WDL file is compressed the bytes go to a work file
//! ([`SparseVerdicts::spill`]; a table whose step 4 packed its codes hands them over there
//! already, see [`super::dtm_codes`]) and the writer reads them a block at a time
//! ([`SparseVerdicts::window`]), and so do the open bits that find them (an eighth of a
//! byte per position), the rank counts staying (a sixty-fourth of that): the compression's
//! contexts and buffers come on top of the values alone. Open bits held sparse (step 4 with
//! packed codes, when few positions keep a slot: KCAAKCAA's 2,425 a side, see
//! [`Slots::go_sparse`]) are small and stay.

use super::bytes::Bytes;
use super::slots::Slots;
use crate::tablebase::values::{wdl_of, Verdict};
use crate::tablebase::workfile::Buf;
use byteorder::{ByteOrder, LittleEndian, WriteBytesExt};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Arc;

/// The verdicts of the positions open after round 0 (see the module documentation).
pub struct SparseVerdicts {
    pub(super) slots: [Slots; 2],
    /// The bytes in a work file instead of memory.
    spilled: Option<Spilled>,
}

/// A work file of bytes read and written at offsets, removed when dropped.
pub(super) struct WorkBytes {
    file: std::fs::File,
    path: PathBuf,
}

impl WorkBytes {
    /// A new empty work file at `path` (one left there is replaced).
    pub fn create(path: PathBuf) -> std::io::Result<WorkBytes> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)?;
        Ok(WorkBytes { file, path })
    }

    /// Fill `out` from offset `at`.
    pub fn read_at(&self, out: &mut [u8], at: u64) -> std::io::Result<()> {
        self.file.read_exact_at(out, at)
    }

    /// Write `data` at offset `at`.
    pub fn write_at(&self, data: &[u8], at: u64) -> std::io::Result<()> {
        self.file.write_all_at(data, at)
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }
}

impl Drop for WorkBytes {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Where the verdict bytes of each side are: a work file and the offset of the side's
/// first byte.
struct Spilled {
    sides: [(Arc<WorkBytes>, u64); 2],
    /// Bytes per side.
    counts: [usize; 2],
    /// Where the open bits of the slots are once moved out of memory (see
    /// [`SparseVerdicts::spill`]): a work file and the number of words of each side (Red's
    /// first).
    open: Option<(WorkBytes, [usize; 2])>,
}

/// The open bits of a window's range, read from the work file (see [`SparseVerdicts::spill`]).
struct OpenPart {
    /// The first word of the range.
    w0: usize,
    /// The words from `w0`, the bits before the range's start cleared.
    words: Vec<u64>,
    /// Per word, the set bits of the words before it (from the range's start).
    before: Vec<u32>,
}

/// The verdict bytes of a range of positions (see [`SparseVerdicts::window`]).
pub struct Window<'a> {
    v: &'a SparseVerdicts,
    /// Per side: the slot of the first position of the range and the bytes from there
    /// (read from the work file; empty when the bytes are in memory).
    parts: [(usize, Vec<u8>); 2],
    /// Per side: the open bits of the range, when they are in the work file too.
    open: [Option<OpenPart>; 2],
}

impl Window<'_> {
    /// The WDL-file byte of index `i` with side `s` to move (inside the window's range),
    /// None when it is the plain verdict of its value.
    #[inline]
    pub fn get(&self, s: usize, i: usize) -> Option<u8> {
        if self.v.spilled.is_none() {
            return self.v.get(s, i);
        }
        let (first, bytes) = &self.parts[s];
        if let Some(o) = &self.open[s] {
            let w = (i >> 6) - o.w0;
            let x = o.words[w];
            let below = x & ((1u64 << (i & 63)) - 1);
            return (x >> (i & 63) & 1 != 0)
                .then(|| bytes[o.before[w] as usize + below.count_ones() as usize]);
        }
        let slots = &self.v.slots[s];
        slots.holds(i).then(|| bytes[slots.rank(i) - first])
    }
}

impl SparseVerdicts {
    pub(super) fn new(slots: [Slots; 2]) -> SparseVerdicts {
        SparseVerdicts {
            slots,
            spilled: None,
        }
    }

    /// The verdicts whose bytes are in work files already: side `s`'s `counts[s]` bytes at
    /// `sides[s]` (the slots' own bytes are not used).
    pub(super) fn in_work_file(
        slots: [Slots; 2],
        sides: [(Arc<WorkBytes>, u64); 2],
        counts: [usize; 2],
    ) -> SparseVerdicts {
        SparseVerdicts {
            slots,
            spilled: Some(Spilled {
                sides,
                counts,
                open: None,
            }),
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
    /// table's values (`n` positions per side).
    pub fn dense(&self, values: &[Buf; 2]) -> std::io::Result<[Buf; 2]> {
        let n = values[0].len();
        let mut out = [Buf::from(Vec::new()), Buf::from(Vec::new())];
        for (s, o) in out.iter_mut().enumerate() {
            let w = self.window(n, s * n..(s + 1) * n)?;
            let v: Vec<u8> = values[s]
                .iter()
                .enumerate()
                .map(|(i, &x)| match w.get(s, i) {
                    Some(b) => b,
                    None => wdl_of(x).map_or(255, |w| Verdict::plain(w).encode()),
                })
                .collect();
            *o = Buf::from(v);
        }
        Ok(out)
    }

    /// Move the bytes to the work file `path`, and the open bits to one beside it
    /// (`.open.work`; both removed when the verdicts are dropped).
    pub fn spill(&mut self, path: PathBuf) -> std::io::Result<()> {
        if self.spilled.is_none() {
            self.spill_bytes(path.clone())?;
        }
        self.spill_open(path.with_extension("open.work"))
    }

    /// Move the open bits of the slots to the work file `path` (the rank counts stay).
    fn spill_open(&mut self, path: PathBuf) -> std::io::Result<()> {
        let Some(sp) = &mut self.spilled else {
            return Ok(());
        };
        // sparse open bits are small: they stay
        if sp.open.is_some() || self.slots.iter().any(|s| s.is_sparse_open()) {
            return Ok(());
        }
        let work = WorkBytes::create(path)?;
        let mut words = [0; 2];
        {
            let mut w = std::io::BufWriter::new(&work.file);
            for (s, slots) in self.slots.iter().enumerate() {
                words[s] = slots.open.words();
                for k in 0..words[s] {
                    w.write_u64::<LittleEndian>(slots.open.word(k))?;
                }
            }
            w.flush()?;
        }
        for slots in &mut self.slots {
            slots.open = super::bytes::Bits::with(&crate::tablebase::workfile::Backing::Heap, 0)
                .map_err(std::io::Error::other)?;
        }
        sp.open = Some((work, words));
        Ok(())
    }

    /// Move the bytes to the work file `path`.
    fn spill_bytes(&mut self, path: PathBuf) -> std::io::Result<()> {
        let work = Arc::new(WorkBytes::create(path)?);
        let mut counts = [0; 2];
        {
            let mut w = std::io::BufWriter::new(&work.file);
            let mut buf = vec![0u8; 1 << 16];
            for (s, slots) in self.slots.iter().enumerate() {
                let b = &slots.bytes;
                counts[s] = b.len();
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
        self.spilled = Some(Spilled {
            sides: [(work.clone(), 0), (work, counts[0] as u64)],
            counts,
            open: None,
        });
        Ok(())
    }

    /// The bytes of the positions `range` of the concatenation of both sides to move
    /// (Red's `n` first), read at once from the work file when spilled.
    pub fn window(&self, n: usize, range: std::ops::Range<usize>) -> std::io::Result<Window<'_>> {
        let mut parts = [(0, Vec::new()), (0, Vec::new())];
        let mut open = [None, None];
        if let Some(sp) = &self.spilled {
            for (s, part) in parts.iter_mut().enumerate() {
                let (lo, hi) = (s * n, (s + 1) * n);
                let (a, b) = (range.start.max(lo), range.end.min(hi));
                if a >= b {
                    continue;
                }
                let slots = &self.slots[s];
                if let Some((file, words)) = &sp.open {
                    let (a, b) = (a - lo, b - lo);
                    let o = open_part(file, s, *words, slots, a, b)?;
                    let first = o.1;
                    let mut bytes = vec![0u8; o.2];
                    let (vf, off) = &sp.sides[s];
                    vf.read_at(&mut bytes, off + first as u64)?;
                    *part = (first, bytes);
                    open[s] = Some(o.0);
                    continue;
                }
                let slot = |i: usize| {
                    if i >= slots.open_words() * 64 {
                        sp.counts[s]
                    } else {
                        slots.rank(i)
                    }
                };
                let (first, last) = (slot(a - lo), slot(b - lo));
                let mut bytes = vec![0u8; last - first];
                let (file, off) = &sp.sides[s];
                file.read_at(&mut bytes, off + first as u64)?;
                *part = (first, bytes);
            }
        }
        Ok(Window {
            v: self,
            parts,
            open,
        })
    }
}

/// The open bits of side `s` for the indices `a..b` read from `file` (`words`: each side's
/// number of words, Red's first), with the slot of index `a` and the number of set bits in
/// the range.
fn open_part(
    file: &WorkBytes,
    s: usize,
    words: [usize; 2],
    slots: &Slots,
    a: usize,
    b: usize,
) -> std::io::Result<(OpenPart, usize, usize)> {
    let w0 = a / 64;
    let (base, from) = slots.block_rank(w0);
    let end = b.div_ceil(64).min(words[s]);
    let mut raw = vec![0u8; (end - from) * 8];
    let side_off = if s == 0 { 0 } else { words[0] * 8 };
    file.read_at(&mut raw, (side_off + from * 8) as u64)?;
    let mut all = vec![0u64; end - from];
    LittleEndian::read_u64_into(&raw, &mut all);
    let head = w0 - from;
    let lead = all[head] & ((1u64 << (a & 63)) - 1);
    let first = base
        + all[..head]
            .iter()
            .map(|x| x.count_ones() as usize)
            .sum::<usize>()
        + lead.count_ones() as usize;
    let mut words_in = all[head..].to_vec();
    words_in[0] &= !((1u64 << (a & 63)) - 1);
    if let Some(last) = words_in.last_mut() {
        if !b.is_multiple_of(64) && b.div_ceil(64) == end {
            *last &= (1u64 << (b % 64)) - 1;
        }
    }
    let mut before = Vec::with_capacity(words_in.len());
    let mut count = 0u32;
    for x in &words_in {
        before.push(count);
        count += x.count_ones();
    }
    Ok((
        OpenPart {
            w0,
            words: words_in,
            before,
        },
        first,
        count as usize,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::workfile::Backing;

    /// Spilled (the bytes and then the open bits in work files), the verdicts read through
    /// windows of any range are those held in memory; the work files go with them.
    #[test]
    fn spilled_windows_read_what_memory_held() {
        let n = 5000;
        let side = |m: usize| {
            let mut s = Slots::empty(&Backing::Heap, n, true).expect("heap");
            for i in (0..n).filter(|i| (i * m) % 7 < 3 || (1200..1300).contains(i)) {
                s.open.set(i);
            }
            s.allocate(&Backing::Heap, 0).expect("heap");
            for k in 0..s.bytes.len() {
                s.bytes.set(k, (k * 13 % 251) as u8);
            }
            s
        };
        let mut v = SparseVerdicts::new([side(3), side(5)]);
        let want: Vec<Option<u8>> = (0..2 * n).map(|j| v.get(j / n, j % n)).collect();
        let dir = std::env::temp_dir().join(format!("xqdb-sparse-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let path = dir.join("T.verdicts.work");
        v.spill(path.clone()).expect("spilled");
        assert!(v.slots[0].open.words() == 0 && path.with_extension("open.work").exists());
        for len in [1, 63, 64, 65, 777, 2 * n] {
            for start in (0..2 * n).step_by(len.max(311)) {
                let end = (start + len).min(2 * n);
                let w = v.window(n, start..end).expect("a window");
                for (j, &x) in want.iter().enumerate().take(end).skip(start) {
                    assert_eq!(w.get(j / n, j % n), x, "position {j} in {start}..{end}");
                }
            }
        }
        drop(v);
        assert!(!path.exists() && !path.with_extension("open.work").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
