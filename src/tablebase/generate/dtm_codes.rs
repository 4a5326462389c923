//! Step 4's codes of the positions open after round 0, packed: what the distance-to-mate
//! step ([`super::dtm`]) reads of a position decided by the rule rounds is only its rule
//! round (a violating move is one into a position decided in the ruling's round or later)
//! and, while it still counts its successors, whether it was ruled. So when every round is
//! at most [`MAX_PACKED_ORDER`] and no position has more than [`MAX_RULED_COUNT`] moves,
//! step 4 keeps four bits per open position (its round, 0 for one still open: a draw) in
//! its slot, and a ruled position's counter in a range of its own
//! ([`RULED`]` + 1..=`[`super::dtm::DRAW`]` - 1`, the others' from
//! [`compact::ILLEGAL`]` + 1` up to [`RULED`]` - 1`). The full codes, which the verdicts
//! need (win or loss, round, check or chase), wait in a work file, in slot order, and turn
//! into the verdict bytes in place when the table is finished: the writer reads them from
//! there ([`SparseVerdicts::in_work_file`]).
//!
//! The counters are set in two passes: every position but the ruled ones first (their
//! codes are all they need), then the ruled ones, whose permitted moves go to wins of an
//! earlier round: after the first pass a won position's value byte is [`super::dtm::WIN`]
//! and its round is in its slot, so no pass reads a code that another has turned already.
//!
//! Memory (KRNKR): the open positions' codes 13.2 MB in a byte each, 6.6 MB packed.

use super::bytes::Bytes;
use super::dtm::{DRAW, WIN};
use super::params::CHUNK;
use super::slots::Slots;
use super::sparse_verdicts::{SparseVerdicts, WorkBytes};
use super::start_counts::StartCounts;
use super::{asymmetry_of, code, compact, max_moves, verdict_of, Gen};
use crate::board::{Color, Position};
use crate::index::PieceList;
use crate::tablebase::table::TbError;
use crate::tablebase::workfile::Backing;
use rayon::prelude::*;
use std::path::Path;
use std::sync::Arc;

/// Highest rule round a packed code holds (four bits).
pub(super) const MAX_PACKED_ORDER: u8 = 15;
/// With packed codes, a ruled position's counter in step 4 is this plus its count.
pub(super) const RULED: u8 = 0xC0;
/// Most successors a ruled position may count with packed codes.
pub(super) const MAX_RULED_COUNT: usize = (DRAW - RULED - 1) as usize;
/// Most successors another position may count with packed codes.
const MAX_PLAIN_COUNT: usize = (RULED - compact::ILLEGAL - 1) as usize;

/// Where one side's full codes are while step 4 holds them packed.
pub(super) struct Packed {
    /// The work file (both sides', removed when the last side lets it go).
    pub(super) file: Arc<WorkBytes>,
    /// The offset of this side's first code.
    pub(super) offset: u64,
    /// Number of codes (the positions open after round 0).
    pub(super) count: usize,
}

/// The four bits of a code: its rule round (0 for a position still open).
#[inline(always)]
fn packed_order(c: u8) -> u8 {
    if c & code::OPEN != 0 {
        0
    } else {
        code::order(c)
    }
}

impl Slots {
    /// The packed rule round of index `i` (which must have a slot).
    #[inline(always)]
    pub(super) fn nibble(&self, i: usize) -> u8 {
        let k = self.rank(i);
        (self.bytes.get(k >> 1) >> ((k & 1) * 4)) & 15
    }
}

fn io(path: &Path, e: std::io::Error) -> TbError {
    TbError::Io {
        path: path.display().to_string(),
        source: e,
    }
}

