//! Fuzzing every reader in the normal test run (proptest, a bounded number of cases; fewer
//! in debug builds, where overflow checks are on): table files, book files, XQF bytes, PGN
//! bytes, engine protocol lines, match-runner input files. (FENs: tests/fen_props.rs.)
//! Each target checks more than "no panic": what a reader accepts is consistent (a table
//! that reads is the table written; a book's moves are legal; a game's moves replay; the
//! protocol answers every `go` exactly once; openings parse).
//!
//! `PROPTEST_CASES` overrides the number of cases of every target.

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use xqdb::board::{Move, Position};
use xqdb::index::Material;
use xqdb::tablebase::file::{table_path, Metric, TableFile};

/// Cases per target: `base` in release builds, a quarter in debug builds.
fn cases(base: u32) -> u32 {
    if cfg!(debug_assertions) {
        (base / 4).max(8)
    } else {
        base
    }
}

fn config(base: u32) -> ProptestConfig {
    let mut c = ProptestConfig::with_cases(cases(base));
    c.max_shrink_iters = 200;
    c.failure_persistence = None;
    c
}

/// A folder for the files made once per run and shared by the cases: under Cargo's scratch
/// folder for integration tests (in `target/`), emptied first, so nothing piles up in the
/// system's temporary folder.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A folder for one case, removed with everything in it when dropped (a failed case too).
fn case_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("xqdb-fuzz-")
        .tempdir()
        .expect("a temporary folder")
}

/// Apply edits to bytes: overwrite, insert, delete, or cut the tail.
fn mutate(bytes: &mut Vec<u8>, edits: &[(usize, u8, u8)]) {
    for &(at, b, op) in edits {
        let i = at % (bytes.len() + 1);
        match op % 4 {
            0 if i < bytes.len() => bytes[i] = b,
            1 => bytes.insert(i, b),
            2 if i < bytes.len() => {
                bytes.remove(i);
            }
            3 => bytes.truncate(i.max(1)),
            _ => {}
        }
    }
}

fn edits() -> impl Strategy<Value = Vec<(usize, u8, u8)>> {
    prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..8)
}

// ---------------------------------------------------------------- table files

struct Tables {
    dir: PathBuf,
    /// (file bytes, decompressed content) per metric.
    files: Vec<(Metric, Vec<u8>, Vec<u8>)>,
}

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let dir = scratch("tables");
        let m: Material = "KRK".parse().unwrap();
        xqdb::tablebase::pipeline::generate_set(
            &[m],
            &dir,
            xqdb::tablebase::generate::GenOptions::default(),
            xqdb::tablebase::pipeline::Existing::Keep,
            |_| {},
        )
        .unwrap();
        let files = [Metric::Wdl, Metric::Dtm]
            .into_iter()
            .map(|metric| {
                let p = table_path(&dir, &m, metric);
                let content = TableFile::open(&p, None).unwrap().read_all().unwrap();
                (metric, std::fs::read(&p).unwrap(), content)
            })
            .collect();
        Tables { dir, files }
    })
}

fn write_temp(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = dir.join(format!("{n}-{name}"));
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Rewrite a table header's checksum (so that fields behind it are reached).
fn reseal_table(b: &mut [u8]) {
    if b.len() < 144 {
        return;
    }
    let blocks = u32::from_le_bytes(b[60..64].try_into().unwrap()) as usize;
    let dict = u32::from_le_bytes(b[64..68].try_into().unwrap()) as usize;
    let end = 144usize
        .saturating_add(blocks.saturating_add(1).saturating_mul(8))
        .saturating_add(dict)
        .min(b.len());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&b[..136]);
    crc.update(&b[144..end]);
    let c = crc.finalize();
    b[136..140].copy_from_slice(&c.to_le_bytes());
}

