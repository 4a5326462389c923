//! The value bytes of a table with repetition-rule rounds while the rounds run (step 3),
//! kept sparse: a code only for the positions open after round 0 (beside their flags,
//! found by the same rank, see [`super::slots`] and [`super::slots::Flags`]; split into
//! two bits in memory and the code byte in a work file, see [`super::split_codes`]: an open
//! position's counter is seen only by [`RoundCodes::update`] and the checkpoint's image,
//! every other reader sees it as [`code::COUNTER`]), and two bits
//! for every other position (won or lost in round 0; neither: an illegal placement), one
//! pair after another in index order, found by the same rank too (a position's pair is the
//! number of positions before it without a slot: its index less its slot's). Only open
//! positions change in the rounds, and a decided position of round 0 is read only as lost or not, so
//! [`RoundCodes`] shows the rounds the very codes a dense byte per position held (see
//! [`super::code`]; but for the open positions' counters, as said). The split code bytes
//! are written to their work file as they are read from the levels file, one side after
//! the other, and read back (exactly, drawn positions included) when the rounds end with
//! a ruling.
//!
//! The dense value bytes are given up when the rounds start ([`Gen::go_sparse`]) and built
//! again when they end with a ruling ([`Gen::close_rounds`]): from round 0's levels in their
//! work file ([`LevelsFile`]), so that the dense bytes and the bits are never held at once,
//! or (resumed in the rounds, where that file is gone) from the bits, one side at a time.
//! A checkpoint in the rounds sees the dense codes ([`RoundCodes::read_range`]): its layout
//! is that of a state with dense value bytes.

use super::bytes::{Bits, Bytes};
use super::params::CHUNK;
use super::slots::{unlinked_work_file, LevelsFile, Slots};
use super::split_codes::SplitWriter;
use super::{code, compact, Gen};
use crate::tablebase::table::TbError;
use crate::tablebase::workfile::Backing;
use std::io::{Read, Seek, SeekFrom, Write};

/// The two bits of a position without a slot ([`Slots::plain`]): won, lost (neither: an
/// illegal placement).
const WON: u64 = 1;
const LOST: u64 = 2;

/// The code of a position without a slot from its two bits (the low two of `t`).
#[inline(always)]
fn pair_code(t: u64) -> u8 {
    match t & 3 {
        WON => code::make(0, code::WIN),
        LOST => code::make(0, code::LOSS),
        _ => code::ILLEGAL,
    }
}

/// The codes of one side to move during the rule rounds (see the module documentation).
#[derive(Copy, Clone)]
pub(super) struct RoundCodes<'a> {
    s: &'a Slots,
}

impl<'a> RoundCodes<'a> {
    /// The code of a position without a slot (`i` its index).
    #[inline(always)]
    fn plain(&self, i: usize) -> u8 {
        self.pair(i - self.s.slot(i))
    }

    /// The code of the position without a slot whose pair is number `p`.
    #[inline(always)]
    fn pair(&self, p: usize) -> u8 {
        pair_code(self.s.plain.word(p >> 5) >> ((p & 31) * 2))
    }

    /// The pairs `p .. p + 8` (past the end: illegal placements), the first in the low bits.
    #[inline(always)]
    fn pairs(&self, p: usize) -> u64 {
        let (w, off) = (p >> 5, (p & 31) * 2);
        let words = self.s.plain.words();
        let mut x = if w < words {
            self.s.plain.word(w) >> off
        } else {
            0
        };
        if off > 48 && w + 1 < words {
            x |= self.s.plain.word(w + 1) << (64 - off);
        }
        x
    }

    /// The code of position `i` (split, an open position's counter is not shown: see
    /// [`super::split_codes::SplitCodes::code`]).
    #[inline(always)]
    pub fn get(&self, i: usize) -> u8 {
        // one rank for both kinds of position
        let k = self.s.slot(i);
        if self.s.has(i) {
            self.s.code(k)
        } else {
            self.pair(i - k)
        }
    }

    /// True when position `i` is open: [`RoundCodes::get`]'s high bit, from the slot's
    /// state alone (split, the code's byte in the work file is not read). Only a position
    /// with a slot can be open (the others' codes are won, lost or illegal), so an index
    /// without one is not ranked.
    #[inline(always)]
    pub fn is_open(&self, i: usize) -> bool {
        self.s.has(i) && self.open_at(self.s.slot(i))
    }

