//! Access to the tables one capture away (sub-tables) during generation: ranking a capture's
//! result, reading its value, un-capturing decided sub-table positions level by level.

use super::{asymmetry, code, Gen, Mode};
use crate::board::attacks::reachable;
use crate::board::retro::unmove_sources;
use crate::board::rules::RuleSet;
use crate::board::{Bitboard, Color, MoveList, Piece, Position, Role};
use crate::index::{Material, PieceList};
use crate::tablebase::table::{table_material, ProbeMissing, Table, TableSet, TbError};
use crate::tablebase::values::{DRAW, MAX_DTM};
use arrayvec::ArrayVec;
use rayon::prelude::*;
use std::sync::Arc;

use super::params::CHUNK;

/// A table one capture away.
pub(super) struct Sub {
    pub(super) table: Arc<Table>,
    pub(super) flipped: bool,
    /// The piece of this material that is missing there.
    pub(super) captured: Piece,
}

impl Sub {
    /// The side to move in the sub-table's own orientation after the capture.
    fn stored_side(&self) -> Color {
        if self.flipped {
            !self.captured.color
        } else {
            self.captured.color
        }
    }
}

fn flip_pieces(pieces: &PieceList) -> PieceList {
    pieces
        .iter()
        .map(|&(p, s)| (Piece::new(!p.color, p.role), s.flip()))
        .collect()
}

impl Gen<'_> {
    /// Rank of a capture's result in its table (a colour-flipped table is ranked through the
    /// flipped piece list, without building the flipped position).
    pub(super) fn sub_rank(&self, child: &Position, captured: Piece) -> Option<(&Sub, u64)> {
        let sub = self.subs.iter().find(|s| s.captured == captured)?;
        let i = if sub.flipped {
            let list: PieceList = child
                .piece_list()
                .map(|(p, s)| (Piece::new(!p.color, p.role), s.flip()))
                .collect();
            sub.table.index.rank_pieces(&list).ok()
        } else {
            sub.table.index.rank_position(child)
        }?;
        Some((sub, i))
    }

    /// Value of a capture's result in its table.
    pub(super) fn sub_value(&self, child: &Position, captured: Piece) -> Option<u8> {
        let (sub, i) = self.sub_rank(child, captured)?;
        sub.table.values[sub.stored_side().index()]
            .get(i as usize)
            .copied()
    }

    /// True when one of the legal `moves` of `pos` (the placement `pieces`) is a capture into
    /// a drawn position of a smaller table.
    pub(super) fn has_capture_draw(
        &self,
        pos: &Position,
        pieces: &PieceList,
        moves: &MoveList,
    ) -> bool {
        moves.iter().any(|&m| {
            let Some(c) = pos.piece_at(m.to()) else {
                return false;
            };
            let Some(sub) = self.subs.iter().find(|s| s.captured == c) else {
                return false;
            };
            // the child's pieces: the captured one gone, the mover moved
            let list: PieceList = pieces
                .iter()
                .filter(|e| e.1 != m.to())
                .map(|&(p, s)| {
                    let s = if s == m.from() { m.to() } else { s };
                    if sub.flipped {
                        (Piece::new(!p.color, p.role), s.flip())
                    } else {
                        (p, s)
                    }
                })
                .collect();
            sub.table
                .index
                .rank_pieces(&list)
                .ok()
                .and_then(|i| sub.table.values[sub.stored_side().index()].get(i as usize))
                == Some(&DRAW)
        })
    }

    /// Un-capture the position `j` of a smaller table into this table.
    fn retro_sub(&self, sub: &Sub, j: u64, loss: bool, stamp: u8, mode: Mode) {
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
        let occ_bits = pos.occupied().bits();
        let room = reachable(x, sub.captured.role);
        let mut preds: ArrayVec<u64, 512> = ArrayVec::new();
        for (k, &(p, b)) in pieces.iter().enumerate() {
            if p.color != y || !room.contains(b) {
                continue;
            }
            let src = unmove_sources(p, b, occ_bits, true);
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
        // a smaller table's positions count as decided before any rule round
        let c = code::make(0, if loss { code::LOSS } else { code::WIN });
        self.emit_all(&mut preds, asymmetry(&pos) <= 4, y, (loss, c, stamp), mode);
    }

    /// The deepest level a smaller table can trigger.
    pub(super) fn sub_max(&self) -> u8 {
        self.subs
            .iter()
            .map(|s| {
                s.table.values[s.stored_side().index()]
                    .iter()
                    .filter(|&&v| v <= MAX_DTM)
                    .max()
                    .copied()
                    .unwrap_or(0)
            })
            .max()
            .unwrap_or(0)
    }

    /// Un-capture the positions of every sub-table decided at `level` into this table.
    pub(super) fn walk_subs(&self, level: u8, stamp: u8, mode: Mode) {
        for sub in &self.subs {
            let vals = &sub.table.values[sub.stored_side().index()];
            let m = vals.len();
            (0..m.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
                let start = c * CHUNK;
                let chunk = &vals[start..((c + 1) * CHUNK).min(m)];
                if !chunk.contains(&level) {
                    return;
                }
                for (k, &v) in chunk.iter().enumerate() {
                    if v == level {
                        let loss = level.is_multiple_of(2);
                        self.retro_sub(sub, (start + k) as u64, loss, stamp, mode);
                    }
                }
            });
        }
    }
}

/// The tables one capture away from `material`, each of rule set `rules`.
pub(super) fn subs_of(
    material: Material,
    subs: &TableSet,
    rules: RuleSet,
) -> Result<Vec<Sub>, TbError> {
    let mut sub_list = Vec::new();
    for c in Color::ALL {
        for r in Role::ALL {
            if let Some(m2) = material.without(c, r) {
                let (name, flipped) = table_material(m2);
                let table = subs.get(&name).ok_or(ProbeMissing(name))?.clone();
                if table.rules != rules {
                    return Err(TbError::RuleMismatch {
                        table: material,
                        rules,
                        sub: name,
                        sub_rules: table.rules,
                    });
                }
                sub_list.push(Sub {
                    table,
                    flipped,
                    captured: Piece::new(c, r),
                });
            }
        }
    }
    Ok(sub_list)
}
