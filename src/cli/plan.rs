//! Planning commands: `plan` (the graph of tables with their estimated costs) and `sets`
//! (the named sets with their totals).

use super::ui::size;
use xqdb::board::rules::RuleSet;
use xqdb::index::Material;
use xqdb::tablebase::plan::{Params, Plan, PlanTotals};
use xqdb::tablebase::sets::NamedSet;

/// Arguments of `xqdb plan`.
#[derive(clap::Args)]
pub struct PlanArgs {
    /// Materials such as KRNKR (with every table they need).
    materials: Vec<String>,
    /// A named set: default, one-sided or one-each (`xqdb sets` lists them).
    #[arg(long, value_name = "NAME")]
    set: Option<NamedSet>,
    /// The default set (the same as --set default).
    #[arg(long)]
    default: bool,
    /// The rule set the estimates are for.
    #[arg(long, value_enum, default_value_t = RuleSet::CheckChase)]
    rules: RuleSet,
    /// Print the plan as JSON (for scripts: the Dask driver in contrib/dask reads it).
    #[arg(long)]
    json: bool,
    /// Estimate for `gen --memory LIMIT` (out of core beyond LIMIT, such as 4G).
    #[arg(long, value_name = "LIMIT", value_parser = xqdb::tablebase::workfile::parse_size)]
    memory: Option<u64>,
}

/// Wall time for people: seconds, minutes, hours or days.
pub fn duration(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.1} s")
    } else if s < 3600.0 {
        format!("{:.1} min", s / 60.0)
    } else if s < 86400.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{:.1} days", s / 86400.0)
    }
}

fn mib(bytes: u64) -> String {
    let m = bytes as f64 / 1048576.0;
    if m < 1024.0 {
        format!("{m:.0} MiB")
    } else {
        format!("{:.1} GiB", m / 1024.0)
    }
}

/// `xqdb plan`: one line per table in generation order, then the totals; or JSON.
pub fn plan(a: PlanArgs) -> Result<(), String> {
    let mut targets = a
        .materials
        .iter()
        .map(|s| s.parse::<Material>().map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    if a.default {
        targets.extend(NamedSet::Default.targets());
    }
    if let Some(set) = a.set {
        targets.extend(set.targets());
    }
    if targets.is_empty() {
        return Err("nothing to plan: name materials, or use --set NAME or --default".into());
    }
    let p = Plan::with_limit(&targets, a.rules, &Params::MEASURED, a.memory)
        .map_err(|e| e.to_string())?;
    if a.json {
        println!("{}", p.to_json());
        return Ok(());
    }
    println!(
        "{:<14} {:<11} {:>14} {:>10} {:>15} {:>9} {:>9} {:>9} {:>9}  sub-tables",
        "table",
        "shape",
        "positions",
        "gen mem",
        "fixed + B/pos",
        "gen",
        "ver. mem",
        "verify",
        "disk"
    );
    for t in &p.tables {
        let deps: Vec<String> = t.deps.iter().map(|d| d.to_string()).collect();
        println!(
            "{:<14} {:<11} {:>14} {:>10} {:>15} {:>9} {:>9} {:>9} {:>9}  {}",
            t.material.to_string(),
            t.shape.name(),
            t.positions,
            // out of core: marked, its work file under the totals
            format!(
                "{}{}",
                mib(t.peak_bytes),
                if t.out_of_core { "*" } else { " " }
            ),
            // the in-memory peak: its fixed part and bytes per position
            format!("{} + {:.2}", mib(t.fixed_bytes), t.bytes_per_position),
            duration(t.seconds),
            mib(t.verify_peak_bytes),
            duration(t.verify_seconds),
            size(t.disk_bytes),
            if deps.is_empty() {
                "-".to_string()
            } else {
                deps.join(" ")
            }
        );
    }
    print_totals(&p.totals(), a.rules);
    print_out_of_core(&p.totals(), a.memory);
    Ok(())
}

/// The out-of-core line of `plan` and `sets --memory`.
fn print_out_of_core(t: &PlanTotals, memory: Option<u64>) {
    if let Some(limit) = memory {
        println!(
            "--memory {}: {} table(s) out of core (* in `plan`), their work file at most {} of disk besides the tables",
            mib(limit),
            t.out_of_core,
            size(t.work_bytes)
        );
    }
}

fn print_totals(t: &PlanTotals, rules: RuleSet) {
    println!(
        "{} tables, {} positions; rule set {}; estimated on this machine ({} threads): generation {}, verification {}, peak memory {} ({}; verify {}), at most {:.2} bytes per position besides the fixed part ({}), disk {}",
        t.tables,
        t.positions,
        rules.code(),
        Params::MEASURED.threads,
        duration(t.seconds),
        duration(t.verify_seconds),
        mib(t.peak_bytes),
        t.peak_table.map_or("-".to_string(), |m| m.to_string()),
        mib(t.verify_peak_bytes),
        t.bytes_per_position,
        t.bytes_per_position_table
            .map_or("-".to_string(), |m| m.to_string()),
        size(t.disk_bytes)
    );
}

/// Arguments of `xqdb sets`.
#[derive(clap::Args)]
pub struct SetsArgs {
    /// The rule set the estimates are for.
    #[arg(long, value_enum, default_value_t = RuleSet::CheckChase)]
    rules: RuleSet,
    /// Estimate for `gen --memory LIMIT` (out of core beyond LIMIT, such as 4G).
    #[arg(long, value_name = "LIMIT", value_parser = xqdb::tablebase::workfile::parse_size)]
    memory: Option<u64>,
}

/// `xqdb sets`: each named set with its tables, positions and estimated costs.
pub fn sets(a: SetsArgs) -> Result<(), String> {
    println!(
        "{:<10} {:>7} {:>18} {:>10} {:>10} {:>24} {:>16} {:>11} {:>9}",
        "set",
        "tables",
        "positions",
        "gen",
        "verify",
        "gen peak memory (table)",
        "B/pos (table)",
        "verify peak",
        "disk"
    );
    for s in NamedSet::ALL {
        let p = Plan::with_limit(&s.targets(), a.rules, &Params::MEASURED, a.memory)
            .map_err(|e| e.to_string())?;
        let t = p.totals();
        println!(
            "{:<10} {:>7} {:>18} {:>10} {:>10} {:>24} {:>16} {:>11} {:>9}",
            s.name(),
            t.tables,
            t.positions,
            duration(t.seconds),
            duration(t.verify_seconds),
            format!(
                "{} ({})",
                mib(t.peak_bytes),
                t.peak_table.map_or("-".to_string(), |m| m.to_string())
            ),
            // the largest peak per position besides the fixed part, and its table
            format!(
                "{:.2} ({})",
                t.bytes_per_position,
                t.bytes_per_position_table
                    .map_or("-".to_string(), |m| m.to_string())
            ),
            mib(t.verify_peak_bytes),
            size(t.disk_bytes)
        );
        println!("           {}", s.description());
        if a.memory.is_some() {
            print!("           ");
            print_out_of_core(&t, a.memory);
        }
    }
    println!(
        "estimates for rule set {} on this machine ({} threads, one table after another; `xqdb plan --set NAME` lists the tables)",
        a.rules.code(),
        Params::MEASURED.threads
    );
    Ok(())
}
