//! The C API (src/ffi): the committed header matches the code; a C program compiled with the
//! system `cc` probes tables and a book from several threads and agrees with the Rust API on
//! every position, and each kind of bad input gives its status with a message; the README's
//! C example is the one compiled here.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use xqdb::board::{Color, Move, Position, Square};
use xqdb::book::{build_default, Book};
use xqdb::index::{Material, PlacementIndex};
use xqdb::tablebase::file::{table_path, Metric};
use xqdb::tablebase::pipeline::generate_set;
use xqdb::tablebase::{Tablebases, Wdl};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

// ---- the header ----

/// The header cbindgen makes from src/ffi with cbindgen.toml.
fn generated_header() -> String {
    let config = cbindgen::Config::from_file(root().join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(root().join("src/ffi/mod.rs"))
        .generate()
        .expect("cbindgen reads src/ffi");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).expect("the header is UTF-8")
}

#[test]
fn header_is_up_to_date() {
    let path = root().join("include/xqdb.h");
    let want = generated_header();
    if std::env::var_os("XQDB_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
        eprintln!("notice: wrote {}", path.display());
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "include/xqdb.h is out of date with src/ffi: run \
         `XQDB_BLESS=1 cargo test --release --test ffi header` and commit it"
    );
    for f in [
        "xqdb_tables_open",
        "xqdb_probe_wdl",
        "xqdb_probe_dtm_fen",
        "xqdb_probe_dtc",
        "xqdb_probe_root",
        "xqdb_book_moves",
        "xqdb_last_error",
        "XQDB_WDL_WIN_BY_RULE",
        "XQDB_WDL_CURSED_WIN",
    ] {
        assert!(have.contains(f), "the header lacks {f}");
    }
}

// ---- shared material: tables, a book, the C compiler ----

struct Fixture {
    dir: PathBuf,
    tables: PathBuf,
    book: PathBuf,
}

/// KRKN and KRKAA with every table their captures lead to, and the default book, generated
/// once per run.
fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        // under target/tmp, made anew by each run
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ffi");
        let _ = std::fs::remove_dir_all(&dir);
        let tables = dir.join("tables");
        std::fs::create_dir_all(&tables).unwrap();
        let targets: Vec<Material> = ["KRKN", "KRKAA"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        generate_set(
            &targets,
            &tables,
            xqdb::tablebase::generate::GenOptions::default(),
            xqdb::tablebase::pipeline::Existing::Keep,
            |_| {},
        )
        .expect("generation");
        let book = dir.join("default.xqb");
        build_default(&book).expect("default book");
        Fixture { dir, tables, book }
    })
}

/// The C compiler (`$CC`, else `cc`), or None with a notice when there is none.
fn c_compiler() -> Option<String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    match Command::new(&cc).arg("--version").output() {
        Ok(o) if o.status.success() => Some(cc),
        _ => {
            eprintln!("notice: no C compiler ({cc}) on this machine: the C API test is skipped");
            None
        }
    }
}

/// The folder holding the libxqdb.so / libxqdb.a that cargo built with this test.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap().to_path_buf();
    for d in [deps.clone(), deps.parent().unwrap().to_path_buf()] {
        if d.join(shared_lib_name()).exists() {
            return d;
        }
    }
    panic!(
        "{} not found beside {}: cargo builds it with the rlib (crate-type in Cargo.toml)",
        shared_lib_name(),
        exe.display()
    );
}

fn shared_lib_name() -> &'static str {
    if cfg!(target_os = "macos") {
        "libxqdb.dylib"
    } else {
        "libxqdb.so"
    }
}

