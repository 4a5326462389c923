//! The generation plan: the tables a set needs as a graph by captures, each with its direct
//! sub-tables, its positions and the peak memory, time and disk it is expected to take on
//! this machine ([`Params::MEASURED`]). `xqdb plan` prints it (`--json` for the Dask driver in
//! `contrib/dask`), `xqdb sets` sums it per named set, and `gen --no-deps` checks a table's
//! sub-tables with [`missing_subtables`] before building it alone.
//!
//! A table's estimated peak is a fixed part (the process, the sub-table cache, a small
//! table's dictionary trial: [`TableCost::fixed_bytes`]) and a part per position
//! ([`TableCost::bytes_per_position`], what the scale issue bounds at 1.5), those of the step
//! whose peak is the largest; `plan` prints both and `sets` the largest part per position.

use super::file::{table_path, Metric, TableFile};
use super::generate;
use super::pipeline::closure;
use super::sets::ATTACKERS;
use super::table::table_material;
use super::verify;
use crate::board::rules::RuleSet;
use crate::board::{Color, Role};
use crate::index::{IndexError, Material, PlacementIndex};
use std::collections::BTreeSet;
use std::path::Path;

mod params;
pub use params::Params;

/// How the attackers (rook, horse, cannon, pawn: the pieces that can cross the river) are
/// shared between the sides. Generation time and file size differ by an order of magnitude
/// between the shapes at the same number of positions (see [`Params::MEASURED`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// Neither side has an attacker: every legal position is a draw.
    NoAttacker,
    /// One side has attackers, the other only advisors and elephants.
    OneSided,
    /// Both sides have attackers.
    TwoSided,
}

impl Shape {
    /// The shape of a material.
    pub fn of(m: &Material) -> Shape {
        let has = |c: Color| ATTACKERS.iter().any(|&r| m.count(c, r) > 0);
        match (has(Color::Red), has(Color::Black)) {
            (false, false) => Shape::NoAttacker,
            (true, true) => Shape::TwoSided,
            _ => Shape::OneSided,
        }
    }

    /// The name used in `plan` output and its JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Shape::NoAttacker => "no-attacker",
            Shape::OneSided => "one-sided",
            Shape::TwoSided => "two-sided",
        }
    }

    const fn slot(self) -> usize {
        match self {
            Shape::NoAttacker => 0,
            Shape::OneSided => 1,
            Shape::TwoSided => 2,
        }
    }
}

/// One table of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct TableCost {
    /// The table (stronger side as Red).
    pub material: Material,
    /// How the attackers are shared.
    pub shape: Shape,
    /// Its direct sub-tables (one capture away), as table names, smallest first.
    pub deps: Vec<Material>,
    /// Positions (index size × 2 sides to move).
    pub positions: u64,
    /// Positions of the direct sub-tables together.
    pub sub_positions: u64,
    /// Estimated peak resident memory of `gen --no-deps` on it (bytes).
    pub peak_bytes: u64,
    /// Estimated wall seconds of `gen --no-deps` on it.
    pub seconds: f64,
    /// Estimated wall seconds of `verify` on it.
    pub verify_seconds: f64,
    /// Estimated peak resident memory of `verify` on it (bytes).
    pub verify_peak_bytes: u64,
    /// Estimated size of its files (bytes).
    pub disk_bytes: u64,
    /// True when `gen --memory` keeps its arrays in a work file (see
    /// [`crate::tablebase::workfile`]).
    pub out_of_core: bool,
    /// Size of that work file while the table is generated (bytes; 0 in memory).
    pub work_bytes: u64,
    /// The fixed part of `peak_bytes` in memory, which does not grow with the table's
    /// positions: the process ([`Params::base_bytes`]), the sub-table cache of the step that
    /// sets the peak (bounded by [`Params::sub_cache_bytes`]) and the DTC file's dictionary
    /// trial of a small table (bytes).
    pub fixed_bytes: u64,
    /// The rest of the in-memory peak per position: (`peak_bytes` in memory minus
    /// `fixed_bytes`) over `positions`, the figure the scale issue bounds at 1.5 (out of core
    /// the peak is the limit instead).
    pub bytes_per_position: f64,
}

