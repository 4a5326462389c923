//! The auxiliary byte of a table with repetition-rule rounds, kept only for the positions
//! that round 0 leaves open (a quarter of KRNKR's): a bit per index says whether it has a
//! byte, and the bytes of the open positions follow one another in index order, found by a
//! rank over the bits (a count per 512 bits, a count within those per 64, and a population
//! count of one word; or, lean, without the counts per 64: the population counts of the
//! words of those 512 bits up to the index's, eight words in a cache line, an eighth of a
//! bit per index instead of three eighths, for the phases that rank seldom or in order).
//!
//! Every position the rule rounds touch (flags, the propagation step of a position decided
//! in a round) and every position that step 4 needs a code of beside its level (the
//! positions decided by the rounds) is such an open position; the positions decided in
//! round 0 are plain (order 0) and need no byte.
//!
//! In the rule rounds the flag bytes are sparse again ([`Flags`]): the marks set their base
//! flags four bits a slot, and from then on only the slots whose flags are not 0 keep a
//! byte, found by a rank over a bit per slot (KCABKCA: 43 % of its open positions;
//! a bit and 0.43 bytes per open position instead of a byte).
//!
//! In step 4 with packed codes only the positions decided by the rule rounds keep a slot,
//! often few (KCAAKCAA: 2,425 of 17 M a side), and the bits are held sparse from the end of
//! the rounds on ([`Slots::go_sparse`], see [`sparse`]): the value bytes of step 4 and the
//! verdicts handed over after it find the slots through [`Slots::holds`] and
//! [`Slots::rank`], a checkpoint reads the bits' dense image ([`Slots::read_open`]).

use super::bytes::{Bits, Bytes};
use super::params::CHUNK;
pub(super) use super::slot_flags::Flags;
use super::split_codes::SplitCodes;
use super::Gen;
use crate::index::Material;
use crate::tablebase::table::TbError;
use crate::tablebase::workfile::Backing;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

mod sparse;
use sparse::SparseOpen;

/// Words of bits per rank count.
const BLOCK: usize = 8;

/// The auxiliary bytes of one side to move.
pub(super) struct Slots {
    /// Which indices have a byte (the positions open after round 0).
    pub(super) open: Bits,
    /// Number of set bits before each block of [`BLOCK`] words.
    base: Vec<u64>,
    /// Number of set bits before each word within its block (empty: lean, counted).
    within: Vec<u16>,
    /// The bytes, in index order.
    pub(super) bytes: Bytes,
    /// During the rule rounds: the codes of the open positions, in index order (see
    /// [`super::round_codes`]; else empty): a byte each here, or split ([`SplitCodes`]).
    pub(super) codes: Bytes,
    /// During the rule rounds: the codes of the open positions split (None: in
    /// [`Slots::codes`]).
    pub(super) split: Option<SplitCodes>,
    /// During the rule rounds: two bits for each index without a byte, in index order (the
    /// pair of index `i` is number `i - slot(i)`, the same rank as the bytes'): bit `2 p`
    /// of pair `p` set when its position was won in round 0, bit `2 p + 1` when it was lost
    /// (one cache line for both).
    pub(super) plain: Bits,
    /// In step 4 with packed codes (see [`super::dtm_codes`]): where the full codes are,
    /// `bytes` holding their rule rounds four bits each (None: `bytes` holds the codes).
    pub(super) packed: Option<super::dtm_codes::Packed>,
    /// Where the rule rounds' flag bytes are (see [`Flags`]).
    pub(super) flags: Flags,
    /// Number of set bits (as of the last ranking).
    pub(super) total: usize,
    /// In step 4 with packed codes and after it: the open bits held sparse (see
    /// [`Slots::go_sparse`]; `open` is then empty). Only [`Slots::holds`],
    /// [`Slots::rank`], [`Slots::nibble`](super::dtm_codes) and the reads of the open bits
    /// as bytes see them.
    sparse: Option<SparseOpen>,
}

impl Slots {
    /// No byte for any index (a table without rule rounds, or before the end of round 0).
    pub fn empty(backing: &Backing, n: usize, with_bits: bool) -> Result<Slots, TbError> {
        Ok(Slots {
            open: Bits::with(backing, if with_bits { n } else { 0 })?,
            base: Vec::new(),
            within: Vec::new(),
            bytes: Bytes::new(0, 0),
            codes: Bytes::new(0, 0),
            plain: Bits::with(&Backing::Heap, 0)?,
            packed: None,
            split: None,
            flags: Flags::Dense,
            total: 0,
            sparse: None,
        })
    }