    /// The code of position `i` and, when it is open, its flags (else 0): one rank for
    /// both (the clean-up reads them together for every move; the flags of a decided
    /// position are not looked up).
    #[inline(always)]
    pub fn get_with_flags(&self, i: usize) -> (u8, u8) {
        let k = self.s.slot(i);
        if self.s.has(i) {
            let c = self.s.code(k);
            let f = if c & code::OPEN != 0 {
                self.s.flag_at(k)
            } else {
                0
            };
            (c, f)
        } else {
            (self.pair(i - k), 0)
        }
    }

    /// The codes of indices `8 w .. 8 w + 8` as one little-endian word (past the end:
    /// illegal placements; split, the open positions' counters are not shown).
    #[inline]
    pub fn word(&self, w: usize) -> u64 {
        let here = (self.s.open.word(w / 8) >> ((w % 8) * 8)) & 0xFF;
        let k = self.s.slot(w * 8);
        let mut x = self.open_codes_from(k, here);
        if here != 0xFF {
            // the pairs of the indices without a slot follow one another
            let mut two = self.pairs(w * 8 - k);
            for b in 0..8 {
                if here >> b & 1 != 0 {
                    continue;
                }
                x |= (pair_code(two) as u64) << (8 * b);
                two >>= 2;
            }
        }
        x
    }

    /// The open bits of the codes of indices `8 w .. 8 w + 8` (the high bit of byte `b` set
    /// when index `8 w + b` is open): what a word of dense codes shows under
    /// `0x8080_8080_8080_8080`.
    #[inline]
    pub fn open_word(&self, w: usize) -> u64 {
        let here = (self.s.open.word(w / 8) >> ((w % 8) * 8)) & 0xFF;
        if here == 0 {
            return 0;
        }
        self.open_codes(w, here) & 0x8080_8080_8080_8080
    }

    /// The codes of the indices of word `w` that have a slot (`here`: their bits), at their
    /// bytes; 0 elsewhere.
    #[inline(always)]
    fn open_codes(&self, w: usize, here: u64) -> u64 {
        if here == 0 {
            return 0;
        }
        let k = self.s.slot(w * 8);
        if let Some(sp) = &self.s.split {
            // the open ones only, from their states
            let mut open = sp.open_mask(k, here.count_ones() as usize);
            let (mut bits, mut x) = (here, 0u64);
            while bits != 0 {
                let b = bits.trailing_zeros();
                bits &= bits - 1;
                x |= ((open & 1) * code::OPEN as u64) << (8 * b);
                open >>= 1;
            }
            return x;
        }
        self.open_codes_from(k, here)
    }

    /// [`RoundCodes::open_codes`] with the slot of the word's first index given (`k`).
    #[inline(always)]
    fn open_codes_from(&self, mut k: usize, here: u64) -> u64 {
        let mut x = 0u64;
        if here != 0 {
            let mut bits = here;
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                x |= (self.s.code(k) as u64) << (8 * b);
                k += 1;
            }
        }
        x
    }

    /// Set the code of position `i`, which must have a slot (only positions open after
    /// round 0 change in the rounds; the rounds set a code by its slot, [`RoundCodes::set_at`]).
    #[cfg(test)]
    pub fn set(&self, i: usize, v: u8) {
        debug_assert!(self.s.has(i), "only an open position's code changes");
        self.set_at(self.s.slot(i), v)
    }

    /// True when the position of slot `k` is open (split: its state alone read, not the
    /// code's byte in the work file).
    #[inline(always)]
    pub fn open_at(&self, k: usize) -> bool {
        match &self.s.split {
            Some(sp) => sp.is_open(k),
            None => self.s.codes.get(k) & code::OPEN != 0,
        }
    }

    /// [`RoundCodes::set`] by the slot `k` of the position.
    #[inline(always)]
    pub fn set_at(&self, k: usize, v: u8) {
        match &self.s.split {
            Some(sp) => sp.set(k, v),
            None => self.s.codes.set(k, v),
        }
    }

    /// [`Bytes::update`] on the code of `i`; a position without a slot is never replaced
    /// (`f` must answer None for its code: it is decided).
    #[inline(always)]
    pub fn update(&self, i: usize, mut f: impl FnMut(u8) -> Option<u8>) -> Result<u8, u8> {
        let k = self.s.slot(i);
        if self.s.has(i) {
            match &self.s.split {
                Some(sp) => sp.update(k, f),
                None => self.s.codes.update(k, f),
            }
        } else {
            let c = self.pair(i - k);
            debug_assert!(f(c).is_none(), "a decided position of round 0 stays");
            Err(c)
        }
    }

    /// Call `f` for every index in `start..end` (`start` a multiple of 64) whose code is
    /// `v`, a code of an open position or of a round from 1 on (only positions with a slot
    /// hold those).
    #[inline]
    pub fn scan(&self, start: usize, end: usize, v: u8, mut f: impl FnMut(usize)) {
        debug_assert!(v & code::OPEN != 0 || code::order(v) > 0);
        if let Some(w) = self.s.codes_work_file() {
            w.tick();
        }
        match &self.s.split {
            Some(sp) => self.s.each_slot(start, end, |i, k| {
                if sp.is(k, v) {
                    f(i)
                }
            }),
            None => self.s.each_code(start, end, |i, c| {
                if c == v {
                    f(i)
                }
            }),
        }
    }

    /// A hint that position `i`'s code is about to be read (its open bit).
    #[inline(always)]
    pub fn prefetch(&self, i: usize) {
        self.s.open.prefetch(i);
    }

    /// Where the codes are (for arrays that go beside them).
    pub fn backing(&self) -> Backing {
        match &self.s.split {
            Some(sp) => sp.backing(),
            None => self.s.codes.backing(),
        }
    }

    /// Bytes `start..start + out.len()` of the dense codes (`start` a multiple of 8; for a
    /// checkpoint, at a point where no thread writes: the counters too).
    pub fn read_range(&self, start: usize, out: &mut [u8]) {
        if let Some(sp) = &self.s.split {
            let first = self.s.slot(start);
            let end = start + out.len();
            let last = if end >= self.s.open.words() * 64 {
                self.s.count()
            } else {
                self.s.slot(end)
            };
            let mut codes = vec![0u8; last - first];
            sp.read(first, &mut codes);
            // the next code, the next pair
            let (mut k, mut p) = (0, start - first);
            for (j, b) in out.iter_mut().enumerate() {
                if self.s.has(start + j) {
                    *b = codes[k];
                    k += 1;
                } else {
                    *b = self.pair(p);
                    p += 1;
                }
            }
            return;
        }
        for (k, chunk) in out.chunks_mut(8).enumerate() {
            let w = self.word(start / 8 + k).to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
    }
}