/// The tables needed for some targets, smallest first (an order in which every table comes
/// after its sub-tables), with their costs.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The rule set the estimates are for.
    pub rules: RuleSet,
    /// The tables in generation order.
    pub tables: Vec<TableCost>,
    /// The `gen --memory` limit the estimates are for (None: in memory).
    pub memory: Option<u64>,
}

/// Totals of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanTotals {
    /// Number of tables.
    pub tables: usize,
    /// Positions of every table.
    pub positions: u64,
    /// Generation seconds, one table after another.
    pub seconds: f64,
    /// Verification seconds, one table after another.
    pub verify_seconds: f64,
    /// The largest peak memory of generating any one table (bytes).
    pub peak_bytes: u64,
    /// The table with the largest peak.
    pub peak_table: Option<Material>,
    /// The largest peak memory of verifying any one table (bytes).
    pub verify_peak_bytes: u64,
    /// Disk of every table's files (bytes).
    pub disk_bytes: u64,
    /// Number of tables generated out of core.
    pub out_of_core: usize,
    /// The largest work file (bytes): the disk needed besides the tables' files, one table
    /// at a time.
    pub work_bytes: u64,
    /// The largest [`TableCost::bytes_per_position`] of any table (0 when none).
    pub bytes_per_position: f64,
    /// The table with that largest figure.
    pub bytes_per_position_table: Option<Material>,
}

/// The direct sub-tables of a table: every table one capture away, as table names, without
/// repeats, smallest first.
pub fn direct_deps(m: &Material) -> Vec<Material> {
    let mut out = BTreeSet::new();
    for c in Color::ALL {
        for r in Role::ALL {
            if let Some(sub) = m.without(c, r) {
                let t = table_material(sub).0;
                out.insert((t.pieces_besides_kings(), t.to_string(), t));
            }
        }
    }
    out.into_iter().map(|(_, _, t)| t).collect()
}

/// The cost of one table under `rules` with the constants `p`.
pub fn table_cost(m: &Material, rules: RuleSet, p: &Params) -> Result<TableCost, IndexError> {
    table_cost_limited(m, rules, p, None)
}

/// [`table_cost`] under `gen --memory LIMIT`: a table whose state does not fit is generated
/// out of core, as the generator decides it ([`generate::state_bytes`] and
/// [`generate::BASE_BYTES`] against the limit); its peak is then the limit (the trimmer
/// holds the resident set under it; the repetition rules' worklist bits are in the work file
/// too), its time [`Params::out_of_core_time_factor`] times longer, and it
/// needs its work file on disk (the largest of the state and, as `gen` builds the DTC file
/// by default, the table's values, verdicts and DTC: three bytes per position). The same
/// for `verify --memory LIMIT` (its arrays out of core when they do not fit).
pub fn table_cost_limited(
    m: &Material,
    rules: RuleSet,
    p: &Params,
    limit: Option<u64>,
) -> Result<TableCost, IndexError> {
    let mut c = table_cost_in_memory(m, rules, p)?;
    let m = c.material;
    let n = c.positions / 2;
    let state = generate::state_bytes(m, n, rules);
    if let Some(limit) = limit.filter(|&l| generate::BASE_BYTES + state > l) {
        c.peak_bytes = c.peak_bytes.min(limit);
        c.seconds *= p.out_of_core_time_factor;
        c.out_of_core = true;
        // the state, then the table it becomes (values and verdicts) with its DTC
        c.work_bytes = state.max(6 * n.next_multiple_of(8));
    }
    // `verify --memory LIMIT` (the same limit): three bytes per index entry and the trap
    // check's six bits per index entry (two-sided tables) in a work file
    let trap_bits = if rules == RuleSet::CheckChase && c.shape == Shape::TwoSided {
        6 * n.div_ceil(64) * 8
    } else {
        0
    };
    let verify_state = 3 * n + trap_bits;
    if let Some(limit) = limit.filter(|_| verify::out_of_core(verify_state, limit)) {
        c.verify_peak_bytes = c.verify_peak_bytes.min(limit);
        c.out_of_core = true;
        c.work_bytes = c.work_bytes.max(verify_state);
    }
    Ok(c)
}