proptest! {
    #![proptest_config(config(1000))]

    /// A mutated table file is refused with an error, or reads as exactly the table written
    /// (the checksums leave no third way); probing through it never panics.
    #[test]
    fn table_files(which in 0usize..2, e in edits(), reseal in any::<bool>()) {
        let t = tables();
        let (metric, good, content) = &t.files[which];
        let mut bytes = good.clone();
        mutate(&mut bytes, &e);
        if reseal {
            reseal_table(&mut bytes);
        }
        let tmp = case_dir();
        let dir = tmp.path();
        let p = write_temp(dir, "KRK.bin", &bytes);
        if let Ok(f) = TableFile::open(&p, None) {
            if let Ok(all) = f.read_all() {
                prop_assert_eq!(&all, content, "a damaged file read as other values");
            }
        }
        // through the prober, under the table's own name
        let m: Material = "KRK".parse().unwrap();
        std::fs::copy(table_path(&t.dir, &m, Metric::Wdl), table_path(dir, &m, Metric::Wdl)).unwrap();
        std::fs::copy(table_path(&t.dir, &m, Metric::Dtm), table_path(dir, &m, Metric::Dtm)).unwrap();
        std::fs::write(table_path(dir, &m, *metric), &bytes).unwrap();
        let tb = xqdb::tablebase::Tablebases::open(dir);
        let good_tb = xqdb::tablebase::Tablebases::open(&t.dir);
        for fen in ["3k5/9/9/9/9/9/9/9/4R4/4K4 w", "3k5/9/9/9/9/9/9/4R4/9/4K4 b", "R2k5/9/9/9/9/9/9/9/9/5K3 b"] {
            let pos = Position::from_fen(fen).unwrap();
            if let Ok(v) = tb.probe_dtm(&pos) {
                prop_assert_eq!(v, good_tb.probe_dtm(&pos).unwrap());
            }
        }
    }

    /// Headers with any field values (checksum resealed) never panic or allocate for
    /// sizes the file does not have.
    #[test]
    fn table_headers(fields in prop::collection::vec((0usize..144, any::<u64>()), 1..6)) {
        let t = tables();
        let mut bytes = t.files[0].1.clone();
        for (at, v) in fields {
            let at = at.min(bytes.len() - 8);
            bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
        }
        reseal_table(&mut bytes);
        let tmp = case_dir();
        let dir = tmp.path();
        let p = write_temp(dir, "h.bin", &bytes);
        if let Ok(f) = TableFile::open(&p, None) {
            let _ = f.read_all();
        }
    }
}

// ---------------------------------------------------------------- book files

fn book_bytes() -> &'static Vec<u8> {
    static B: OnceLock<Vec<u8>> = OnceLock::new();
    B.get_or_init(|| {
        let p = scratch("book").join("default.xqb");
        xqdb::book::build_default(&p).unwrap();
        std::fs::read(&p).unwrap()
    })
}

fn reseal_book(b: &mut [u8]) {
    if b.len() < 64 {
        return;
    }
    let mut crc = crc32fast::Hasher::new();
    crc.update(&b[..56]);
    crc.update(&b[64..]);
    let c = crc.finalize();
    b[56..60].copy_from_slice(&c.to_le_bytes());
}

/// Positions of the default openings (where a book has moves).
fn opening_positions() -> &'static Vec<Position> {
    static P: OnceLock<Vec<Position>> = OnceLock::new();
    P.get_or_init(|| {
        let (games, _) = xqdb::book::games_from_text(xqdb::book::DEFAULT_OPENINGS, "o");
        let mut out = Vec::new();
        for g in games.iter().take(40) {
            let mut p = g.start.clone();
            for &m in g.moves.iter().take(8) {
                out.push(p.clone());
                p.play(m);
            }
        }
        out
    })
}

