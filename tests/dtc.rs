//! Distance to conversion (DTC): KRKN against the public generator's values
//! (../shared/reference/xiangqitb/KRKN.tsv, DTC column = plies + 1), the invariants of the
//! metric, the lines that probing gives, verification and the batch column.
//!
//! Classes of difference with the public generator on KRKN (all explained, none left over):
//! * **rule-decided** (its `order` > 0): it stops counting at the ruling, we count to the
//!   capture or mate after the violator is forced to deviate (our DTM convention, FORMAT.md);
//! * **inherited** (order 0): a non-capture successor that the optimal play of either side
//!   may enter differs, so the position's minimum or maximum differs with it;
//! * **through a ruling** (order 0): the position's own moves agree one by one, but one of
//!   them leads into a rule-decided position, where the two conventions give different
//!   counts: its winner avoids ruled positions, ours may steer through them.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use xqdb::board::{Color, Position};
use xqdb::index::Material;
use xqdb::tablebase::generate::GenOptions;
use xqdb::tablebase::pipeline::{closure, generate_closure, generate_in_order_with, Existing};
use xqdb::tablebase::pipeline_dtc::compute_dtc;
use xqdb::tablebase::values::{wdl_of, Wdl, MAX_DTM};
use xqdb::tablebase::verify::dtc::verify_dtc;
use xqdb::tablebase::verify::verify_files;
use xqdb::tablebase::{Table, TableSet, Tablebases};

fn reference() -> Option<String> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/xiangqitb/KRKN.tsv");
    match std::fs::read_to_string(&p) {
        Ok(s) => Some(s),
        Err(_) => {
            eprintln!("notice: {} is absent, comparison skipped", p.display());
            None
        }
    }
}

fn krkn() -> Material {
    "KRKN".parse().expect("a material")
}

/// KRKN and its sub-tables in memory, KRKN with its DTC.
fn tables() -> (TableSet, Table) {
    let set = generate_closure(&[krkn()], GenOptions::default()).expect("generation");
    let t = set.get(&krkn()).expect("KRKN generated");
    let mut table = Table {
        material: t.material,
        index: xqdb::index::PlacementIndex::new(t.material).expect("index"),
        values: t.values.clone(),
        rules: t.rules,
        verdicts: t.verdicts.clone(),
        dtc: None,
    };
    compute_dtc(&mut table, &set, &xqdb::progress::Silent).expect("DTC");
    (set, table)
}

fn fen2(p: &Position) -> String {
    p.to_fen().split(' ').take(2).collect::<Vec<_>>().join(" ")
}

/// Our DTC of a KRKN position (None for a draw).
fn our_dtc(t: &Table, p: &Position) -> Option<u8> {
    let i = t.index.rank_position(p)? as usize;
    let d = t.dtc.as_ref()?[p.turn().index()][i];
    (d <= MAX_DTM).then_some(d)
}

#[test]
fn krkn_agrees_with_the_public_generator_up_to_explained_classes() {
    let Some(text) = reference() else { return };
    let (_, t) = tables();
    // FEN -> (their DTC in plies, their order)
    let mut theirs: HashMap<String, (Option<u8>, u32)> = HashMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let dtc = f[3].parse::<u8>().ok().map(|c| c - 1);
        theirs.insert(f[0].to_string(), (dtc, f[4].parse().unwrap_or(0)));
    }
    let (mut same, mut rule, mut inherited, mut through, mut other) = (0, 0, 0, 0, Vec::new());
    for (fen, &(their, order)) in &theirs {
        let p = Position::from_fen(fen).expect("reference FEN");
        let ours = our_dtc(&t, &p);
        if ours == their {
            same += 1;
            continue;
        }
        if order > 0 {
            rule += 1;
            continue;
        }
        // successors within KRKN, ours against theirs
        let mut differs = false;
        let mut ruled_child = false;
        for m in p.legal_moves() {
            if p.piece_at(m.to()).is_some() {
                continue;
            }
            let c = p.after(m);
            // the reference lists one of each pair of mirror images
            let found = theirs
                .get(&fen2(&c))
                .or_else(|| theirs.get(&fen2(&c.mirror())));
            let Some(&(their_c, their_order)) = found else {
                panic!("{fen}: successor {} is not in the reference", fen2(&c));
            };
            if our_dtc(&t, &c) != their_c {
                differs = true;
            }
            if their_order > 0 {
                ruled_child = true;
            }
        }
        if differs && !ruled_child {
            inherited += 1;
        } else if ruled_child {
            through += 1;
        } else {
            other.push(format!("{fen}: ours {ours:?}, theirs {their:?}"));
        }
    }
    let total = theirs.len();
    eprintln!(
        "KRKN DTC: {same}/{total} agree ({:.4} %); differences: {rule} rule-decided, {through} through a ruling, {inherited} inherited, {} unexplained",
        100.0 * same as f64 / total as f64,
        other.len()
    );
    assert!(other.is_empty(), "unexplained DTC differences: {other:#?}");
    assert_eq!(
        total, 417_414,
        "the reference lists every legal KRKN position"
    );
}

