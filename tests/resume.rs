//! Resumable and atomic generation through the binary: a `gen` killed at a checkpoint and
//! started again writes the same bytes as one never stopped; a kill inside the commit leaves
//! no table a probe would use; the table lock; `status --json`.
//!
//! KRKN is the table: both sides attack, so it has retrograde levels, rounds of the
//! repetition rules with rulings and distance-to-mate levels, and it takes about a second.

mod common;
use common::{files_of as files, temp_dir, text, xqdb_in as xqdb};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

const TABLE: &str = "KRKN";
/// A position of KRKN (Black to move; Red mates).
const FEN: &str = "5k3/9/9/9/9/R8/9/9/9/3K1n3 b - - 0 1";

/// The files of an uninterrupted run (saving at every safe point) and its number of saves.
fn reference() -> &'static (BTreeMap<String, Vec<u8>>, u64) {
    static REF: OnceLock<(BTreeMap<String, Vec<u8>>, u64)> = OnceLock::new();
    REF.get_or_init(|| {
        let dir = temp_dir("resume-ref");
        let out = xqdb(
            dir.path(),
            &["gen", TABLE, "--threads", "2", "-v"],
            &[("XQDB_CHECKPOINT_EVERY", "1")],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let saves = stdout
            .lines()
            .find_map(|l| l.strip_prefix("checkpoints: "))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no checkpoint count in {stdout}"));
        let f = files(dir.path());
        assert_eq!(
            f.keys().cloned().collect::<Vec<_>>(),
            [
                "KK.xqc", "KK.xqd", "KK.xqw", "KNK.xqc", "KNK.xqd", "KNK.xqw", "KRK.xqc",
                "KRK.xqd", "KRK.xqw", "KRKN.xqc", "KRKN.xqd", "KRKN.xqw"
            ],
            "only table files are left"
        );
        (f, saves)
    })
}

/// Kill `gen` right after save `k`; the message of the hook (which table and step).
fn kill_at(dir: &Path, k: u64) -> String {
    let out = xqdb(
        dir,
        &["gen", TABLE, "--threads", "2"],
        &[
            ("XQDB_CHECKPOINT_EVERY", "1"),
            ("XQDB_TEST_ABORT_AFTER_CHECKPOINTS", &k.to_string()),
        ],
    );
    assert_eq!(out.status.code(), Some(86), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    err.lines()
        .find(|l| l.starts_with("test hook"))
        .unwrap_or_else(|| panic!("no hook message in {err}"))
        .to_string()
}

/// Run `gen` to the end (default save policy) and check it matches the reference.
fn finish_and_compare(dir: &Path, what: &str) -> String {
    let out = xqdb(dir, &["gen", TABLE, "--threads", "2"], &[]);
    assert!(out.status.success(), "{what}: {}", text(&out.stderr));
    let got = files(dir);
    let (want, _) = reference();
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{what}: the same files, no checkpoint, lock or temporary file left"
    );
    for (name, bytes) in want {
        assert!(
            got[name] == *bytes,
            "{what}: {name} differs from the uninterrupted run"
        );
    }
    text(&out.stderr)
}

#[test]
fn resume_after_kills_is_byte_identical() {
    let (_, n) = *reference();
    assert!(n >= 20, "{n} saves");
    let mut ks = vec![1, n / 3, 2 * n / 3, n - 1];
    // and the first save at a round of the repetition rules (searched down from 2n/3)
    let mut steps = Vec::new();
    for &k in &ks {
        let dir = temp_dir("resume");
        let hook = kill_at(dir.path(), k);
        assert!(
            dir.path()
                .join(format!("{}.xqckpt", hook_table(&hook)))
                .exists(),
            "{hook}: a checkpoint is left"
        );
        let err = finish_and_compare(dir.path(), &hook);
        assert!(err.contains("resuming "), "{hook}: {err}");
        steps.push(hook);
    }
    if !steps.iter().any(|h| h.contains("rule round")) {
        let mut k = 2 * n / 3;
        loop {
            k -= 1;
            assert!(
                k > n / 3,
                "no save at a rule round between n/3 and 2n/3: {steps:?}"
            );
            let dir = temp_dir("resume");
            let hook = kill_at(dir.path(), k);
            if hook.contains("rule round") {
                let err = finish_and_compare(dir.path(), &hook);
                assert!(err.contains("from checkpoint (rule round"), "{err}");
                ks.push(k);
                steps.push(hook);
                break;
            }
        }
    }
    for what in ["retrograde level", "rule round", "distance to mate"] {
        assert!(
            steps.iter().any(|h| h.contains(what)),
            "no kill at {what}: {steps:?}"
        );
    }
}

