//! The verifier's trap check of draws under rule set 1 (see [`super::verify`]): no set of
//! drawn positions may trap a side into checking forever.
//!
//! The largest set `L` of drawn positions whose side to move must check (every move checks
//! into a drawn position or loses, and some drawn position follows) into positions of `W`,
//! and `W` of drawn positions in check with a reply into `L`, is the greatest fixpoint of
//! the two conditions; mutual checkers leave both sets; what remains of `L` would be a
//! ruling the table missed.
//!
//! Memory: six bits per index entry (per side to move: drawn, `L`, `W`), on the heap or,
//! out of core, in the verifier's work file. The verifier's
//! passes mark the drawn positions and the candidates ([`TrapSets::note`], from the
//! successors it looks up anyway); the fixpoint ([`TrapSets::finish`]) then shrinks the
//! sets, generating the moves of the positions still in them in each round instead of
//! keeping their successor lists.

use super::{Mismatch, Succ, VerifyReport};
use crate::board::{Color, Position, Role};
use crate::index::{Material, PieceList, PlacementIndex};
use crate::tablebase::table::TbError;
use crate::tablebase::values::{wdl_of, Wdl, DRAW};
use crate::tablebase::workfile::{Backing, Buf};
use rayon::prelude::*;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// True when both sides have an attacker (only then can a side be trapped into checking).
pub(super) fn both_attack(m: Material) -> bool {
    Color::ALL.iter().all(|&c| {
        [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn]
            .iter()
            .any(|&r| m.count(c, r) > 0)
    })
}

/// One bit per index of a table, set and cleared from several threads: atomic words on the
/// heap, or in a region of a work file (`verify --memory`).
struct Bits {
    store: Store,
    /// Number of words.
    words: usize,
}

enum Store {
    Heap(Vec<AtomicU64>),
    /// A zero-filled mapped region (page-aligned), reached only through `base`.
    Mapped {
        _region: Buf,
        base: NonNull<AtomicU64>,
    },
}

// SAFETY: the words are only reached as atomics (`Bits::words`); the mapped region is owned
// by the value and never dereferenced as bytes after construction.
unsafe impl Send for Bits {}
// SAFETY: as above: shared access is atomic.
unsafe impl Sync for Bits {}

impl Bits {
    fn new(backing: &Backing, n: usize) -> Result<Bits, TbError> {
        let words = n.div_ceil(64);
        let store = match backing {
            Backing::Heap => Store::Heap((0..words).map(|_| AtomicU64::new(0)).collect()),
            Backing::File(_) => {
                let mut region = backing.buf(words * 8, 0)?;
                let ptr = region.as_mut_ptr();
                // a mapped region starts on a page
                assert!(
                    ptr.align_offset(std::mem::align_of::<AtomicU64>()) == 0,
                    "a work file region is page-aligned"
                );
                let base = NonNull::new(ptr.cast::<AtomicU64>())
                    .unwrap_or_else(|| unreachable!("a mapping is not at address 0"));
                Store::Mapped {
                    _region: region,
                    base,
                }
            }
        };
        Ok(Bits { store, words })
    }
    fn all(&self) -> &[AtomicU64] {
        match &self.store {
            Store::Heap(v) => v,
            // SAFETY: `base` points to `words * 8` zero-initialised, 8-aligned bytes owned by
            // `_region` for as long as `self` lives; AtomicU64 has u64's layout, and every
            // access goes through these atomics.
            Store::Mapped { base, .. } => unsafe {
                std::slice::from_raw_parts(base.as_ptr(), self.words)
            },
        }
    }
    fn get(&self, i: usize) -> bool {
        self.all()[i / 64].load(Ordering::Relaxed) >> (i % 64) & 1 != 0
    }
    fn set(&self, i: usize) {
        self.all()[i / 64].fetch_or(1 << (i % 64), Ordering::Relaxed);
    }
    fn clear(&self, i: usize) {
        self.all()[i / 64].fetch_and(!(1 << (i % 64)), Ordering::Relaxed);
    }
    fn clear_word(&self, w: usize, bits: u64) {
        self.all()[w].fetch_and(!bits, Ordering::Relaxed);
    }
    fn word(&self, w: usize) -> u64 {
        self.all()[w].load(Ordering::Relaxed)
    }
}

/// The indices set in `bits` (a word of a [`Bits`] at word `w`).
fn ones(w: usize, bits: u64) -> impl Iterator<Item = usize> {
    let mut b = bits;
    std::iter::from_fn(move || {
        (b != 0).then(|| {
            let i = b.trailing_zeros() as usize;
            b &= b - 1;
            w * 64 + i
        })
    })
}