#[test]
fn dtc_never_exceeds_dtm_and_a_winning_capture_is_one() {
    let (set, t) = tables();
    let dtc = t.dtc.as_ref().expect("computed");
    let mut one_capture = 0;
    for side in Color::ALL {
        let s = side.index();
        for (i, (&v, &c)) in t.values[s].iter().zip(&dtc[s]).enumerate() {
            if v > MAX_DTM {
                assert!(c > MAX_DTM, "a DTC for a draw or illegal index {i}");
                continue;
            }
            assert!(c <= v, "index {i} side {side}: DTC {c} above DTM {v}");
            if v % 2 == 0 {
                continue;
            }
            let pieces = t
                .index
                .unrank_pieces(i as u64)
                .expect("decided index decodes");
            let p = Position::from_pieces(&pieces, side).expect("legal");
            let wins_by_capture = p.legal_moves().into_iter().any(|m| {
                p.piece_at(m.to()).is_some()
                    && wdl_of(set.value(&p.after(m)).expect("sub-table")) == Some(Wdl::Loss)
            });
            if wins_by_capture {
                one_capture += 1;
                assert_eq!(
                    c,
                    1,
                    "{}: one capture from a won sub-table position",
                    p.to_fen()
                );
            } else {
                // without a winning capture only a mate in one converts in one ply
                assert!(
                    c > 1 || v == 1,
                    "{}: DTC {c} without a winning capture",
                    p.to_fen()
                );
            }
        }
    }
    assert!(
        one_capture > 1000,
        "KRKN has many winning captures: {one_capture}"
    );
}

/// KRKN with its DTC file in a temporary folder.
fn folder() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("xqdb-dtc")
        .tempdir()
        .expect("temp dir");
    generate_in_order_with(
        &closure(&[krkn()]),
        dir.path(),
        GenOptions::default(),
        true,
        Existing::Keep,
        |_| {},
    )
    .expect("generation with DTC");
    dir
}

#[test]
fn lines_replay_to_a_conversion_verify_passes_and_batch_has_the_column() {
    let dir = folder();
    let tb = Tablebases::open(dir.path());
    let (_, t) = tables();
    // every 97th index of both sides: the line has exactly DTC plies and ends converted
    let mut lines = 0;
    for side in Color::ALL {
        for i in (0..t.index.size()).step_by(97) {
            let Ok(pieces) = t.index.unrank_pieces(i) else {
                continue;
            };
            let Ok(p) = Position::from_pieces(&pieces, side) else {
                continue;
            };
            if p.check_placement_legal().is_err() {
                continue;
            }
            let Some(c) = tb.probe_dtc(&p).expect("probe") else {
                continue;
            };
            assert_eq!(
                Some(c as u8),
                our_dtc(&t, &p),
                "{}: file and memory",
                p.to_fen()
            );
            let line = tb.best_dtc_line(&p, 400).expect("line");
            assert_eq!(line.len() as u32, c, "{}: line length", p.to_fen());
            let mut q = p.clone();
            for (k, &m) in line.iter().enumerate() {
                let capture = q.piece_at(m.to()).is_some();
                assert!(
                    !capture || k + 1 == line.len(),
                    "{}: capture inside the line",
                    p.to_fen()
                );
                q.play(m);
            }
            let last_capture = line
                .last()
                .is_some_and(|_| Material::of_position(&q) != Material::of_position(&p));
            let mated = q.legal_moves().is_empty();
            // a ruling whose every move continues the violation loses there (DTC 0)
            let ruled_out = tb.probe_verdict(&q).expect("probe").ruling.is_some()
                && tb.probe_dtc(&q).expect("probe") == Some(0);
            assert!(
                last_capture || mated || ruled_out,
                "{}: the line ends without a conversion",
                p.to_fen()
            );
            lines += 1;
        }
    }
    assert!(lines > 1000, "{lines} lines replayed");

    // the file (wins stored, losses derived from their moves) gives back every DTC
    let mut loaded =
        xqdb::tablebase::pipeline::load_table(dir.path(), &krkn(), true).expect("load");
    xqdb::tablebase::pipeline_dtc::load_dtc(dir.path(), &mut loaded).expect("DTC file");
    assert!(
        loaded.dtc == t.dtc,
        "the DTC file does not give back the computed DTC"
    );

    let rep = verify_files(dir.path(), &krkn()).expect("verify");
    assert_eq!(rep.mismatches, 0, "{:?}", rep.examples);
    assert!(
        rep.dtc_checked > 100_000,
        "DTC checked: {}",
        rep.dtc_checked
    );

    let fens = "5k3/9/9/9/9/R8/9/9/9/3K1n3 b\n9/9/5k3/9/9/9/9/4K4/9/4R3n b\nnot a fen\n";
    let mut out = Vec::new();
    tb.probe_batch(fens.as_bytes(), &mut out).expect("batch");
    let out = String::from_utf8(out).expect("text");
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    let p = Position::from_fen("5k3/9/9/9/9/R8/9/9/9/3K1n3 b").expect("fen");
    let c = tb.probe_dtc(&p).expect("probe").expect("decided");
    assert_eq!(rows[0][1..], ["L", "26", &c.to_string()], "{out}");
    assert_eq!(rows[1][1..], ["D", "-", "-"], "{out}");
    assert!(rows[2][1].starts_with("error"), "{out}");
}

