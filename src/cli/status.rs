//! `xqdb status`: which tables of a set a folder holds (the logic is in
//! `xqdb::tablebase::status`).

use super::tables::TableArgs;
use super::ui::size;
use xqdb::index::Material;
use xqdb::tablebase::pipeline::closure;
use xqdb::tablebase::sets::NamedSet;
use xqdb::tablebase::status::{set_status, totals, Presence, TableStatus};

/// Arguments of `xqdb status`.
#[derive(clap::Args)]
pub struct StatusArgs {
    /// Materials (with every table they need); default: the set of --set.
    materials: Vec<String>,
    /// A named set: default, one-sided or one-each (without materials: default).
    #[arg(long, value_name = "NAME")]
    set: Option<NamedSet>,
    /// Print JSON (for scripts).
    #[arg(long)]
    json: bool,
    /// Check every block of every file (else the headers only).
    #[arg(long)]
    deep: bool,
    #[command(flatten)]
    common: TableArgs,
}

fn checkpoint_text(s: &TableStatus) -> Option<String> {
    s.checkpoint.as_ref().map(|c| match c {
        Ok((step, bytes)) => format!("checkpoint at {step} ({})", size(*bytes)),
        Err(why) => format!("unreadable checkpoint ({why})"),
    })
}

fn json_of(s: &TableStatus) -> serde_json::Value {
    let files: serde_json::Map<String, serde_json::Value> = s
        .files
        .iter()
        .map(|(ext, bytes)| (ext.to_string(), (*bytes).into()))
        .collect();
    serde_json::json!({
        "material": s.material.to_string(),
        "positions": s.positions,
        "state": s.presence.word(),
        "problem": match &s.presence { Presence::Damaged(why) => Some(why.clone()), _ => None },
        "verified": s.verified,
        "locked": s.locked.as_ref().map(|h| serde_json::json!({"pid": h.pid, "host": h.host})),
        "checkpoint": s.checkpoint.as_ref().map(|c| match c {
            Ok((step, bytes)) => serde_json::json!({"step": step.to_string(), "bytes": bytes}),
            Err(why) => serde_json::json!({"error": why}),
        }),
        "files": files,
        "rules": s.rules.map(|r| r.code()),
        "metrics": s.files.iter().map(|f| f.0).collect::<Vec<_>>(),
    })
}

/// `xqdb status`: a line per table of the set, then totals; or JSON.
pub fn status(a: StatusArgs) -> Result<(), String> {
    a.common.init_threads();
    let mut targets = a
        .materials
        .iter()
        .map(|s| s.parse::<Material>().map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let set = a.set.or(targets.is_empty().then_some(NamedSet::Default));
    if let Some(set) = set {
        targets.extend(set.targets());
    }
    let dir = a.common.dir();
    let states = set_status(&dir, &closure(&targets), a.deep);
    let t = totals(&states);
    if a.json {
        let out = serde_json::json!({
            "folder": dir.display().to_string(),
            "set": set.map(|s| s.name()),
            "deep": a.deep,
            "tables": states.iter().map(json_of).collect::<Vec<_>>(),
            "totals": {
                "tables": t.tables, "present": t.present, "verified": t.verified,
                "missing": t.missing, "partial": t.partial, "damaged": t.damaged,
                "locked": t.locked, "bytes": t.bytes,
            },
        });
        println!("{out:#}");
        return Ok(());
    }
    for s in &states {
        let mut parts = vec![s.presence.word().to_string()];
        if s.presence == Presence::Present {
            parts.push(
                if s.verified {
                    "verified"
                } else {
                    "not verified"
                }
                .into(),
            );
        }
        if let Some(r) = s.rules {
            parts.push(format!("rule set {r}"));
        }
        if !s.files.is_empty() {
            let f: Vec<String> = s
                .files
                .iter()
                .map(|(ext, b)| format!("{ext} {}", size(*b)))
                .collect();
            parts.push(f.join(" + "));
        }
        if let Some(c) = checkpoint_text(s) {
            parts.push(c);
        }
        if let Some(h) = &s.locked {
            parts.push(format!("locked by pid {} on {}", h.pid, h.host));
        }
        if let Presence::Damaged(why) = &s.presence {
            parts.push(why.clone());
        }
        println!("{:<12} {}", s.material.to_string(), parts.join(", "));
    }
    println!(
        "{} tables in {}: {} present ({} verified), {} missing, {} partial, {} damaged, {} locked; {} on disk",
        t.tables,
        dir.display(),
        t.present,
        t.verified,
        t.missing,
        t.partial,
        t.damaged,
        t.locked,
        size(t.bytes)
    );
    Ok(())
}
