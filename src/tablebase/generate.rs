//! Retrograde generation of one table (WDL and DTM together, as distance to mate in plies).
//!
//! 1. Every position of both sides to move is decoded once: illegal placements (kings
//!    facing, side not to move in check) are marked, positions without a legal move are lost
//!    in 0, and every other position gets a counter: its number of distinct successors (by
//!    table and index; two moves lead to one successor only when they give mirror images).
//! 2. Level by level (`L` = 0, 1, 2, ...), the positions decided at distance `L`, in this
//!    table and in the tables one capture away, are un-moved (un-captured for the smaller
//!    tables) into their predecessors. At even `L` (losses) every unknown predecessor is a
//!    win in `L + 1`; at odd `L` (wins) each predecessor's counter drops by one, and a
//!    predecessor whose last successor has just turned out a win for the opponent is lost in
//!    `L + 1`. Levels go in order, so wins are as fast and losses as slow as possible, and
//!    distances count through captures to mate.
//! 3. Whatever is still unknown cannot be forced either way: a draw.
//!
//! Work is split over index chunks with rayon; values and counters are atomic bytes, so the
//! peak memory is two bytes per position plus the (smaller) tables one capture away.

use super::table::{table_material, ProbeMissing, Table, TableSet, TbError};
use super::values::{DRAW, ILLEGAL, MAX_DTM, UNKNOWN};
use crate::board::attacks::reachable;
use crate::board::retro::unmove_sources;
use crate::board::{Bitboard, Color, MoveList, Piece, Position, Role, Square};
use crate::index::{Material, PieceList, PlacementIndex};
use arrayvec::ArrayVec;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

const CHUNK: usize = 4096;

/// A table one capture away.
struct Sub {
    table: Arc<Table>,
    flipped: bool,
    /// The piece of this material that is missing there.
    captured: Piece,
}

/// Number of points where a position differs from its mirror image. Two moves (or
/// un-moves) of a position reach mirror images of each other only when this is at most 4:
/// the two results differ from the position in at most two points each.
pub fn asymmetry(pos: &Position) -> u32 {
    let mut d = 0;
    for s in pos.occupied() {
        let p = pos.piece_at(s);
        let q = pos.piece_at(s.mirror());
        if p != q {
            // s differs; its mirror point differs too, and is counted here when empty
            d += if q.is_none() { 2 } else { 1 };
        }
    }
    d
}