#[test]
fn verify_catches_a_corrupted_dtc() {
    let (set, mut t) = tables();
    let mut set = set;
    set.insert(Arc::new(Table {
        material: t.material,
        index: xqdb::index::PlacementIndex::new(t.material).expect("index"),
        values: t.values.clone(),
        rules: t.rules,
        verdicts: None,
        dtc: None,
    }));
    let clean = verify_dtc(&t, &set, &xqdb::progress::Silent);
    assert_eq!(clean.mismatches, 0, "{:?}", clean.examples);
    // a decided position with DTC at least 2 gets one ply less
    let dtc = t.dtc.as_mut().expect("computed");
    let i = dtc[0]
        .iter()
        .position(|&c| (2..=MAX_DTM).contains(&c))
        .expect("a DTC >= 2");
    dtc[0][i] -= 1;
    let bad = verify_dtc(&t, &set, &xqdb::progress::Silent);
    assert!(bad.mismatches >= 1, "a corrupted DTC passes verification");
}

/// Verification from the files (the DTC of losses derived from their moves, the other side
/// to move decoded, the own side streamed) counts what verification in memory counts, and
/// catches a win's DTC changed in the DTC file.
#[test]
fn verify_files_agrees_with_verify_in_memory_and_catches_a_changed_dtc_file() {
    use xqdb::tablebase::pipeline::load_table;
    use xqdb::tablebase::pipeline_dtc::load_dtc;
    use xqdb::tablebase::values::ILLEGAL;
    use xqdb::tablebase::verify::verify_table;
    let dir = folder();
    let mut set = TableSet::new();
    for m in closure(&[krkn()]) {
        if m != krkn() {
            set.insert(Arc::new(load_table(dir.path(), &m, false).expect("load")));
        }
    }
    let mut t = load_table(dir.path(), &krkn(), true).expect("load");
    load_dtc(dir.path(), &mut t).expect("DTC file");
    let t = Arc::new(t);
    set.insert(t.clone());
    let in_memory = verify_table(&t, &set);
    let from_files = verify_files(dir.path(), &krkn()).expect("verify");
    assert_eq!(from_files.mismatches, 0, "{:?}", from_files.examples);
    assert_eq!(in_memory.mismatches, 0, "{:?}", in_memory.examples);
    assert_eq!(from_files.checked, in_memory.checked);
    assert_eq!(from_files.rulings, in_memory.rulings);
    assert_eq!(from_files.dtc_checked, in_memory.dtc_checked);
    // a win (DTM >= 3) whose DTC is at least 2 gets one ply less in the file
    drop(set);
    let mut t = Arc::try_unwrap(t).expect("the only reference once the set is gone");
    let dtc = t.dtc.as_mut().expect("loaded");
    let i = (0..t.values[0].len())
        .find(|&i| {
            let v = t.values[0][i];
            v != ILLEGAL && v <= MAX_DTM && v % 2 == 1 && v >= 3 && dtc[0][i] >= 2
        })
        .expect("a win with DTC >= 2");
    dtc[0][i] -= 1;
    let mut written = xqdb::tablebase::file::Written::default();
    xqdb::tablebase::file::write_dtc_file(dir.path(), &t, &mut written).expect("write");
    let bad = verify_files(dir.path(), &krkn()).expect("verify");
    assert!(
        bad.mismatches >= 1,
        "a changed DTC file passes verification"
    );
    assert!(
        bad.examples
            .iter()
            .any(|e| e.why == "distance to conversion"),
        "{:?}",
        bad.examples
    );
}

