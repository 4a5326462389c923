//! Where the flag bytes of the rule rounds are (see [`super::cycles`]), by slot (see
//! [`super::slots`]): a byte per slot, the marks' four base bits per slot, or, from the
//! marks on, a byte only for the slots whose flags are not 0 ([`Flags`]).

use super::bytes::Bytes;
use super::params::CHUNK;
use super::slots::Slots;
use crate::tablebase::table::TbError;
use crate::tablebase::workfile::Backing;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Where the flag byte of an open position is during the rule rounds (see
/// [`super::cycles`]), by its slot `k`. Nearly half of a drawish table's open positions
/// get no flag at all (KCABKCA: 57 % of them), and those never get one later: the flags of
/// a round are reset from the base flags the marks set once, and the clean-up only clears
/// them.
pub(super) enum Flags {
    /// A byte per slot in [`Slots::bytes`] (also every use of the slots but the rounds').
    Dense,
    /// While the marks are set: their four base bits per slot, two slots a byte (the low
    /// nibble the even slot's).
    Nibbles(Bytes),
    /// From the marks on: a byte only for the slots whose flags are not 0, found by a rank
    /// over a bit per slot (nested slots over the slot numbers); every other slot's flags
    /// are 0.
    Sparse(Box<Slots>),
}

impl Slots {
    /// The byte of slot `k` (in the rule rounds: its flags, wherever [`Flags`] has them).
    #[inline(always)]
    pub fn flag_at(&self, k: usize) -> u8 {
        match &self.flags {
            Flags::Dense => self.bytes.get(k),
            Flags::Nibbles(b) => (b.get(k >> 1) >> ((k & 1) * 4)) & 15,
            Flags::Sparse(f) => {
                if f.has(k) {
                    f.bytes.get(f.slot(k))
                } else {
                    0
                }
            }
        }
    }

    /// Set the byte of slot `k` (see [`Slots::flag_at`]). Sparse flags stay 0 where they
    /// are: writes of another value there are dropped (the only one, 0xFF on the positions
    /// left drawn when the rounds end, is read by nothing).
    #[inline(always)]
    pub fn set_flag_at(&self, k: usize, v: u8) {
        match &self.flags {
            Flags::Dense => self.bytes.set(k, v),
            Flags::Sparse(f) if !f.has(k) => {}
            _ => {
                let _ = self.update_flag_at(k, |_| Some(v));
            }
        }
    }

    /// [`Bytes::update`] on the byte of slot `k` (see [`Slots::flag_at`]); a slot without
    /// a sparse flag byte is never replaced (`f` must answer None for 0 there).
    #[inline(always)]
    pub fn update_flag_at(&self, k: usize, mut f: impl FnMut(u8) -> Option<u8>) -> Result<u8, u8> {
        match &self.flags {
            Flags::Dense => self.bytes.update(k, f),
            Flags::Nibbles(b) => {
                let shift = (k & 1) * 4;
                b.update(k >> 1, |x| {
                    f((x >> shift) & 15).map(|v| {
                        debug_assert!(v < 16, "the marks set base flags only");
                        (x & !(15 << shift)) | (v << shift)
                    })
                })
                .map(|x| (x >> shift) & 15)
                .map_err(|x| (x >> shift) & 15)
            }
            Flags::Sparse(s) => {
                if s.has(k) {
                    s.bytes.update(s.slot(k), f)
                } else {
                    debug_assert!(f(0).is_none(), "a position without flags gets none");
                    Err(0)
                }
            }
        }
    }

    /// The flags of the rule rounds four bits a slot, all 0, for the marks (the byte per
    /// slot given up).
    pub fn nibble_flags(&mut self, backing: &Backing) -> Result<(), TbError> {
        self.bytes = Bytes::new(0, 0);
        self.flags = Flags::Nibbles(Bytes::with(backing, self.total.div_ceil(2), 0)?);
        Ok(())
    }

    /// The marks' nibbles (see [`Flags::Nibbles`]), taken (the slots' flags are a byte
    /// each from then on, none allocated); None when the flags are not nibbles.
    pub fn take_nibbles(&mut self) -> Option<Bytes> {
        match std::mem::replace(&mut self.flags, Flags::Dense) {
            Flags::Nibbles(b) => Some(b),
            other => {
                self.flags = other;
                None
            }
        }
    }

    /// The flags of the rule rounds kept for the slots whose flags are not 0 only (see
    /// [`Flags::Sparse`]), from the marks' nibbles (see [`Slots::take_nibbles`]) saved in
    /// `file` from `offset` on (`path` its name, for errors): read twice, for the bits of
    /// the slots with flags, then for their bytes, so that the nibbles are never held
    /// beside the bytes.
    pub fn sparse_from_nibbles(
        &mut self,
        backing: &Backing,
        file: &std::fs::File,
        offset: u64,
        path: &Path,
    ) -> Result<(), TbError> {
        let io = |e: std::io::Error| TbError::Io {
            path: path.display().to_string(),
            source: e,
        };
        let count = self.total;
        let len = count.div_ceil(2);
        let mut inner = Slots::empty(backing, count, true)?;
        let mut buf = vec![0u8; CHUNK];
        for pass in 0..2 {
            let mut r = file;
            r.seek(SeekFrom::Start(offset)).map_err(io)?;
            // the next slot, the next flag byte
            let (mut k, mut at) = (0, 0);
            for start in (0..len).step_by(CHUNK) {
                let l = CHUNK.min(len - start);
                r.read_exact(&mut buf[..l]).map_err(io)?;
                for &b in &buf[..l] {
                    for f in [b & 15, b >> 4] {
                        if f != 0 && k < count {
                            if pass == 0 {
                                inner.open.set(k);
                            } else {
                                inner.bytes.set(at, f);
                                at += 1;
                            }
                        }
                        k += 1;
                    }
                }
            }
            if pass == 0 {
                // the full rank: the clean-up looks a flag up for every move (lean, its
                // rounds took 40 % more CPU for 1.8 MB less in KCABKCA)
                inner.allocate(backing, 0)?;
            }
        }
        self.bytes = Bytes::new(0, 0);
        self.flags = Flags::Sparse(Box::new(inner));
        Ok(())
    }

    /// [`Slots::sparse_from_nibbles`] from the flags in memory (a byte per slot restored
    /// from a checkpoint, or nibbles).
    pub fn sparse_flags(&mut self, backing: &Backing) -> Result<(), TbError> {
        if matches!(self.flags, Flags::Sparse(_)) {
            return Ok(());
        }
        let count = self.total;
        let mut inner = Slots::empty(backing, count, true)?;
        for k in 0..count {
            if self.flag_at(k) != 0 {
                inner.open.set(k);
            }
        }
        inner.allocate(backing, 0)?;
        let mut r = 0;
        for k in 0..count {
            let f = self.flag_at(k);
            if f != 0 {
                inner.bytes.set(r, f);
                r += 1;
            }
        }
        self.bytes = Bytes::new(0, 0);
        self.flags = Flags::Sparse(Box::new(inner));
        Ok(())
    }

    /// The rounds' flags given up: [`Slots::bytes`] holds a byte per slot again (when
    /// allocated).
    pub fn dense_flags(&mut self) {
        self.flags = Flags::Dense;
    }

    /// True when the flags are sparse (see [`Flags::Sparse`]).
    pub fn has_sparse_flags(&self) -> bool {
        matches!(self.flags, Flags::Sparse(_))
    }

    /// Number of slots whose flags have a byte (every slot's but with sparse flags).
    pub fn flag_bytes(&self) -> usize {
        match &self.flags {
            Flags::Sparse(f) => f.count(),
            _ => self.total,
        }
    }

    /// Flag bytes `start..start + out.len()` of the slots (`start` a multiple of 8), seen
    /// as a byte per slot (for a checkpoint).
    pub fn read_flags(&self, start: usize, out: &mut [u8]) {
        for (j, b) in out.iter_mut().enumerate() {
            *b = self.flag_at(start + j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// The marks' nibbles, the sparse bytes read back from a work file, and the sparse
    /// bytes made from a checkpoint's byte per slot all show the same flags.
    #[test]
    fn nibbles_and_sparse_flags_agree() {
        let n = 3000;
        let heap = Backing::Heap;
        let mut s = Slots::empty(&heap, n, true).expect("heap");
        let idx: Vec<usize> = (0..n).filter(|i| i % 3 != 1).collect();
        for &i in &idx {
            s.open.set(i);
        }
        let count = s.index_bits();
        s.nibble_flags(&heap).expect("heap");
        let want: Vec<u8> = (0..count)
            .map(|k| if k % 5 < 2 { (k % 15 + 1) as u8 } else { 0 })
            .collect();
        for (k, &i) in idx.iter().enumerate() {
            s.set(i, 0);
            s.or(i, want[k] & 3);
            s.or(i, want[k] & 12);
        }
        for (k, &i) in idx.iter().enumerate() {
            assert_eq!(s.get(i), want[k], "nibble of slot {k}");
        }
        // spilled after three other bytes, and read back
        let file = tempfile::tempfile().expect("temporary file");
        let nib = s.take_nibbles().expect("nibbles");
        let mut image = vec![0u8; nib.len()];
        nib.read_range(0, &mut image);
        (&file).write_all(&[7u8; 3]).expect("write");
        (&file).write_all(&image).expect("write");
        s.sparse_from_nibbles(&heap, &file, 3, std::path::Path::new("temporary file"))
            .expect("read back");
        assert!(s.has_sparse_flags());
        let flagged = want.iter().filter(|&&f| f != 0).count();
        assert_eq!(s.flag_bytes(), flagged);
        for (k, &f) in want.iter().enumerate() {
            assert_eq!(s.flag_at(k), f, "sparse flags of slot {k}");
        }
        // a slot with flags changes; one without stays 0
        let kf = want
            .iter()
            .position(|&f| f != 0)
            .expect("a slot with flags");
        s.set_flag_at(kf, 0x90 | want[kf]);
        assert_eq!(s.flag_at(kf), 0x90 | want[kf]);
        assert_eq!(
            s.update_flag_at(kf, |b| Some(b & !0x80)),
            Ok(0x90 | want[kf])
        );
        let k0 = want
            .iter()
            .position(|&f| f == 0)
            .expect("a slot without flags");
        assert_eq!(s.update_flag_at(k0, |_| None), Err(0));
        s.set_flag_at(k0, 0xFF);
        assert_eq!(s.flag_at(k0), 0);
        // seen as a byte per slot (a checkpoint) and made sparse again from that
        let mut dense = vec![0u8; count];
        s.read_flags(0, &mut dense);
        assert_eq!(dense[kf], 0x10 | want[kf]);
        let mut d = Slots::empty(&heap, n, true).expect("heap");
        for &i in &idx {
            d.open.set(i);
        }
        d.allocate(&heap, 0).expect("heap");
        for (k, &f) in dense.iter().enumerate() {
            d.bytes.set(k, f);
        }
        d.sparse_flags(&heap).expect("heap");
        assert_eq!(d.flag_bytes(), flagged);
        for (k, &f) in dense.iter().enumerate() {
            assert_eq!(d.flag_at(k), f, "flags of slot {k} from a checkpoint");
        }
    }
}
