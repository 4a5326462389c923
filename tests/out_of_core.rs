//! Out-of-core generation (`gen --memory LIMIT`) through the binary: with a limit far below
//! what KRKN's closure needs, every table's arrays live in a work file, and the files are the
//! same bytes as those of an in-memory run; a run killed at a checkpoint resumes in that mode
//! to the same bytes; a work file that cannot be created is a clear error; `verify --memory`
//! out of core says what `verify` says in memory.

mod common;
use common::{files_of as files, temp_dir, text, xqdb_in as xqdb};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

const TABLE: &str = "KRKN";
/// Far below any table's needs: every table of the closure goes out of core.
const LIMIT: &str = "1M";

/// The files of an in-memory run.
fn in_memory() -> &'static BTreeMap<String, Vec<u8>> {
    static REF: OnceLock<BTreeMap<String, Vec<u8>>> = OnceLock::new();
    REF.get_or_init(|| {
        let dir = temp_dir("ooc-ref");
        let out = xqdb(dir.path(), &["gen", TABLE, "--threads", "2"], &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(!text(&out.stderr).contains("out of core"));
        files(dir.path())
    })
}

fn assert_same(dir: &Path, what: &str) {
    let got = files(dir);
    let want = in_memory();
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{what}: the same files, no work file, checkpoint or lock left"
    );
    for (name, bytes) in want {
        assert!(got[name] == *bytes, "{what}: {name} differs from in memory");
    }
}

#[test]
fn out_of_core_files_are_those_of_memory() {
    let dir = temp_dir("ooc");
    let out = xqdb(
        dir.path(),
        &["gen", TABLE, "--threads", "2", "--memory", LIMIT],
        &[],
    );
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!("{TABLE}: out of core, arrays in "))
            && err.contains(&format!("{TABLE}.work")),
        "{err}"
    );
    assert_same(dir.path(), "out of core");
    // a limit above the closure's needs keeps every table in memory
    let dir = temp_dir("ooc-fits");
    let out = xqdb(
        dir.path(),
        &["gen", TABLE, "--threads", "2", "--memory", "4G"],
        &[],
    );
    assert!(out.status.success() && !text(&out.stderr).contains("out of core"));
    assert_same(dir.path(), "under the limit");
}

#[test]
fn out_of_core_resumes_after_a_kill() {
    for k in [3, 12] {
        let dir = temp_dir("ooc-resume");
        let args = ["gen", TABLE, "--threads", "2", "--memory", LIMIT];
        let out = xqdb(
            dir.path(),
            &args,
            &[
                ("XQDB_CHECKPOINT_EVERY", "1"),
                ("XQDB_TEST_ABORT_AFTER_CHECKPOINTS", &k.to_string()),
            ],
        );
        assert_eq!(out.status.code(), Some(86), "{}", text(&out.stderr));
        let out = xqdb(dir.path(), &args, &[]);
        let err = text(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(err.contains("resuming "), "kill after save {k}: {err}");
        assert_same(dir.path(), &format!("resumed after save {k}"));
    }
}

#[test]
fn an_unwritable_work_file_is_a_clear_error() {
    let dir = temp_dir("ooc-unwritable");
    // the closure's tables below KRKN, then a folder where KRKN's work file would go
    let out = xqdb(dir.path(), &["gen", "KRK", "KNK", "--threads", "2"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::create_dir(dir.path().join(format!("{TABLE}.work"))).expect("a folder");
    let out = xqdb(
        dir.path(),
        &["gen", TABLE, "--threads", "2", "--memory", LIMIT],
        &[],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{TABLE}.work (creating the work file)")) && !err.contains("panic"),
        "{err}"
    );
}

#[test]
fn verify_out_of_core_reports_what_verify_in_memory_reports() {
    let dir = temp_dir("ooc-verify");
    for (name, bytes) in in_memory() {
        std::fs::write(dir.path().join(name), bytes).expect("writable");
    }
    // the line without its time, and where the arrays were
    let line = |out: &std::process::Output| {
        let said = text(&out.stdout);
        assert!(out.status.success(), "{said} {}", text(&out.stderr));
        let l = said
            .lines()
            .find(|l| l.starts_with(&format!("{TABLE}: files checked")))
            .unwrap_or_else(|| panic!("a line for {TABLE}: {said}"))
            .to_string();
        let (head, rest) = l.split_once(" in ").expect("a time");
        let (_, tail) = rest.split_once(" s (").expect("a time");
        (
            format!("{head} ({tail}"),
            l.contains("(out of core, arrays in "),
        )
    };
    let (mem, mem_ooc) = line(&xqdb(dir.path(), &["verify", TABLE], &[]));
    let (ooc, ooc_ooc) = line(&xqdb(
        dir.path(),
        &["verify", TABLE, "--memory", LIMIT],
        &[],
    ));
    assert!(!mem_ooc && ooc_ooc, "{mem} / {ooc}");
    assert_eq!(
        ooc.split(" (out of core").next(),
        Some(mem.as_str()),
        "the same counts"
    );
    assert!(mem.ends_with(", 0 mismatches"), "{mem}");
    assert!(
        !files(dir.path()).keys().any(|n| n.ends_with(".work")),
        "the work file is removed"
    );
}
