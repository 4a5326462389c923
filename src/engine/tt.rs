//! Transposition table keyed by the Zobrist key.

use super::score::MATE_BOUND;
use crate::board::Move;

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

#[derive(Copy, Clone, Default)]
struct Entry {
    key: u64,
    mv: u16,
    score: i16,
    depth: i8,
    bound: u8,
    age: u8,
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

/// The table.
pub struct Tt {
    entries: Vec<Entry>,
    age: u8,
}

impl Tt {
    /// A table of about `mb` MiB (at least 1). Aborts when the memory cannot be had: see
    /// [`Tt::try_new`] for sizes that come from a user.
    pub fn new(mb: usize) -> Tt {
        let n = (mb.max(1) << 20) / std::mem::size_of::<Entry>();
        Tt {
            entries: vec![Entry::default(); n.max(1024)],
            age: 0,
        }
    }

    /// A table of about `mb` MiB (at least 1), or an error when the memory cannot be had.
    pub fn try_new(mb: usize) -> Result<Tt, String> {
        let n = mb
            .max(1)
            .checked_mul(1 << 20)
            .map(|b| (b / std::mem::size_of::<Entry>()).max(1024))
            .ok_or_else(|| format!("a hash table of {mb} MiB does not fit in memory"))?;
        let mut entries = Vec::new();
        entries
            .try_reserve_exact(n)
            .map_err(|_| format!("cannot allocate a hash table of {mb} MiB"))?;
        entries.resize(n, Entry::default());
        Ok(Tt { entries, age: 0 })
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.entries.iter_mut().for_each(|e| *e = Entry::default());
    }

    /// Start a new search (older entries are replaced first).
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        ((key as u128 * self.entries.len() as u128) >> 64) as usize
    }

    /// Look a position up.
    #[inline]
    pub fn probe(&self, key: u64, ply: i32) -> Option<Hit> {
        let e = &self.entries[self.slot(key)];
        if e.key != key || e.bound == 0 {
            return None;
        }
        let mut score = e.score as i32;
        if score > MATE_BOUND {
            score -= ply;
        } else if score < -MATE_BOUND {
            score += ply;
        }
        Some(Hit {
            mv: Move::from_u16(e.mv).filter(|_| e.mv != 0),
            score,
            depth: e.depth as i32,
            bound: match e.bound {
                1 => Bound::Exact,
                2 => Bound::Lower,
                _ => Bound::Upper,
            },
        })
    }

    /// Store a result.
    #[inline]
    pub fn store(
        &mut self,
        key: u64,
        ply: i32,
        mv: Option<Move>,
        score: i32,
        depth: i32,
        bound: Bound,
    ) {
        let i = self.slot(key);
        let e = &mut self.entries[i];
        if e.key == key && e.age == self.age && e.depth as i32 > depth && bound != Bound::Exact {
            return;
        }
        let mut s = score;
        if s > MATE_BOUND {
            s += ply;
        } else if s < -MATE_BOUND {
            s -= ply;
        }
        let keep_move = if e.key == key { e.mv } else { 0 };
        *e = Entry {
            key,
            mv: mv.map_or(keep_move, |m| m.to_u16()),
            score: s.clamp(-32000, 32000) as i16,
            depth: depth.clamp(-1, 127) as i8,
            bound: match bound {
                Bound::Exact => 1,
                Bound::Lower => 2,
                Bound::Upper => 3,
            },
            age: self.age,
        };
    }

    /// Permille of entries written in this search.
    pub fn hashfull(&self) -> u32 {
        let n = self.entries.len().min(1000);
        self.entries[..n]
            .iter()
            .filter(|e| e.bound != 0 && e.age == self.age)
            .count() as u32
            * 1000
            / n as u32
    }
}
