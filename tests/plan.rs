//! `plan`, `sets` and `gen --no-deps` through the binary.

mod common;
use common::temp_dir;
use std::process::Command;

fn xqdb(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(common::bin()).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn plan_json_is_the_graph_in_generation_order() {
    let (ok, out, err) = xqdb(&["plan", "KRNKR", "--json"]);
    assert!(ok, "{err}");
    let p: serde_json::Value = serde_json::from_str(&out).unwrap();
    let tables = p["tables"].as_array().unwrap();
    let names: Vec<&str> = tables
        .iter()
        .map(|t| t["material"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["KK", "KNK", "KRK", "KRKN", "KRKR", "KRNK", "KRNKR"]);
    let last = &tables[6];
    assert_eq!(last["deps"], serde_json::json!(["KRKN", "KRKR", "KRNK"]));
    assert_eq!(last["shape"], "two-sided");
    // positions are index sizes times two sides (`xqdb count KRNKR`)
    let (_, count, _) = xqdb(&["count", "KRNKR"]);
    let per_side: u64 = count
        .lines()
        .find_map(|l| l.strip_prefix("index size:"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(last["positions"].as_u64().unwrap(), 2 * per_side);
    assert!(last["peak_bytes"].as_u64().unwrap() > 2 * per_side);
    // the peak as its fixed part and its bytes per position
    let fixed = last["fixed_bytes"].as_u64().unwrap();
    let per = last["bytes_per_position"].as_f64().unwrap();
    let sum = fixed as f64 + per * (2 * per_side) as f64;
    assert!((sum - last["peak_bytes"].as_f64().unwrap()).abs() <= 2.0);
    assert!(per > 0.0 && per <= 1.5, "{per}");
    assert!(p["totals"]["bytes_per_position"].as_f64().unwrap() >= per);
    assert_eq!(p["totals"]["tables"], 7);
    assert_eq!(p["totals"]["peak_table"], "KRNKR");

    let (ok, out, _) = xqdb(&["plan", "--set", "default"]);
    assert!(ok);
    assert!(out.contains("49 tables"), "{out}");
    let (ok, _, err) = xqdb(&["plan"]);
    assert!(!ok && err.starts_with("error: nothing to plan"), "{err}");
}

#[test]
fn sets_lists_every_named_set() {
    let (ok, out, err) = xqdb(&["sets"]);
    assert!(ok, "{err}");
    for (name, tables) in [("default", 49), ("one-sided", 369), ("one-each", 1035)] {
        let line = out
            .lines()
            .find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))
            .unwrap_or_else(|| panic!("no line for {name}: {out}"));
        let n: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert_eq!(n, tables, "{line}");
    }
}

#[test]
fn gen_no_deps_needs_the_sub_tables_and_builds_only_the_named() {
    let dir = temp_dir("no-deps");
    let d = dir.path().to_str().unwrap();
    // nothing there: the missing sub-tables are listed, exit non-zero
    let (ok, _, err) = xqdb(&["gen", "--no-deps", "KRKP", "--tables", d, "-q"]);
    assert!(!ok);
    assert!(err.contains("2 sub-table(s) missing"), "{err}");
    assert!(
        err.contains("KPK: no file") && err.contains("KRK: no file"),
        "{err}"
    );
    assert!(!dir.path().join("KRKP.xqw").exists());
    // the sub-tables by themselves (one at a time, smallest first), then the table
    for m in ["KK", "KRK", "KPK"] {
        let (ok, _, err) = xqdb(&["gen", "--no-deps", m, "--tables", d, "-q"]);
        assert!(ok, "{m}: {err}");
    }
    let (ok, _, err) = xqdb(&["gen", "--no-deps", "KRKP", "--tables", d, "-q"]);
    assert!(ok, "{err}");
    let mut files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        // WDL, DTM and (gen's default) DTC files
        [
            "KK.xqc", "KK.xqd", "KK.xqw", "KPK.xqc", "KPK.xqd", "KPK.xqw", "KRK.xqc", "KRK.xqd",
            "KRK.xqw", "KRKP.xqc", "KRKP.xqd", "KRKP.xqw"
        ]
    );
    let (ok, _, err) = xqdb(&["verify", "KRKP", "--tables", d, "-q"]);
    assert!(ok, "{err}");
    // byte-identical to the whole closure built at once
    let all = temp_dir("no-deps-all");
    let a = all.path().to_str().unwrap();
    assert!(xqdb(&["gen", "KRKP", "--tables", a, "-q"]).0);
    for f in &files {
        assert_eq!(
            std::fs::read(dir.path().join(f)).unwrap(),
            std::fs::read(all.path().join(f)).unwrap(),
            "{f}"
        );
    }
    // run again: the table is present and kept
    let (ok, out, _) = xqdb(&["gen", "--no-deps", "KRKP", "--tables", d]);
    assert!(
        ok && out.contains("KRKP") && out.contains("present"),
        "{out}"
    );
    // a sub-table of the other rule set is refused
    let other = temp_dir("no-deps-rules");
    let o = other.path().to_str().unwrap();
    assert!(xqdb(&["gen", "KRK", "KPK", "--rules", "none", "--tables", o, "-q"]).0);
    let (ok, _, err) = xqdb(&["gen", "--no-deps", "KRKP", "--tables", o, "-q"]);
    assert!(!ok && err.contains("rule set"), "{err}");
}