fn table_cost_in_memory(m: &Material, rules: RuleSet, p: &Params) -> Result<TableCost, IndexError> {
    let m = table_material(*m).0;
    let positions = 2 * PlacementIndex::new(m)?.size();
    let deps = direct_deps(&m);
    let mut sub_positions = 0u64;
    for d in &deps {
        sub_positions += 2 * PlacementIndex::new(*d)?.size();
    }
    let shape = Shape::of(&m);
    let (pos, sub) = (positions as f64, sub_positions as f64);
    let r = rules.code() as usize;
    // the generator's layout: wide only with repetition-rule rounds
    let layout = (rules == RuleSet::CheckChase && shape == Shape::TwoSided) as usize;
    let s = shape.slot();
    let time_factor = match rules {
        RuleSet::CyclesDraw => p.rules_none_time_factor[s],
        RuleSet::CheckChase => 1.0,
    };
    let wall = |cpu: f64| p.seconds_per_process + cpu / p.busy_cores;
    let subs = (p.bytes_per_sub_position * sub).min(p.verify_sub_cache_bytes);
    // the probes' cache: two bits for each position of the side a capture leads to
    let gen_subs = (0.125 * sub).min(p.sub_cache_bytes);
    // the compact layout with the sub-table cache; the rule rounds after it without it;
    // the DTC pass with its own cache
    // the DTC file of a small table tries a trained dictionary (see `file::tries_dictionary`)
    let dtc_block = crate::tablebase::dtc_code::BLOCK_PARAMS.0;
    let dtc_blocks = positions.div_ceil(dtc_block as u64) as usize;
    let dictionary = if crate::tablebase::file::tries_dictionary(dtc_block, dtc_blocks) {
        p.dtc_dictionary_bytes
    } else {
        0.0
    };
    // each step as (fixed part, bytes per position); the peak is the largest step
    let rounds = match layout {
        // the rule rounds, their sub-table cache emptied
        1 => (0.0, p.bytes_per_position[1]),
        _ => (0.0, 0.0),
    };
    let steps = [
        (gen_subs, p.bytes_per_position[0]),
        (gen_subs + dictionary, p.dtc_bytes_per_position[layout]),
        rounds,
    ];
    let (fixed, per) = steps
        .into_iter()
        .max_by(|a, b| (a.0 + a.1 * pos).total_cmp(&(b.0 + b.1 * pos)))
        .unwrap_or((0.0, 0.0));
    let state = fixed + per * pos;
    Ok(TableCost {
        material: m,
        shape,
        deps,
        positions,
        sub_positions,
        peak_bytes: (p.base_bytes + state) as u64,
        seconds: wall(time_factor * p.cpu_per_position[s] * pos),
        verify_seconds: wall(p.verify_cpu_per_position[s] * pos),
        verify_peak_bytes: (p.base_bytes + p.verify_bytes_per_position[r][s] * pos + subs) as u64,
        disk_bytes: (p.disk_bytes_per_table + p.disk_bytes_per_position[s] * pos) as u64,
        out_of_core: false,
        work_bytes: 0,
        fixed_bytes: (p.base_bytes + fixed) as u64,
        bytes_per_position: per,
    })
}

impl Plan {
    /// The plan of `targets` and every table they reach by captures, with the measured
    /// constants.
    pub fn new(targets: &[Material], rules: RuleSet) -> Result<Plan, IndexError> {
        Plan::with_params(targets, rules, &Params::MEASURED)
    }

    /// The plan with other constants.
    pub fn with_params(
        targets: &[Material],
        rules: RuleSet,
        p: &Params,
    ) -> Result<Plan, IndexError> {
        Plan::with_limit(targets, rules, p, None)
    }

