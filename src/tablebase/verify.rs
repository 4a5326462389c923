//! Independent verification: every position's value re-derived from its legal successors
//! by forward move generation and look-ups in this table and the smaller ones.

use super::pipeline::load_table;
use super::table::{table_material, Table, TableSet, TbError};
use super::values::{value_from_children, ILLEGAL};
use crate::board::Role;
use crate::board::{Color, Position};
use crate::index::{Material, PieceList};
use rayon::prelude::*;
use std::path::Path;
use std::sync::Arc;

/// One position whose stored value disagrees with its successors.
#[derive(Debug, Clone)]
pub struct Mismatch {
    /// The position.
    pub fen: String,
    /// Stored value.
    pub stored: u8,
    /// Value derived from the successors (ILLEGAL when the placement is illegal).
    pub derived: u8,
}

/// Result of a verification.
#[derive(Debug, Clone, Default)]
pub struct VerifyReport {
    /// Positions checked (both sides to move).
    pub checked: u64,
    /// Number of mismatches.
    pub mismatches: u64,
    /// The first few mismatches.
    pub examples: Vec<Mismatch>,
}

/// Read the table of `m` and every table one capture away from `dir` (every block of their
/// files is checked on the way) and re-derive every value of the table.
pub fn verify_files(dir: &Path, m: &Material) -> Result<VerifyReport, TbError> {
    let (name, _) = table_material(*m);
    let table = Arc::new(load_table(dir, &name, true)?);
    let mut set = TableSet::new();
    for c in Color::ALL {
        for r in Role::ALL {
            if let Some(sub) = name.without(c, r) {
                let sub = table_material(sub).0;
                if set.get(&sub).is_none() {
                    set.insert(Arc::new(load_table(dir, &sub, false)?));
                }
            }
        }
    }
    set.insert(table.clone());
    Ok(verify_table(&table, &set))
}

/// Re-derive every value of `table`; `tables` must hold it and every table one capture away.
pub fn verify_table(table: &Table, tables: &TableSet) -> VerifyReport {
    let n = table.index.size();
    const CHUNK: u64 = 4096;
    let parts: Vec<VerifyReport> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut rep = VerifyReport::default();
            let mut pieces = PieceList::new();
            for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                if !table.index.unrank_into(i, &mut pieces) {
                    continue;
                }
                for side in Color::ALL {
                    let stored = table.values[side.index()][i as usize];
                    rep.checked += 1;
                    let derived = match Position::from_pieces(&pieces, side) {
                        Ok(pos) if pos.check_placement_legal().is_ok() => {
                            let children = pos
                                .legal_moves()
                                .into_iter()
                                .map(|m| tables.value(&pos.after(m)).unwrap_or(ILLEGAL));
                            value_from_children(children).unwrap_or(ILLEGAL)
                        }
                        _ => ILLEGAL,
                    };
                    if derived != stored {
                        rep.mismatches += 1;
                        if rep.examples.len() < 10 {
                            let fen = Position::from_pieces(&pieces, side)
                                .map(|p| p.to_fen())
                                .unwrap_or_default();
                            rep.examples.push(Mismatch {
                                fen,
                                stored,
                                derived,
                            });
                        }
                    }
                }
            }
            rep
        })
        .collect();
    let mut out = VerifyReport::default();
    for p in parts {
        out.checked += p.checked;
        out.mismatches += p.mismatches;
        for e in p.examples {
            if out.examples.len() < 10 {
                out.examples.push(e);
            }
        }
    }
    out
}