/// Compile `source` against the shared library (and, on Linux, a second copy against the
/// static one). Returns the executables.
fn compile(cc: &str, source: &str, tag: &str) -> Vec<PathBuf> {
    let out_dir = &fixture().dir;
    let lib = lib_dir();
    let src = root().join("tests/ffi").join(source);
    let include = root().join("include");
    let common = |out: &Path| {
        let mut c = Command::new(cc);
        c.args([
            "-std=c99",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
        ])
        .arg("-I")
        .arg(&include)
        .arg(&src)
        .arg("-o")
        .arg(out);
        c
    };
    let mut exes = Vec::new();
    let shared = out_dir.join(format!("{tag}-shared"));
    let mut c = common(&shared);
    c.arg("-L")
        .arg(&lib)
        .arg("-lxqdb")
        .arg("-lpthread")
        .arg(format!("-Wl,-rpath,{}", lib.display()));
    run_compiler(c);
    exes.push(shared);
    if cfg!(target_os = "linux") {
        let stat = out_dir.join(format!("{tag}-static"));
        let mut c = common(&stat);
        // what `cargo rustc -- --print native-static-libs` lists on Linux
        c.arg(lib.join("libxqdb.a")).args([
            "-lgcc_s",
            "-lutil",
            "-lrt",
            "-lpthread",
            "-lm",
            "-ldl",
            "-lc",
        ]);
        run_compiler(c);
        exes.push(stat);
    }
    exes
}

