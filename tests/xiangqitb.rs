//! Agreement with the values of the generator behind the largest public Xiangqi tablebase
//! (../shared/reference/xiangqitb): every legal KRKN position and 30,000 random KRNKR
//! positions, under rule set 1. WDL must agree on every position; DTM agreement is reported.

use std::path::Path;
use xqdb::board::Position;
use xqdb::tablebase::generate::GenOptions;
use xqdb::tablebase::pipeline::generate_closure;
use xqdb::tablebase::values::{wdl_of, Wdl};
use xqdb::tablebase::TableSet;

fn reference(file: &str) -> Option<String> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/reference/xiangqitb")
        .join(file);
    match std::fs::read_to_string(&p) {
        Ok(s) => Some(s),
        Err(_) => {
            eprintln!("notice: {} is absent, test skipped", p.display());
            None
        }
    }
}

struct Agreement {
    positions: usize,
    wdl_same: usize,
    dtm_same: usize,
    wdl_examples: Vec<String>,
    dtm_examples: Vec<String>,
}

fn compare(set: &TableSet, text: &str) -> Agreement {
    let mut a = Agreement {
        positions: 0,
        wdl_same: 0,
        dtm_same: 0,
        wdl_examples: Vec::new(),
        dtm_examples: Vec::new(),
    };
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let pos = Position::from_fen(f[0]).expect("reference FEN");
        let v = set.value(&pos).expect("table present");
        let ours = wdl_of(v).expect("legal position");
        let theirs = match f[1] {
            "W" => Wdl::Win,
            "L" => Wdl::Loss,
            _ => Wdl::Draw,
        };
        a.positions += 1;
        if ours == theirs {
            a.wdl_same += 1;
        } else if a.wdl_examples.len() < 20 {
            a.wdl_examples
                .push(format!("{line}  ours {ours:?} dtm {v}"));
        }
        let their_dtm: Option<u32> = f[2].parse().ok();
        let our_dtm = (ours != Wdl::Draw).then_some(v as u32);
        if our_dtm == their_dtm {
            a.dtm_same += 1;
        } else if a.dtm_examples.len() < 20 && ours == theirs {
            a.dtm_examples.push(format!("{line}  ours {v}"));
        }
    }
    a
}

fn report(name: &str, a: &Agreement) {
    eprintln!(
        "{name}: {} positions, WDL agrees on {} ({:.4} %), DTM on {} ({:.4} %)",
        a.positions,
        a.wdl_same,
        100.0 * a.wdl_same as f64 / a.positions as f64,
        a.dtm_same,
        100.0 * a.dtm_same as f64 / a.positions as f64
    );
    for e in &a.wdl_examples {
        eprintln!("  WDL differs: {e}");
    }
    for e in a.dtm_examples.iter().take(10) {
        eprintln!("  DTM differs: {e}");
    }
}

#[test]
fn krkn_wdl_agrees_on_every_legal_position() {
    let Some(text) = reference("KRKN.tsv") else {
        return;
    };
    let set = generate_closure(&["KRKN".parse().unwrap()], GenOptions::default()).unwrap();
    let a = compare(&set, &text);
    report("KRKN", &a);
    assert_eq!(a.positions, 417_414);
    assert_eq!(a.wdl_same, a.positions, "WDL must agree everywhere");
}

#[test]
#[ignore = "generates KRNKR (about a minute on 2 cores); run with --ignored"]
fn krnkr_wdl_agrees_on_the_sample() {
    let Some(text) = reference("KRNKR-sample.tsv") else {
        return;
    };
    // XQDB_TABLES_DIR: use the tables of that folder instead of generating them
    let set = match std::env::var_os("XQDB_TABLES_DIR") {
        Some(dir) => {
            let mut set = TableSet::new();
            let dir = std::path::PathBuf::from(dir);
            for m in xqdb::tablebase::pipeline::closure(&["KRNKR".parse().unwrap()]) {
                let t = xqdb::tablebase::pipeline::load_table(&dir, &m, false).unwrap();
                set.insert(std::sync::Arc::new(t));
            }
            set
        }
        None => generate_closure(&["KRNKR".parse().unwrap()], GenOptions::default()).unwrap(),
    };
    let a = compare(&set, &text);
    report("KRNKR", &a);
    assert_eq!(a.positions, 30_000);
    assert_eq!(a.wdl_same, a.positions, "WDL must agree everywhere");
}

#[test]
#[ignore = "diagnostics"]
fn krkn_dtm_differences() {
    let Some(text) = reference("KRKN.tsv") else {
        return;
    };
    let set = generate_closure(&["KRKN".parse().unwrap()], GenOptions::default()).unwrap();
    let mut hist = std::collections::BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let pos = Position::from_fen(f[0]).unwrap();
        let v = set.value(&pos).unwrap();
        let Ok(their) = f[2].parse::<i32>() else {
            continue;
        };
        let key = (f[4].to_string(), f[1].to_string(), their - v as i32);
        *hist.entry(key).or_insert(0) += 1;
    }
    for (k, n) in hist {
        eprintln!("{k:?}: {n}");
    }
}

#[test]
#[ignore = "diagnostics: XQDB_CMP0 and XQDB_CMP1 folders of one table under rule sets 0 and 1"]
#[allow(clippy::needless_range_loop)]
fn dtm_of_plain_positions_under_both_rule_sets() {
    let (Some(a), Some(b), Some(m)) = (
        std::env::var_os("XQDB_CMP0"),
        std::env::var_os("XQDB_CMP1"),
        std::env::var_os("XQDB_CMP_M"),
    ) else {
        return;
    };
    let m = m.to_str().unwrap().parse().unwrap();
    let t0 = xqdb::tablebase::pipeline::load_table(Path::new(&a), &m, false).unwrap();
    let t1 = xqdb::tablebase::pipeline::load_table(Path::new(&b), &m, true).unwrap();
    let v1 = t1.verdicts.as_ref().unwrap();
    let mut hist = std::collections::BTreeMap::new();
    for s in 0..2 {
        for i in 0..t0.values[s].len() {
            let b = v1[s][i];
            if b >= 3 {
                continue;
            }
            let (x, y) = (t0.values[s][i], t1.values[s][i]);
            if x != y {
                *hist.entry(x as i32 - y as i32).or_insert(0u64) += 1;
            }
        }
    }
    eprintln!("{hist:?}");
}
