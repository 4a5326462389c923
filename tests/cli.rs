//! The binary: exit codes and one-line errors.

mod common;
use common::temp_dir;
use std::process::Command;

fn xqdb(args: &[&str]) -> (bool, String, String) {
    xqdb_env(args, &[])
}

fn xqdb_env(args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let out = Command::new(common::bin())
        .args(args)
        .envs(env.iter().copied())
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
    // one line per table and a total
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with("KK ") && lines[1].starts_with("KRK "),
        "{out}"
    );
    assert!(lines[2].starts_with("2 tables: 2 generated"), "{out}");
    assert!(!out.contains("bytes/position"), "{out}");
    let (ok, out, _) = xqdb(&["gen", "KRK", "--tables", d, "--verbose"]);
    assert!(
        ok && out.contains("KRK        present, every block checked"),
        "{out}"
    );
    let (ok, out, _) = xqdb(&["gen", "KRK", "--tables", d, "--quiet"]);
    assert!(ok && out.is_empty(), "{out}");
    let (ok, out, _) = xqdb(&["verify", "KRK", "--tables", d]);
    assert!(ok && out.contains("0 mismatches"), "{out}");
    // verified tables are skipped on request, each table once
    let (ok, out, _) = xqdb(&[
        "verify",
        "KRK",
        "KK",
        "KRK",
        "--skip-verified",
        "--tables",
        d,
    ]);
    assert!(ok, "{out}");
    assert!(out.starts_with("KK: files checked"), "{out}");
    assert!(out.contains("1 tables skipped: verified before"), "{out}");
    assert_eq!(out.lines().count(), 2, "{out}");
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
    let mut t = xqdb::tablebase::pipeline::load_table(dir, &m, false).unwrap();
    let i = t.values[0].iter().position(|&v| v == 3).unwrap();
    t.values[0][i] = 5;
    xqdb::tablebase::file::write_files(dir, &t).unwrap();
    let (ok, out, err) = xqdb(&["verify", "KRK", "--tables", d]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("mismatch (distance): stored 5 derived 3"),
        "{out}"
    );
    assert!(err.contains("disagree"), "{err}");
}

/// Regression: `analyse --hash 1000000` aborted on allocation (exit 134) and
/// `gen --threads 10000` spent 27 s starting threads; both are refused at once now.
#[test]
fn sizes_beyond_reason_are_refused_with_a_clear_error() {
    for args in [
        &["analyse", "startpos", "--hash", "1000000"][..],
        &[
            "gen",
            "KRK",
            "--threads",
            "10000",
            "--tables",
            "/nonexistent",
        ][..],
        &["verify", "KRK", "--threads", "0"][..],
        &[
            "book",
            "build",
            "x.pgn",
            "-o",
            "y.xqb",
            "--threads",
            "100000",
        ][..],
        &["perft", "startpos", "40"][..],
    ] {
        let start = std::time::Instant::now();
        let (ok, out, err) = xqdb(args);
        assert!(!ok, "{args:?}: {out}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(start.elapsed().as_secs() < 10, "{args:?}");
    }
}

/// Regression: colours were written to pipes and files; they are for terminals only, and
/// never with NO_COLOR or --no-color.
#[test]
fn no_colours_off_a_terminal() {
    for env in [&[][..], &[("NO_COLOR", "1")][..]] {
        let (ok, out, _) = xqdb_env(&["show", "startpos"], env);
        assert!(ok);
        assert!(!out.contains('\x1b'), "{out}");
        assert!(out.contains('帥'));
    }
    let (ok, out, _) = xqdb(&["--no-color", "show", "startpos"]);
    assert!(ok && !out.contains('\x1b'));
}

/// Regression: `probe startpos` suggested generating a 30-piece table.
#[test]
fn probing_a_full_board_says_no_table_covers_it() {
    let (ok, _, err) = xqdb(&["probe", "startpos", "--tables", "/nonexistent"]);
    assert!(!ok);
    assert!(!err.contains("xqdb gen"), "{err}");
    assert!(
        err.contains("30 pieces") && err.contains("analyse"),
        "{err}"
    );
}

/// Regression: `analyse` searched where the engine consults its tables (on the README's
/// KRNKR position it played a drawing move with +199.99). It decides like the engine now.
#[test]
fn analyse_consults_the_tables_and_the_book() {
    let dir = std::env::temp_dir().join(format!("xqdb-cli-analyse-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let (ok, _, err) = xqdb(&["gen", "KRK", "--quiet", "--tables", d]);
    assert!(ok, "{err}");
    let (ok, out, err) = xqdb(&[
        "analyse",
        "3k5/9/9/9/9/9/9/9/4R4/4K4 w",
        "--tables",
        d,
        "--no-book",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("tablebase move e1d1: wins, mate in 1 ply"),
        "{out}"
    );
    assert!(out.contains("best move e1d1"), "{out}");
    // the book
    let book = dir.join("default.xqb");
    xqdb::book::build_default(&book).unwrap();
    let (ok, out, err) = xqdb(&[
        "analyse",
        "startpos",
        "--book",
        book.to_str().unwrap(),
        "--no-tables",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("book move"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Regression: `games export in.pgn -o in.pgn` emptied its input and `book build x.pgn
/// -o x.pgn` replaced it. An output that is an input is refused, and the input is intact.
#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = std::env::temp_dir().join(format!("xqdb-cli-overwrite-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("in.pgn");
    let text = xqdb::book::DEFAULT_OPENINGS;
    std::fs::write(&pgn, text).unwrap();
    let p = pgn.to_str().unwrap();
    let same = dir.join(".").join("in.pgn");
    let same = same.to_str().unwrap();
    for args in [
        &["games", "export", p, "-o", same][..],
        &["book", "build", p, "-o", p][..],
        &["games", "export", dir.to_str().unwrap(), "-o", p][..],
    ] {
        let (ok, _, err) = xqdb(args);
        assert!(!ok, "{args:?}");
        assert!(err.contains("the output is also an input"), "{err}");
        assert_eq!(std::fs::read_to_string(&pgn).unwrap(), text);
    }
    let out = dir.join("out.pgn");
    let (ok, _, err) = xqdb(&["games", "export", p, "-o", out.to_str().unwrap()]);
    assert!(ok, "{err}");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.iter().all(|n| !n.contains("tmp")), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
