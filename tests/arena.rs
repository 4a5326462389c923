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
        protocol: None,
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
        natural_limit: xqdb::arena::NATURAL_LIMIT,
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
            "natural limit",
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
        protocol: None,
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
        protocol: None,
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
        protocol: None,
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

/// A script engine that speaks only UCCI and exits when its first command is not `ucci`, as
/// the classic UCCI engines do; `on_go` answers `go`.
fn ucci_only(dir: &Path, name: &str, on_go: &str) -> EngineSpec {
    let path = dir.join(name);
    let script = format!(
        "#!/bin/bash\nread -r first\n[ \"$first\" = ucci ] || exit 1\necho 'id name {name}'\necho ucciok\nwhile read -r line; do\n  case \"$line\" in\n    isready) echo readyok;;\n    go*) {on_go};;\n    quit) exit 0;;\n  esac\ndone\n"
    );
    std::fs::write(&path, script).unwrap();
    EngineSpec {
        cmd: "bash".into(),
        args: vec![path.display().to_string()],
        options: Vec::new(),
        protocol: None,
    }
}

/// The xqdb engine behind a wrapper that exits unless its first command is `ucci` and adds
/// `draw` to every `bestmove` (an engine that offers, and accepts, a draw at every move).
fn drawish(dir: &Path, home: &Path, name: &str) -> EngineSpec {
    let path = dir.join(name);
    let script = format!(
        "#!/bin/bash\nread -r first\n[ \"$first\" = ucci ] || exit 1\n{{ echo ucci; cat; }} | XQDB_HOME='{}' '{}' engine | sed -u 's/^bestmove .*/& draw/'\n",
        home.display(),
        env!("CARGO_BIN_EXE_xqdb")
    );
    std::fs::write(&path, script).unwrap();
    EngineSpec {
        cmd: "bash".into(),
        args: vec![path.display().to_string()],
        options: Vec::new(),
        protocol: None,
    }
}

#[test]
fn ucci_engines_that_exit_on_uci_are_restarted_in_ucci_and_their_claims_recorded() {
    let dir = temp_dir("arena-ucci");
    let home = dir.path();
    // nobestmove with legal moves on the board, and resign: the game is lost
    for (name, on_go, reason) in [
        ("nomove", "echo nobestmove", "gave no move (nobestmove)"),
        ("resigner", "echo 'bestmove h2e2 resign'", "resigned"),
    ] {
        let games = fault_games(ucci_only(home, name, on_go), home);
        assert_eq!(games.len(), 2, "{name}");
        for g in &games {
            assert_eq!(g.score0(), 0.0, "{name}: {}", g.termination);
            assert_eq!(g.termination, format!("{name} {reason}"));
        }
    }
    // the protocol can also be given: then a UCI handshake is never tried
    let mut given = ucci_only(home, "given", "echo nobestmove");
    given.protocol = Some(xqdb::arena::process::Protocol::Ucci);
    let games = fault_games(given, home);
    assert!(games[0].termination.contains("nobestmove"), "{games:?}");
    // a draw offered with a move and accepted by the UCCI opponent with its answer
    let cfg = config(
        [drawish(home, home, "offer1"), drawish(home, home, "offer2")],
        TimeControl::Nodes(200),
        2,
        Openings::Start,
    );
    for g in run_match(&cfg, |_, _| {}).unwrap() {
        assert_eq!(g.termination, "draw by agreement");
        assert_eq!(g.result, Some(GameResult::Draw));
        assert_eq!(g.moves.len(), 1);
        let pgn = g.pgn();
        assert!(pgn.contains("offers a draw} {"), "{pgn}");
        assert!(pgn.contains("accepts the draw}"), "{pgn}");
        let mut r = xqdb::records::PgnReader::new(pgn.as_bytes());
        let raw = r.next_game().unwrap().unwrap();
        let parsed = xqdb::records::parse_game(&raw, "match").unwrap();
        assert_eq!(parsed.moves, g.moves);
    }
    // against a UCI opponent the offer is only recorded: the game goes on
    let mut cfg = config(
        [drawish(home, home, "offer3"), xqdb(home)],
        TimeControl::Nodes(200),
        2,
        Openings::Fens(vec!["3k5/9/9/9/9/9/9/9/9/4K4 w - - 116 1".into()]),
    );
    cfg.max_plies = 200;
    for g in run_match(&cfg, |_, _| {}).unwrap() {
        assert_eq!(g.termination, "natural limit", "{g:?}");
        assert_eq!(g.moves.len(), 4);
        let offers = g.notes.iter().filter(|(_, n)| n.contains("offers")).count();
        assert_eq!(offers, 2, "{:?}", g.notes);
    }
}