fn run_compiler(mut c: Command) {
    let out = c.output().expect("the C compiler runs");
    assert!(
        out.status.success(),
        "{c:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn run(exe: &Path, args: &[&Path]) -> String {
    let out = Command::new(exe).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{} failed ({}):\n{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

// ---- what the Rust API says ----

/// The header's verdict codes: ±3, or ±2 when the verdict rests on the repetition rules.
fn wdl_code(w: Wdl, by_rule: bool) -> i32 {
    let c: i32 = match w {
        Wdl::Loss => -3,
        Wdl::Draw => 0,
        Wdl::Win => 3,
    };
    if by_rule {
        c - c.signum()
    } else {
        c
    }
}

/// The board array of the header: `board[rank * 9 + file]`, Red 1-7, Black 9-15 in the
/// order K A B N R C P, as hex digits.
fn board_hex(pos: &Position) -> String {
    Square::ALL
        .iter()
        .map(|&sq| {
            let code = pos
                .piece_at(sq)
                .map_or(0, |p| 1 + p.role as u32 + 8 * p.color as u32);
            char::from_digit(code, 16).unwrap()
        })
        .collect()
}

fn move_text(m: Move) -> String {
    format!("{}-{}-{m}", m.from() as u8, m.to() as u8)
}

/// The line the C program prints for a table position, from the Rust API.
fn tables_line(tb: &Tablebases, pos: &Position) -> String {
    let rule = tb.probe_verdict(pos).unwrap().rests_on_rule();
    let w = wdl_code(tb.probe_wdl(pos).unwrap(), rule);
    let (w2, d) = tb.probe_dtm(pos).unwrap();
    let (w2, d) = (wdl_code(w2, rule), d.map_or(-1, |d| d as i64));
    let moves = tb.best_moves(pos).unwrap();
    let mut s = format!("T {w} {w} {w2} {d} {w2} {d} {}", moves.len());
    for o in moves {
        let dtm = o.dtm.map_or(-1, |d| d as i64);
        let code = wdl_code(o.wdl, o.after.rests_on_rule());
        write!(s, " {}:{}:{dtm}:-1", move_text(o.mv), code).unwrap();
    }
    s
}

/// The line the C program prints for a book position, from the Rust API.
fn book_line(book: &Book, pos: &Position) -> String {
    let moves = book.moves(pos);
    let mut s = format!("B {}", moves.len());
    for b in moves {
        write!(
            s,
            " {}:{}:{}:{}:{}:{}",
            move_text(b.mv),
            b.weight,
            b.games,
            b.wins,
            b.draws,
            b.losses
        )
        .unwrap();
    }
    s
}

/// Legal positions of a material (both sides to move), spread over its index.
fn sample(material: &str, n: usize, seed: u64) -> Vec<Position> {
    let m: Material = material.parse().unwrap();
    let idx = PlacementIndex::new(m).unwrap();
    let mut x = seed;
    let mut out = Vec::new();
    while out.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let pieces = idx.unrank_pieces(x % idx.size()).unwrap();
        let side = if x >> 32 & 1 == 0 {
            Color::Red
        } else {
            Color::Black
        };
        let Ok(pos) = Position::from_pieces(&pieces, side) else {
            continue;
        };
        // through FEN and back: the full placement checks of Position::from_fen
        if pos.check_placement_legal().is_ok() && Position::from_fen(&pos.to_fen()).is_ok() {
            out.push(pos);
        }
    }
    out
}

/// Positions of the opening book: the start and the book lines of a few plies.
fn book_positions(book: &Book) -> Vec<Position> {
    let mut out = vec![Position::startpos()];
    let mut frontier = vec![Position::startpos()];
    for _ in 0..3 {
        let mut next = Vec::new();
        for p in &frontier {
            for b in book.moves(p).iter().take(3) {
                next.push(p.after(b.mv));
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    // one that is not in the book
    out.push(Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w").unwrap());
    out
}

// ---- the C test program ----

const GOOD_FEN: &str = "3k5/9/9/9/9/9/9/9/4R4/4K4 w";

/// The status and message of one error case of the C program's output.
fn error_case<'a>(out: &'a str, label: &str) -> (&'a str, &'a str) {
    let prefix = format!("E {label} ");
    let line = out
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no line for {label} in:\n{out}"));
    let rest = &line[prefix.len()..];
    rest.split_once(' ').unwrap_or((rest, ""))
}

fn value<'a>(out: &'a str, label: &str) -> &'a str {
    let prefix = format!("V {label} ");
    out.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no value {label} in:\n{out}"))
}

#[test]
fn a_c_program_probes_from_several_threads_and_agrees_with_the_rust_api() {
    let Some(cc) = c_compiler() else {
        return;
    };
    let fx = fixture();
    let tb = Tablebases::open(&fx.tables);
    let book = Book::open(&fx.book).unwrap();

    // positions: KRKN and KRKAA, each also with the colours swapped (the table's flip)
    let mut positions: Vec<(char, Position)> = Vec::new();
    for (m, seed) in [
        ("KRKN", 0x9E37_79B9_7F4A_7C15u64),
        ("KRKAA", 0x2545_F491_4F6C_DD1D),
    ] {
        for p in sample(m, 500, seed) {
            positions.push(('T', p.flip_colors()));
            positions.push(('T', p));
        }
    }
    let wins = positions
        .iter()
        .filter(|(_, p)| tb.probe_wdl(p).unwrap() == Wdl::Win)
        .count();
    assert!(wins > 100 && wins < positions.len() - 100, "{wins} wins");
    positions.extend(book_positions(&book).into_iter().map(|p| ('B', p)));
    let mut list = String::new();
    for (kind, p) in &positions {
        let side = p.turn() as u8;
        writeln!(list, "{kind} {side} {} {}", board_hex(p), p.to_fen()).unwrap();
    }
    let list_path = fx.dir.join("positions.txt");
    std::fs::write(&list_path, list).unwrap();

    // a folder with a corrupt header (KRK WDL) and a truncated file (KRKN DTM)
    let corrupt = fx.dir.join("corrupt");
    std::fs::create_dir_all(&corrupt).unwrap();
    for name in ["KRK", "KRKN"] {
        let m: Material = name.parse().unwrap();
        for metric in [Metric::Wdl, Metric::Dtm] {
            std::fs::copy(
                table_path(&fx.tables, &m, metric),
                table_path(&corrupt, &m, metric),
            )
            .unwrap();
        }
    }
    let krk_wdl = table_path(&corrupt, &"KRK".parse().unwrap(), Metric::Wdl);
    let mut bytes = std::fs::read(&krk_wdl).unwrap();
    bytes[50] ^= 1;
    std::fs::write(&krk_wdl, bytes).unwrap();
    let krkn_dtm = table_path(&corrupt, &"KRKN".parse().unwrap(), Metric::Dtm);
    let bytes = std::fs::read(&krkn_dtm).unwrap();
    std::fs::write(&krkn_dtm, &bytes[..bytes.len() / 2]).unwrap();
    let krkn_won = positions
        .iter()
        .find(|(k, p)| {
            *k == 'T'
                && Material::of_position(p).to_string() == "KRKN"
                && tb.probe_wdl(p).unwrap() == Wdl::Win
        })
        .map(|(_, p)| p.to_fen())
        .unwrap();
    let bad_book = fx.dir.join("bad.xqb");
    std::fs::write(&bad_book, b"not a book at all, just some bytes to read").unwrap();

    let exes = compile(&cc, "check.c", "check");
    let corrupt_wdl_fen = PathBuf::from(GOOD_FEN);
    let corrupt_dtm_fen = PathBuf::from(&krkn_won);
    let args: Vec<&Path> = vec![
        &fx.tables,
        &list_path,
        &fx.book,
        &corrupt,
        &corrupt_wdl_fen,
        &corrupt_dtm_fen,
        Path::new("/nonexistent/xqdb/tables"),
        Path::new("/nonexistent/xqdb/book.xqb"),
        &bad_book,
    ];
    let good = Position::from_fen(GOOD_FEN).unwrap();
    for exe in &exes {
        let out = run(exe, &args);
        // every position, from four threads, as the Rust API says
        let mut checked = 0;
        for (i, (kind, p)) in positions.iter().enumerate() {
            let want = match kind {
                'T' => tables_line(&tb, p),
                _ => book_line(&book, p),
            };
            let prefix = format!("P {i} ");
            let got = out
                .lines()
                .find_map(|l| l.strip_prefix(&prefix))
                .unwrap_or_else(|| panic!("no output for position {i}"));
            assert_eq!(got, want, "{} position {i}: {}", exe.display(), p.to_fen());
            checked += 1;
        }
        assert_eq!(checked, positions.len());
        for k in 0..4 {
            assert!(
                out.contains(&format!("F {k} 1")),
                "thread {k} did not start with an empty message"
            );
        }

        // each error with its status and a message that says what
        let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
        let (krk_wdl_name, krkn_dtm_name) = (name(&krk_wdl), name(&krkn_dtm));
        let cases: &[(&str, &str, &str)] = &[
            ("bad_fen_empty", "BAD_FEN", "empty FEN"),
            ("bad_fen_ranks", "BAD_FEN", "3 ranks"),
            ("bad_fen_side", "BAD_FEN", "side to move 'x'"),
            ("bad_fen_rank_width", "BAD_FEN", "rank"),
            ("bad_fen_letter", "BAD_FEN", "X"),
            ("bad_fen_counter", "BAD_FEN", "'x'"),
            ("illegal_facing", "ILLEGAL_POSITION", "kings face"),
            ("illegal_check", "ILLEGAL_POSITION", "in check"),
            ("board_ok", "OK", ""),
            ("bad_side", "BAD_ARGUMENT", "side 2"),
            ("bad_board_code", "BAD_ARGUMENT", "board[40] (e4) = 8"),
            ("null_tables", "NULL_ARGUMENT", "tables is NULL"),
            ("null_out", "NULL_ARGUMENT", "wdl is NULL"),
            ("null_fen", "NULL_ARGUMENT", "fen is NULL"),
            ("dtc", "NOT_AVAILABLE", "no DTC table for KRK"),
            ("missing_table", "MISSING_TABLE", "xqdb gen KCPK"),
            ("root_small", "BUFFER_TOO_SMALL", "room for 1"),
            ("has_krkaa", "OK", ""),
            ("has_kcpk", "OK", ""),
            ("has_bad", "BAD_ARGUMENT", "KXK"),
            ("missing_folder", "NOT_FOUND", "no such folder"),
            ("corrupt_open", "OK", ""),
            ("corrupt_header", "CORRUPT", &krk_wdl_name),
            ("corrupt_truncated", "CORRUPT", &krkn_dtm_name),
            ("missing_book", "NOT_FOUND", "/nonexistent/xqdb/book.xqb"),
            ("corrupt_book", "CORRUPT", "bad.xqb"),
            ("book_small", "BUFFER_TOO_SMALL", "room for 1"),
            ("book_null", "NULL_ARGUMENT", "book is NULL"),
        ];
        for (label, status, needle) in cases {
            let (s, msg) = error_case(&out, label);
            assert_eq!(s, format!("XQDB_STATUS_{status}"), "{label}: {msg}");
            assert!(msg.contains(needle), "{label}: '{msg}' lacks '{needle}'");
            assert_eq!(msg.is_empty(), *status == "OK", "{label}: '{msg}'");
        }
        assert_eq!(value(&out, "board_ok"), "3");
        let best = tb.best_moves(&good).unwrap();
        assert_eq!(
            value(&out, "root_small"),
            format!("{} {}", best.len(), best[0].mv)
        );
        assert_eq!(value(&out, "has_krkaa"), "1");
        assert_eq!(value(&out, "has_kcpk"), "0");
        assert_eq!(
            value(&out, "book_small"),
            book.moves(&Position::startpos()).len().to_string()
        );
        assert_eq!(
            value(&out, "status_name"),
            "XQDB_STATUS_BAD_FEN XQDB_STATUS_UNKNOWN"
        );
        assert_eq!(
            value(&out, "api"),
            format!("1 1 {}", env!("CARGO_PKG_VERSION"))
        );
    }
}

// ---- the README example ----

#[test]
fn the_readme_c_example_compiles_runs_and_is_the_one_in_the_readme() {
    let example = std::fs::read_to_string(root().join("tests/ffi/example.c")).unwrap();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("```c\n{example}```")),
        "README.md must show tests/ffi/example.c verbatim in a ```c block"
    );
    let Some(cc) = c_compiler() else {
        return;
    };
    let fx = fixture();
    let tb = Tablebases::open(&fx.tables);
    let book = Book::open(&fx.book).unwrap();
    let good = Position::from_fen(GOOD_FEN).unwrap();
    let (_, dtm) = tb.probe_dtm(&good).unwrap();
    let best = tb.best_moves(&good).unwrap();
    let first_book = book.moves(&Position::startpos())[0];
    for exe in compile(&cc, "example.c", "example") {
        let out = run(&exe, &[&fx.tables, &fx.book]);
        let want = [
            format!("win for the side to move, mate in {} plies", dtm.unwrap()),
            format!(
                "move {}: win, mate in {} plies",
                best[0].mv,
                best[0].dtm.unwrap()
            ),
            "board array: win".to_string(),
            "kings facing: XQDB_STATUS_ILLEGAL_POSITION (illegal position: the kings face"
                .to_string(),
            format!(
                "book {}: weight {}, {} games",
                first_book.mv, first_book.weight, first_book.games
            ),
        ];
        for w in want {
            assert!(out.contains(&w), "{}: no '{w}' in\n{out}", exe.display());
        }
    }
}

// ---- C++ ----

#[test]
fn the_header_compiles_as_cpp() {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    if !Command::new(&cxx)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("notice: no C++ compiler ({cxx}): the C++ header check is skipped");
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ffi-cpp");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("header.cpp");
    std::fs::write(
        &src,
        "#include \"xqdb.h\"\n\
         int probe(const XqdbTables *tb, const uint8_t *board) {\n\
         \x20   XqdbWdl w = XQDB_WDL_DRAW;\n\
         \x20   XqdbRootMove moves[XQDB_MAX_MOVES];\n\
         \x20   size_t n = 0;\n\
         \x20   XqdbStatus s = xqdb_probe_wdl(tb, board, XQDB_SIDE_RED, &w);\n\
         \x20   if (s != XQDB_STATUS_OK) return -100;\n\
         \x20   s = xqdb_probe_root(tb, board, XQDB_SIDE_RED, moves, XQDB_MAX_MOVES, &n);\n\
         \x20   return s == XQDB_STATUS_OK && n > 0 ? moves[0].wdl : w;\n\
         }\n",
    )
    .unwrap();
    run_compiler({
        let mut c = Command::new(&cxx);
        c.args(["-std=c++11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only"])
            .arg("-I")
            .arg(root().join("include"))
            .arg(&src);
        c
    });
}