    /// The plan under `gen --memory LIMIT` (None: in memory).
    pub fn with_limit(
        targets: &[Material],
        rules: RuleSet,
        p: &Params,
        memory: Option<u64>,
    ) -> Result<Plan, IndexError> {
        let tables = closure(targets)
            .iter()
            .map(|m| table_cost_limited(m, rules, p, memory))
            .collect::<Result<_, _>>()?;
        Ok(Plan {
            rules,
            tables,
            memory,
        })
    }

    /// The totals.
    pub fn totals(&self) -> PlanTotals {
        let peak = self.tables.iter().max_by_key(|t| t.peak_bytes);
        let per = self
            .tables
            .iter()
            .max_by(|a, b| a.bytes_per_position.total_cmp(&b.bytes_per_position));
        PlanTotals {
            tables: self.tables.len(),
            positions: self.tables.iter().map(|t| t.positions).sum(),
            seconds: self.tables.iter().map(|t| t.seconds).sum(),
            verify_seconds: self.tables.iter().map(|t| t.verify_seconds).sum(),
            peak_bytes: peak.map_or(0, |t| t.peak_bytes),
            peak_table: peak.map(|t| t.material),
            verify_peak_bytes: self
                .tables
                .iter()
                .map(|t| t.verify_peak_bytes)
                .max()
                .unwrap_or(0),
            disk_bytes: self.tables.iter().map(|t| t.disk_bytes).sum(),
            out_of_core: self.tables.iter().filter(|t| t.out_of_core).count(),
            work_bytes: self.tables.iter().map(|t| t.work_bytes).max().unwrap_or(0),
            bytes_per_position: per.map_or(0.0, |t| t.bytes_per_position),
            bytes_per_position_table: per.map(|t| t.material),
        }
    }

    /// The plan as JSON: `{"rules", "threads", "tables": [{"material", "shape", "deps",
    /// "positions", "sub_positions", "peak_bytes", "seconds", "verify_seconds",
    /// "verify_peak_bytes", "disk_bytes", "out_of_core", "work_bytes", "fixed_bytes",
    /// "bytes_per_position"}...], "memory",
    /// "totals": {...}}`, tables in generation order (the Dask driver reads it).
    pub fn to_json(&self) -> serde_json::Value {
        let t = self.totals();
        serde_json::json!({
            "rules": self.rules.name(),
            "rule_set": self.rules.code(),
            "threads": Params::MEASURED.threads,
            "tables": self.tables.iter().map(|c| serde_json::json!({
                "material": c.material.to_string(),
                "shape": c.shape.name(),
                "deps": c.deps.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
                "positions": c.positions,
                "sub_positions": c.sub_positions,
                "peak_bytes": c.peak_bytes,
                "seconds": c.seconds,
                "verify_seconds": c.verify_seconds,
                "verify_peak_bytes": c.verify_peak_bytes,
                "disk_bytes": c.disk_bytes,
                "out_of_core": c.out_of_core,
                "work_bytes": c.work_bytes,
                "fixed_bytes": c.fixed_bytes,
                "bytes_per_position": c.bytes_per_position,
            })).collect::<Vec<_>>(),
            "memory": self.memory,
            "totals": {
                "tables": t.tables,
                "positions": t.positions,
                "seconds": t.seconds,
                "verify_seconds": t.verify_seconds,
                "peak_bytes": t.peak_bytes,
                "peak_table": t.peak_table.map(|m| m.to_string()),
                "verify_peak_bytes": t.verify_peak_bytes,
                "disk_bytes": t.disk_bytes,
                "out_of_core": t.out_of_core,
                "work_bytes": t.work_bytes,
                "bytes_per_position": t.bytes_per_position,
                "bytes_per_position_table": t.bytes_per_position_table.map(|m| m.to_string()),
            },
        })
    }
}

