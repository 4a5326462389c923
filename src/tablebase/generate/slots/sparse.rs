//! The open bits of one side held sparse, for step 4 with packed codes (see
//! [`super::super::dtm_codes`]) and the verdicts handed over after it: there only the
//! positions decided by the rule rounds keep a slot (the drawn ones lose theirs), often few
//! (KCAAKCAA: a bit per position, 4.1 MiB, for under a percent of its positions), so most
//! 64-bit words of the bits are zero. Kept: a summary bit per word (set when the word has a
//! set bit), the number of non-zero words before each summary word, the non-zero words
//! themselves and the number of set bits before each (12 bytes a non-zero word, a
//! 384th of a byte per position for the rest).

use super::super::bytes::Bits;
use super::super::params::SPARSE_OPEN_MAX_SHARE;

/// The open bits of one side, sparse (see the module documentation).
pub(in super::super) struct SparseOpen {
    /// Bit `w` set when word `w` of the bits has a set bit.
    summary: Vec<u64>,
    /// Per summary word: the non-zero words before it.
    base: Vec<u32>,
    /// The non-zero words, in order.
    words: Vec<u64>,
    /// Per non-zero word: the set bits before it.
    before: Vec<u32>,
    /// Words of the bits.
    len: usize,
    /// Set bits.
    total: usize,
}

impl SparseOpen {
    /// The sparse form of `bits` when it takes at most [`SPARSE_OPEN_MAX_SHARE`] of their
    /// bytes (and its counts fit 32 bits), else None.
    pub fn of(bits: &Bits) -> Option<SparseOpen> {
        let len = bits.words();
        let (mut nonzero, mut total) = (0usize, 0usize);
        for w in 0..len {
            let x = bits.word(w);
            nonzero += usize::from(x != 0);
            total += x.count_ones() as usize;
        }
        let sums = len.div_ceil(64);
        let bytes = sums * 12 + nonzero * 12;
        let (num, den) = SPARSE_OPEN_MAX_SHARE;
        if len == 0 || bytes * den > len * 8 * num || total > u32::MAX as usize {
            return None;
        }
        let mut s = SparseOpen {
            summary: vec![0; sums],
            base: Vec::with_capacity(sums),
            words: Vec::with_capacity(nonzero),
            before: Vec::with_capacity(nonzero),
            len,
            total,
        };
        let mut seen = 0u32;
        for w in 0..len {
            if w % 64 == 0 {
                // at most `total` non-zero words: fits 32 bits
                s.base.push(s.words.len() as u32);
            }
            let x = bits.word(w);
            if x != 0 {
                s.summary[w / 64] |= 1 << (w % 64);
                s.words.push(x);
                s.before.push(seen);
                seen += x.count_ones();
            }
        }
        Some(s)
    }

    /// Whether word `w` is non-zero, and the number of non-zero words before it.
    #[inline(always)]
    fn find(&self, w: usize) -> (bool, usize) {
        if w >= self.len {
            return (false, self.words.len());
        }
        let x = self.summary[w / 64];
        let k = self.base[w / 64] as usize + (x & ((1u64 << (w % 64)) - 1)).count_ones() as usize;
        (x >> (w % 64) & 1 != 0, k)
    }

    /// Word `w` of the bits.
    #[inline(always)]
    pub fn word(&self, w: usize) -> u64 {
        match self.find(w) {
            (true, k) => self.words[k],
            _ => 0,
        }
    }

    /// True when bit `i` is set.
    #[inline(always)]
    pub fn get(&self, i: usize) -> bool {
        self.word(i >> 6) >> (i & 63) & 1 != 0
    }

    /// The set bits before bit `i` (any `i`; the total from the end on).
    #[inline(always)]
    pub fn rank(&self, i: usize) -> usize {
        match self.find(i >> 6) {
            (true, k) => {
                self.before[k] as usize
                    + (self.words[k] & ((1u64 << (i & 63)) - 1)).count_ones() as usize
            }
            (false, k) if k < self.before.len() => self.before[k] as usize,
            _ => self.total,
        }
    }

    /// Set bits.
    pub fn count(&self) -> usize {
        self.total
    }

    /// Words of the bits (of their dense form).
    pub fn words(&self) -> usize {
        self.len
    }

    /// Bytes `start..start + out.len()` of the dense form (little-endian words; `start`
    /// a multiple of 8).
    pub fn read_range(&self, start: usize, out: &mut [u8]) {
        for (j, chunk) in out.chunks_mut(8).enumerate() {
            let w = self.word(start / 8 + j).to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sparse form answers as the bits do: bits, ranks and bytes; dense bits stay dense.
    #[test]
    fn sparse_answers_as_dense() {
        let n = 64 * 300 + 17;
        let bits = Bits::heap(n);
        let set: Vec<usize> = (0..n)
            .filter(|i| i % 997 == 5 || (9000..9070).contains(i))
            .collect();
        for &i in &set {
            bits.set(i);
        }
        let s = SparseOpen::of(&bits).expect("few bits set: sparse");
        let mut rank = 0;
        for i in 0..n {
            assert_eq!(s.get(i), bits.get(i), "bit {i}");
            assert_eq!(s.rank(i), rank, "rank {i}");
            rank += usize::from(bits.get(i));
        }
        assert_eq!(s.rank(bits.words() * 64), set.len());
        let mut a = vec![0u8; bits.words() * 8];
        let mut b = vec![0u8; bits.words() * 8];
        bits.read_range(0, &mut a);
        s.read_range(0, &mut b);
        assert_eq!(a, b);
        let dense = Bits::heap(n);
        for i in (0..n).step_by(3) {
            dense.set(i);
        }
        assert!(SparseOpen::of(&dense).is_none());
    }
}