impl Gen<'_> {
    /// True when step 4 can hold the codes of the open positions packed: no side has more
    /// than [`MAX_RULED_COUNT`] moves and no code (`codes` of each side's slots) has a
    /// round above [`MAX_PACKED_ORDER`].
    pub(super) fn packable(&self, codes: impl Fn(&Slots) -> &Bytes) -> bool {
        if max_moves(self.material) as usize > MAX_RULED_COUNT {
            return false;
        }
        self.aux.iter().all(|s| {
            let b = codes(s);
            (0..b.len())
                .into_par_iter()
                .all(|k| packed_order(b.get(k)) <= MAX_PACKED_ORDER)
        })
    }

    /// The codes that `take` gives up of each side's slots to the work file `path`, their
    /// rounds packed into the slots (see the module documentation). With `prune` the
    /// positions still open (drawn: their verdict is the plain one of their value) lose
    /// their slots: the value bytes must then show them as drawn some other way.
    pub(super) fn pack_codes(
        &mut self,
        path: &Path,
        backing: &Backing,
        prune: bool,
        take: impl Fn(&mut Slots) -> Bytes,
    ) -> Result<(), TbError> {
        let file = Arc::new(WorkBytes::create(path.to_path_buf()).map_err(|e| io(path, e))?);
        let drawn = |c: u8| prune && (c & code::OPEN != 0 || c == code::DRAW);
        let mut offset = 0u64;
        let mut buf = vec![0u8; CHUNK];
        let mut out = Vec::with_capacity(CHUNK);
        for slots in &mut self.aux {
            let codes = take(slots);
            if prune {
                // the drawn positions' bits cleared, a word at a time
                let mut k = 0;
                for w in 0..slots.open.words() {
                    let mut word = slots.open.word(w);
                    let mut bits = word;
                    while bits != 0 {
                        let b = bits.trailing_zeros();
                        bits &= bits - 1;
                        if drawn(codes.get(k)) {
                            word &= !(1u64 << b);
                        }
                        k += 1;
                    }
                    slots.open.write_range(w * 8, &word.to_le_bytes());
                }
            }
            // step 4 and the writer rank seldom: the lean rank
            let count = slots.index_lean();
            let nib = Bytes::with(backing, count.div_ceil(2), 0)?;
            let mut kept = 0;
            let flush = |out: &mut Vec<u8>, kept: &mut usize| -> Result<(), TbError> {
                // `out` starts at an even slot: CHUNK is even
                file.write_at(out, offset + *kept as u64)
                    .map_err(|e| io(path, e))?;
                let half: Vec<u8> = out
                    .chunks(2)
                    .map(|p| packed_order(p[0]) | p.get(1).map_or(0, |&c| packed_order(c) << 4))
                    .collect();
                nib.write_range(*kept / 2, &half);
                *kept += out.len();
                out.clear();
                Ok(())
            };
            for start in (0..codes.len()).step_by(CHUNK) {
                let len = CHUNK.min(codes.len() - start);
                codes.read_range(start, &mut buf[..len]);
                for &c in &buf[..len] {
                    if drawn(c) {
                        continue;
                    }
                    out.push(c);
                    if out.len() == CHUNK {
                        flush(&mut out, &mut kept)?;
                    }
                }
            }
            if !out.is_empty() {
                flush(&mut out, &mut kept)?;
            }
            drop(codes);
            if kept != count {
                return Err(TbError::Internal(
                    self.material,
                    format!("{kept} codes kept for {count} open positions"),
                ));
            }
            slots.bytes = nib;
            slots.packed = Some(Packed {
                file: file.clone(),
                offset,
                count,
            });
            if prune {
                // only the positions decided by the rule rounds keep a slot: often few
                slots.go_sparse()?;
            }
            offset += count as u64;
        }
        Ok(())
    }

    /// Before step 4: in a resumed generation (the slots hold the codes), the codes packed
    /// when they can be (a fresh generation packs them at the end of the rule rounds); the
    /// open bits of packed codes held sparse when that is smaller (see
    /// [`Slots::go_sparse`]: few positions keep a slot once the drawn ones lost theirs).
    pub(super) fn pack_for_dtm(&mut self, path: &Path) -> Result<(), TbError> {
        if self.rule_rounds && self.aux[0].packed.is_none() && self.packable(|s| &s.bytes) {
            let backing = self.aux[0].bytes.backing();
            self.pack_codes(path, &backing, false, |s| {
                std::mem::replace(&mut s.bytes, Bytes::new(0, 0))
            })?;
        }
        if self.is_packed() {
            for slots in &mut self.aux {
                slots.go_sparse()?;
            }
            if super::phases() {
                let [r, b] = [0, 1].map(|s| (self.aux[s].count(), self.aux[s].is_sparse_open()));
                eprintln!("  step 4 slots: Red {r:?}, Black {b:?} (count, sparse)");
            }
        }
        Ok(())
    }

    /// True when step 4 holds the codes packed.
    #[inline(always)]
    pub(super) fn is_packed(&self) -> bool {
        self.aux[0].packed.is_some()
    }

    /// The packed round of index `i` of side `s` (0 without a slot: round 0).
    #[inline(always)]
    fn round_of(&self, s: usize, i: usize) -> u8 {
        let slots = &self.aux[s];
        if slots.holds(i) {
            slots.nibble(i)
        } else {
            0
        }
    }

    /// Step 4: the code a position of side `x` decided at a level shows its predecessors:
    /// `c` (the level's outcome, round 0) or, for a position decided by the rule rounds,
    /// its code from its slot (packed: its round and the level's outcome).
    #[inline(always)]
    pub(super) fn dtm_code(&self, x: Color, i: usize, c: u8) -> u8 {
        let slots = &self.aux[x.index()];
        if !slots.holds(i) {
            return c;
        }
        match slots.packed {
            Some(_) => code::make(slots.nibble(i), c & 3),
            None => slots.get(i),
        }
    }

    /// Step 4: true when the open position `q` of side `side` (counter byte `b`) may not
    /// play its move to a successor of code `child`: `q` was ruled and the successor was
    /// decided in the ruling's round or later (a violating move).
    #[inline(always)]
    pub(super) fn dtm_forbidden(&self, q: usize, side: Color, b: u8, child: u8) -> bool {
        let slots = &self.aux[side.index()];
        match slots.packed {
            Some(_) => b > RULED && code::order(child) >= slots.nibble(q),
            None => {
                slots.has(q) && {
                    let own = slots.get(q);
                    code::is_ruling(own) && code::order(child) >= code::order(own)
                }
            }
        }
    }

    /// Step 4: true when the counter byte `b` of a position of `side` counts one successor
    /// (its last).
    #[inline(always)]
    pub(super) fn dtm_last(&self, side: Color, b: u8) -> bool {
        b == compact::ILLEGAL + 1 || (b == RULED + 1 && self.aux[side.index()].packed.is_some())
    }

    /// Step 4's first pass with packed codes, for the indices `start..end`: the value
    /// bytes of every position but the ruled ones, from their codes; the counters from
    /// `counts` when the start pass's are kept (see [`super::start_counts`]).
    pub(super) fn dtm_init_plain(&self, start: usize, end: usize, counts: Option<&StartCounts>) {
        let mut pieces = PieceList::new();
        // one position for the chunk, loaded in place
        let mut pos = Position::unloaded();
        let saved = self.saved_counts(counts, start, end);
        for i in start..end {
            let mut losses = false;
            for val in &self.val {
                let c = val.get(i);
                if code::is_win(c) {
                    val.set(i, WIN);
                } else if code::is_loss(c) {
                    losses |= !code::is_ruling(c);
                } else if c == code::ILLEGAL {
                    val.set(i, compact::ILLEGAL);
                } else {
                    val.set(i, DRAW);
                }
            }
            if !losses {
                continue;
            }
            // the placement decoded once, for the first loss that needs it
            let mut decoded = false;
            for side in Color::ALL {
                let val = &self.val[side.index()];
                let c = val.get(i);
                if !code::is_loss(c) || code::is_ruling(c) {
                    continue;
                }
                if let Some(n) = self.saved_count(&saved, counts, side, i - start) {
                    self.set_counter(val, i, n, compact::ILLEGAL, MAX_PLAIN_COUNT, side);
                    continue;
                }
                if !self.load_decided(i, side, &mut pieces, &mut pos, &mut decoded) {
                    continue;
                }
                let n = self.count_children(&pos, asymmetry_of(&pieces));
                self.set_counter(val, i, n, compact::ILLEGAL, MAX_PLAIN_COUNT, side);
            }
        }
    }

    /// Step 4's second pass with packed codes, for the indices `start..end`: the counters of
    /// the ruled positions, which count their permitted moves (captures, and moves to wins
    /// of an earlier round).
    pub(super) fn dtm_init_ruled(&self, start: usize, end: usize) {
        let ruled = |c: u8| c & code::OPEN == 0 && code::is_ruling(c);
        let mut pieces = PieceList::new();
        // one position for the chunk, loaded in place
        let mut pos = Position::unloaded();
        for i in start..end {
            if !self.val.iter().any(|v| ruled(v.get(i))) {
                continue;
            }
            if !self.index.unrank_into(i as u64, &mut pieces) {
                self.fail(format!("index {i} decided but undecodable"));
                continue;
            }
            for side in Color::ALL {
                let val = &self.val[side.index()];
                let c = val.get(i);
                if !ruled(c) {
                    continue;
                }
                if pos.load_pieces(&pieces, side).is_err() {
                    self.fail(format!("index {i} decided but undecodable"));
                    continue;
                }
                let order = code::order(c);
                let other = (!side).index();
                let n = self.permitted_children(&pos, &pieces, |j| {
                    self.val[other].get(j) == WIN && self.round_of(other, j) < order
                });
                self.set_counter(val, i, n, RULED, MAX_RULED_COUNT, side);
            }
        }
    }
}