#[test]
fn the_natural_limit_is_an_option() {
    let dir = temp_dir("arena-natural");
    let home = dir.path();
    // two bare kings cannot capture: the game ends at the limit, counted from the FEN's clock
    // (they would repeat the position a third time after 8 plies)
    for (clock, limit, plies) in [(99, 100, 1), (99, 105, 6), (115, 120, 5), (115, 100, 0)] {
        let fen = format!("3k5/9/9/9/9/9/9/9/9/4K4 w - - {clock} 1");
        let mut cfg = config(
            [xqdb(home), xqdb(home)],
            TimeControl::Nodes(100),
            2,
            Openings::Fens(vec![fen]),
        );
        cfg.natural_limit = limit;
        for g in run_match(&cfg, |_, _| {}).unwrap() {
            assert_eq!(g.termination, "natural limit");
            assert_eq!(g.result, Some(GameResult::Draw));
            assert_eq!(g.moves.len(), plies, "limit {limit}");
        }
    }
}

/// The binary, which restores SIGPIPE's default action for its own output: an engine that
/// dies mid-game (or at the handshake) must not end the match by SIGPIPE (exit 141, no
/// PGN); the games are lost, the engine restarted and the PGN written.
#[test]
fn the_match_command_survives_engines_that_die() {
    let dir = temp_dir("arena-sigpipe");
    let home = dir.path();
    let exits = fake(home, "exits", "exit 0");
    let ucci = ucci_only(home, "ucconly", "echo nobestmove");
    let me = format!(
        "env XQDB_HOME={} {} engine",
        home.display(),
        env!("CARGO_BIN_EXE_xqdb")
    );
    for (spec, reason) in [(exits, "exits crashed"), (ucci, "ucconly gave no move")] {
        let pgn = home.join("out.pgn");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_xqdb"))
            .args(["match", "--engine", &spec.line(), "--engine", &me])
            .args(["--nodes", "100", "--games", "4", "--pgn"])
            .arg(&pgn)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{reason}: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&pgn).unwrap();
        assert_eq!(
            text.matches(&format!("[Termination \"{reason}")).count(),
            4,
            "{text}"
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("+0 =0 -4"));
    }
}

/// An openings file without a usable FEN is a clear error, not a panic.
#[test]
fn an_openings_file_without_a_fen_is_refused() {
    let dir = temp_dir("arena-noopen");
    let f = dir.path().join("empty.txt");
    std::fs::write(&f, "# nothing here\n\n   \n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_xqdb"))
        .args(["match", "--engine", "a", "--engine", "b", "--openings"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no FEN in the file"), "{err}");
    let err = run_match(
        &config(
            [xqdb(dir.path()), xqdb(dir.path())],
            TimeControl::Nodes(100),
            2,
            Openings::Fens(Vec::new()),
        ),
        |_, _| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("no opening FEN"), "{err}");
}

/// A 200-game match on the default book at 8 plies plays 100 different openings.
#[test]
fn a_200_game_match_on_the_default_book_repeats_no_opening() {
    let dir = temp_dir("arena-openings");
    let home = dir.path();
    let book = home.join("books/default.xqb");
    xqdb::book::build_default(&book).unwrap();
    let cfg = config(
        [xqdb(home), xqdb(home)],
        TimeControl::Nodes(100),
        200,
        Openings::Book {
            path: book,
            plies: 8,
        },
    );
    let list = xqdb::arena::pair_openings(&cfg).unwrap();
    assert_eq!(list.len(), 100);
    let distinct: std::collections::HashSet<_> = list.iter().map(|o| o.1.clone()).collect();
    assert_eq!(distinct.len(), 100);
    for (start, moves) in &list {
        assert_eq!(moves.len(), 8);
        let mut p = start.clone();
        for &m in moves {
            assert!(p.is_legal(m));
            p.play(m);
        }
    }
}

/// Without `--book` or `--openings` a match takes its openings from the default book under
/// $XQDB_HOME (what `xqdb setup` writes), and says so; without that book every game starts
/// from the initial position, and it says that too.
#[test]
fn a_match_without_book_uses_the_default_book_and_says_which_openings() {
    let dir = temp_dir("arena-default-book");
    let with = dir.path().join("with");
    let without = dir.path().join("without");
    std::fs::create_dir_all(with.join("books")).unwrap();
    std::fs::create_dir_all(&without).unwrap();
    xqdb::book::build_default(&with.join("books/default.xqb")).unwrap();
    for (home, says) in [
        (&with, "openings: 8 plies from the book"),
        (&without, "openings: every game from the initial position"),
    ] {
        let me = format!(
            "env XQDB_HOME={} {} engine",
            home.display(),
            env!("CARGO_BIN_EXE_xqdb")
        );
        let pgn = home.join("out.pgn");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_xqdb"))
            .env("XQDB_HOME", home)
            .args(["match", "--engine", &me, "--engine", &me])
            .args([
                "--nodes",
                "50",
                "--games",
                "2",
                "--max-plies",
                "20",
                "--pgn",
            ])
            .arg(&pgn)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(err.contains(says), "{err}");
        let text = std::fs::read_to_string(&pgn).unwrap();
        let tag = if home == &with { "8 plies" } else { "0 plies" };
        assert_eq!(
            text.matches(&format!("[Opening \"{tag}\"]")).count(),
            2,
            "{text}"
        );
    }
}