#[test]
fn the_engine_keeps_the_win_within_the_natural_limit_then_mates_fastest() {
    use std::sync::atomic::AtomicBool;
    let dir = folder();
    let tb = Tablebases::open(dir.path());
    let mut engine = xqdb::engine::Engine::new();
    engine.set_tables(dir.path().to_path_buf()).expect("folder");
    engine.use_book = false;
    let t = tables().1;
    let mut checked = [0; 3];
    for i in (0..t.index.size()).step_by(211) {
        let Ok(pieces) = t.index.unrank_pieces(i) else {
            continue;
        };
        let Ok(p) = Position::from_pieces(&pieces, Color::Red) else {
            continue;
        };
        if p.check_placement_legal().is_err() {
            continue;
        }
        let (w, dtm) = tb.probe_dtm(&p).expect("probe");
        let dtc = tb.probe_dtc(&p).expect("probe");
        let (Wdl::Win, Some(dtm), Some(dtc)) = (w, dtm, dtc) else {
            continue;
        };
        let choice = |engine: &mut xqdb::engine::Engine, limit: u32| {
            engine.natural_limit = limit;
            engine.set_position(&p.to_fen(), &[]).expect("position");
            let stop = AtomicBool::new(false);
            let m = engine
                .think(&xqdb::engine::time::Clock::default(), &stop, |_| {})
                .best
                .expect("a move");
            let o = tb.moves_dtc(&p).expect("moves");
            o.into_iter()
                .find(|x| x.outcome.mv == m)
                .expect("a legal move")
        };
        // every conversion of KRKN is within 120 plies: the fastest mate
        let wide = choice(&mut engine, 120);
        assert_eq!(
            wide.outcome.dtm,
            Some(dtm),
            "{}: not the fastest mate",
            p.to_fen()
        );
        checked[0] += 1;
        if dtc < dtm {
            // a limit of exactly the DTC: only the fastest conversions keep the win
            let tight = choice(&mut engine, dtc);
            assert_eq!(
                tight.dtc,
                Some(dtc),
                "{}: the win leaves the limit",
                p.to_fen()
            );
            // the same limit reached by plies already played without a capture (the FEN's
            // counter): 120 less the plies played leaves exactly the DTC
            engine.natural_limit = 120;
            let mut fields: Vec<String> = p.to_fen().split(' ').map(String::from).collect();
            fields[4] = (120 - dtc).to_string();
            let played = fields.join(" ");
            engine.set_position(&played, &[]).expect("position");
            let stop = AtomicBool::new(false);
            let m = engine
                .think(&xqdb::engine::time::Clock::default(), &stop, |_| {})
                .best
                .expect("a move");
            let late = tb
                .moves_dtc(&p)
                .expect("moves")
                .into_iter()
                .find(|x| x.outcome.mv == m)
                .expect("a legal move");
            assert_eq!(late.dtc, Some(dtc), "{played}: the win leaves the limit");
            checked[1] += 1;
            // positions where the fastest mate converts later than the limit allows
            if wide.dtc != Some(dtc) {
                checked[2] += 1;
            }
        }
    }
    eprintln!("engine root choice: {checked:?} (all, DTC < DTM, fastest mate beyond the limit)");
    assert!(
        checked[0] > 100 && checked[2] > 10,
        "{checked:?} positions checked"
    );
}

#[test]
fn the_c_api_probes_dtc() {
    use std::ffi::CString;
    use xqdb::ffi::{xqdb_probe_dtc_fen, xqdb_tables_close, xqdb_tables_open, XqdbStatus, XqdbWdl};
    let dir = folder();
    let tb = Tablebases::open(dir.path());
    let path = CString::new(dir.path().to_str().expect("UTF-8 path")).expect("no NUL");
    let mut h = std::ptr::null_mut();
    // SAFETY: a NUL-terminated path and a writable pointer.
    assert_eq!(
        unsafe { xqdb_tables_open(path.as_ptr(), 0, &mut h) },
        XqdbStatus::Ok
    );
    for fen in [
        "5k3/9/9/9/9/R8/9/9/9/3K1n3 b",
        "9/9/5k3/9/9/9/9/4K4/9/4R3n b",
    ] {
        let p = Position::from_fen(fen).expect("fen");
        let c = CString::new(fen).expect("no NUL");
        let (mut w, mut d) = (XqdbWdl::Draw, 0i32);
        // SAFETY: a live handle, a NUL-terminated FEN and writable outputs.
        let st = unsafe { xqdb_probe_dtc_fen(h, c.as_ptr(), &mut w, &mut d) };
        assert_eq!(st, XqdbStatus::Ok, "{fen}");
        let want = tb.probe_dtc(&p).expect("probe").map_or(-1, |c| c as i32);
        assert_eq!(d, want, "{fen}");
    }
    // SAFETY: the handle from xqdb_tables_open, closed once.
    unsafe { xqdb_tables_close(h) };
}