/// The direct sub-tables of `targets` that `gen --no-deps` would need and cannot use, each
/// with the reason: no files, unreadable headers, or files of another rule set. Tables that
/// are themselves among the targets do not count (they are built first, smallest first).
pub fn missing_subtables(
    dir: &Path,
    targets: &[Material],
    rules: RuleSet,
) -> Vec<(Material, String)> {
    let named: BTreeSet<Material> = targets.iter().map(|m| table_material(*m).0).collect();
    let mut deps = BTreeSet::new();
    for m in &named {
        for d in direct_deps(m) {
            if !named.contains(&d) {
                deps.insert((d.pieces_besides_kings(), d.to_string(), d));
            }
        }
    }
    let mut out = Vec::new();
    for (_, _, d) in deps {
        let mut why = None;
        for metric in [Metric::Wdl, Metric::Dtm] {
            let path = table_path(dir, &d, metric);
            if !path.exists() {
                why = Some(format!("no file {}", path.display()));
                break;
            }
            match TableFile::open(&path, Some((d, metric))) {
                Err(e) => {
                    why = Some(e.to_string());
                    break;
                }
                Ok(f) if f.header.rules != rules => {
                    why = Some(format!(
                        "{} follows rule set {}, not {rules}",
                        path.display(),
                        f.header.rules
                    ));
                    break;
                }
                Ok(_) => {}
            }
        }
        if let Some(w) = why {
            out.push((d, w));
        }
    }
    out
}