/// The verdicts of a finished table whose step 4 held its codes packed: the codes turned
/// into verdict bytes in their work file, which the verdicts keep.
pub(super) fn packed_verdicts(mut aux: [Slots; 2]) -> Result<SparseVerdicts, TbError> {
    let mut sides = Vec::with_capacity(2);
    let mut counts = [0; 2];
    let mut buf = vec![0u8; 1 << 16];
    for (s, slots) in aux.iter_mut().enumerate() {
        slots.bytes = Bytes::new(0, 0);
        let Some(p) = slots.packed.take() else {
            unreachable!("both sides' codes are packed together");
        };
        let path = p.file.path().to_path_buf();
        for start in (0..p.count).step_by(buf.len()) {
            let len = buf.len().min(p.count - start);
            let at = p.offset + start as u64;
            p.file
                .read_at(&mut buf[..len], at)
                .map_err(|e| io(&path, e))?;
            for b in &mut buf[..len] {
                *b = verdict_of(*b).map_or(255, |v| v.encode());
            }
            p.file.write_at(&buf[..len], at).map_err(|e| io(&path, e))?;
        }
        counts[s] = p.count;
        sides.push((p.file, p.offset));
    }
    let (Some(black), Some(red)) = (sides.pop(), sides.pop()) else {
        unreachable!("two sides");
    };
    Ok(SparseVerdicts::in_work_file(aux, [red, black], counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packed codes keep each open position's round, the full codes go to the work file
    /// and come back as the verdicts of those positions.
    #[test]
    fn packed_rounds_and_verdicts() {
        let n = 1000;
        let mut s = Slots::empty(&Backing::Heap, n, true).expect("heap");
        let open: Vec<usize> = (0..n).filter(|i| i % 3 != 1).collect();
        for &i in &open {
            s.open.set(i);
        }
        s.allocate(&Backing::Heap, 0).expect("heap");
        let code_of = |k: usize| match k % 4 {
            0 => code::OPEN | 5,
            1 => code::make((k % 15) as u8 + 1, code::WIN),
            2 => code::make((k % 9) as u8 + 1, code::RULE_CHASE),
            _ => code::make(7, code::LOSS),
        };
        for k in 0..open.len() {
            s.bytes.set(k, code_of(k));
        }
        let dir = std::env::temp_dir().join(format!("xqdb-packed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let path = dir.join("codes.work");
        let material: crate::index::Material = "KRKN".parse().expect("a material");
        let index = crate::index::PlacementIndex::new(material).expect("an index");
        let mut black = Slots::empty(&Backing::Heap, n, true).expect("heap");
        black.allocate(&Backing::Heap, 0).expect("heap");
        let mut g = Gen {
            material,
            index: &index,
            val: [Bytes::new(0, 0), Bytes::new(0, 0)],
            aux: [s, black],
            high: None,
            rule_rounds: true,
            capdraw: None,
            subs: Vec::new(),
            rules: crate::board::rules::RuleSet::CheckChase,
            ck: None,
            assigned: std::sync::atomic::AtomicU64::new(0),
            overflow: std::sync::atomic::AtomicBool::new(false),
            fault: std::sync::Mutex::new(None),
        };
        assert!(g.packable(|s| &s.bytes));
        g.pack_codes(&path, &Backing::Heap, false, |s| {
            std::mem::replace(&mut s.bytes, Bytes::new(0, 0))
        })
        .expect("packed");
        for (k, &i) in open.iter().enumerate() {
            assert_eq!(g.aux[0].nibble(i), packed_order(code_of(k)), "index {i}");
            let c = g.dtm_code(Color::Red, i, code::make(0, code::LOSS));
            assert_eq!(code::order(c), packed_order(code_of(k)));
        }
        assert!(g.dtm_last(Color::Red, RULED + 1) && g.dtm_last(Color::Red, 0x81));
        let aux = std::mem::replace(
            &mut g.aux,
            [0, 1].map(|_| Slots::empty(&Backing::Heap, 0, false).expect("heap")),
        );
        let v = packed_verdicts(aux).expect("verdicts");
        let w = v.window(n, 0..n).expect("a window");
        for (k, &i) in open.iter().enumerate() {
            let want = verdict_of(code_of(k)).map_or(255, |x| x.encode());
            assert_eq!(w.get(0, i), Some(want), "index {i}");
        }
        assert_eq!(w.get(0, 1), None);
        drop(w);
        drop(v);
        assert!(!path.exists(), "the work file goes with the verdicts");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