impl Gen<'_> {
    /// The codes of side `s` (0 Red, 1 Black) during the rule rounds.
    #[inline(always)]
    pub(super) fn codes(&self, s: usize) -> RoundCodes<'_> {
        RoundCodes { s: &self.aux[s] }
    }

    /// True while the rule rounds hold their codes sparse (the dense value bytes given up).
    pub(super) fn is_sparse(&self) -> bool {
        self.rule_rounds && self.val[0].len() != self.size()
    }

    /// After round 0 of a table with rule rounds, its levels saved in `levels`: the dense
    /// value bytes and high bits given up, then from the file, a side at a time, the open
    /// bits, and (read again) for every open position a code (its counter: an open
    /// position's byte is the same in both layouts) and a flag byte, the won and lost bits
    /// of the others.
    pub(super) fn open_rounds(
        &mut self,
        levels: &LevelsFile,
        codes_path: &std::path::Path,
    ) -> Result<(), TbError> {
        let n = self.size();
        let backing = self.val[0].backing();
        let cd = self.capdraw.is_none();
        self.val = [Bytes::new(0, 0), Bytes::new(0, 0)];
        let high_bytes = self.high_bits()[0].words() as u64 * 8;
        if let Some(high) = &mut self.high {
            // untouched until step 4 sets a level from 128 on
            *high = [Bits::with(&backing, n)?, Bits::with(&backing, n)?];
        }
        let (mut r, path) = levels.open()?;
        let mut buf = vec![0u8; CHUNK];
        for s in 0..2 {
            let from = s as u64 * (n as u64 + high_bytes);
            let slots = &mut self.aux[s];
            r.seek(SeekFrom::Start(from)).map_err(|e| io(&path, e))?;
            for start in (0..n).step_by(CHUNK) {
                let len = CHUNK.min(n - start);
                r.read_exact(&mut buf[..len]).map_err(|e| io(&path, e))?;
                for (j, &b) in buf[..len].iter().enumerate() {
                    if b > compact::ILLEGAL {
                        slots.open.set(start + j);
                    }
                }
            }
            let open = slots.index_bits();
            // the marks' base flags, four bits a slot (kept sparse after them)
            slots.nibble_flags(&backing)?;
            let mut codes = SplitWriter::new(&backing, open, codes_path, cd)?;
            slots.plain = Bits::with(&backing, 2 * (n - open))?;
            r.seek(SeekFrom::Start(from)).map_err(|e| io(&path, e))?;
            // the next pair
            let mut p = 0;
            for start in (0..n).step_by(CHUNK) {
                let len = CHUNK.min(n - start);
                r.read_exact(&mut buf[..len]).map_err(|e| io(&path, e))?;
                for &b in &buf[..len] {
                    if b > compact::ILLEGAL {
                        codes.push(b)?;
                        continue;
                    }
                    if b == compact::ILLEGAL {
                        // illegal: neither bit
                    } else if code::is_win(compact::level_code(b)) {
                        slots.plain.set(2 * p);
                    } else {
                        slots.plain.set(2 * p + 1);
                    }
                    p += 1;
                }
            }
            slots.split = Some(codes.finish()?);
        }
        if super::phases() {
            eprintln!(
                "  open after round 0: {} + {} of {n} per side",
                self.aux[0].count(),
                self.aux[1].count()
            );
        }
        Ok(())
    }

    /// After the marks: the flags of both sides kept for the open positions with a flag
    /// only (see [`super::slots::Flags`]).
    /// The marks' nibbles of both sides go to a work file first (unlinked at once: gone
    /// with its handle), so that a side's flag bytes are built beside its own nibbles
    /// only: the flags need no more memory at any time than they do in the rounds. `path`
    /// is in the generation's work folder (see [`super::slots::work_path`]).
    pub(super) fn sparse_flags(&mut self, path: &std::path::Path) -> Result<(), TbError> {
        let backing = self.aux[0].codes.backing();
        let file = unlinked_work_file(path)?;
        let mut offsets = [None; 2];
        {
            let mut w = std::io::BufWriter::new(&file);
            let mut at = 0u64;
            let mut buf = vec![0u8; CHUNK];
            for (s, slots) in self.aux.iter_mut().enumerate() {
                let Some(nib) = slots.take_nibbles() else {
                    continue;
                };
                offsets[s] = Some(at);
                for start in (0..nib.len()).step_by(CHUNK) {
                    let len = CHUNK.min(nib.len() - start);
                    nib.read_range(start, &mut buf[..len]);
                    w.write_all(&buf[..len]).map_err(|e| io(path, e))?;
                }
                at += nib.len() as u64;
            }
            w.flush().map_err(|e| io(path, e))?;
        }
        for (slots, offset) in self.aux.iter_mut().zip(offsets) {
            match offset {
                Some(at) => slots.sparse_from_nibbles(&backing, &file, at, path)?,
                None => slots.sparse_flags(&backing)?,
            }
        }
        if super::phases() {
            eprintln!(
                "  flag bytes: {} + {} of {} + {} open",
                self.aux[0].flag_bytes(),
                self.aux[1].flag_bytes(),
                self.aux[0].count(),
                self.aux[1].count()
            );
        }
        Ok(())
    }

    /// Resumed in the rule rounds: with the value bytes as dense codes (see [`code`]), the
    /// open bits set and the slots allocated: the codes of the open positions into their slots, the won and lost bits
    /// of the others, and the value bytes (and high bits, unused in the rounds) given up.
    pub(super) fn go_sparse(&mut self, codes_path: &std::path::Path) -> Result<(), TbError> {
        let n = self.size();
        let backing = self.val[0].backing();
        let cd = self.capdraw.is_none();
        for s in 0..2 {
            let open = self.aux[s].count();
            self.aux[s].plain = Bits::with(&backing, 2 * (n - open))?;
            let (val, slots) = (&self.val[s], &self.aux[s]);
            let mut codes = SplitWriter::new(&backing, open, codes_path, cd)?;
            // the next pair (the indices before without a slot)
            let mut p = 0;
            for i in 0..n {
                let b = val.get(i);
                if slots.has(i) {
                    codes.push(b)?;
                    continue;
                }
                if code::is_win(b) {
                    slots.plain.set(2 * p);
                } else if code::is_loss(b) {
                    slots.plain.set(2 * p + 1);
                }
                p += 1;
            }
            self.aux[s].split = Some(codes.finish()?);
            self.val[s] = Bytes::new(0, 0);
            // the flags of the checkpoint, a byte per slot, kept sparse
            self.aux[s].sparse_flags(&backing)?;
        }
        if let Some(high) = &mut self.high {
            // untouched until step 4 sets a level from 128 on
            *high = [Bits::with(&backing, n)?, Bits::with(&backing, n)?];
        }
        Ok(())
    }

    /// The end of the rule rounds with a ruling: the value bytes dense again, the codes of
    /// every position (a slot's code, else its round-0 outcome from the levels file when
    /// given, else from the bits); the flag bytes and the bits given up. The slots keep the
    /// codes, packed when they can be with the full codes in the work file `codes_path`
    /// (see [`super::dtm_codes`]).
    pub(super) fn close_rounds(
        &mut self,
        levels: Option<&LevelsFile>,
        codes_path: &std::path::Path,
    ) -> Result<(), TbError> {
        let t = std::time::Instant::now();
        let n = self.size();
        let backing = self.codes(0).backing();
        for slots in &mut self.aux {
            // the flags are done; split, the codes as they are (the states and the file
            // let go of)
            slots.bytes = Bytes::new(0, 0);
            slots.dense_flags();
            if let Some(sp) = slots.split.take() {
                slots.codes = sp.into_bytes(&backing)?;
            }
        }
        let packed = self.packable(|s| &s.codes);
        for slots in &mut self.aux {
            // the flags are done: the slots hold the codes from now on
            let codes = std::mem::replace(&mut slots.codes, Bytes::new(0, 0));
            slots.bytes = Bytes::new(0, 0);
            slots.dense_flags();
            if packed {
                slots.codes = codes;
            } else {
                slots.bytes = codes;
            }
            if levels.is_some() {
                slots.plain = Bits::with(&Backing::Heap, 0)?;
            }
        }
        if packed {
            // with the levels file, a drawn position needs no slot: its round-0 byte (a
            // counter) shows it
            self.pack_codes(codes_path, &backing, levels.is_some(), |s| {
                std::mem::replace(&mut s.codes, Bytes::new(0, 0))
            })?;
        }
        let mut file = match levels {
            Some(l) => Some(l.open()?),
            None => None,
        };
        let mut buf = vec![0u8; CHUNK];
        let mut from_file = Vec::new();
        for s in 0..2 {
            let val = Bytes::with(&backing, n, code::ILLEGAL)?;
            let slots = &self.aux[s];
            for start in (0..n).step_by(CHUNK) {
                let len = CHUNK.min(n - start);
                if let Some((r, path)) = &mut file {
                    r.read_exact(&mut buf[..len]).map_err(|e| io(path, e))?;
                }
                let first = slots.rank(start);
                if let Some(p) = &slots.packed {
                    // the chunk's codes, read at once
                    let last = if start + len == n {
                        p.count
                    } else {
                        slots.rank(start + len)
                    };
                    from_file.resize(last - first, 0);
                    p.file
                        .read_at(&mut from_file, p.offset + first as u64)
                        .map_err(|e| io(p.file.path(), e))?;
                }
                let mut k = first;
                for (j, i) in (start..start + len).enumerate() {
                    let c = if slots.holds(i) {
                        k += 1;
                        match &slots.packed {
                            Some(_) => from_file[k - 1 - first],
                            None => slots.bytes.get(k - 1),
                        }
                    } else if file.is_some() {
                        match buf[j] {
                            compact::ILLEGAL => code::ILLEGAL,
                            // open after round 0, drawn (its slot pruned)
                            b if b > compact::ILLEGAL => code::DRAW,
                            b => compact::level_code(b),
                        }
                    } else {
                        RoundCodes { s: slots }.plain(i)
                    };
                    val.set(i, c);
                }
            }
            if let Some((r, path)) = &mut file {
                // past this side's high bits
                let skip = self.high_bits()[s].words() as i64 * 8;
                r.seek_relative(skip).map_err(|e| io(path, e))?;
            }
            self.val[s] = val;
            let slots = &mut self.aux[s];
            slots.plain = Bits::with(&Backing::Heap, 0)?;
        }
        if super::phases() {
            eprintln!(
                "  rounds closed {:.2} s, CPU {:.2} s",
                t.elapsed().as_secs_f64(),
                super::cpu_seconds()
            );
        }
        Ok(())
    }

    /// The end of the rule rounds without a ruling: the slots and bits given up (the open
    /// bits and their rank too: nothing reads them once round 0's levels are back), the value
    /// bytes and high bits allocated again (for round 0's levels to be restored).
    pub(super) fn unsparse(&mut self) -> Result<(), TbError> {
        let n = self.size();
        let backing = self.codes(0).backing();
        for slots in &mut self.aux {
            *slots = Slots::empty(&Backing::Heap, 0, false)?;
        }
        for s in 0..2 {
            self.val[s] = Bytes::with(&backing, n, compact::ILLEGAL)?;
        }
        Ok(())
    }
}

fn io(path: &std::path::Path, e: std::io::Error) -> TbError {
    TbError::Io {
        path: path.display().to_string(),
        source: e,
    }
}

#[cfg(test)]
mod tests;
