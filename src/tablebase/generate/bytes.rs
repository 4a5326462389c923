//! Arrays of bytes and bits shared by the generator's threads: eight bytes (or 64 bits) per
//! atomic word, so that a scan tests eight positions at once and any byte can be updated
//! atomically.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// One byte per position.
pub(super) struct Bytes {
    words: Vec<AtomicU64>,
    len: usize,
}

impl Bytes {
    /// `len` bytes of value `fill`.
    pub fn new(len: usize, fill: u8) -> Bytes {
        let w = ONES * fill as u64;
        Bytes {
            words: (0..len.div_ceil(8)).map(|_| AtomicU64::new(w)).collect(),
            len,
        }
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> u8 {
        (self.words[i >> 3].load(Relaxed) >> ((i & 7) * 8)) as u8
    }

    /// Atomically replace byte `i` by `f(byte)` unless `f` answers None; returns the old
    /// byte (Ok when replaced).
    #[inline(always)]
    pub fn update(&self, i: usize, mut f: impl FnMut(u8) -> Option<u8>) -> Result<u8, u8> {
        let shift = (i & 7) * 8;
        let mask = 0xFFu64 << shift;
        self.words[i >> 3]
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
        self.words[i >> 3].fetch_or((bits as u64) << ((i & 7) * 8), Relaxed);
    }

    /// Call `f` for every index in `start..end` (`start` a multiple of 8) whose byte is `v`.
    #[inline(always)]
    pub fn scan(&self, start: usize, end: usize, v: u8, mut f: impl FnMut(usize)) {
        let pattern = ONES * v as u64;
        for w in start / 8..end.div_ceil(8) {
            let x = self.words[w].load(Relaxed) ^ pattern;
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

    pub fn into_vec(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len);
        for w in self.words {
            out.extend_from_slice(&w.into_inner().to_le_bytes());
        }
        out.truncate(self.len);
        out
    }
}

/// One bit per position.
pub(super) struct Bits {
    words: Vec<AtomicU64>,
}

impl Bits {
    pub fn new(len: usize) -> Bits {
        Bits {
            words: (0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> bool {
        self.words[i >> 6].load(Relaxed) >> (i & 63) & 1 != 0
    }

    #[inline(always)]
    pub fn set(&self, i: usize) {
        self.words[i >> 6].fetch_or(1 << (i & 63), Relaxed);
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
        let v = b.into_vec();
        assert_eq!((v.len(), v[3], v[0]), (21, 9, 0xFF));
        let bits = Bits::new(130);
        bits.set(129);
        assert!(bits.get(129) && !bits.get(128));
    }
}