    /// No bit set among `n` on the heap, and `count` bytes (0): for bits set in index order,
    /// each with the next byte, then ranked ([`Slots::index_bits`]).
    pub fn sized(n: usize, count: usize) -> Slots {
        Slots {
            open: Bits::heap(n),
            base: Vec::new(),
            within: Vec::new(),
            bytes: Bytes::new(count, 0),
            codes: Bytes::new(0, 0),
            plain: Bits::heap(0),
            packed: None,
            split: None,
            flags: Flags::Dense,
            total: 0,
            sparse: None,
        }
    }

    /// The rank counts of the bits as they are now; the number of set bits.
    pub fn index_bits(&mut self) -> usize {
        self.index_with(true)
    }

    /// [`Slots::index_bits`] without the counts per word (lean: the rank of an index counts
    /// up to seven words more).
    pub fn index_lean(&mut self) -> usize {
        self.index_with(false)
    }

    fn index_with(&mut self, per_word: bool) -> usize {
        let words = self.open.words();
        let mut base = Vec::with_capacity(words.div_ceil(BLOCK));
        let mut within = Vec::with_capacity(if per_word { words } else { 0 });
        let mut total = 0u64;
        for w in 0..words {
            if w % BLOCK == 0 {
                base.push(total);
            }
            if per_word {
                within.push((total - base[w / BLOCK]) as u16);
            }
            total += self.open.word(w).count_ones() as u64;
        }
        self.base = base;
        self.within = within;
        self.total = total as usize;
        self.total
    }

    /// Number of indices with a slot (as of the last ranking).
    pub fn count(&self) -> usize {
        self.total
    }

    /// Rank the bits and give every set one a byte of value `fill`.
    pub fn allocate(&mut self, backing: &Backing, fill: u8) -> Result<(), TbError> {
        let count = self.index_bits();
        self.bytes = Bytes::with(backing, count, fill)?;
        Ok(())
    }

    /// [`Slots::allocate`] with the lean rank ([`Slots::index_lean`]): for random look-ups
    /// where the bits' cache line is read anyway (the rank's per-word counts would be
    /// another).
    pub fn allocate_lean(&mut self, backing: &Backing, fill: u8) -> Result<(), TbError> {
        let count = self.index_lean();
        self.bytes = Bytes::with(backing, count, fill)?;
        Ok(())
    }

    /// The position of index `i`'s byte (`i` must have one).
    #[inline(always)]
    pub fn slot(&self, i: usize) -> usize {
        let w = i >> 6;
        let mut r = self.base[w / BLOCK] as usize;
        if self.within.is_empty() {
            // lean: the words of a block share a cache line
            for k in w & !(BLOCK - 1)..w {
                r += self.open.word(k).count_ones() as usize;
            }
        } else {
            r += self.within[w] as usize;
        }
        r + (self.open.word(w) & ((1u64 << (i & 63)) - 1)).count_ones() as usize
    }

    /// The number of set bits before word `w`'s block of [`BLOCK`] words, and the block's
    /// first word (the rank of [`Slots::slot`] without its population counts).
    pub fn block_rank(&self, w: usize) -> (usize, usize) {
        (self.base[w / BLOCK] as usize, w & !(BLOCK - 1))
    }

    /// True when index `i` has a byte.
    #[inline(always)]
    pub fn has(&self, i: usize) -> bool {
        self.open.get(i)
    }

    /// The open bits held sparse when that takes at most
    /// [`params::SPARSE_OPEN_MAX_SHARE`](super::params::SPARSE_OPEN_MAX_SHARE) of their
    /// bytes (bits on the heap only): from then on only [`Slots::holds`],
    /// [`Slots::rank`], [`Slots::open_words`] and [`Slots::read_open`] see them (step 4 with
    /// packed codes and the verdicts after it). The number of set bits becomes the count.
    pub fn go_sparse(&mut self) -> Result<(), TbError> {
        if self.sparse.is_some() || !matches!(self.open.backing(), Backing::Heap) {
            return Ok(());
        }
        if let Some(s) = SparseOpen::of(&self.open) {
            self.total = s.count();
            self.open = Bits::with(&Backing::Heap, 0)?;
            self.base = Vec::new();
            self.within = Vec::new();
            self.sparse = Some(s);
        }
        Ok(())
    }

    /// [`Slots::has`] for either form of the open bits (see [`Slots::go_sparse`]).
    #[inline(always)]
    pub fn holds(&self, i: usize) -> bool {
        match &self.sparse {
            Some(s) => s.get(i),
            None => self.open.get(i),
        }
    }