proptest! {
    #![proptest_config(config(1000))]

    /// A mutated book (checksum resealed or not) is refused with an error, or every move it
    /// gives is legal and picking never panics.
    #[test]
    fn book_files(e in edits(), reseal in any::<bool>(), seed in any::<u64>()) {
        let mut bytes = book_bytes().clone();
        mutate(&mut bytes, &e);
        if reseal {
            reseal_book(&mut bytes);
        }
        let tmp = case_dir();
        let dir = tmp.path();
        let p = write_temp(dir, "b.xqb", &bytes);
        if let Ok(book) = xqdb::book::Book::open(&p) {
            use rand::SeedableRng;
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            for pos in opening_positions() {
                for m in book.moves(pos) {
                    prop_assert!(pos.is_legal(m.mv));
                    prop_assert!(m.wins as u64 + m.draws as u64 + m.losses as u64 <= m.games as u64);
                }
                for mode in [xqdb::book::PickMode::Best, xqdb::book::PickMode::Weighted] {
                    if let Some(m) = book.pick(pos, &mut rng, mode) {
                        prop_assert!(pos.is_legal(m));
                    }
                }
            }
            let _ = book.entries().count();
        }
    }
}

// ---------------------------------------------------------------- XQF

/// A small valid XQF file (version 10, plain): the start position and `h2e2 h9g7`.
fn xqf_sample() -> Vec<u8> {
    let mut b = vec![0u8; 0x400];
    b[0..2].copy_from_slice(b"XQ");
    b[2] = 10;
    // pieces: file * 10 + rank, in the order R N B A K A B N R C C P P P P P
    let red = [
        0u8, 10, 20, 30, 40, 50, 60, 70, 80, 12, 72, 3, 23, 43, 63, 83,
    ];
    let black = [
        9u8, 19, 29, 39, 49, 59, 69, 79, 89, 17, 77, 6, 26, 46, 66, 86,
    ];
    b[0x10..0x20].copy_from_slice(&red);
    b[0x20..0x30].copy_from_slice(&black);
    let record = |b: &mut Vec<u8>, from: u8, to: u8, next: bool| {
        b.extend_from_slice(&[
            from.wrapping_add(0x18),
            to.wrapping_add(0x20),
            if next { 0xF0 } else { 0 },
            0,
        ]);
        b.extend_from_slice(&0u32.to_le_bytes()); // no comment
    };
    record(&mut b, 0, 0, true); // the root
    record(&mut b, 72, 42, true); // h2e2
    record(&mut b, 79, 67, false); // h9g7
    b
}

/// Replay a game: every main-line and variation move legal.
fn replays(g: &xqdb::records::Game) -> bool {
    fn line(start: &Position, moves: &[Move], vars: &[xqdb::records::Variation]) -> bool {
        let mut p = start.clone();
        for (i, &m) in moves.iter().enumerate() {
            for v in vars.iter().filter(|v| v.at == i) {
                if !line(&p, &v.moves, &v.variations) {
                    return false;
                }
            }
            if !p.is_legal(m) {
                return false;
            }
            p.play(m);
        }
        true
    }
    line(&g.start, &g.moves, &g.variations)
}

proptest! {
    #![proptest_config(config(5000))]

    /// XQF bytes: the sample mutated (any version byte, encrypted or not), or random bytes
    /// behind the signature: an error, or a game whose moves replay.
    #[test]
    fn xqf_bytes(e in edits(), version in 0u8..20, random in prop::collection::vec(any::<u8>(), 0..2000), which in 0usize..2) {
        let mut bytes = if which == 0 {
            let mut b = xqf_sample();
            b[2] = version;
            b
        } else {
            let mut b = b"XQ".to_vec();
            b.push(version);
            b.extend_from_slice(&random);
            b.resize(b.len().max(0x410), 0);
            b
        };
        mutate(&mut bytes, &e);
        if let Ok(g) = xqdb::records::xqf::parse_xqf(&bytes) {
            prop_assert!(replays(&g));
        }
    }
}

#[test]
fn the_xqf_sample_reads() {
    let g = xqdb::records::xqf::parse_xqf(&xqf_sample()).unwrap();
    let moves: Vec<String> = g.moves.iter().map(|m| m.to_string()).collect();
    assert_eq!(moves, ["h2e2", "h9g7"]);
}

// ---------------------------------------------------------------- PGN

