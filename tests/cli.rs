//! The binary: exit codes and one-line errors.

mod common;
use common::temp_dir;
use std::process::Command;

fn xqdb(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xqdb"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn perft_and_divide() {
    let (ok, out, _) = xqdb(&["perft", "startpos", "3"]);
    assert!(ok);
    assert!(out.contains("perft 3: 79666 leaves"), "{out}");
    let (ok, out, _) = xqdb(&["perft", "startpos", "2", "--divide"]);
    assert!(ok);
    assert!(out.contains("a0a1: 44"), "{out}");
    assert!(out.contains("perft 2: 1920 leaves"), "{out}");
}

#[test]
fn show_prints_board_and_moves() {
    let (ok, out, _) = xqdb(&["show", "startpos", "--no-color"]);
    assert!(ok);
    assert!(out.contains('帥') && out.contains('將'));
    assert!(out.contains("Side to move: Red"));
    assert!(out.contains("Legal moves (44)"));
    assert!(out.contains("h2e2"));
}

#[test]
fn bad_input_is_one_line_error_and_failure() {
    for args in [
        &["show", "4k4/9/9/9/9/9/9/9/9/4K4 w"][..],
        &["perft", "not a fen", "2"][..],
        &["show", "3k5/9/9/9/9/9/9/9/9/4K4 q"][..],
    ] {
        let (ok, out, err) = xqdb(args);
        assert!(!ok, "{args:?}");
        assert!(out.is_empty());
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.starts_with("error: "), "{err}");
    }
}

#[test]
fn count_one_material() {
    let (ok, out, _) = xqdb(&["count", "KRNKR"]);
    assert!(ok, "{out}");
    assert!(out.contains("placements:         53331696"), "{out}");
    assert!(out.contains("redundant indexes:  0"), "{out}");
    let (ok, _, err) = xqdb(&["count", "KRRRK"]);
    assert!(!ok);
    assert!(err.contains("3 rooks"), "{err}");
}

#[test]
fn gen_verify_probe_info_on_a_small_table() {
    let tmp = temp_dir("cli-tb");
    let dir = tmp.path();
    let d = dir.to_str().unwrap();
    let (ok, out, err) = xqdb(&["gen", "KKR", "--tables", d, "--threads", "2"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("KRK ") && out.contains("longest mate"),
        "{out}"
    );
    let (ok, out, _) = xqdb(&["gen", "KRK", "--tables", d]);
    assert!(ok && out.contains("present and valid, skipped"), "{out}");
    let (ok, out, _) = xqdb(&["verify", "KRK", "--tables", d]);
    assert!(ok && out.contains("0 mismatches"), "{out}");
    let (ok, out, _) = xqdb(&[
        "probe",
        "3k5/9/9/9/9/9/9/9/4R4/4K4 w",
        "--tables",
        d,
        "--line",
        "--no-color",
    ]);
    assert!(ok, "{out}");
    assert!(
        out.contains("Red to move: Red wins, mate in 1 ply"),
        "{out}"
    );
    assert!(out.contains("e1d1  Red wins: checkmate"), "{out}");
    assert!(out.contains("Line (1 ply): e1d1"), "{out}");
    let (ok, out, _) = xqdb(&["info", "KRK", "--tables", d]);
    assert!(
        ok && out.contains("every block of both files OK") && out.contains("DTM histogram"),
        "{out}"
    );
    // a missing table names the command that generates it
    let (ok, _, err) = xqdb(&["probe", "3k5/9/9/9/9/9/9/9/4N4/4K4 w", "--tables", d]);
    assert!(!ok && err.contains("xqdb gen KNK"), "{err}");
    // a table whose values were tampered with fails verification
    let m: xqdb::index::Material = "KRK".parse().unwrap();
    let mut t = xqdb::tablebase::pipeline::load_table(dir, &m).unwrap();
    let i = t.values[0].iter().position(|&v| v == 3).unwrap();
    t.values[0][i] = 5;
    xqdb::tablebase::file::write_files(dir, &m, &t.values).unwrap();
    let (ok, out, err) = xqdb(&["verify", "KRK", "--tables", d]);
    assert!(!ok, "{out}");
    assert!(out.contains("mismatch: stored 5 derived 3"), "{out}");
    assert!(err.contains("disagree"), "{err}");
}
