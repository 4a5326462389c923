//! What the DTC pass ([`super::dtc`]) needs of a table's verdicts: the rule round of each
//! win and ruling decided by the repetition rules and whether it is a ruling, in the
//! smallest of five forms.

use super::slots::Slots;
use crate::tablebase::file::FileError;
use crate::tablebase::reader::TableFile;
use crate::tablebase::values::{Verdict, Wdl};
use crate::tablebase::workfile::Buf;
use rayon::prelude::*;

/// The rule rounds of a table's positions as entries `order << 1 | ruling` (0 for a
/// position the rules did not decide, and for a loss that is not a ruling: the pass reads
/// the round of a win, as a ruling's successor, and of a ruling, never of another loss).
/// Either the verdicts themselves (a byte per position); or the entries packed 2 or 4 bits
/// per position, the larger ones (few when the rounds are few) in a list; or only the
/// positions with an entry (a sorted list per side to move, 8 bytes each,
/// `index << 8 | entry`); or a byte for each position with an entry, found by a rank
/// ([`RuleRounds::Slotted`], the rank lean), whichever is smallest ([`RuleRounds::compact`]).
pub enum RuleRounds {
    /// No position decided by the rules (rule set 0, or a table without verdicts).
    None,
    /// The positions with an entry, per side to move.
    Sparse([Vec<u64>; 2]),
    /// The entries of every position, `bits` (2 or 4) each, per side to move: entry `i` in
    /// bits `(i % (64 / bits)) * bits..` of word `i / (64 / bits)`; an entry of all ones
    /// (and every larger one) is in `large`.
    Packed {
        /// Bits per entry.
        bits: u32,
        /// The words per side to move.
        words: [Vec<u64>; 2],
        /// The positions whose entry does not fit, per side to move, as
        /// [`RuleRounds::Sparse`] lists them.
        large: [Vec<u64>; 2],
    },
    /// The verdicts (WDL-file bytes per side to move).
    Dense([Buf; 2]),
    /// The entries of the positions that have one, a byte each, found by a rank over a bit
    /// per position (see [`Slots`]), per side to move: the smallest form when a good part
    /// of the positions, in many rounds, has an entry (KRNKR).
    Slotted(Box<Slotted>),
}

/// The entries of [`RuleRounds::Slotted`].
pub struct Slotted([Slots; 2]);

/// The entry of a verdict byte (see [`RuleRounds`]).
fn entry(b: u8) -> u64 {
    match Verdict::decode(b) {
        Some(v) if v.ruling.is_some() => u64::from(v.order) << 1 | 1,
        Some(v) if v.wdl == Wdl::Win => u64::from(v.order) << 1,
        _ => 0,
    }
}

/// Number of distinct entries (orders up to [`crate::tablebase::values::MAX_ORDER`]).
const ENTRIES: usize = 128;

/// What the choice of a form needs: positions per entry, per side to move.
#[derive(Clone, Copy)]
struct Census([[u64; ENTRIES]; 2]);

impl Census {
    fn new() -> Census {
        Census([[0; ENTRIES]; 2])
    }

    fn add(mut self, o: Census) -> Census {
        for s in 0..2 {
            for e in 0..ENTRIES {
                self.0[s][e] += o.0[s][e];
            }
        }
        self
    }

    fn of(bytes: &[u8], side: impl Fn(usize) -> usize) -> Census {
        let mut c = Census::new();
        for (j, &b) in bytes.iter().enumerate() {
            c.0[side(j)][entry(b) as usize] += 1;
        }
        c
    }

    /// Positions of side `s` whose entry is at least `from` (and not 0).
    fn at_least(&self, s: usize, from: usize) -> usize {
        self.0[s][from.max(1)..].iter().sum::<u64>() as usize
    }
}

/// The form to keep for `n` positions per side: None when no position has an entry, else
/// Some(bits per entry of the packed form, 0 for the list, 8 for the bytes, 1 for the
/// slots).
fn choose(c: &Census, n: usize) -> Option<u32> {
    if c.at_least(0, 1) + c.at_least(1, 1) == 0 {
        return None;
    }
    // bytes of each form, the smallest first on a tie
    let cost = |bits: u32| match bits {
        8 => 2 * n,
        // the bits, their rank counts (see [`Slots`]; lean, a quarter of a byte per 64
        // bits less, but the choice is that of the full rank) and a byte per entry
        1 => 2 * (n.div_ceil(64) * 10 + n.div_ceil(512) * 8) + c.at_least(0, 1) + c.at_least(1, 1),
        _ => {
            let large = c.at_least(0, (1 << bits) - 1) + c.at_least(1, (1 << bits) - 1);
            2 * n * bits as usize / 8 + 8 * large
        }
    };
    [0, 2, 4, 8, 1].into_iter().min_by_key(|&b| cost(b))
}

/// Words of `bits`-bit entries for `n` positions.
fn words_for(n: usize, bits: u32) -> Vec<u64> {
    vec![0u64; n.div_ceil((64 / bits) as usize)]
}