/// Pieces PGN is made of, and pieces of junk.
const PGN_PARTS: [&str; 24] = [
    "[Event \"x\"]\n",
    "[FEN \"3k5/9/9/9/9/9/9/9/4R4/4K4 w\"]\n",
    "[Result \"1-0\"]\n",
    "\n",
    "1. ",
    "h2e2 ",
    "h9g7 ",
    "炮二平五 ",
    "马８进７ ",
    "C2.5 ",
    "H8+7 ",
    "{comment} ",
    "{",
    "}",
    "(",
    ")",
    "$1 ",
    "; rest\n",
    "1-0\n",
    "*\n",
    "\u{feff}",
    "[",
    "\"]\n",
    "e1d1 ",
];

fn pgn_input() -> impl Strategy<Value = Vec<u8>> {
    let part = prop_oneof![
        (0..PGN_PARTS.len()).prop_map(|i| PGN_PARTS[i].as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 1..12),
        (0..PGN_PARTS.len()).prop_map(|i| {
            // the same in GBK
            let (b, _, _) = encoding_rs::GB18030.encode(PGN_PARTS[i]);
            b.into_owned()
        }),
    ];
    prop::collection::vec(part, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(config(10000))]

    /// PGN bytes: the reader always makes progress and its games tile the input in order;
    /// every game read replays; every skipped range lies inside the input.
    #[test]
    fn pgn_bytes(bytes in pgn_input()) {
        let mut r = xqdb::records::PgnReader::new(bytes.as_slice());
        let mut at = 0u64;
        let mut n = 0;
        while let Some(raw) = r.next_game().unwrap() {
            n += 1;
            prop_assert!(n <= bytes.len() + 1, "no progress");
            prop_assert!(raw.offset >= at && raw.end() <= bytes.len() as u64, "{} {} {}", raw.offset, raw.len, at);
            // what lies between games is blank
            prop_assert!(bytes[at as usize..raw.offset as usize].iter().all(u8::is_ascii_whitespace));
            at = raw.end();
            match xqdb::records::pgn::parse_stretch(&raw, "fuzz") {
                Ok(xqdb::records::Parsed::Game(g, skipped)) => {
                    prop_assert!(replays(&g));
                    for s in skipped {
                        prop_assert!(s.offset >= raw.offset && s.offset + s.len <= raw.end());
                    }
                }
                Ok(xqdb::records::Parsed::Junk(s)) => {
                    prop_assert!(s.offset >= raw.offset && s.offset + s.len <= raw.end());
                }
                Err(e) => {
                    let (a, b) = e.bytes.unwrap();
                    prop_assert!(a == raw.offset && b == raw.end());
                }
            }
        }
        prop_assert!(bytes[at as usize..].iter().all(u8::is_ascii_whitespace));
    }
}

// ---------------------------------------------------------------- protocol

/// A shared output buffer for the protocol loop.
#[derive(Clone, Default)]
struct Sink(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const NUMBERS: [&str; 10] = [
    "0",
    "1",
    "3",
    "-5",
    "abc",
    "1e3",
    "99999999999999999999999",
    "18446744073709551615",
    "",
    "2.5",
];

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        (0..NUMBERS.len()).prop_map(|i| NUMBERS[i].to_string()),
        prop::sample::select(vec![
            "name",
            "value",
            "Hash",
            "UseBook",
            "BookFile",
            "Threads",
            "moves",
            "fen",
            "startpos",
            "h2e2",
            "z9z9",
            "true",
            "maybe",
            "depth",
            "nodes",
            "movetime",
            "wtime",
            "btime",
            "winc",
            "time",
            "infinite",
            "ponder",
            "/no/such/file",
        ])
        .prop_map(str::to_string),
        "[ -~]{0,6}",
    ]
}

