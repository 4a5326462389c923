//! Arrays of bytes and bits shared by the generator's threads: eight bytes (or 64 bits) per
//! atomic word, so that a scan tests eight positions at once and any byte can be updated
//! atomically. The bytes are on the heap, in a region of the out-of-core work file (see
//! [`Backing`]), or in a file of their own mapped shared ([`Bytes::map_file`]: bytes that
//! are seldom read, whose pages the process holds only while it touches them).

use crate::tablebase::table::TbError;
use crate::tablebase::workfile::{Backing, Buf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Where the bytes of [`Words`] are.
enum Store {
    /// A buffer on the heap or in the work file.
    Buf(Buf),
    /// A file of their own, mapped shared (see [`Bytes::map_file`]).
    Map(memmap2::MmapMut),
}

/// A [`Buf`] (or a mapped file) seen as 8-byte atomic words (from its first 8-byte
/// boundary on).
struct Words {
    buf: Store,
    /// `buf`'s own pointer (taken mutably once), advanced to an 8-byte boundary.
    base: *mut u8,
    off: usize,
    words: usize,
}

// SAFETY: every access after construction goes through atomic words (see `atoms`); the
// buffer is owned and only handed out by `into_buf`, which consumes the value.
unsafe impl Sync for Words {}
// SAFETY: as above; the raw pointer points into the owned buffer.
unsafe impl Send for Words {}

impl Words {
    /// `words` words of bytes `fill`, where `backing` puts them.
    fn new(backing: &Backing, words: usize, fill: u8) -> Result<Words, TbError> {
        // a mapped buffer starts on a page; a heap one may need up to 7 bytes to align
        let slack = if backing.is_file() { 0 } else { 8 };
        let mut buf = backing.buf(words * 8 + slack, fill)?;
        let start = buf.as_mut_ptr();
        let off = start.align_offset(8);
        assert!(
            off <= slack,
            "a byte buffer can be aligned to 8 within its slack"
        );
        // SAFETY: off <= slack and the buffer has words * 8 + slack bytes.
        let base = unsafe { start.add(off) };
        Ok(Words {
            buf: Store::Buf(buf),
            base,
            off,
            words,
        })
    }

    /// The first `words` words of `file` (grown to their length if shorter), mapped shared.
    fn map_file(
        file: &std::fs::File,
        words: usize,
        path: &std::path::Path,
    ) -> Result<Words, TbError> {
        let io = |e: std::io::Error| TbError::Io {
            path: path.display().to_string(),
            source: e,
        };
        // (a word at least: a mapping is never empty, and every byte of it is in the file)
        let len = words.max(1) * 8;
        if file.metadata().map_err(io)?.len() < len as u64 {
            file.set_len(len as u64).map_err(io)?;
        }
        // SAFETY: the caller's file is a work file of this process alone (unlinked), mapped
        // once here and reached only through the atomic words.
        let mut map = unsafe { memmap2::MmapOptions::new().len(len).map_mut(file) }.map_err(io)?;
        // a mapping starts on a page: aligned
        let base = map.as_mut_ptr();
        Ok(Words {
            buf: Store::Map(map),
            base,
            off: 0,
            words,
        })
    }

    /// The buffer, when not a mapped file of its own.
    fn buf(&self) -> Option<&Buf> {
        match &self.buf {
            Store::Buf(b) => Some(b),
            Store::Map(_) => None,
        }
    }

    #[inline(always)]
    fn atoms(&self) -> &[AtomicU64] {
        // SAFETY: `base` is 8-byte aligned and points to `words` words inside the owned
        // buffer, which lives as long as `self`; AtomicU64 has u64's layout; no plain
        // reference to the buffer exists while `self` is shared.
        unsafe { std::slice::from_raw_parts(self.base as *const AtomicU64, self.words) }
    }

    /// The buffer, its first `len` bytes those of the words (a mapped file's copied to the
    /// heap).
    fn into_buf(self, len: usize) -> Buf {
        let Words { buf, off, .. } = self;
        let mut buf = match buf {
            Store::Buf(b) => b,
            Store::Map(m) => return Buf::from(m[..len].to_vec()),
        };
        if off > 0 {
            buf.copy_within(off..off + len, 0);
        }
        buf.truncate(len);
        buf
    }
}

/// One byte per position, in a plain byte buffer (on the heap or in a work file, see
/// [`Backing`]) that the threads share as 8-byte atomic words; [`Bytes::into_buf`] hands
/// the buffer over without a copy (the table's peak memory is the generation state, not the
/// generation state plus its result).
pub(super) struct Bytes {
    w: Words,
    len: usize,
}

impl Bytes {
    /// `len` bytes of value `fill` on the heap.
    pub fn new(len: usize, fill: u8) -> Bytes {
        match Bytes::with(&Backing::Heap, len, fill) {
            Ok(b) => b,
            Err(e) => unreachable!("the heap backing does not fail: {e}"),
        }
    }

    /// `len` bytes of value `fill`, where `backing` puts them.
    pub fn with(backing: &Backing, len: usize, fill: u8) -> Result<Bytes, TbError> {
        Ok(Bytes {
            w: Words::new(backing, len.div_ceil(8), fill)?,
            len,
        })
    }

    #[inline(always)]
    fn words(&self) -> &[AtomicU64] {
        self.w.atoms()
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> u8 {
        (self.words()[i >> 3].load(Relaxed) >> ((i & 7) * 8)) as u8
    }

    /// Hint that byte `i` is about to be read and written (no effect on the value).
    #[inline(always)]
    pub fn prefetch(&self, i: usize) {
        #[cfg(target_arch = "x86_64")]
        if let Some(w) = self.words().get(i >> 3) {
            // SAFETY: a prefetch is only a hint; the address is inside the buffer.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    w.as_ptr() as *const i8
                )
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    /// Atomically replace byte `i` by `f(byte)` unless `f` answers None; returns the old
    /// byte (Ok when replaced).
    #[inline(always)]
    pub fn update(&self, i: usize, mut f: impl FnMut(u8) -> Option<u8>) -> Result<u8, u8> {
        let shift = (i & 7) * 8;
        let mask = 0xFFu64 << shift;
        self.words()[i >> 3]
            .fetch_update(Relaxed, Relaxed, |w| {
                f((w >> shift) as u8).map(|b| (w & !mask) | ((b as u64) << shift))
            })
            .map(|w| (w >> shift) as u8)
            .map_err(|w| (w >> shift) as u8)
    }

    #[inline(always)]
    pub fn set(&self, i: usize, v: u8) {
        let _ = self.update(i, |_| Some(v));
    }

    #[inline(always)]
    pub fn or(&self, i: usize, bits: u8) {
        self.words()[i >> 3].fetch_or((bits as u64) << ((i & 7) * 8), Relaxed);
    }

    /// Call `f` for every index in `start..end` (`start` a multiple of 8) whose byte is `v`.
    /// In a work file, a scan is also where the resident set is checked (see
    /// [`crate::tablebase::workfile::WorkFile::tick`]).
    #[inline(always)]
    pub fn scan(&self, start: usize, end: usize, v: u8, mut f: impl FnMut(usize)) {
        if let Some(w) = self.work_file() {
            w.tick();
        }
        let pattern = ONES * v as u64;
        let words = self.words();
        for (w, word) in words
            .iter()
            .enumerate()
            .take(end.div_ceil(8))
            .skip(start / 8)
        {
            let x = word.load(Relaxed) ^ pattern;
            let mut hits = x.wrapping_sub(ONES) & !x & HIGHS;
            while hits != 0 {
                let b = (hits.trailing_zeros() / 8) as usize;
                hits &= hits - 1;
                let i = w * 8 + b;
                // the zero-byte test can flag a byte above a true zero byte: check it
                if i < end && (x >> (b * 8)) as u8 == 0 {
                    f(i);
                }
            }
        }
    }

    /// The bytes `k..k + c` (`c` at most 64) that are `v`: bit `j` set when byte `k + j`
    /// is, the bytes tested eight at a time.
    #[inline(always)]
    pub fn matches(&self, k: usize, c: usize, v: u8) -> u64 {
        const LOWS: u64 = !HIGHS;
        let pattern = ONES * v as u64;
        let words = self.words();
        let end = k + c;
        let mut out = 0u64;
        let mut w = k / 8;
        while w * 8 < end {
            let x = words[w].load(Relaxed) ^ pattern;
            // the high bit of each byte of `x` that is zero (exactly: no carry between
            // bytes)
            let mut zero = !(((x & LOWS) + LOWS) | x | LOWS);
            while zero != 0 {
                let at = w * 8 + (zero.trailing_zeros() / 8) as usize;
                zero &= zero - 1;
                if (k..end).contains(&at) {
                    out |= 1 << (at - k);
                }
            }
            w += 1;
        }
        out
    }

    /// Number of bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Copy bytes `start..start + out.len()` into `out` (`start` a multiple of 8; for
    /// checkpoints, at a point where no thread writes).
    pub fn read_range(&self, start: usize, out: &mut [u8]) {
        let words = self.words();
        for (k, chunk) in out.chunks_mut(8).enumerate() {
            let w = words[start / 8 + k].load(Relaxed).to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
    }

    /// Overwrite bytes `start..start + data.len()` (`start` a multiple of 8; when resuming
    /// from a checkpoint, before any pass runs).
    pub fn write_range(&self, start: usize, data: &[u8]) {
        let words = self.words();
        for (k, chunk) in data.chunks(8).enumerate() {
            let word = &words[start / 8 + k];
            let mut w = word.load(Relaxed).to_le_bytes();
            w[..chunk.len()].copy_from_slice(chunk);
            word.store(u64::from_le_bytes(w), Relaxed);
        }
    }

    /// The work file the bytes are in, if any (not a mapped file of their own).
    pub fn work_file(&self) -> Option<&std::sync::Arc<crate::tablebase::workfile::WorkFile>> {
        self.w.buf().and_then(|b| b.work_file())
    }

    /// Where the bytes are (the heap or a work file): for arrays that go beside them (the
    /// heap for a mapped file of their own).
    pub fn backing(&self) -> Backing {
        self.w.buf().map_or(Backing::Heap, |b| b.backing())
    }

    /// The first `len` bytes of `file` (an unlinked work file of this process, grown to
    /// whole words when shorter; `path` its name, for errors), mapped shared: the process
    /// holds a page only from when it is touched until [`Bytes::drop_pages`]; the page
    /// cache, the kernel's reclaimable memory, holds the rest.
    pub fn map_file(
        file: &std::fs::File,
        len: usize,
        path: &std::path::Path,
    ) -> Result<Bytes, TbError> {
        Ok(Bytes {
            w: Words::map_file(file, len.div_ceil(8), path)?,
            len,
        })
    }

    /// Let go of the pages of bytes `start..start + len` of a mapped file (see
    /// [`Bytes::map_file`]; the pages that hold only bytes of the range): their data stays
    /// in the file, the next touch maps them again. No effect on other bytes.
    pub fn drop_pages(&self, start: usize, len: usize) {
        let Store::Map(m) = &self.w.buf else {
            return;
        };
        const PAGE: usize = 4096;
        let from = start.next_multiple_of(PAGE);
        let to = ((start + len).min(m.len()) / PAGE) * PAGE;
        if to > from {
            // SAFETY: a page-aligned range inside our shared file mapping; MADV_DONTNEED
            // there keeps the data (in the page cache and the file) and only unmaps the
            // pages from this process.
            unsafe {
                libc::madvise(
                    m.as_ptr().add(from) as *mut libc::c_void,
                    to - from,
                    libc::MADV_DONTNEED,
                );
            }
        }
    }

    /// The bytes as a buffer (without a copy when mapped).
    pub fn into_buf(self) -> Buf {
        self.w.into_buf(self.len)
    }
}

/// One bit per position.
pub(super) struct Bits {
    w: Words,
}

impl Bits {
    /// `len` clear bits on the heap (the generator's bit arrays go where its state is, see
    /// [`Bits::with`]).
    #[cfg(test)]
    pub fn new(len: usize) -> Bits {
        Bits::heap(len)
    }

    /// `len` clear bits on the heap.
    pub fn heap(len: usize) -> Bits {
        match Bits::with(&Backing::Heap, len) {
            Ok(b) => b,
            Err(e) => unreachable!("the heap backing does not fail: {e}"),
        }
    }

    /// `len` clear bits, where `backing` puts them.
    pub fn with(backing: &Backing, len: usize) -> Result<Bits, TbError> {
        Ok(Bits {
            w: Words::new(backing, len.div_ceil(64), 0)?,
        })
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> bool {
        self.w.atoms()[i >> 6].load(Relaxed) >> (i & 63) & 1 != 0
    }

    #[inline(always)]
    pub fn set(&self, i: usize) {
        let w = &self.w.atoms()[i >> 6];
        let bit = 1 << (i & 63);
        // most marks find the bit set already: test first, keep the line shared
        if w.load(Relaxed) & bit == 0 {
            w.fetch_or(bit, Relaxed);
        }
    }

    /// Clear bit `i`.
    #[inline(always)]
    pub fn clear(&self, i: usize) {
        let w = &self.w.atoms()[i >> 6];
        let bit = 1 << (i & 63);
        if w.load(Relaxed) & bit != 0 {
            w.fetch_and(!bit, Relaxed);
        }
    }

    /// Hint that bit `i` is about to be read (no effect on the value).
    #[inline(always)]
    pub fn prefetch(&self, i: usize) {
        #[cfg(target_arch = "x86_64")]
        if let Some(w) = self.w.atoms().get(i >> 6) {
            // SAFETY: a prefetch is only a hint; the address is inside the buffer.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    w.as_ptr() as *const i8
                )
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    /// Number of 64-bit words.
    pub fn words(&self) -> usize {
        self.w.words
    }

    /// Where the bits are: for arrays that go beside them.
    pub fn backing(&self) -> Backing {
        self.w.buf().map_or(Backing::Heap, |b| b.backing())
    }

    /// The work file the bits are in, if any.
    pub fn work_file(&self) -> Option<&std::sync::Arc<crate::tablebase::workfile::WorkFile>> {
        self.w.buf().and_then(|b| b.work_file())
    }

    /// The two bits number `p` (bits `2 p` and `2 p + 1`, the first the low one).
    #[inline(always)]
    pub fn pair(&self, p: usize) -> u8 {
        (self.w.atoms()[p >> 5].load(Relaxed) >> ((p & 31) * 2)) as u8 & 3
    }

    /// Atomically replace the two bits number `p` by `f(them)` unless `f` answers None;
    /// the old ones (Ok when replaced).
    #[inline(always)]
    pub fn update_pair(&self, p: usize, mut f: impl FnMut(u8) -> Option<u8>) -> Result<u8, u8> {
        let shift = (p & 31) * 2;
        self.w.atoms()[p >> 5]
            .fetch_update(Relaxed, Relaxed, |w| {
                f((w >> shift) as u8 & 3).map(|v| (w & !(3 << shift)) | ((v as u64 & 3) << shift))
            })
            .map(|w| (w >> shift) as u8 & 3)
            .map_err(|w| (w >> shift) as u8 & 3)
    }

    /// The 64 bits from bit `b` on (past the end: 0), bit `b` the low one.
    #[inline(always)]
    pub fn bits_from(&self, b: usize) -> u64 {
        let (w, off) = (b >> 6, b & 63);
        let mut x = self.word(w) >> off;
        if off > 0 {
            x |= self.word(w + 1) << (64 - off);
        }
        x
    }

    /// Word `w` (bits `64 w .. 64 w + 64`; a word past the end reads 0).
    #[inline(always)]
    pub fn word(&self, w: usize) -> u64 {
        self.w.atoms().get(w).map_or(0, |x| x.load(Relaxed))
    }

    /// Take word `w` (its bits are cleared).
    #[inline(always)]
    pub fn take(&self, w: usize) -> u64 {
        if self.w.atoms()[w].load(Relaxed) == 0 {
            0
        } else {
            self.w.atoms()[w].swap(0, Relaxed)
        }
    }

    /// True when no bit is set.
    pub fn is_empty(&self) -> bool {
        self.w.atoms().iter().all(|w| w.load(Relaxed) == 0)
    }

    /// Copy the bits as little-endian words: bytes `start..start + out.len()` of that image
    /// (`start` a multiple of 8).
    pub fn read_range(&self, start: usize, out: &mut [u8]) {
        for (k, chunk) in out.chunks_mut(8).enumerate() {
            let w = self.w.atoms()[start / 8 + k].load(Relaxed).to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
    }

    /// Overwrite bytes `start..start + data.len()` of the little-endian image (`start` a
    /// multiple of 8; `data` whole words).
    pub fn write_range(&self, start: usize, data: &[u8]) {
        for (k, chunk) in data.chunks(8).enumerate() {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.w.atoms()[start / 8 + k].store(u64::from_le_bytes(w), Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_update_scan_and_bits() {
        let b = Bytes::new(21, 0xFF);
        b.set(3, 7);
        b.set(17, 7);
        assert_eq!(b.update(3, |x| (x == 7).then_some(9)), Ok(7));
        assert_eq!(b.update(3, |x| (x == 7).then_some(9)), Err(9));
        b.or(20, 0x01);
        assert_eq!(b.get(20), 0xFF);
        let mut hits = Vec::new();
        b.scan(0, 21, 7, |i| hits.push(i));
        assert_eq!(hits, vec![17]);
        let v = b.into_buf();
        assert_eq!((v.len(), v[3], v[0]), (21, 9, 0xFF));
        let bits = Bits::new(130);
        bits.set(129);
        assert!(bits.get(129) && !bits.get(128));
        bits.clear(129);
        bits.clear(128);
        assert!(!bits.get(129) && !bits.get(128));
        let m = Bytes::new(80, 3);
        for i in [0, 7, 8, 9, 30, 70, 79] {
            m.set(i, 0x85);
        }
        assert_eq!(
            m.matches(0, 64, 0x85),
            1 | 1 << 7 | 1 << 8 | 1 << 9 | 1 << 30
        );
        assert_eq!(m.matches(9, 64, 0x85), 1 | 1 << 21 | 1 << 61);
        assert_eq!(m.matches(10, 60, 0x85), 1 << 20);
        assert_eq!(m.matches(79, 1, 0x85), 1);
        assert_eq!(m.matches(1, 5, 3), 0b11111);
    }
}