    /// The slots before index `i` (its slot when it has one), for either form of the open
    /// bits (see [`Slots::go_sparse`]) and any `i` up to the bits' end.
    #[inline(always)]
    pub fn rank(&self, i: usize) -> usize {
        match &self.sparse {
            Some(s) => s.rank(i),
            None if i >= self.open.words() * 64 => self.total,
            None => self.slot(i),
        }
    }

    /// Words of the open bits, either form.
    pub fn open_words(&self) -> usize {
        match &self.sparse {
            Some(s) => s.words(),
            None => self.open.words(),
        }
    }

    /// Bytes `start..start + out.len()` of the open bits (their dense image, either form;
    /// `start` a multiple of 8).
    pub fn read_open(&self, start: usize, out: &mut [u8]) {
        match &self.sparse {
            Some(s) => s.read_range(start, out),
            None => self.open.read_range(start, out),
        }
    }

    /// True when the open bits are held sparse (see [`Slots::go_sparse`]).
    pub fn is_sparse_open(&self) -> bool {
        self.sparse.is_some()
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> u8 {
        self.flag_at(self.slot(i))
    }

    #[inline(always)]
    pub fn set(&self, i: usize, v: u8) {
        self.set_flag_at(self.slot(i), v)
    }

    #[inline(always)]
    pub fn or(&self, i: usize, bits: u8) {
        let k = self.slot(i);
        match &self.flags {
            Flags::Dense => self.bytes.or(k, bits),
            Flags::Nibbles(b) => {
                debug_assert!(bits < 16, "the marks set base flags only");
                b.or(k >> 1, bits << ((k & 1) * 4))
            }
            Flags::Sparse(_) => {
                let _ = self.update_flag_at(k, |b| Some(b | bits));
            }
        }
    }

    #[inline(always)]
    pub fn update(&self, i: usize, f: impl FnMut(u8) -> Option<u8>) -> Result<u8, u8> {
        self.update_flag_at(self.slot(i), f)
    }

    /// Call `f(i, byte)` for every index in `start..end` that has a byte.
    #[inline]
    pub fn each(&self, start: usize, end: usize, f: impl FnMut(usize, u8)) {
        self.each_in(&self.bytes, start, end, f)
    }

    /// Call `f(i, k)` for every index `i` in `start..end` that has a byte, `k` the
    /// position of its byte.
    #[inline]
    pub fn each_slot(&self, start: usize, end: usize, mut f: impl FnMut(usize, usize)) {
        if start >= end {
            return;
        }
        let mut k = self.slot(start);
        for w in start / 64..end.div_ceil(64) {
            let mut bits = self.word_in(w, start, end);
            while bits != 0 {
                f(w * 64 + bits.trailing_zeros() as usize, k);
                bits &= bits - 1;
                k += 1;
            }
        }
    }

    /// The open bits of word `w` that fall in `start..end`.
    #[inline(always)]
    fn word_in(&self, w: usize, start: usize, end: usize) -> u64 {
        let mut bits = self.open.word(w);
        if w * 64 < start {
            bits &= !0u64 << (start - w * 64);
        }
        if (w + 1) * 64 > end {
            bits &= (1u64 << (end - w * 64)) - 1;
        }
        bits
    }

    /// Call `f(i)` for every index in `start..end` whose byte is `v` (the bytes tested
    /// eight at a time; `start..end` within one work item). In a work file, a scan is also
    /// where the resident set is checked.
    #[inline]
    pub fn scan(&self, start: usize, end: usize, v: u8, mut f: impl FnMut(usize)) {
        if start >= end {
            return;
        }
        if let Some(w) = self.bytes.work_file() {
            w.tick();
        }
        let mut k = self.slot(start);
        for w in start / 64..end.div_ceil(64) {
            let bits = self.word_in(w, start, end);
            let c = bits.count_ones() as usize;
            if c == 0 {
                continue;
            }
            let mut hits = self.bytes.matches(k, c, v);
            while hits != 0 {
                let j = hits.trailing_zeros();
                hits &= hits - 1;
                // the index of the word's set bit number j
                let mut b = bits;
                for _ in 0..j {
                    b &= b - 1;
                }
                f(w * 64 + b.trailing_zeros() as usize);
            }
            k += c;
        }
    }

    /// The code of slot `k` in the rule rounds (see [`super::round_codes`]): split, an
    /// open position's counter is not shown (see [`SplitCodes::code`]).
    #[inline(always)]
    pub fn code(&self, k: usize) -> u8 {
        match &self.split {
            Some(s) => s.code(k),
            None => self.codes.get(k),
        }
    }

    /// [`Slots::each`] over the codes of the rule rounds (see [`Slots::code`]).
    #[inline]
    pub fn each_code(&self, start: usize, end: usize, mut f: impl FnMut(usize, u8)) {
        self.each_slot(start, end, |i, k| f(i, self.code(k)))
    }

    /// The work file the codes are in, if any (its resident set is checked at scans).
    pub fn codes_work_file(&self) -> Option<&std::sync::Arc<crate::tablebase::workfile::WorkFile>> {
        match &self.split {
            Some(s) => s.work_file(),
            None => self.codes.work_file(),
        }
    }

    #[inline]
    fn each_in(&self, bytes: &Bytes, start: usize, end: usize, mut f: impl FnMut(usize, u8)) {
        self.each_slot(start, end, |i, k| f(i, bytes.get(k)))
    }
}

/// A work file of the generation of `material`: `MATERIAL.WHAT.work` in the work folder
/// given (the table folder of `gen`, whose lock excludes a second writer; a file left by a
/// killed process is removed or replaced when the table starts again), else in the system's
/// temporary folder with the process id and a count of the calls in the name.
pub(super) fn work_path(material: Material, work_dir: Option<&Path>, what: &str) -> PathBuf {
    match work_dir {
        Some(dir) => dir.join(format!("{material}.{what}.work")),
        None => {
            // unique to the process and the call: generations of one material may run at
            // once in one process (a library user's threads)
            static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let pid = std::process::id();
            std::env::temp_dir().join(format!("{material}.{what}.{pid}-{k}.work"))
        }
    }
}

/// A work file at `path` that nothing else can open: created, then unlinked at once (its
/// space goes with the handle, also when the run is killed).
pub(super) fn unlinked_work_file(path: &Path) -> Result<std::fs::File, TbError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .map_err(|e| TbError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
    let _ = std::fs::remove_file(path);
    Ok(file)
}

impl Gen<'_> {
    /// Let go of the pages of the split codes' files (see [`SplitCodes`]) that the process
    /// holds: a step of a round's propagation touches the counters of the predecessors of
    /// what it decides, up to a third of the file in a table most of whose positions are
    /// open (KCAAKCAA's round 1: 9 MiB), which would else stay mapped to the end of the
    /// rounds.
    pub(super) fn drop_code_pages(&self) {
        for s in &self.aux {
            if let Some(sp) = &s.split {
                sp.drop_pages();
            }
        }
    }
}