fn command() -> impl Strategy<Value = Vec<u8>> {
    let head = prop::sample::select(vec![
        "uci",
        "ucci",
        "isready",
        "go",
        "go",
        "go depth",
        "go nodes",
        "go movetime",
        "stop",
        "position startpos moves",
        "position fen",
        "setoption name",
        "setoption",
        "ucinewgame",
        "banmoves",
        "probe",
        "ponderhit",
        "quit",
        "nonsense",
        "",
    ]);
    prop_oneof![
        8 => (head, prop::collection::vec(token(), 0..5)).prop_map(|(h, t)| {
            let mut s = h.to_string();
            for x in t {
                s.push(' ');
                s.push_str(&x);
            }
            s.push('\n');
            s.into_bytes()
        }),
        1 => prop::collection::vec(any::<u8>(), 0..20).prop_map(|mut v| {
            v.push(b'\n');
            v
        }),
    ]
}

proptest! {
    #![proptest_config(config(1000))]

    /// Protocol lines with random tokens (and random bytes): the loop ends (at `quit` or
    /// the end of input), never panics, and answers every `go` it reads exactly once.
    #[test]
    fn protocol_lines(cmds in prop::collection::vec(command(), 1..14)) {
        let mut input: Vec<u8> = b"setoption name Hash value 1\nsetoption name UseBook value false\n".to_vec();
        // nodes keep each search short whatever else the case sends
        let mut gos = 0;
        let mut quit = false;
        for c in &cmds {
            let mut c = c.clone();
            let text = String::from_utf8_lossy(&c).to_string();
            let first = text.split_whitespace().next().unwrap_or("");
            if std::str::from_utf8(&c).is_ok() && !c.contains(&b'\r') && c.iter().filter(|&&b| b == b'\n').count() <= 1 {
                if first == "go" && !quit {
                    gos += 1;
                    if !text.contains("infinite") {
                        c.pop();
                        c.extend_from_slice(b" nodes 2000\n");
                    }
                }
                if first == "quit" {
                    quit = true;
                }
            } else if String::from_utf8_lossy(&c)
                .split(['\n', '\r'])
                .any(|l| matches!(l.split_whitespace().next(), Some("go" | "quit")))
            {
                // raw bytes that happen to hold a go or quit line: not sent
                continue;
            }
            input.extend_from_slice(&c);
        }
        let out = Sink::default();
        let (tx, rx) = std::sync::mpsc::channel();
        let o = out.clone();
        let h = std::thread::spawn(move || {
            xqdb::engine::run_protocol(std::io::Cursor::new(input), Box::new(o));
            let _ = tx.send(());
        });
        prop_assert!(rx.recv_timeout(std::time::Duration::from_secs(60)).is_ok(), "the loop did not end");
        h.join().unwrap();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let answers = text.lines().filter(|l| l.starts_with("bestmove") || l.starts_with("nobestmove")).count();
        prop_assert_eq!(answers, gos, "{}", text);
    }
}

// ---------------------------------------------------------------- runner inputs

proptest! {
    #![proptest_config(config(1000))]

    /// Openings files: an error naming the line, or FENs that all give legal positions.
    #[test]
    fn runner_openings_files(lines in prop::collection::vec(prop_oneof![
        Just("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1".to_string()),
        Just("# comment".to_string()),
        Just(String::new()),
        "[0-9kabnrcpKABNRCP/ wb-]{0,40}",
        "\\PC{0,20}",
    ], 0..8), junk in prop::collection::vec(any::<u8>(), 0..4)) {
        let mut bytes = lines.join("\n").into_bytes();
        bytes.extend_from_slice(&junk);
        match xqdb::arena::Openings::from_fen_text(&bytes, "f") {
            Ok(xqdb::arena::Openings::Fens(list)) => {
                prop_assert!(!list.is_empty());
                for f in list {
                    prop_assert!(Position::from_fen(&f).is_ok());
                }
            }
            Ok(_) => prop_assert!(false, "not a FEN list"),
            Err(e) => prop_assert!(e.to_string().starts_with("f: ")),
        }
    }

    /// Engine command lines of the runner.
    #[test]
    fn runner_engine_commands(s in "\\PC{0,40}") {
        if let Some(spec) = xqdb::arena::process::EngineSpec::parse(&s) {
            prop_assert!(!spec.cmd.is_empty());
        }
    }
}