/// The table a hook message names ("... (KRKN at ...)").
fn hook_table(hook: &str) -> String {
    hook.rsplit_once('(')
        .and_then(|(_, t)| t.split_whitespace().next())
        .expect("a table in the hook message")
        .to_string()
}

fn status_json(dir: &Path, deep: bool) -> serde_json::Value {
    let mut args = vec!["status", TABLE, "--json"];
    if deep {
        args.push("--deep");
    }
    let out = xqdb(dir, &args, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn table_json<'a>(status: &'a serde_json::Value, m: &str) -> &'a serde_json::Value {
    status["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .find(|t| t["material"] == m)
        .unwrap_or_else(|| panic!("{m} in {status}"))
}

#[test]
fn kill_inside_commit_leaves_no_probeable_table() {
    let dir = temp_dir("commit");
    let d = dir.path();
    // the sub-tables first, so that the kill comes in KRKN's commit
    let out = xqdb(d, &["gen", "KRK", "KNK"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = xqdb(
        d,
        &["gen", TABLE, "--threads", "2"],
        &[
            ("XQDB_TEST_ABORT_IN_COMMIT", "1"),
            ("XQDB_CHECKPOINT_EVERY", "1"),
        ],
    );
    assert_eq!(out.status.code(), Some(87), "{}", text(&out.stderr));
    assert!(d.join("KRKN.xqd").exists() && !d.join("KRKN.xqw").exists());
    let probe = xqdb(d, &["probe", FEN], &[]);
    assert!(!probe.status.success());
    assert!(
        text(&probe.stderr).contains("no WDL table for KRKN"),
        "{}",
        text(&probe.stderr)
    );
    let st = status_json(d, false);
    let t = table_json(&st, TABLE);
    assert_eq!(t["state"], "partial", "{t}");
    assert!(t["checkpoint"]["step"].is_string(), "{t}");
    assert_eq!(table_json(&st, "KRK")["state"], "present");
    finish_and_compare(d, "after a kill in the commit");
}

#[test]
fn lock_fails_without_wait_and_waits_otherwise() {
    use xqdb::tablebase::lock::acquire;
    let dir = temp_dir("lock");
    let d = dir.path();
    let m: xqdb::index::Material = TABLE.parse().expect("a material");
    let held = acquire(d, &m, false, &|_| {}).expect("the lock is free");
    let st = status_json(d, false);
    let t = table_json(&st, TABLE);
    assert_eq!(t["locked"]["pid"], std::process::id(), "{t}");
    assert_eq!(t["state"], "missing", "{t}");
    assert_eq!(st["totals"]["locked"], 1);
    let out = xqdb(d, &["gen", TABLE, "--threads", "2", "--no-wait"], &[]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    let pid = std::process::id();
    assert!(
        err.contains(&format!("KRKN is being generated by pid {pid} on ")),
        "{err}"
    );
    assert!(!d.join("KRKN.xqw").exists());
    // without --no-wait it says so, waits, and finishes once the lock is released
    let mut child = Command::new(env!("CARGO_BIN_EXE_xqdb"))
        .args(["gen", TABLE, "--threads", "2", "--tables"])
        .arg(d)
        .env_remove("XQDB_CHECKPOINT_EVERY")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("xqdb runs");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let line = lines
        .next()
        .expect("a line before the end")
        .expect("readable");
    assert_eq!(
        line,
        format!(
            "KRKN is being generated by pid {pid} on {}; waiting",
            xqdb::tablebase::lock::host_name()
        )
    );
    assert!(child.try_wait().expect("status").is_none(), "still waiting");
    drop(held);
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(child.wait().expect("ends").success(), "{rest:?}");
    finish_and_compare(d, "after waiting for the lock");
}

#[test]
fn status_json_reports_presence_verification_and_damage() {
    let dir = temp_dir("status");
    let d = dir.path();
    let st = status_json(d, false);
    assert_eq!(st["totals"]["missing"], 4, "{st}");
    let out = xqdb(d, &["gen", TABLE, "--threads", "2"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let st = status_json(d, false);
    let t = table_json(&st, TABLE);
    assert_eq!(t["state"], "present");
    assert_eq!(t["verified"], false);
    assert_eq!(t["rules"], 1);
    assert_eq!(t["positions"], 620640);
    assert_eq!(t["metrics"], serde_json::json!(["xqw", "xqd", "xqc"]));
    let size = std::fs::metadata(d.join("KRKN.xqd")).expect("a file").len();
    assert_eq!(t["files"]["xqd"], size);
    let out = xqdb(d, &["verify", TABLE, "--threads", "2"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let st = status_json(d, false);
    assert_eq!(table_json(&st, TABLE)["verified"], true);
    assert_eq!(st["totals"]["present"], 4);
    assert_eq!(st["totals"]["verified"], 1);
    // a table replaced after verification is no longer verified
    let wdl = d.join("KRKN.xqw");
    let bytes = std::fs::read(&wdl).expect("readable");
    std::fs::copy(d.join("KRK.xqw"), &wdl).expect("copy");
    let st = status_json(d, false);
    assert_eq!(
        table_json(&st, TABLE)["state"],
        "damaged",
        "another table's file"
    );
    std::fs::write(&wdl, &bytes).expect("write");
    assert_eq!(table_json(&status_json(d, false), TABLE)["verified"], true);
    // a damaged block: only --deep reads the blocks
    let dtm = d.join("KRKN.xqd");
    let mut b = std::fs::read(&dtm).expect("readable");
    let last = b.len() - 3;
    b[last] ^= 0x55;
    std::fs::write(&dtm, &b).expect("write");
    assert_eq!(
        table_json(&status_json(d, false), TABLE)["state"],
        "present"
    );
    let deep = status_json(d, true);
    assert_eq!(table_json(&deep, TABLE)["state"], "damaged", "{deep}");
    assert_eq!(deep["totals"]["damaged"], 1);
}

#[test]
fn damaged_or_foreign_checkpoint_is_reported_and_ignored() {
    let (_, n) = *reference();
    // a flipped byte: the CRC fails
    let dir = temp_dir("resume-crc");
    let d = dir.path();
    let hook = kill_at(d, n / 2);
    let ck = d.join(format!("{}.xqckpt", hook_table(&hook)));
    let mut b = std::fs::read(&ck).expect("a checkpoint");
    let mid = b.len() / 2;
    b[mid] ^= 1;
    std::fs::write(&ck, &b).expect("write");
    let err = finish_and_compare(d, "damaged checkpoint");
    assert!(err.contains("ignored (CRC mismatch"), "{err}");
    assert!(!err.contains("resuming"), "{err}");
    // another table's checkpoint under KRKN's name: it does not match
    let dir = temp_dir("resume-foreign");
    let d = dir.path();
    let hook = kill_at(d, 1);
    let from = d.join(format!("{}.xqckpt", hook_table(&hook)));
    assert_ne!(hook_table(&hook), TABLE);
    std::fs::rename(&from, d.join("KRKN.xqckpt")).expect("rename");
    let err = finish_and_compare(d, "foreign checkpoint");
    assert!(err.contains("ignored (it belongs to "), "{err}");
}

/// A kill inside a table without repetition-rule rounds (KNK and KRK, in the generator's
/// compact layout: the levels in the value bytes), past its first levels, resumes to the same
/// files.
#[test]
fn resume_in_the_compact_layout_is_byte_identical() {
    let dir = temp_dir("resume-compact");
    let hook = kill_at(dir.path(), 12);
    let table = hook_table(&hook);
    assert!(
        ["KNK", "KRK"].contains(&table.as_str()) && hook.contains("retrograde level"),
        "{hook}: not a level of a table without rule rounds"
    );
    let err = finish_and_compare(dir.path(), &hook);
    assert!(
        err.contains(&format!(
            "resuming {table} from checkpoint (retrograde level"
        )),
        "{err}"
    );
}

/// A kill after a table's WDL and DTM files are committed and before its checkpoint is
/// removed (the DTC file comes after both): the next run finds the table, adds its DTC file
/// without resuming anything, and removes the stale checkpoint.
#[test]
fn a_checkpoint_left_beside_a_committed_table_is_removed() {
    let dir = temp_dir("resume-stale");
    let d = dir.path();
    let (want, _) = reference();
    for (name, bytes) in want {
        if name != "KRKN.xqc" {
            std::fs::write(d.join(name), bytes).expect("write a reference file");
        }
    }
    // a real checkpoint of KRKN, from a run stopped early in another folder
    let other = temp_dir("resume-stale-ckpt");
    let (_, n) = *reference();
    let hook = kill_at(other.path(), n - 1);
    assert_eq!(hook_table(&hook), TABLE, "{hook}");
    std::fs::copy(other.path().join("KRKN.xqckpt"), d.join("KRKN.xqckpt")).expect("copy");
    let err = finish_and_compare(d, "a stale checkpoint");
    assert!(!err.contains("resuming"), "{err}");
}
