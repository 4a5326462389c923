//! The engine: protocol transcripts against the binary, book and tablebase use, mates.

mod common;
use common::{shared, temp_dir};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;
use xqdb::board::{Move, Position};
use xqdb::engine::tt::Tt;
use xqdb::engine::{Limits, Searcher};

struct Eng {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Eng {
    fn start(dir: &Path) -> Eng {
        let mut child = Command::new(common::bin())
            .arg("engine")
            .env("XQDB_HOME", dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Eng {
            child,
            stdin: Some(stdin),
            lines,
        }
    }

    fn send(&mut self, s: &str) {
        let i = self.stdin.as_mut().unwrap();
        writeln!(i, "{s}").unwrap();
        i.flush().unwrap();
    }

    fn send_bytes(&mut self, b: &[u8]) {
        let i = self.stdin.as_mut().unwrap();
        i.write_all(b).unwrap();
        i.flush().unwrap();
    }

    /// Every line left once the engine has exited (after `quit`), and its exit status.
    fn finish(mut self) -> (Vec<String>, bool) {
        let ok = self.child.wait().unwrap().success();
        let rest = self.lines.iter().collect();
        (rest, ok)
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut got = Vec::new();
        loop {
            let l = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no '{prefix}' after {got:?}"));
            let done = l.starts_with(prefix);
            got.push(l);
            if done {
                return got;
            }
        }
    }

    fn bestmove(&mut self) -> String {
        let l = self.until("bestmove");
        l.last()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string()
    }
}

impl Drop for Eng {
    fn drop(&mut self) {
        // a failed test must not leave an engine running
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn uci_transcript() {
    let dir = temp_dir("engine-uci");
    let mut e = Eng::start(dir.path());
    e.send("uci");
    let hello = e.until("uciok");
    assert!(hello.iter().any(|l| l.starts_with("id name xqdb")));
    assert!(hello
        .iter()
        .any(|l| l.contains("option name Hash type spin")));
    e.send("setoption name Hash value 16");
    e.send("isready");
    e.until("readyok");
    e.send("position startpos moves h2e2 h9g7");
    e.send("go depth 5");
    let lines = e.until("bestmove");
    assert!(lines
        .iter()
        .any(|l| l.starts_with("info depth 5") && l.contains(" pv ")));
    let m: Move = lines
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let pos = Position::startpos()
        .after("h2e2".parse().unwrap())
        .after("h9g7".parse().unwrap());
    assert!(pos.is_legal(m));
    e.send("go wtime 3000 btime 3000 winc 100 binc 100");
    let m: Move = e.bestmove().parse().unwrap();
    assert!(pos.is_legal(m));
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.send("stop");
    let m: Move = e.bestmove().parse().unwrap();
    assert!(pos.is_legal(m));
    e.send("frobnicate");
    e.until("info string unknown command");
    e.send("quit");
    assert!(e.child.wait().unwrap().success());
}

/// Regression: `position`, `setoption`, `ucinewgame` or a second `go` during a search used
/// to hang the engine for good; each must stop the search first (its `bestmove` comes out),
/// `isready` must be answered during a search, and every `go` gets exactly one `bestmove`.
#[test]
fn commands_during_a_search_stop_it_first_and_every_go_gets_one_bestmove() {
    let dir = temp_dir("engine-busy");
    let mut e = Eng::start(dir.path());
    e.send("uci");
    e.until("uciok");
    e.send("setoption name UseBook value false");
    e.send("position startpos");
    let mut gos = 0;
    let mut seen = Vec::new();
    for interrupt in [
        "position startpos moves h2e2",
        "setoption name Hash value 8",
        "ucinewgame",
        "banmoves a0a1",
        "go depth 2",
    ] {
        e.send("go infinite");
        gos += 1;
        std::thread::sleep(Duration::from_millis(150));
        e.send("isready");
        let got = e.until("readyok");
        assert!(
            !got.iter().any(|l| l.starts_with("bestmove")),
            "an infinite search answered before stop: {got:?}"
        );
        seen.extend(got);
        e.send(interrupt);
        if interrupt.starts_with("go") {
            gos += 1;
        }
        e.send("isready");
        seen.extend(e.until("readyok"));
    }
    e.send("go infinite");
    gos += 1;
    std::thread::sleep(Duration::from_millis(100));
    e.send("stop");
    e.send("go infinite");
    gos += 1;
    std::thread::sleep(Duration::from_millis(100));
    e.send("quit");
    let (rest, ok) = e.finish();
    assert!(ok);
    seen.extend(rest);
    let bestmoves = seen.iter().filter(|l| l.starts_with("bestmove")).count();
    assert_eq!(bestmoves, gos, "{seen:?}");
}

/// Regression: end of input during a search ends the engine after its `bestmove`.
#[test]
fn end_of_input_during_a_search_ends_the_engine() {
    let dir = temp_dir("engine-eof");
    let mut e = Eng::start(dir.path());
    e.send("uci");
    e.send("setoption name UseBook value false");
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.stdin = None; // the end of the engine's input
    let (rest, ok) = e.finish();
    assert!(ok);
    assert_eq!(rest.iter().filter(|l| l.starts_with("bestmove")).count(), 1);
}

/// Regression: bad lines and bad values are answered with an `info string` and the engine
/// goes on (invalid UTF-8 used to end it silently, `setoption value 5 name Hash` to panic,
/// a rejected `position` to be searched as the previous one, bad values to pass silently).
#[test]
fn bad_lines_and_values_get_an_info_string_and_the_engine_goes_on() {
    let dir = temp_dir("engine-bad");
    let mut e = Eng::start(dir.path());
    e.send("uci");
    e.until("uciok");
    let info = |e: &mut Eng, cmd: &[u8], want: &str| {
        e.send_bytes(cmd);
        e.send_bytes(b"\n");
        e.send("isready");
        let got = e.until("readyok");
        assert!(
            got.iter()
                .any(|l| l.starts_with("info string") && l.contains(want)),
            "{:?}: no info string with '{want}' in {got:?}",
            String::from_utf8_lossy(cmd)
        );
    };
    info(&mut e, b"\xff\xfe position", "not valid UTF-8");
    // tokens out of order used to panic the parser: now they set the option
    e.send("setoption value 5 name Hash");
    e.send("isready");
    assert_eq!(e.until("readyok"), ["readyok"]);
    info(&mut e, b"setoption name Hash value abc", "not a size");
    info(&mut e, b"setoption name Hash value 1000000", "out of range");
    info(
        &mut e,
        b"setoption name UseBook value maybe",
        "not true or false",
    );
    info(
        &mut e,
        b"setoption name BookFile value /no/such/book.xqb",
        "/no/such/book.xqb",
    );
    info(
        &mut e,
        b"setoption name TablebasePath value /no/such/dir",
        "no such folder",
    );
    info(&mut e, b"setoption name Threads value 65", "out of range");
    info(
        &mut e,
        b"setoption name Threads value two",
        "not a thread count",
    );
    info(&mut e, b"setoption value true", "without 'name'");
    info(&mut e, b"banmoves z9z9", "not a move");
    // a rejected position is never searched as the previous one
    e.send("position startpos moves h2e2");
    info(&mut e, b"position fen rnbakabnr/9/1c5c1 w", "bad position");
    e.send("go depth 1");
    let got = e.until("bestmove");
    assert_eq!(got.last().unwrap(), "bestmove (none)", "{got:?}");
    assert!(
        got.iter().any(|l| l.contains("no valid position")),
        "{got:?}"
    );
    info(&mut e, b"position startpos moves h2e2 h2e2", "bad position");
    e.send("go depth 1");
    assert_eq!(e.bestmove(), "(none)");
    e.send("position startpos");
    e.send("go depth 1");
    let m: Move = e.bestmove().parse().unwrap();
    assert!(Position::startpos().is_legal(m));
    // limits out of range are clamped and said, and every go still ends by itself
    for (go, want) in [
        ("go movetime -5", "negative"),
        ("go depth -1", "negative"),
        ("go depth 0", "too small"),
        ("go wtime -100 btime -100", "negative"),
        ("go movetime abc", "not a number"),
        ("go nodes 1e3", "not a whole number"),
    ] {
        e.send(go);
        let got = e.until("bestmove");
        assert!(
            got.iter()
                .any(|l| l.starts_with("info string") && l.contains(want)),
            "{go}: {got:?}"
        );
        let m: Move = got.last().unwrap()[9..].parse().unwrap();
        assert!(Position::startpos().is_legal(m), "{go}: {m}");
    }
    // a clock too large to parse used to mean no limit at all; it is clamped and said
    e.send("go wtime 99999999999999999999999 btime 1");
    e.send("isready");
    let got = e.until("readyok");
    assert!(got.iter().any(|l| l.contains("too large")), "{got:?}");
    e.send("stop");
    e.bestmove();
    e.send("quit");
    let (_, ok) = e.finish();
    assert!(ok);
}

#[test]
fn ucci_transcript_with_banmoves() {
    let dir = temp_dir("engine-ucci");
    let mut e = Eng::start(dir.path());
    e.send("ucci");
    let hello = e.until("ucciok");
    assert!(hello
        .iter()
        .any(|l| l.starts_with("option hashsize type spin")));
    e.send("setoption usebook false");
    e.send("setoption usemillisec false");
    e.send("position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 moves h2e2");
    e.send("go depth 4");
    let first = e.bestmove();
    e.send(&format!("banmoves {first}"));
    e.send("go depth 4");
    let second = e.bestmove();
    assert_ne!(first, second);
    // a clock move (1 s in seconds mode): a legal move, and still not the banned one
    e.send("go time 1 increment 0");
    let timed = e.bestmove();
    let pos = Position::startpos().after("h2e2".parse().unwrap());
    assert!(pos.is_legal(timed.parse().unwrap()), "{timed}");
    assert_ne!(timed, first);
    e.send("isready");
    e.until("readyok");
    // a rejected position gets nobestmove, with the reason
    e.send("position fen 9/9/9 w");
    e.send("go depth 2");
    let got = e.until("nobestmove");
    assert!(
        got.iter().any(|l| l.contains("no valid position")),
        "{got:?}"
    );
    e.send("quit");
    e.until("bye");
    assert!(e.child.wait().unwrap().success());
}

#[test]
fn the_first_moves_come_from_the_default_book() {
    let dir = temp_dir("engine-book");
    xqdb::book::build_default(&dir.path().join("books/default.xqb")).unwrap();
    let mut e = Eng::start(dir.path());
    e.send("uci");
    e.until("uciok");
    e.send("position startpos");
    e.send("go depth 6");
    let lines = e.until("bestmove");
    assert!(
        lines.iter().any(|l| l.starts_with("info string book move")),
        "{lines:?}"
    );
    e.send("quit");
    let _ = e.child.wait();
}

/// Regression: a corrupt book (or a missing table folder) silently became "no book"; the
/// engine says so at its first search, once, and plays on.
#[test]
fn a_corrupt_default_book_is_reported_once() {
    let dir = temp_dir("engine-badbook");
    std::fs::create_dir_all(dir.path().join("books")).unwrap();
    std::fs::write(
        dir.path().join("books/default.xqb"),
        b"XQDBBOOK but not a book",
    )
    .unwrap();
    let mut e = Eng::start(dir.path());
    e.send("uci");
    e.until("uciok");
    e.send("position startpos");
    e.send("go depth 2");
    let first = e.until("bestmove");
    assert!(
        first
            .iter()
            .any(|l| l.starts_with("info string") && l.contains("corrupt book")),
        "{first:?}"
    );
    assert!(
        first
            .iter()
            .any(|l| l.starts_with("info string") && l.contains("no tablebase folder")),
        "{first:?}"
    );
    e.send("go depth 2");
    let second = e.until("bestmove");
    assert!(!second.iter().any(|l| l.contains("book")), "{second:?}");
    e.send("quit");
    let (_, ok) = e.finish();
    assert!(ok);
}

/// Search `fen`; when the engine claims a mate for the side to move, check it: its principal
/// variation ends in a position without a legal move after exactly the claimed plies.
fn claimed_mate(fen: &str, nodes: u64) -> Option<i32> {
    let pos = Position::from_fen(fen).unwrap();
    let tt = Tt::new(16);
    let stop = AtomicBool::new(false);
    let limits = Limits {
        depth: Some(14),
        nodes: Some(nodes),
        ..Limits::default()
    };
    let mut s = Searcher::new(&pos, &[], &tt, None, &stop, limits, Vec::new());
    let (_, info) = s.run(|_| {});
    let info = info?;
    let moves = info.score.mate_moves().filter(|&m| m > 0)?;
    let mut p = pos.clone();
    for &m in &info.pv {
        assert!(p.is_legal(m), "{fen}: illegal PV move {m}");
        p.play(m);
    }
    assert_eq!(
        info.pv.len() as i32,
        2 * moves - 1,
        "{fen}: mate {moves} claimed, PV {:?}",
        info.pv
    );
    assert!(
        !p.has_legal_move(),
        "{fen}: the PV of mate {moves} does not end in mate"
    );
    Some(moves)
}

#[test]
#[cfg_attr(xqdb_no_shared, ignore = "needs ../shared")]
fn mates_claimed_on_ccpd_mates_are_real() {
    let p = shared("ccpd/ccpd-mates.pgn");
    let mut puzzles = Vec::new();
    xqdb::records::collection::read_collection(
        &[p],
        |g, _| puzzles.push((g.start.to_fen(), g.moves.len())),
        |_| {},
    )
    .unwrap();
    let budget: u64 = std::env::var("XQDB_MATE_NODES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300_000);
    let found = puzzles
        .iter()
        .filter(|(fen, _)| claimed_mate(fen, budget).is_some())
        .count();
    // A measurement (not every record is a forced mate: in some the defender can take the
    // attacking piece); the floor only guards against regressions.
    println!(
        "forced mates found with {budget} nodes: {found} of {}",
        puzzles.len()
    );
    // 5 until s23; 4 since s25 (h19e: the table-refined static evaluation prunes one of them
    // out of reach at 300,000 and at 400,000 nodes; it measured +16 and +28 in self-play)
    assert!(found >= 4, "{found}");
}

/// The engine (searching to `depth`) plays the side to move from `start`, the tables' best
/// defence answers, until mate or one ply past `limit`; returns the plies and the end.
fn play_against_tables(
    engine: &mut xqdb::engine::Engine,
    tb: &xqdb::tablebase::Tablebases,
    start: &Position,
    depth: i32,
    limit: u32,
) -> (u32, Position) {
    let mut pos = start.clone();
    let mut plies = 0;
    while pos.has_legal_move() && plies <= limit {
        let m = if plies % 2 == 0 {
            engine.set_position(&pos.to_fen(), &[]).unwrap();
            let stop = AtomicBool::new(false);
            let clock = xqdb::engine::time::Clock {
                depth: Some(depth),
                ..Default::default()
            };
            engine.think(&clock, &stop, |_| {}).best.unwrap()
        } else {
            tb.best_moves(&pos).unwrap()[0].mv
        };
        pos.play(m);
        plies += 1;
    }
    (plies, pos)
}

#[test]
fn with_tables_the_engine_mates_within_the_dtm_against_best_defence() {
    use xqdb::tablebase::pipeline::generate_set;
    use xqdb::tablebase::{Tablebases, Wdl};
    let dir = temp_dir("engine-tb");
    let tables = dir.path().join("tables");
    generate_set(
        &["KRKAA".parse().unwrap(), "KNKA".parse().unwrap()],
        &tables,
        xqdb::tablebase::generate::GenOptions::default(),
        xqdb::tablebase::pipeline::Existing::Keep,
        |_| {},
    )
    .unwrap();
    let tb = Tablebases::open(&tables);
    let mut engine = xqdb::engine::Engine::new();
    engine.set_tables(tables.clone()).unwrap();
    engine.use_book = false;
    for fen in [
        "3k5/4a4/3a5/9/9/9/9/9/4R4/4K4 w",
        "4k4/4a4/9/9/9/9/9/4N4/9/3K5 w",
    ] {
        let pos = Position::from_fen(fen).unwrap();
        let (w, d) = tb.probe_dtm(&pos).unwrap();
        assert_eq!(w, Wdl::Win, "{fen}");
        let d = d.unwrap();
        let (plies, end) = play_against_tables(&mut engine, &tb, &pos, 4, d);
        assert!(!end.has_legal_move(), "{fen}: no mate within {d} plies");
        assert_eq!(plies, d, "{fen}");
    }
}

/// Measurement (not part of the default run): from won positions of KRKAA, KNKA and KRNKR
/// (tables from $XQDB_BENCH_TABLES, else target/bench-tables, generated there if missing),
/// the engine plays the winning side at depth 6 against the tables' best defence, with and
/// without tables, and we count the games not mated within the distance to mate.
#[test]
#[ignore = "measurement: several minutes"]
fn measure_tablebase_endings_with_and_without_tables() {
    use xqdb::index::PlacementIndex;
    use xqdb::tablebase::pipeline::generate_set;
    use xqdb::tablebase::{Tablebases, Wdl};
    let dir = std::env::var_os("XQDB_BENCH_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/bench-tables"));
    let mats = ["KRKAA", "KNKA", "KRNKR"];
    generate_set(
        &mats.map(|m| m.parse().unwrap()),
        &dir,
        xqdb::tablebase::generate::GenOptions::default(),
        xqdb::tablebase::pipeline::Existing::Keep,
        |_| {},
    )
    .unwrap();
    let tb = Tablebases::open(&dir);
    for name in mats {
        let idx = PlacementIndex::new(name.parse().unwrap()).unwrap();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut samples = Vec::new();
        while samples.len() < 20 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let pieces = idx.unrank_pieces(x % idx.size()).unwrap();
            let Ok(pos) = Position::from_pieces(&pieces, xqdb::board::Color::Red) else {
                continue;
            };
            if pos.check_placement_legal().is_ok() && tb.probe_wdl(&pos).ok() == Some(Wdl::Win) {
                samples.push(pos);
            }
        }
        for use_tables in [true, false] {
            let mut fails = 0;
            for start in &samples {
                let mut engine = xqdb::engine::Engine::new();
                engine.use_book = false;
                engine.use_tb = use_tables;
                engine.set_tables(dir.clone()).unwrap();
                let d = tb.probe_dtm(start).unwrap().1.unwrap();
                let (plies, end) = play_against_tables(&mut engine, &tb, start, 6, d);
                if end.has_legal_move() || plies > d {
                    fails += 1;
                }
            }
            println!(
                "{name}: {} tables: {fails} of {} won positions not mated within the DTM",
                if use_tables { "with" } else { "without" },
                samples.len()
            );
        }
    }
}