/// Round 0's levels (the value bytes and high bits of both sides) in a work file while the
/// rule rounds run; removed when dropped.
pub(super) struct LevelsFile {
    path: PathBuf,
}

impl LevelsFile {
    /// Where the levels of `material` go: `MATERIAL.levels.work` (see [`work_path`]).
    pub fn path(material: Material, work_dir: Option<&Path>) -> PathBuf {
        work_path(material, work_dir, "levels")
    }

    /// Write the state's value bytes and high bits to `path`.
    pub fn save(g: &Gen<'_>, path: PathBuf) -> Result<LevelsFile, TbError> {
        let file = LevelsFile { path };
        let io = |e: std::io::Error| TbError::Io {
            path: file.path.display().to_string(),
            source: e,
        };
        let mut w = std::io::BufWriter::new(std::fs::File::create(&file.path).map_err(io)?);
        let mut buf = vec![0u8; CHUNK];
        for s in 0..2 {
            let val = &g.val[s];
            for start in (0..val.len()).step_by(CHUNK) {
                let len = CHUNK.min(val.len() - start);
                val.read_range(start, &mut buf[..len]);
                w.write_all(&buf[..len]).map_err(io)?;
            }
            let high = &g.high_bits()[s];
            let bytes = high.words() * 8;
            for start in (0..bytes).step_by(CHUNK) {
                let len = CHUNK.min(bytes - start);
                high.read_range(start, &mut buf[..len]);
                w.write_all(&buf[..len]).map_err(io)?;
            }
        }
        w.flush().map_err(io)?;
        Ok(file)
    }

    /// The file for reading from its start (round 0's value bytes of Red to move first,
    /// then its high bits, then Black's), and its path.
    pub fn open(&self) -> Result<(std::io::BufReader<std::fs::File>, PathBuf), TbError> {
        let f = std::fs::File::open(&self.path).map_err(|e| TbError::Io {
            path: self.path.display().to_string(),
            source: e,
        })?;
        Ok((std::io::BufReader::new(f), self.path.clone()))
    }

