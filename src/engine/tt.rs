//! Transposition table keyed by the Zobrist key, shared without locks by the search
//! threads (Lazy SMP).

use super::score::MATE_BOUND;
use crate::board::Move;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// Bound of a stored score.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// Exact.
    Exact,
    /// At least (fail high).
    Lower,
    /// At most (fail low).
    Upper,
}

/// One slot: the key XOR the data, and the data (move, score, depth, bound, age packed in
/// 56 bits). Threads read and write slots without locks; a slot torn by two writers at once
/// fails the XOR check and reads as empty.
#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

fn pack(mv: u16, score: i16, depth: i8, bound: u8, age: u8) -> u64 {
    mv as u64
        | (score as u16 as u64) << 16
        | (depth as u8 as u64) << 32
        | (bound as u64) << 40
        | (age as u64) << 48
}

/// (move, score, depth, bound, age).
fn unpack(d: u64) -> (u16, i16, i8, u8, u8) {
    (
        d as u16,
        (d >> 16) as u16 as i16,
        (d >> 32) as u8 as i8,
        (d >> 40) as u8,
        (d >> 48) as u8,
    )
}

/// Ask the kernel to back the vector's reserved memory (not yet written) with huge pages
/// where it can: every probe of a table of many MiB lands on a page of its own, and with
/// 4 KiB pages each one missed the address translation cache (a page walk per node: about
/// a tenth of the search's time). Only a hint, on Linux only: a refusal changes nothing.
fn advise_huge_pages(slots: &Vec<Slot>) {
    #[cfg(target_os = "linux")]
    {
        let bytes = slots.capacity() * std::mem::size_of::<Slot>();
        // a table smaller than two huge pages has no huge page in it to gain
        if bytes < 4 << 20 {
            return;
        }
        // SAFETY: sysconf has no preconditions
        let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
            p if p > 0 => p as usize,
            _ => return,
        };
        let start = (slots.as_ptr() as usize).next_multiple_of(page);
        let end = (slots.as_ptr() as usize + bytes) / page * page;
        if end > start {
            // SAFETY: [start, end) lies inside the vector's allocation, page-aligned;
            // MADV_HUGEPAGE changes only how the kernel backs those pages, never their
            // contents or addresses (the result is ignored: the advice is optional)
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = slots;
}

/// Ask the processor to bring the cache line of `r` in (a hint: a load that never faults
/// nor stalls the program); does nothing on other architectures. The table's slots and the
/// search's evaluation cache are fetched this way when a move is made, ahead of their probe.
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = std::ptr::from_ref(r).cast::<i8>();
        // SAFETY: a prefetch is a hint that never faults nor reads into the program, and SSE
        // (which it needs) is part of every x86_64 processor
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// A hit.
#[derive(Copy, Clone, Debug)]
pub struct Hit {
    /// Best move found, if any.
    pub mv: Option<Move>,
    /// Score (mate scores made relative to the probing ply).
    pub score: i32,
    /// Depth searched.
    pub depth: i32,
    /// Bound.
    pub bound: Bound,
}

/// The table, shared by the search threads (every method but `clear` takes `&self`).
pub struct Tt {
    slots: Vec<Slot>,
    age: AtomicU8,
}

impl Tt {
    /// A table of about `mb` MiB (at least 1). Aborts when the memory cannot be had: see
    /// [`Tt::try_new`] for sizes that come from a user.
    pub fn new(mb: usize) -> Tt {
        let n = ((mb.max(1) << 20) / std::mem::size_of::<Slot>()).max(1024);
        let mut slots = Vec::with_capacity(n);
        advise_huge_pages(&slots);
        slots.resize_with(n, Slot::default);
        Tt {
            slots,
            age: AtomicU8::new(0),
        }
    }

    /// A table of about `mb` MiB (at least 1), or an error when the memory cannot be had.
    pub fn try_new(mb: usize) -> Result<Tt, String> {
        let n = mb
            .max(1)
            .checked_mul(1 << 20)
            .map(|b| (b / std::mem::size_of::<Slot>()).max(1024))
            .ok_or_else(|| format!("a hash table of {mb} MiB does not fit in memory"))?;
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(n)
            .map_err(|_| format!("cannot allocate a hash table of {mb} MiB"))?;
        advise_huge_pages(&slots);
        slots.resize_with(n, Slot::default);
        Ok(Tt {
            slots,
            age: AtomicU8::new(0),
        })
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        for s in &mut self.slots {
            *s = Slot::default();
        }
    }

    /// Start a new search (older entries are replaced first). Called once per search,
    /// before its threads start.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    #[inline]
    fn slot(&self, key: u64) -> &Slot {
        &self.slots[((key as u128 * self.slots.len() as u128) >> 64) as usize]
    }

    /// Ask the processor to bring `key`'s slot into the cache (called when a move is made, so
    /// that the probe at the next node waits less).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch(self.slot(key));
    }

    /// The slot's data when it holds `key`.
    #[inline]
    fn read(&self, key: u64) -> Option<u64> {
        let s = self.slot(key);
        let d = s.data.load(Ordering::Relaxed);
        (s.check.load(Ordering::Relaxed) ^ d == key && d != 0).then_some(d)
    }

    /// Look a position up.
    #[inline]
    pub fn probe(&self, key: u64, ply: i32) -> Option<Hit> {
        let (mv, score, depth, bound, _) = unpack(self.read(key)?);
        if bound == 0 {
            return None;
        }
        let mut score = score as i32;
        if score > MATE_BOUND {
            score -= ply;
        } else if score < -MATE_BOUND {
            score += ply;
        }
        Some(Hit {
            mv: Move::from_u16(mv).filter(|_| mv != 0),
            score,
            depth: depth as i32,
            bound: match bound {
                1 => Bound::Exact,
                2 => Bound::Lower,
                _ => Bound::Upper,
            },
        })
    }

    /// Store a result.
    #[inline]
    pub fn store(
        &self,
        key: u64,
        ply: i32,
        mv: Option<Move>,
        score: i32,
        depth: i32,
        bound: Bound,
    ) {
        let age = self.age.load(Ordering::Relaxed);
        let old = self.read(key).map(unpack);
        if let Some((_, _, d, _, a)) = old {
            if a == age && d as i32 > depth && bound != Bound::Exact {
                return;
            }
        }
        let mut s = score;
        if s > MATE_BOUND {
            s += ply;
        } else if s < -MATE_BOUND {
            s -= ply;
        }
        let keep_move = old.map_or(0, |o| o.0);
        let data = pack(
            mv.map_or(keep_move, |m| m.to_u16()),
            s.clamp(-32000, 32000) as i16,
            depth.clamp(-1, 127) as i8,
            match bound {
                Bound::Exact => 1,
                Bound::Lower => 2,
                Bound::Upper => 3,
            },
            age,
        );
        let slot = self.slot(key);
        slot.check.store(key ^ data, Ordering::Relaxed);
        slot.data.store(data, Ordering::Relaxed);
    }

    /// Permille of entries written in this search.
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed);
        let n = self.slots.len().min(1000);
        self.slots[..n]
            .iter()
            .filter(|s| {
                let (_, _, _, bound, a) = unpack(s.data.load(Ordering::Relaxed));
                bound != 0 && a == age
            })
            .count() as u32
            * 1000
            / n as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_read_back_and_other_keys_miss() {
        let tt = Tt::new(1);
        let m: Move = "h2e2".parse().expect("constant move");
        tt.new_search();
        tt.store(0x1234_5678_9abc_def0, 3, Some(m), -150, 7, Bound::Lower);
        let h = tt.probe(0x1234_5678_9abc_def0, 3).expect("just stored");
        assert_eq!(
            (h.mv, h.score, h.depth, h.bound),
            (Some(m), -150, 7, Bound::Lower)
        );
        assert!(tt.probe(0x1234_5678_9abc_def1, 3).is_none());
        // a mate score is stored relative to the node and read back relative to the probe
        tt.store(42, 2, None, MATE_BOUND + 50, 1, Bound::Exact);
        assert_eq!(
            tt.probe(42, 5).map(|h| h.score),
            Some(MATE_BOUND + 50 + 2 - 5)
        );
        // a torn slot (data from another entry) fails the check
        let s = tt.slot(42);
        s.data.store(pack(1, 2, 3, 1, 0), Ordering::Relaxed);
        assert!(tt.probe(42, 0).is_none());
    }
}
