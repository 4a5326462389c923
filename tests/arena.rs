//! Engine matches: self-play, determinism, tablebase adjudication, faulty engines.

mod common;
use common::temp_dir;
use std::path::Path;
use xqdb::arena::process::EngineSpec;
use xqdb::arena::{run_match, MatchConfig, MatchGame, Openings, TimeControl};
use xqdb::records::GameResult;

fn xqdb(home: &Path) -> EngineSpec {
    // the engine reads books/ and tables/ under XQDB_HOME; run it through env for that
    EngineSpec {
        cmd: "env".into(),
        args: vec![
            format!("XQDB_HOME={}", home.display()),
            env!("CARGO_BIN_EXE_xqdb").into(),
            "engine".into(),
        ],
        options: Vec::new(),
    }
}

fn config(
    engines: [EngineSpec; 2],
    tc: TimeControl,
    games: usize,
    openings: Openings,
) -> MatchConfig {
    MatchConfig {
        engines,
        tc,
        games,
        openings,
        concurrency: 1,
        seed: 7,
        tables: None,
        max_plies: 200,
    }
}

#[test]
fn self_play_at_fixed_nodes_is_clean_and_the_same_seed_gives_the_same_games() {
    let dir = temp_dir("arena-self");
    let home = dir.path();
    xqdb::book::build_default(&home.join("books/default.xqb")).unwrap();
    let openings = Openings::Book {
        path: home.join("books/default.xqb"),
        plies: 4,
    };
    let mut cfg = config(
        [xqdb(home), xqdb(home)],
        TimeControl::Nodes(1500),
        4,
        openings,
    );
    cfg.engines[0]
        .options
        .push(("UseBook".into(), "false".into()));
    cfg.engines[1]
        .options
        .push(("UseBook".into(), "false".into()));
    let a = run_match(&cfg, |_, _| {}).unwrap();
    cfg.concurrency = 2;
    let b = run_match(&cfg, |_, _| {}).unwrap();
    assert_eq!(a.len(), 4);
    for (x, y) in a.iter().zip(&b) {
        assert!(x.result.is_some());
        let ok = [
            "checkmate",
            "no legal move",
            "repetition",
            "perpetual check",
            "60-move rule",
            "move limit",
        ];
        assert!(ok.contains(&x.termination.as_str()), "{}", x.termination);
        assert_eq!(x.moves, y.moves, "game {}", x.number);
        assert_eq!(x.result, y.result);
        // the PGN reads back to the same moves
        let text = x.pgn();
        let mut r = xqdb::records::PgnReader::new(text.as_bytes());
        let raw = r.next_game().unwrap().unwrap();
        assert_eq!(
            xqdb::records::parse_game(&raw, "match").unwrap().moves,
            x.moves
        );
    }
    // the pairs share their opening with colours swapped
    assert_eq!(
        a[0].moves[..a[0].opening_plies],
        a[1].moves[..a[1].opening_plies]
    );
    assert_ne!(a[0].red, a[1].red);
}

#[test]
fn games_that_reach_a_tablebase_material_end_at_once_with_its_result() {
    let dir = temp_dir("arena-tb");
    let home = dir.path();
    let tables = home.join("tables");
    xqdb::tablebase::pipeline::generate_set(
        &["KRK".parse().unwrap()],
        &tables,
        xqdb::tablebase::generate::GenOptions::default(),
        xqdb::tablebase::pipeline::Existing::Keep,
        |_| {},
    )
    .unwrap();
    let mut cfg = config(
        [xqdb(home), xqdb(home)],
        TimeControl::Nodes(1000),
        2,
        Openings::Fens(vec!["3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1".into()]),
    );
    cfg.tables = Some(tables);
    for g in run_match(&cfg, |_, _| {}).unwrap() {
        assert_eq!(g.termination, "tablebase");
        assert_eq!(g.result, Some(GameResult::RedWins));
        assert!(g.moves.is_empty());
    }
}

fn fake(dir: &Path, name: &str, on_go: &str) -> EngineSpec {
    let path = dir.join(name);
    let script = format!(
        "#!/bin/bash\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo 'id name {name}'; echo uciok;;\n    isready) echo readyok;;\n    go*) {on_go};;\n    quit) exit 0;;\n  esac\ndone\n"
    );
    std::fs::write(&path, script).unwrap();
    EngineSpec {
        cmd: "bash".into(),
        args: vec![path.display().to_string()],
        options: Vec::new(),
    }
}