/// Builds a [`RuleRounds`] of a chosen form from the entries, in index order per side.
struct Builder {
    bits: u32,
    words: [Vec<u64>; 2],
    lists: [Vec<u64>; 2],
    /// The slots form (`bits` 1): the bits and bytes, and the entries put per side.
    slots: Option<([Slots; 2], [usize; 2])>,
}

impl Builder {
    fn new(bits: u32, n: usize, c: &Census) -> Builder {
        let escape = if bits == 0 { 1 } else { (1 << bits) - 1 };
        let lists = [0, 1].map(|s| Vec::with_capacity(c.at_least(s, escape)));
        let words = if bits <= 1 {
            [Vec::new(), Vec::new()]
        } else {
            [words_for(n, bits), words_for(n, bits)]
        };
        let slots = (bits == 1).then(|| {
            let side = |s: usize| Slots::sized(n, c.at_least(s, 1));
            ([side(0), side(1)], [0, 0])
        });
        Builder {
            bits,
            words,
            lists,
            slots,
        }
    }

    #[inline]
    fn put(&mut self, s: usize, i: usize, e: u64) {
        if e == 0 {
            return;
        }
        if let Some((slots, put)) = &mut self.slots {
            // in index order: the entry's byte is the next one
            slots[s].open.set(i);
            slots[s].bytes.set(put[s], e as u8);
            put[s] += 1;
            return;
        }
        let bits = self.bits;
        if bits == 0 || e >= (1 << bits) - 1 {
            self.lists[s].push((i as u64) << 8 | e);
        }
        if let Some(per) = 64usize.checked_div(bits as usize) {
            self.words[s][i / per] |= e.min((1 << bits) - 1) << ((i % per) as u32 * bits);
        }
    }

    fn finish(self) -> RuleRounds {
        if let Some((mut slots, _)) = self.slots {
            for side in &mut slots {
                // lean: a look-up reads the bits' cache line anyway
                side.index_lean();
            }
            return RuleRounds::Slotted(Box::new(Slotted(slots)));
        }
        match self.bits {
            0 => RuleRounds::Sparse(self.lists),
            bits => RuleRounds::Packed {
                bits,
                words: self.words,
                large: self.lists,
            },
        }
    }
}

impl RuleRounds {
    /// The verdicts as they are (what [`RuleRounds::into_verdicts`] gives back).
    pub fn dense(verdicts: Option<[Buf; 2]>) -> RuleRounds {
        verdicts.map_or(RuleRounds::None, RuleRounds::Dense)
    }

    /// The smallest form of `verdicts` (they are dropped unless kept whole).
    pub fn compact(verdicts: Option<[Buf; 2]>) -> RuleRounds {
        let Some(v) = verdicts else {
            return RuleRounds::None;
        };
        let n = v[0].len();
        let census = [0, 1]
            .map(|s| {
                v[s].par_chunks(1 << 16)
                    .map(|c| Census::of(c, |_| s))
                    .reduce(Census::new, Census::add)
            })
            .into_iter()
            .fold(Census::new(), Census::add);
        match choose(&census, n) {
            None => RuleRounds::None,
            Some(8) => RuleRounds::Dense(v),
            Some(bits) => {
                let mut b = Builder::new(bits, n, &census);
                for (s, side) in v.iter().enumerate() {
                    for (i, &x) in side.iter().enumerate() {
                        b.put(s, i, entry(x));
                    }
                }
                b.finish()
            }
        }
    }

    /// The rule rounds of a table's WDL file (a block at a time, in the form
    /// [`RuleRounds::compact`] would choose). A position the file does not store (an illegal
    /// placement) may show a round; the DTC pass reads the rounds of decided positions only.
    pub fn from_wdl_file(f: &TableFile) -> Result<RuleRounds, FileError> {
        let n = f.header.positions as usize;
        let bs = f.header.block_size as usize;
        let blocks = f.blocks();
        let census = (0..blocks)
            .into_par_iter()
            .map(|k| Ok(Census::of(&f.block(k)?, |j| usize::from(k * bs + j >= n))))
            .try_reduce(Census::new, |a, b| Ok(a.add(b)))?;
        let split = |at: usize| if at < n { (0, at) } else { (1, at - n) };
        match choose(&census, n) {
            None => Ok(RuleRounds::None),
            Some(8) => {
                let mut v = [vec![0u8; n], vec![0u8; n]];
                for k in 0..blocks {
                    for (j, &b) in f.block(k)?.iter().enumerate() {
                        let (s, i) = split(k * bs + j);
                        v[s][i] = b;
                    }
                }
                Ok(RuleRounds::Dense(v.map(Buf::from)))
            }
            Some(bits) => {
                let mut b = Builder::new(bits, n, &census);
                for k in 0..blocks {
                    for (j, &x) in f.block(k)?.iter().enumerate() {
                        let (s, i) = split(k * bs + j);
                        b.put(s, i, entry(x));
                    }
                }
                Ok(b.finish())
            }
        }
    }

    /// The verdicts back when they were kept whole.
    pub fn into_verdicts(self) -> Option<[Buf; 2]> {
        match self {
            RuleRounds::Dense(v) => Some(v),
            _ => None,
        }
    }