/// The tables `targets` name, as table names, smallest first (the order `gen --no-deps`
/// builds them in).
pub fn named_in_order(targets: &[Material]) -> Vec<Material> {
    let set: BTreeSet<(u32, String, Material)> = targets
        .iter()
        .map(|m| {
            let t = table_material(*m).0;
            (t.pieces_besides_kings(), t.to_string(), t)
        })
        .collect();
    set.into_iter().map(|(_, _, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::sets::NamedSet;

    fn m(s: &str) -> Material {
        s.parse().unwrap()
    }

    #[test]
    fn shapes_and_deps() {
        assert_eq!(Shape::of(&m("KAABBKAB")), Shape::NoAttacker);
        assert_eq!(Shape::of(&m("KRKAB")), Shape::OneSided);
        assert_eq!(Shape::of(&m("KABKP")), Shape::OneSided);
        assert_eq!(Shape::of(&m("KRKP")), Shape::TwoSided);
        let d: Vec<String> = direct_deps(&m("KRNKR"))
            .iter()
            .map(|x| x.to_string())
            .collect();
        assert_eq!(d, ["KRKN", "KRKR", "KRNK"]);
        // the same sub-table reached by two captures is listed once
        let d: Vec<String> = direct_deps(&m("KRKR"))
            .iter()
            .map(|x| x.to_string())
            .collect();
        assert_eq!(d, ["KRK"]);
        assert!(direct_deps(&m("KK")).is_empty());
    }

    #[test]
    fn plan_is_the_closure_in_order_with_sums() {
        let p = Plan::new(&NamedSet::Default.targets(), RuleSet::CheckChase).unwrap();
        let names: Vec<Material> = p.tables.iter().map(|t| t.material).collect();
        assert_eq!(names, NamedSet::Default.tables());
        // every table comes after its sub-tables
        for (i, t) in p.tables.iter().enumerate() {
            for d in &t.deps {
                assert!(names[..i].contains(d), "{} before {d}", t.material);
            }
            assert_eq!(
                t.sub_positions,
                t.deps
                    .iter()
                    .map(|d| p
                        .tables
                        .iter()
                        .find(|x| x.material == *d)
                        .unwrap()
                        .positions)
                    .sum::<u64>()
            );
            assert!(t.peak_bytes as f64 >= Params::MEASURED.base_bytes);
            // the peak is its fixed part and its part per position
            assert!(t.fixed_bytes as f64 >= Params::MEASURED.base_bytes);
            let sum = t.fixed_bytes as f64 + t.bytes_per_position * t.positions as f64;
            assert!((sum - t.peak_bytes as f64).abs() <= 2.0, "{}", t.material);
        }
        let krnk = p.tables.iter().find(|t| t.material == m("KRNK")).unwrap();
        assert_eq!(krnk.positions, 620640);
        let tot = p.totals();
        assert_eq!(tot.tables, 49);
        assert_eq!(
            tot.positions,
            p.tables.iter().map(|t| t.positions).sum::<u64>()
        );
        let json = p.to_json();
        assert_eq!(json["tables"].as_array().unwrap().len(), 49);
        assert_eq!(json["tables"][0]["material"], "KK");
        assert_eq!(json["totals"]["tables"], 49);
        // the largest part per position is a table's, one of the steps' rates
        let worst = p
            .tables
            .iter()
            .map(|t| t.bytes_per_position)
            .fold(0.0, f64::max);
        assert_eq!(tot.bytes_per_position, worst);
        let q = &Params::MEASURED;
        let rates = [q.bytes_per_position, q.dtc_bytes_per_position].concat();
        assert!(rates.contains(&worst), "{worst}");
        let t = tot.bytes_per_position_table.unwrap();
        assert!(p
            .tables
            .iter()
            .any(|x| x.material == t && x.bytes_per_position == worst));
        assert_eq!(json["totals"]["bytes_per_position"], worst);
        assert_eq!(json["tables"][0]["fixed_bytes"], p.tables[0].fixed_bytes);
    }

    #[test]
    fn rule_set_zero_is_cheaper_and_shapes_order_costs() {
        let p = &Params::MEASURED;
        // (a table above the DTC file's dictionary trial, which would set both peaks)
        let a = table_cost(&m("KRNKR"), RuleSet::CheckChase, p).unwrap();
        let b = table_cost(&m("KRNKR"), RuleSet::CyclesDraw, p).unwrap();
        assert!(b.peak_bytes < a.peak_bytes && b.seconds < a.seconds);
        // same index size, different shapes
        let one = table_cost(&m("KRKAB"), RuleSet::CheckChase, p).unwrap();
        let two = table_cost(&m("KRKNB"), RuleSet::CheckChase, p).unwrap();
        let none = table_cost(&m("KABKAB"), RuleSet::CheckChase, p).unwrap();
        assert!(none.seconds < one.seconds && one.seconds < two.seconds);
    }

    #[test]
    fn a_memory_limit_moves_big_tables_out_of_core() {
        let p = &Params::MEASURED;
        let t = &[m("KRNKAABB")];
        let free = Plan::new(t, RuleSet::CheckChase).unwrap();
        let big = free.tables.last().unwrap().clone();
        assert!(!big.out_of_core && big.work_bytes == 0);
        // above the process's own needs (`generate::BASE_BYTES`), below the big table's
        let limit = big.peak_bytes / 2;
        assert!(limit > generate::BASE_BYTES + (1 << 20));
        let lim = Plan::with_limit(t, RuleSet::CheckChase, p, Some(limit)).unwrap();
        let b = lim.tables.last().unwrap();
        assert_eq!(b.material, big.material);
        // one-sided: no rule bits on the heap, the peak is the limit
        assert!(b.out_of_core && b.peak_bytes == limit && b.seconds > big.seconds);
        // the work file holds the table's values, verdicts and DTC at last
        assert!(b.work_bytes >= b.positions * 3 && b.work_bytes < b.positions * 3 + 64);
        let (tf, tl) = (free.totals(), lim.totals());
        assert!(tl.out_of_core >= 1 && tl.work_bytes == b.work_bytes && tf.work_bytes == 0);
        assert!(tl.peak_bytes < tf.peak_bytes);
        // small tables stay in memory
        assert!(lim.tables.iter().any(|t| !t.out_of_core));
        assert_eq!(lim.to_json()["totals"]["work_bytes"], b.work_bytes);
    }

    #[test]
    fn missing_subtables_are_named() {
        let dir = std::env::temp_dir().join(format!("xqdb-plan-missing-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let miss = missing_subtables(&dir, &[m("KRKR")], RuleSet::CheckChase);
        assert_eq!(miss.len(), 1);
        assert_eq!(miss[0].0, m("KRK"));
        assert!(miss[0].1.contains("no file"), "{}", miss[0].1);
        // a sub-table that is itself named is not missing
        assert!(missing_subtables(&dir, &[m("KRK"), m("KK")], RuleSet::CheckChase).is_empty());
    }
}