fn fault_games(spec: EngineSpec, home: &Path) -> Vec<MatchGame> {
    let cfg = config(
        [spec, xqdb(home)],
        TimeControl::MoveTime(100),
        2,
        Openings::Start,
    );
    run_match(&cfg, |_, _| {}).unwrap()
}

#[test]
fn illegal_moves_crashes_and_hangs_lose_and_the_match_goes_on() {
    let dir = temp_dir("arena-faults");
    let home = dir.path();
    for (name, on_go, reason) in [
        ("illegal", "echo 'bestmove e0e2'", "illegal move"),
        ("crash", "exit 3", "crashed"),
        ("hang", ":", "hung"),
    ] {
        let games = fault_games(fake(home, name, on_go), home);
        assert_eq!(games.len(), 2, "{name}");
        for g in &games {
            assert_eq!(g.score0(), 0.0, "{name}: {}", g.termination);
            assert!(g.termination.contains(reason), "{name}: {}", g.termination);
        }
    }
}

/// Regression: a match against a missing engine "succeeded" (every game a forfeit, exit 0),
/// a corrupt book silently became no book and a bad FEN the start position.
#[test]
fn a_match_that_cannot_be_played_is_an_error_before_any_game() {
    let dir = temp_dir("arena-refuse");
    let home = dir.path().to_path_buf();
    let missing = EngineSpec {
        cmd: "/no/such/engine".into(),
        args: Vec::new(),
        options: Vec::new(),
    };
    let cfg = config(
        [xqdb(&home), missing],
        TimeControl::Nodes(100),
        2,
        Openings::Start,
    );
    let err = run_match(&cfg, |_, _| panic!("no game may be played")).unwrap_err();
    assert!(
        err.to_string().contains("engine 2 (/no/such/engine)"),
        "{err}"
    );
    // a program that ends without a handshake
    let mute = EngineSpec {
        cmd: "true".into(),
        args: Vec::new(),
        options: Vec::new(),
    };
    let cfg = config(
        [mute, xqdb(&home)],
        TimeControl::Nodes(100),
        2,
        Openings::Start,
    );
    let err = run_match(&cfg, |_, _| {}).unwrap_err();
    assert!(err.to_string().contains("engine 1"), "{err}");
    // a corrupt book
    let book = home.join("bad.xqb");
    std::fs::write(
        &book,
        b"XQDBBOOK not really a book at all, but long enough to read its header....",
    )
    .unwrap();
    let cfg = config(
        [xqdb(&home), xqdb(&home)],
        TimeControl::Nodes(100),
        2,
        Openings::Book {
            path: book,
            plies: 4,
        },
    );
    let err = run_match(&cfg, |_, _| {}).unwrap_err();
    assert!(err.to_string().contains("corrupt book"), "{err}");
    // a bad FEN among the openings
    let cfg = config(
        [xqdb(&home), xqdb(&home)],
        TimeControl::Nodes(100),
        2,
        Openings::Fens(vec![
            "3k5/9/9/9/9/9/9/9/9/4K3R w".into(),
            "3k5/9/9 w".into(),
        ]),
    );
    let err = run_match(&cfg, |_, _| {}).unwrap_err();
    assert!(err.to_string().contains("opening 2"), "{err}");
    // and an openings file: the line is named
    let f = home.join("openings.txt");
    std::fs::write(
        &f,
        "# two openings\n3k5/9/9/9/9/9/9/9/9/4K3R w\n\nnot a fen\n",
    )
    .unwrap();
    let err = Openings::from_fen_file(&f).unwrap_err().to_string();
    assert!(err.contains("line 4") && err.contains("not a fen"), "{err}");
}

/// The binary: a match against a missing engine exits non-zero with one clear line.
#[test]
fn the_match_command_refuses_a_missing_engine() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_xqdb"))
        .args([
            "match",
            "--engine",
            "/no/such/engine",
            "--engine",
            "/no/such/engine2",
            "--nodes",
            "100",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: ") && err.contains("/no/such/engine"),
        "{err}"
    );
}

#[test]
fn elo_of_an_even_score_is_zero() {
    let (s, e, err) = xqdb::arena::elo(10, 10, 10);
    assert!((s - 0.5).abs() < 1e-9 && e.abs() < 1e-9 && err > 0.0);
    let (_, e, _) = xqdb::arena::elo(30, 0, 10);
    assert!((e - 191.0).abs() < 1.0, "{e}");
}