fn progress(len: u64, what: &str, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{prefix:>8} {msg:<22} [{bar:30}] {pos}/{len} {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}

fn flip_pieces(pieces: &PieceList) -> PieceList {
    pieces
        .iter()
        .map(|&(p, s)| (Piece::new(!p.color, p.role), s.flip()))
        .collect()
}

/// Values of one side to move, eight per atomic word (so a level scan tests eight at once).
struct Values {
    words: Vec<AtomicU64>,
    len: usize,
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

impl Values {
    fn new(len: usize) -> Values {
        Values {
            words: (0..len.div_ceil(8))
                .map(|_| AtomicU64::new(u64::MAX))
                .collect(),
            len,
        }
    }

    #[inline(always)]
    fn get(&self, i: usize) -> u8 {
        (self.words[i >> 3].load(Relaxed) >> ((i & 7) * 8)) as u8
    }

    /// Set a value that is [`UNKNOWN`] (all bits set): clearing bits is enough.
    #[inline(always)]
    fn set_unknown(&self, i: usize, v: u8) {
        let shift = (i & 7) * 8;
        self.words[i >> 3].fetch_and(!(((0xFF ^ v) as u64) << shift), Relaxed);
    }

    /// Call `f` for every index in `start..end` (`start` a multiple of 8) whose value is `v`.
    #[inline(always)]
    fn scan(&self, start: usize, end: usize, v: u8, mut f: impl FnMut(usize)) {
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

    fn into_bytes(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len);
        for w in self.words {
            out.extend_from_slice(&w.into_inner().to_le_bytes());
        }
        out.truncate(self.len);
        out
    }
}

struct Gen<'a> {
    material: Material,
    index: &'a PlacementIndex,
    values: [Values; 2],
    counters: [Vec<AtomicU8>; 2],
    subs: Vec<Sub>,
    assigned: AtomicU64,
    overflow: AtomicBool,
}

impl Gen<'_> {
    /// Rank of a capture's result in its table.
    fn sub_rank(&self, child: &Position, captured: Piece) -> Option<u64> {
        let sub = self.subs.iter().find(|s| s.captured == captured)?;
        if sub.flipped {
            sub.table.index.rank_position(&child.flip_colors())
        } else {
            sub.table.index.rank_position(child)
        }
    }

    fn distinct_children(&self, pos: &Position, moves: &MoveList) -> usize {
        if asymmetry(pos) > 4 {
            return moves.len();
        }
        let mut keys: ArrayVec<(u8, u64), 128> = ArrayVec::new();
        for &m in moves {
            let captured = pos.piece_at(m.to());
            let child = pos.after(m);
            let key = match captured {
                Some(c) => (
                    1 + c.index() as u8,
                    self.sub_rank(&child, c).unwrap_or(u64::MAX),
                ),
                None => (0, self.index.rank_position(&child).unwrap_or(u64::MAX)),
            };
            keys.push(key);
        }
        keys.sort_unstable();
        let mut n = keys.len();
        for w in keys.windows(2) {
            if w[0] == w[1] {
                n -= 1;
            }
        }
        n
    }

    fn init_chunk(&self, start: usize, end: usize) {
        let mut pieces = PieceList::new();
        for i in start..end {
            if !self.index.unrank_into(i as u64, &mut pieces) {
                continue;
            }
            let Ok(mut pos) = Position::from_pieces(&pieces, Color::Red) else {
                continue;
            };
            let facing = pos.kings_facing();
            for side in Color::ALL {
                if side == Color::Black {
                    pos.play_null();
                }
                let s = side.index();
                if facing || pos.is_attacked(pos.king(!side), side) {
                    self.values[s].set_unknown(i, ILLEGAL);
                    continue;
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    self.values[s].set_unknown(i, 0);
                } else {
                    let n = self.distinct_children(&pos, &moves);
                    self.counters[s][i].store(n as u8, Relaxed);
                }
            }
        }
    }

    #[inline]
    fn apply(&self, q: u64, side: Color, level: u8) {
        let q = q as usize;
        let vals = &self.values[side.index()];
        if vals.get(q) != UNKNOWN {
            return;
        }
        if level >= MAX_DTM {
            self.overflow.store(true, Relaxed);
            return;
        }
        if level.is_multiple_of(2) {
            // several threads may set the same win: the same bits, so no harm
            vals.set_unknown(q, level + 1);
            self.assigned.fetch_add(1, Relaxed);
        } else if self.counters[side.index()][q].fetch_sub(1, Relaxed) == 1 {
            // only the thread that takes the last successor gets here
            vals.set_unknown(q, level + 1);
            self.assigned.fetch_add(1, Relaxed);
        }
    }

    fn emit_all(&self, preds: &mut ArrayVec<u64, 512>, dedupe: bool, side: Color, level: u8) {
        if dedupe {
            preds.sort_unstable();
            let mut last = u64::MAX;
            for &q in preds.iter() {
                if q != last {
                    self.apply(q, side, level);
                    last = q;
                }
            }
        } else {
            for &q in preds.iter() {
                self.apply(q, side, level);
            }
        }
    }

    /// Un-move the position `i` (side `x` to move) into its predecessors.
    fn retro_own(&self, i: u64, x: Color, level: u8) {
        let Ok(pieces) = self.index.unrank_pieces(i) else {
            return;
        };
        let Ok(pos) = Position::from_pieces(&pieces, x) else {
            return;
        };
        let y = !x;
        let occ = pos.occupied().bits();
        let ctx = self.index.prepare_tail(&pieces);
        let mut preds: ArrayVec<u64, 512> = ArrayVec::new();
        for (k, &(p, b)) in pieces.iter().enumerate() {
            if p.color != y {
                continue;
            }
            let src = unmove_sources(p, b, occ, false);
            for a in Bitboard::from_bits(src) {
                let tail = match p.role {
                    Role::Rook | Role::Horse | Role::Cannon => true,
                    Role::Pawn => {
                        let passed = |s: Square| (p.color == Color::Red) == (s.rank() >= 5);
                        passed(a) && passed(b)
                    }
                    _ => false,
                };
                let q = match (&ctx, tail) {
                    (Some(c), true) => self.index.rank_tail_move(c, b, a),
                    _ => {
                        let mut qp = pieces.clone();
                        qp[k] = (p, a);
                        self.index.rank_pieces(&qp).ok()
                    }
                };
                if let Some(q) = q {
                    let _ = preds.try_push(q);
                }
            }
        }
        self.emit_all(&mut preds, asymmetry(&pos) <= 4, y, level);
    }

    /// Un-capture the position `j` of a smaller table into this table.
    fn retro_sub(&self, sub: &Sub, j: u64, level: u8) {
        let Ok(stored) = sub.table.index.unrank_pieces(j) else {
            return;
        };
        let pieces = if sub.flipped {
            flip_pieces(&stored)
        } else {
            stored
        };
        let x = sub.captured.color;
        let Ok(pos) = Position::from_pieces(&pieces, x) else {
            return;
        };
        let y = !x;
        let occ = pos.occupied().bits();
        let room = reachable(x, sub.captured.role);
        let mut preds: ArrayVec<u64, 512> = ArrayVec::new();
        for (k, &(p, b)) in pieces.iter().enumerate() {
            if p.color != y || !room.contains(b) {
                continue;
            }
            let src = unmove_sources(p, b, occ, true);
            for a in Bitboard::from_bits(src) {
                let mut qp = pieces.clone();
                qp[k] = (p, a);
                if qp.try_push((sub.captured, b)).is_err() {
                    continue;
                }
                if let Ok(q) = self.index.rank_pieces(&qp) {
                    let _ = preds.try_push(q);
                }
            }
        }
        self.emit_all(&mut preds, asymmetry(&pos) <= 4, y, level);
    }
}