/// The trap check's sets, per side to move: drawn positions, `L` (forced to check) and `W`
/// (in check).
pub(super) struct TrapSets {
    draw: [Bits; 2],
    l: [Bits; 2],
    w: [Bits; 2],
}

impl TrapSets {
    /// Empty sets for a table of `n` indices.
    pub(super) fn new(backing: &Backing, n: usize) -> Result<TrapSets, TbError> {
        let two = || -> Result<[Bits; 2], TbError> {
            Ok([Bits::new(backing, n)?, Bits::new(backing, n)?])
        };
        Ok(TrapSets {
            draw: two()?,
            l: two()?,
            w: two()?,
        })
    }

    /// Note the drawn position `pos` (index `i`, `side` to move) with its successors: in
    /// `L` when every move checks into a drawn position of this table or loses (and some
    /// move draws), in `W` when it is in check.
    pub(super) fn note(&self, side: Color, i: usize, pos: &Position, succ: &[Succ]) {
        let s = side.index();
        self.draw[s].set(i);
        let in_check = pos.in_check();
        let mut all_check = true;
        let mut some_draw = false;
        for m in succ {
            match (wdl_of(m.value), m.index) {
                (Some(Wdl::Win), _) => {}
                (Some(Wdl::Draw), Some(_)) => {
                    some_draw = true;
                    if all_check && !pos.after(m.mv).in_check() {
                        all_check = false;
                    }
                }
                _ => all_check = false,
            }
            if !all_check && !in_check {
                return;
            }
        }
        if all_check && some_draw {
            self.l[s].set(i);
        }
        if in_check {
            self.w[s].set(i);
        }
    }

    /// Shrink `L` and `W` to their greatest fixpoint, take the mutual checkers out, shrink
    /// again and report what remains of `L`.
    pub(super) fn finish(&self, index: &PlacementIndex) -> VerifyReport {
        self.settle(index);
        // mutual perpetual checks are draws: their positions leave both sets
        for s in 0..2 {
            (0..self.l[s].words).into_par_iter().for_each(|w| {
                let both = self.l[s].word(w) & self.w[s].word(w);
                if both != 0 {
                    self.l[s].clear_word(w, both);
                    self.w[s].clear_word(w, both);
                }
            });
        }
        self.settle(index);
        let mut rep = VerifyReport::default();
        for s in 0..2 {
            for w in 0..self.l[s].words {
                for i in ones(w, self.l[s].word(w)) {
                    rep.add(Mismatch {
                        fen: position(index, s, i)
                            .map(|p| p.to_fen())
                            .unwrap_or_default(),
                        stored: DRAW,
                        derived: DRAW,
                        why: "drawn, yet its side can only check perpetually: a missed ruling"
                            .into(),
                    });
                }
            }
        }
        rep
    }

    /// Take out of `L` the positions with a drawn successor outside `W`, and out of `W` those
    /// without a successor in `L`, until nothing changes (the sets only shrink, so the
    /// order does not matter).
    fn settle(&self, index: &PlacementIndex) {
        loop {
            let changed = AtomicBool::new(false);
            for s in 0..2 {
                let t = 1 - s;
                (0..self.l[s].words).into_par_iter().for_each(|w| {
                    let bits = self.l[s].word(w) | self.w[s].word(w);
                    for i in ones(w, bits) {
                        let Some(pos) = position(index, s, i) else {
                            continue;
                        };
                        // the drawn quiet successors
                        let mut all_in_w = true;
                        let mut any_in_l = false;
                        for m in pos.legal_moves() {
                            if pos.piece_at(m.to()).is_some() {
                                continue;
                            }
                            let Some(j) = index.rank_position(&pos.after(m)) else {
                                continue;
                            };
                            let j = j as usize;
                            if !self.draw[t].get(j) {
                                continue;
                            }
                            all_in_w &= self.w[t].get(j);
                            any_in_l |= self.l[t].get(j);
                        }
                        if self.l[s].get(i) && !all_in_w {
                            self.l[s].clear(i);
                            changed.store(true, Ordering::Relaxed);
                        }
                        if self.w[s].get(i) && !any_in_l {
                            self.w[s].clear(i);
                            changed.store(true, Ordering::Relaxed);
                        }
                    }
                });
            }
            if !changed.load(Ordering::Relaxed) {
                break;
            }
        }
    }
}

/// The position of index `i` with side `s` to move.
fn position(index: &PlacementIndex, s: usize, i: usize) -> Option<Position> {
    let mut pieces = PieceList::new();
    if !index.unrank_into(i as u64, &mut pieces) {
        return None;
    }
    Position::from_pieces(&pieces, Color::ALL[s]).ok()
}
