//! Tables in memory: values of every position of a material, and sets of tables that answer
//! for any position through the colour flip.

use super::values::ILLEGAL;
use super::workfile::Buf;
use crate::board::rules::RuleSet;
use crate::board::{Color, Position};
use crate::index::{IndexError, Material, PlacementIndex};
use std::collections::HashMap;
use std::sync::Arc;

/// Values of every position of one material (named with the stronger side as Red).
#[derive(Debug)]
pub struct Table {
    /// The material.
    pub material: Material,
    /// Its placement index.
    pub index: PlacementIndex,
    /// `values[side to move][index]`: distance to mate (see `values`).
    pub values: [Buf; 2],
    /// The repetition rule set the values follow.
    pub rules: RuleSet,
    /// Under rule set 1, when some result rests on the rules: the WDL-file byte of every
    /// position (a [`super::values::Verdict`], 255 for illegal placements). None when every
    /// verdict is the plain one of `values`.
    pub verdicts: Option<[Buf; 2]>,
    /// When computed or loaded: `dtc[side to move][index]`, the distance to conversion in
    /// plies of decided positions ([`super::values::DRAW`] and [`ILLEGAL`] as in `values`).
    pub dtc: Option<[Buf; 2]>,
}

impl Table {
    /// Value of a position of exactly this material.
    pub fn value(&self, pos: &Position) -> Option<u8> {
        let i = self.index.rank_position(pos)?;
        self.values[pos.turn().index()].get(i as usize).copied()
    }

    /// Number of positions (both sides to move).
    pub fn positions(&self) -> u64 {
        2 * self.index.size()
    }

    /// Number of decided positions (both sides to move) per distance to mate.
    pub fn dtm_histogram(&self) -> std::collections::BTreeMap<u8, u64> {
        let mut h = std::collections::BTreeMap::new();
        for &v in self.values.iter().flatten() {
            if v <= super::values::MAX_DTM {
                *h.entry(v).or_insert(0u64) += 1;
            }
        }
        h
    }

    /// Number of decided positions (both sides to move) per distance to conversion (empty
    /// when `dtc` is not loaded).
    pub fn dtc_histogram(&self) -> std::collections::BTreeMap<u8, u64> {
        let mut h = std::collections::BTreeMap::new();
        for &v in self.dtc.iter().flatten().flatten() {
            if v <= super::values::MAX_DTM {
                *h.entry(v).or_insert(0u64) += 1;
            }
        }
        h
    }

    /// Longest distance to conversion and one index and side where it occurs (None when
    /// `dtc` is not loaded or nothing is decided).
    pub fn longest_dtc(&self) -> Option<(u8, u64, Color)> {
        let dtc = self.dtc.as_ref()?;
        let mut best: Option<(u8, u64, Color)> = None;
        for c in Color::ALL {
            for (i, &v) in dtc[c.index()].iter().enumerate() {
                if v <= super::values::MAX_DTM && best.is_none_or(|b| v > b.0) {
                    best = Some((v, i as u64, c));
                }
            }
        }
        best
    }

    /// Highest decided value and one index and side where it occurs.
    pub fn longest(&self) -> Option<(u8, u64, Color)> {
        let mut best: Option<(u8, u64, Color)> = None;
        for c in Color::ALL {
            for (i, &v) in self.values[c.index()].iter().enumerate() {
                if v <= super::values::MAX_DTM && best.is_none_or(|b| v > b.0) {
                    best = Some((v, i as u64, c));
                }
            }
        }
        best
    }
}

/// Tables by material, looked up through the colour flip.
#[derive(Default, Debug, Clone)]
pub struct TableSet {
    tables: HashMap<Material, Arc<Table>>,
}

/// The table name and whether positions must be colour-flipped to probe it.
pub fn table_material(m: Material) -> (Material, bool) {
    m.normalized()
}

impl TableSet {
    /// An empty set.
    pub fn new() -> TableSet {
        TableSet::default()
    }

    /// Add a table.
    pub fn insert(&mut self, t: Arc<Table>) {
        self.tables.insert(t.material, t);
    }

    /// The table of a (normalized) material.
    pub fn get(&self, m: &Material) -> Option<&Arc<Table>> {
        self.tables.get(m)
    }

    /// Value of any position whose material has a table here.
    pub fn value(&self, pos: &Position) -> Result<u8, ProbeMissing> {
        let m = Material::of_position(pos);
        let (name, flip) = table_material(m);
        let t = self.tables.get(&name).ok_or(ProbeMissing(name))?;
        let v = if flip {
            t.value(&pos.flip_colors())
        } else {
            t.value(pos)
        };
        Ok(v.unwrap_or(ILLEGAL))
    }

    /// Materials held.
    pub fn materials(&self) -> impl Iterator<Item = &Material> {
        self.tables.keys()
    }
}

/// No table for a material.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no table for {0}")]
pub struct ProbeMissing(pub Material);

/// Errors of the tablebase code.
#[derive(Debug, thiserror::Error)]
pub enum TbError {
    /// Index construction failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A needed table is missing.
    #[error(transparent)]
    Missing(#[from] ProbeMissing),
    /// A sub-table of another rule set than the table being generated.
    #[error("{table} under rule set {rules} needs {sub} under the same rule set, but {sub} follows rule set {sub_rules}: regenerate {sub} (or choose --rules to match)")]
    RuleMismatch {
        /// The table being generated.
        table: Material,
        /// Its rule set.
        rules: RuleSet,
        /// The sub-table.
        sub: Material,
        /// The sub-table's rule set.
        sub_rules: RuleSet,
    },
    /// The folder holds a table of another rule set than the one being generated.
    #[error("{dir}: {material} there follows rule set {found}, this run generates rule set {wanted}; use another --tables folder, choose --rules to match, or pass --replace to regenerate it")]
    RulesInFolder {
        /// The table.
        material: Material,
        /// The folder.
        dir: String,
        /// Its rule set.
        found: RuleSet,
        /// The requested one.
        wanted: RuleSet,
    },
    /// More rounds of the repetition rules than the formats hold.
    #[error("{0}: the repetition rules need more than {max} rounds, beyond the format", max = super::generate::code::MAX_ORDER)]
    TooManyRounds(Material),
    /// A generator pass found its own state inconsistent (a bug: please report it).
    #[error("{0}: internal error in the generator: {1}")]
    Internal(Material, String),
    /// A distance to mate beyond the one-byte format.
    #[error("{0}: a distance to mate exceeds {max} plies, beyond the one-byte format", max = super::values::MAX_DTM)]
    DtmOverflow(Material),
    /// Another process holds the table's lock (it is generating the table).
    #[error("{material} is being generated by pid {pid} on {host} (lock file {path}); wait for it (run gen without --no-wait) or use another --tables folder")]
    Locked {
        /// The table.
        material: Material,
        /// The holder's process id (0 when the lock file does not say).
        pid: u32,
        /// The holder's host name.
        host: String,
        /// The lock file.
        path: String,
    },
    /// A distance to conversion beyond the generation byte.
    #[error("{0}: a distance to conversion exceeds {max} plies, beyond what the generator holds", max = super::generate::DTC_MAX)]
    DtcOverflow(Material),
    /// File input or output.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// A file that is not a valid table.
    #[error("{path}: {reason}")]
    Corrupt {
        /// File.
        path: String,
        /// What is wrong.
        reason: String,
    },
}