/// Generate the table of `material` (stronger side as Red); every table one capture away
/// must be in `subs`.
pub fn generate(
    material: Material,
    subs: &TableSet,
    show_progress: bool,
) -> Result<Table, TbError> {
    let index = PlacementIndex::new(material)?;
    let n = index.size() as usize;
    let mut sub_list = Vec::new();
    for c in Color::ALL {
        for r in Role::ALL {
            if let Some(m2) = material.without(c, r) {
                let (name, flipped) = table_material(m2);
                let table = subs.get(&name).ok_or(ProbeMissing(name))?.clone();
                sub_list.push(Sub {
                    table,
                    flipped,
                    captured: Piece::new(c, r),
                });
            }
        }
    }
    let g = Gen {
        material,
        index: &index,
        values: [Values::new(n), Values::new(n)],
        counters: [0, 1].map(|_| (0..n).map(|_| AtomicU8::new(0)).collect()),
        subs: sub_list,
        assigned: AtomicU64::new(0),
        overflow: AtomicBool::new(false),
    };
    let chunks = n.div_ceil(CHUNK);
    let pb = progress(chunks as u64, "init", show_progress);
    pb.set_prefix(material.to_string());
    (0..chunks).into_par_iter().for_each(|c| {
        g.init_chunk(c * CHUNK, ((c + 1) * CHUNK).min(n));
        pb.inc(1);
    });
    pb.finish_and_clear();

    // the deepest level a smaller table can trigger
    let sub_max = g
        .subs
        .iter()
        .map(|s| {
            let side = if s.flipped {
                !s.captured.color
            } else {
                s.captured.color
            };
            s.table.values[side.index()]
                .iter()
                .filter(|&&v| v <= MAX_DTM)
                .max()
                .copied()
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(0);
    let pb = progress(0, "retrograde levels", show_progress);
    pb.set_prefix(material.to_string());
    let mut level: u8 = 0;
    loop {
        g.assigned.store(0, Relaxed);
        (0..chunks).into_par_iter().for_each(|c| {
            let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
            for x in Color::ALL {
                g.values[x.index()].scan(start, end, level, |i| g.retro_own(i as u64, x, level));
            }
        });
        for sub in &g.subs {
            let side = if sub.flipped {
                !sub.captured.color
            } else {
                sub.captured.color
            };
            let vals = &sub.table.values[side.index()];
            let m = vals.len();
            (0..m.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
                let start = c * CHUNK;
                let chunk = &vals[start..((c + 1) * CHUNK).min(m)];
                if !chunk.contains(&level) {
                    return;
                }
                for (k, &v) in chunk.iter().enumerate() {
                    if v == level {
                        g.retro_sub(sub, (start + k) as u64, level);
                    }
                }
            });
        }
        if g.overflow.load(Relaxed) {
            return Err(TbError::DtmOverflow(material));
        }
        pb.set_message(format!("level {level}"));
        pb.inc(1);
        if level >= sub_max && g.assigned.load(Relaxed) == 0 {
            break;
        }
        if level == MAX_DTM {
            return Err(TbError::DtmOverflow(material));
        }
        level += 1;
    }
    pb.finish_and_clear();
    let Gen {
        values, counters, ..
    } = g;
    drop(counters);
    let values = values.map(|v| {
        let mut v = v.into_bytes();
        for x in v.iter_mut() {
            if *x == UNKNOWN {
                *x = DRAW;
            }
        }
        v
    });
    Ok(Table {
        material: g.material,
        index,
        values,
    })
}