    /// Rule round of a win or a ruling and whether it is a ruling ((0, false) for a position
    /// the rules did not decide and for a loss that is not a ruling).
    pub(super) fn get(&self, side: usize, i: usize) -> (u8, bool) {
        let find = |list: &[u64]| {
            let key = i as u64;
            match list.binary_search_by(|e| (e >> 8).cmp(&key)) {
                Ok(k) => list[k] & 0xFF,
                Err(_) => 0,
            }
        };
        let e = match self {
            RuleRounds::None => 0,
            RuleRounds::Dense(v) => entry(v[side][i]),
            RuleRounds::Packed { bits, words, large } => {
                let per = (64 / bits) as usize;
                let mask = (1 << bits) - 1;
                match words[side][i / per] >> ((i % per) as u32 * bits) & mask {
                    e if e == mask => find(&large[side]),
                    e => e,
                }
            }
            RuleRounds::Sparse(lists) => find(&lists[side]),
            RuleRounds::Slotted(slots) => {
                let slots = &slots.0[side];
                if slots.has(i) {
                    u64::from(slots.get(i))
                } else {
                    0
                }
            }
        };
        ((e >> 1) as u8, e & 1 == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::values::Ruling;

    fn verdict(wdl: Wdl, order: u8, ruling: Option<Ruling>) -> u8 {
        Verdict { wdl, order, ruling }.encode()
    }

    /// What the pass may read of a verdict byte: a win's or a ruling's round.
    fn expected(b: u8) -> (u8, bool) {
        match Verdict::decode(b) {
            Some(v) if v.ruling.is_some() => (v.order, true),
            Some(v) if v.wdl == Wdl::Win => (v.order, false),
            _ => (0, false),
        }
    }

    fn check(v: [Vec<u8>; 2]) -> RuleRounds {
        let rounds = RuleRounds::compact(Some(v.clone().map(Buf::from)));
        let dense = RuleRounds::dense(Some(v.clone().map(Buf::from)));
        for (s, side) in v.iter().enumerate() {
            for (i, &b) in side.iter().enumerate() {
                assert_eq!(rounds.get(s, i), expected(b), "side {s} index {i}");
                assert_eq!(dense.get(s, i), expected(b), "side {s} index {i}");
            }
        }
        rounds
    }

    /// Every form answers as the verdicts do, and the smallest is chosen.
    #[test]
    fn forms_agree_with_the_verdicts() {
        let n = 1000;
        let chase = Some(Ruling::PerpetualChase);
        // rounds 1 to 5 on two thirds of a side, a few of round 40: 4 bits and a list
        let mut v = [vec![0u8; n], vec![2u8; n]];
        for (i, b) in v[0].iter_mut().enumerate() {
            let order = (i % 5) as u8 + 1;
            *b = match i % 3 {
                0 => verdict(Wdl::Loss, order, chase),
                1 => verdict(Wdl::Win, order, None),
                _ => verdict(Wdl::Loss, order, None),
            };
        }
        v[0][10] = verdict(Wdl::Win, 40, None);
        v[1][11] = verdict(Wdl::Loss, 40, chase);
        v[1][n - 1] = 255;
        let r = check(v);
        assert!(
            matches!(&r, RuleRounds::Packed { bits: 4, large, .. } if large[0].len() == 1 && large[1].len() == 1)
        );
        // wins of round 1 only: 2 bits
        let mut v = [vec![1u8; n], vec![2u8; n]];
        for i in (0..n).step_by(2) {
            v[1][i] = verdict(Wdl::Win, 1, None);
        }
        assert!(matches!(check(v), RuleRounds::Packed { bits: 2, .. }));
        // a few decided positions: the list
        let mut v = [vec![2u8; n], vec![0u8; n]];
        v[1][17] = verdict(Wdl::Loss, 40, chase);
        v[0][999] = verdict(Wdl::Win, 39, None);
        v[0][5] = verdict(Wdl::Loss, 39, None);
        assert!(matches!(check(v), RuleRounds::Sparse(_)));
        // many rounds everywhere: the bytes themselves
        let v = [0, 1].map(|_| {
            (0..n)
                .map(|i| verdict(Wdl::Win, (i % 60) as u8 + 1, None))
                .collect::<Vec<u8>>()
        });
        assert!(matches!(check(v), RuleRounds::Dense(_)));
        // a quarter of a side in many rounds: the slots
        let mut v = [vec![2u8; n], vec![0u8; n]];
        for i in (0..n).step_by(4) {
            v[0][i] = verdict(Wdl::Win, (i % 20) as u8 + 1, None);
        }
        v[0][1] = verdict(Wdl::Loss, 7, chase);
        assert!(matches!(check(v), RuleRounds::Slotted(_)));
        // nothing decided by the rules (a loss of a round is not read)
        let v = [vec![0u8; n], vec![verdict(Wdl::Loss, 3, None); n]];
        assert!(matches!(check(v), RuleRounds::None));
        assert!(matches!(RuleRounds::compact(None), RuleRounds::None));
    }
}