    /// Put the saved value bytes and high bits back.
    pub fn restore(&self, g: &Gen<'_>) -> Result<(), TbError> {
        let io = |e: std::io::Error| TbError::Io {
            path: self.path.display().to_string(),
            source: e,
        };
        let mut r = std::io::BufReader::new(std::fs::File::open(&self.path).map_err(io)?);
        let mut buf = vec![0u8; CHUNK];
        for s in 0..2 {
            let val = &g.val[s];
            for start in (0..val.len()).step_by(CHUNK) {
                let len = CHUNK.min(val.len() - start);
                r.read_exact(&mut buf[..len]).map_err(io)?;
                val.write_range(start, &buf[..len]);
            }
            let high = &g.high_bits()[s];
            let bytes = high.words() * 8;
            for start in (0..bytes).step_by(CHUNK) {
                let len = CHUNK.min(bytes - start);
                r.read_exact(&mut buf[..len]).map_err(io)?;
                high.write_range(start, &buf[..len]);
            }
        }
        Ok(())
    }
}

impl Drop for LevelsFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_and_scans() {
        let n = 2000;
        let mut s = Slots::empty(&Backing::Heap, n, true).expect("heap");
        let open: Vec<usize> = (0..n).filter(|i| i % 7 == 3 || i % 64 == 63).collect();
        for &i in &open {
            s.open.set(i);
        }
        s.allocate(&Backing::Heap, 0).expect("heap");
        assert_eq!(s.bytes.len(), open.len());
        for (k, &i) in open.iter().enumerate() {
            assert_eq!(s.slot(i), k);
            s.set(i, (k % 5) as u8);
        }
        assert_eq!(s.index_lean(), open.len());
        for (k, &i) in open.iter().enumerate() {
            assert_eq!(s.slot(i), k, "lean");
        }
        let mut hits = Vec::new();
        s.each(640, 1500, |i, b| {
            if b == 2 {
                hits.push(i)
            }
        });
        let want: Vec<usize> = open
            .iter()
            .enumerate()
            .filter(|&(k, &i)| (640..1500).contains(&i) && k % 5 == 2)
            .map(|(_, &i)| i)
            .collect();
        assert_eq!(hits, want);
        let mut all = Vec::new();
        s.each(0, n, |i, b| all.push((i, b)));
        assert_eq!(all.len(), open.len());
        // unaligned ranges, by byte and by slot
        let mut some = Vec::new();
        s.each(70, 1301, |i, _| some.push(i));
        let want: Vec<usize> = open
            .iter()
            .copied()
            .filter(|i| (70..1301).contains(i))
            .collect();
        assert_eq!(some, want);
        let mut slots = Vec::new();
        s.each_slot(70, 1301, |i, k| slots.push((i, k)));
        assert!(slots.iter().all(|&(i, k)| s.slot(i) == k));
        assert_eq!(slots.iter().map(|e| e.0).collect::<Vec<_>>(), want);
        let mut scanned = Vec::new();
        s.scan(640, 1500, 2, |i| scanned.push(i));
        assert_eq!(scanned, hits);
        let mut scanned = Vec::new();
        s.scan(0, n, 4, |i| scanned.push(i));
        let want4: Vec<usize> = open
            .iter()
            .enumerate()
            .filter(|&(k, _)| k % 5 == 4)
            .map(|(_, &i)| i)
            .collect();
        assert_eq!(scanned, want4);
        assert!(!s.has(0) && s.has(3) && s.has(63));
    }

    /// Few slots: the open bits go sparse, and the slots, ranks and dense image are those of
    /// the bits; many: they stay.
    #[test]
    fn sparse_open_bits_rank_as_dense() {
        let n = 64 * 1000;
        let mut s = Slots::empty(&Backing::Heap, n, true).expect("heap");
        for i in (0..n).filter(|i| i % 1013 == 7) {
            s.open.set(i);
        }
        s.allocate_lean(&Backing::Heap, 0).expect("heap");
        let dense: Vec<(bool, usize)> = (0..n).map(|i| (s.has(i), s.rank(i))).collect();
        let mut image = vec![0u8; s.open_words() * 8];
        s.read_open(0, &mut image);
        s.go_sparse().expect("heap");
        assert!(s.is_sparse_open() && s.open.words() == 0);
        for (i, &(has, rank)) in dense.iter().enumerate() {
            assert_eq!((s.holds(i), s.rank(i)), (has, rank), "index {i}");
        }
        assert_eq!(s.rank(n), s.count());
        let mut again = vec![0u8; s.open_words() * 8];
        s.read_open(0, &mut again);
        assert_eq!(again, image);
        let mut full = Slots::empty(&Backing::Heap, n, true).expect("heap");
        for i in (0..n).step_by(2) {
            full.open.set(i);
        }
        full.allocate_lean(&Backing::Heap, 0).expect("heap");
        full.go_sparse().expect("heap");
        assert!(!full.is_sparse_open());
    }
}
