//! Tablebase generation: full verification, known endgame facts, DTM semantics, replays of
//! the longest mates, and files.

mod common;
use common::temp_dir;
use std::sync::{Arc, OnceLock};
use xqdb::board::{Color, Position};
use xqdb::index::Material;
use xqdb::tablebase::pipeline::{closure, load_table};
use xqdb::tablebase::table::{Table, TableSet};
use xqdb::tablebase::values::{wdl_of, DRAW, ILLEGAL};
use xqdb::tablebase::verify::verify_table;
use xqdb::tablebase::{generate, Wdl};

const EXTRA: [&str; 4] = ["KRKAA", "KNKAB", "KCAKA", "KPKAA"];

/// Every table with at most two pieces besides the kings, plus a few with three and their
/// sub-tables, generated once for all tests.
fn tables() -> &'static TableSet {
    static SET: OnceLock<TableSet> = OnceLock::new();
    SET.get_or_init(|| {
        let mut targets = Material::all_up_to(2);
        targets.extend(EXTRA.iter().map(|m| m.parse::<Material>().unwrap()));
        let mut set = TableSet::new();
        for m in closure(&targets) {
            let t = generate(m, &set, xqdb::tablebase::generate::GenOptions::default()).unwrap();
            set.insert(Arc::new(t));
        }
        set
    })
}

fn table(name: &str) -> Arc<Table> {
    let m: Material = name.parse().unwrap();
    tables()
        .get(&m.normalized().0)
        .unwrap_or_else(|| panic!("no table {name}"))
        .clone()
}

fn positions(t: &Table) -> impl Iterator<Item = (Position, u8)> + '_ {
    (0..t.index.size()).flat_map(move |i| {
        let pieces = t.index.unrank_pieces(i).unwrap();
        Color::ALL.into_iter().map(move |side| {
            (
                Position::from_pieces(&pieces, side).unwrap(),
                t.values[side.index()][i as usize],
            )
        })
    })
}

#[test]
fn every_table_up_to_two_pieces_and_some_three_verifies() {
    let set = tables();
    let mut names: Vec<Material> = set.materials().copied().collect();
    names.sort();
    assert!(names.len() >= 53, "{}", names.len());
    for m in names {
        let t = set.get(&m).unwrap();
        let rep = verify_table(t, set);
        assert_eq!(rep.mismatches, 0, "{m}: {:?}", rep.examples);
        assert_eq!(rep.checked, t.positions());
    }
}

#[test]
fn a_rook_alone_beats_a_bare_king_from_every_legal_position_with_the_rook_to_move() {
    let t = table("KRK");
    for (pos, v) in positions(&t) {
        if pos.turn() == Color::Red && v != ILLEGAL {
            assert_eq!(wdl_of(v), Some(Wdl::Win), "{}", pos.to_fen());
        }
    }
}

#[test]
fn a_lone_cannon_never_beats_a_bare_king() {
    let t = table("KCK");
    for (pos, v) in positions(&t) {
        assert!(v == DRAW || v == ILLEGAL, "{}: {v}", pos.to_fen());
    }
}

#[test]
fn advisors_and_elephants_alone_never_win_they_cannot_leave_their_own_half() {
    for name in ["KAK", "KBK", "KAAK", "KBBK", "KABK", "KAKA", "KBKA"] {
        let t = table(name);
        for (pos, v) in positions(&t) {
            assert!(v == DRAW || v == ILLEGAL, "{name} {}: {v}", pos.to_fen());
        }
    }
}

#[test]
fn illegal_exactly_when_kings_face_or_the_side_not_to_move_is_in_check() {
    for name in ["KRK", "KCPK", "KNKAB"] {
        let t = table(name);
        for (pos, v) in positions(&t) {
            assert_eq!(
                v == ILLEGAL,
                pos.check_placement_legal().is_err(),
                "{name} {}",
                pos.to_fen()
            );
        }
    }
}

#[test]
fn dtm_is_zero_without_legal_moves_and_one_for_mate_in_one() {
    for name in ["KRK", "KNK", "KPKAA", "KRKAA"] {
        let t = table(name);
        let mut zeros = 0;
        let mut ones = 0;
        for (pos, v) in positions(&t) {
            if v == ILLEGAL {
                continue;
            }
            let moves = pos.legal_moves();
            assert_eq!(v == 0, moves.is_empty(), "{name} {}", pos.to_fen());
            let mates = moves.iter().any(|&m| !pos.after(m).has_legal_move());
            assert_eq!(v == 1, mates, "{name} {}", pos.to_fen());
            zeros += (v == 0) as u32;
            ones += (v == 1) as u32;
        }
        assert!(zeros > 0 && ones > 0, "{name}");
    }
}

/// Play the table's best moves from `pos` and count plies to mate.
fn replay(set: &TableSet, mut pos: Position) -> u32 {
    let mut plies = 0;
    loop {
        let v = set.value(&pos).unwrap();
        if v == 0 {
            return plies;
        }
        let moves = pos.legal_moves();
        let children: Vec<(u8, Position)> = moves
            .iter()
            .map(|&m| {
                let c = pos.after(m);
                (set.value(&c).unwrap(), c)
            })
            .collect();
        let next = if wdl_of(v) == Some(Wdl::Win) {
            // fastest mate: a child lost in v - 1
            children
                .into_iter()
                .find(|(cv, _)| *cv + 1 == v)
                .expect("a move keeps the promise")
        } else {
            // longest resistance: a child won in v - 1
            children
                .into_iter()
                .find(|(cv, _)| *cv + 1 == v)
                .expect("every move loses, one that slowly")
        };
        pos = next.1;
        plies += 1;
        assert!(plies < 300);
    }
}

#[test]
fn longest_mates_replay_in_exactly_the_reported_plies() {
    let set = tables();
    for name in [
        "KRK", "KNK", "KPK", "KNNK", "KCPK", "KRKA", "KRKAA", "KNKAB", "KPKAA", "KRKR",
    ] {
        let t = table(name);
        let (v, i, side) = t.longest().unwrap();
        let pos = Position::from_pieces(&t.index.unrank_pieces(i).unwrap(), side).unwrap();
        assert_eq!(
            replay(set, pos.clone()),
            v as u32,
            "{name} from {}",
            pos.to_fen()
        );
    }
}

#[test]
fn files_round_trip() {
    let tmp = temp_dir("tb-files");
    let dir = tmp.path();
    for name in ["KRK", "KCPK", "KRKAA"] {
        let t = table(name);
        xqdb::tablebase::file::write_files(dir, &t).unwrap();
        let back = load_table(dir, &t.material, false).unwrap();
        assert_eq!(back.values, t.values, "{name}");
    }
}

// ---- files and probing ----

use xqdb::tablebase::file::{table_path, write_files, FileError, Metric, TableFile};
use xqdb::tablebase::{ProbeError, Tablebases};

fn expected(v: u8) -> Option<(Wdl, Option<u32>)> {
    match wdl_of(v)? {
        Wdl::Draw => Some((Wdl::Draw, None)),
        w => Some((w, Some(v as u32))),
    }
}

#[test]
fn every_position_probes_from_disk_to_the_generated_value() {
    let tmp = temp_dir("probe-all");
    let dir = tmp.path();
    let set = tables();
    for m in set.materials() {
        let t = set.get(m).unwrap();
        write_files(dir, t).unwrap();
    }
    let tb = Tablebases::open(dir);
    let mut probed = 0u64;
    for m in set.materials() {
        let t = set.get(m).unwrap();
        for (pos, v) in positions(t) {
            if v == ILLEGAL {
                assert!(matches!(tb.probe_wdl(&pos), Err(ProbeError::Illegal(_))));
                continue;
            }
            assert_eq!(tb.probe_dtm(&pos).ok(), expected(v), "{m} {}", pos.to_fen());
            // and through the colour flip (the swapped material's name)
            assert_eq!(
                tb.probe_dtm(&pos.flip_colors()).ok(),
                expected(v),
                "{m} flipped"
            );
            probed += 1;
        }
    }
    assert!(probed > 1_000_000);
    // best_moves agrees with the position's own value
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w").unwrap();
    let (w, d) = tb.probe_dtm(&pos).unwrap();
    let best = &tb.best_moves(&pos).unwrap()[0];
    assert_eq!((best.wdl, best.dtm), (w, d));
    assert_eq!(tb.best_line(&pos, 100).unwrap().len() as u32, d.unwrap());
}

#[test]
fn probes_from_several_threads_agree_with_one_thread() {
    let tmp = temp_dir("probe-threads");
    let dir = tmp.path();
    let set = tables();
    for name in ["KRKAA", "KRKA", "KAAK", "KRK"] {
        let m: Material = name.parse::<Material>().unwrap().normalized().0;
        if let Some(t) = set.get(&m) {
            write_files(dir, t).unwrap();
        }
    }
    let t = table("KRKAA");
    let all: Vec<(Position, u8)> = positions(&t).filter(|(_, v)| *v != ILLEGAL).collect();
    let single = Tablebases::with_cache(dir, 1 << 16);
    let want: Vec<_> = all
        .iter()
        .map(|(p, _)| single.probe_dtm(p).unwrap())
        .collect();
    let shared = Tablebases::with_cache(dir, 1 << 16); // small cache: blocks come and go
    std::thread::scope(|s| {
        for k in 0..4 {
            let (all, want, shared) = (&all, &want, &shared);
            s.spawn(move || {
                for (i, (p, _)) in all.iter().enumerate().skip(k).step_by(3) {
                    assert_eq!(shared.probe_dtm(p).unwrap(), want[i]);
                }
            });
        }
    });
}

fn write_krkaa(dir: &std::path::Path) -> std::path::PathBuf {
    let t = table("KRKAA");
    write_files(dir, &t).unwrap();
    table_path(dir, &t.material, Metric::Wdl)
}

fn probe_all(dir: &std::path::Path) -> Result<(), ProbeError> {
    let tb = Tablebases::open(dir);
    let t = table("KRKAA");
    for (pos, v) in positions(&t) {
        if v != ILLEGAL {
            tb.probe_wdl(&pos)?;
        }
    }
    Ok(())
}

#[test]
fn a_flipped_data_byte_gives_a_typed_error_never_a_wrong_value() {
    let tmp = temp_dir("corrupt-flip");
    let dir = tmp.path();
    let path = write_krkaa(dir);
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 20] ^= 0x55; // inside the last block
    std::fs::write(&path, &bytes).unwrap();
    let err = probe_all(dir).unwrap_err();
    assert!(
        matches!(&err, ProbeError::File { source, .. } if matches!(**source, FileError::Corrupt { .. })),
        "{err}"
    );
}

#[test]
fn a_flipped_header_byte_or_offset_fails_the_header_checksum() {
    for at in [50usize, 150] {
        let tmp = temp_dir(&format!("corrupt-header-{at}"));
        let dir = tmp.path();
        let path = write_krkaa(dir);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[at] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let err = TableFile::open(&path, None).unwrap_err();
        assert!(matches!(err, FileError::Corrupt { .. }), "{err}");
        assert!(probe_all(dir).is_err());
    }
}

#[test]
fn a_truncated_file_is_corrupt() {
    let tmp = temp_dir("corrupt-trunc");
    let dir = tmp.path();
    let path = write_krkaa(dir);
    let bytes = std::fs::read(&path).unwrap();
    for keep in [10, 144, bytes.len() - 1] {
        std::fs::write(&path, &bytes[..keep]).unwrap();
        let err = TableFile::open(&path, None).unwrap_err();
        assert!(matches!(err, FileError::Corrupt { .. }), "{keep}: {err}");
    }
}

#[test]
fn another_version_is_unsupported() {
    let tmp = temp_dir("corrupt-version");
    let dir = tmp.path();
    let path = write_krkaa(dir);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[8] = 99;
    std::fs::write(&path, &bytes).unwrap();
    let err = TableFile::open(&path, None).unwrap_err();
    assert!(
        matches!(err, FileError::Version { version: 99, .. }),
        "{err}"
    );
}

#[test]
fn a_file_of_another_material_under_the_right_name_is_refused() {
    let tmp = temp_dir("corrupt-other");
    let dir = tmp.path();
    let krk = table("KRK");
    write_files(dir, &krk).unwrap();
    let kck: Material = "KCK".parse().unwrap();
    for metric in [Metric::Wdl, Metric::Dtm] {
        std::fs::copy(
            table_path(dir, &krk.material, metric),
            table_path(dir, &kck, metric),
        )
        .unwrap();
    }
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4C4/4K4 w").unwrap();
    let err = Tablebases::open(dir).probe_wdl(&pos).unwrap_err();
    assert!(
        matches!(&err, ProbeError::File { source, .. } if matches!(**source, FileError::WrongTable { .. })),
        "{err}"
    );
    // and a missing table names the command that makes it
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4N4/4K4 w").unwrap();
    let err = Tablebases::open(dir)
        .probe_wdl(&pos)
        .unwrap_err()
        .to_string();
    assert!(err.contains("xqdb gen KNK"), "{err}");
}

/// A rule-set-0 KRKN (every cycle a draw) labelled as rule set 1, in a set with the real
/// tables one capture away: consistent move by move, yet some of its draws are positions
/// whose side can only avoid loss by checking forever.
fn mislabelled_krkn() -> (Material, TableSet) {
    use xqdb::board::rules::RuleSet;
    use xqdb::tablebase::generate::GenOptions;
    let none = GenOptions {
        rules: RuleSet::CyclesDraw,
        ..GenOptions::default()
    };
    let krkn: Material = "KRKN".parse().unwrap();
    let mut plain = TableSet::new();
    for m in closure(&[krkn]) {
        if m != krkn {
            plain.insert(Arc::new(generate(m, &plain, none).unwrap()));
        }
    }
    let mut wrong = generate(krkn, &plain, none).unwrap();
    wrong.rules = RuleSet::CheckChase;
    let mut set = TableSet::new();
    for m in closure(&[krkn]) {
        if m != krkn {
            set.insert(tables().get(&m).unwrap().clone());
        }
    }
    set.insert(Arc::new(wrong));
    (krkn, set)
}

/// The verifier's trap check: the mislabelled KRKN's draws that only perpetual check holds
/// must be called missed rulings.
#[test]
fn verify_finds_perpetual_checks_a_table_failed_to_rule() {
    let (krkn, set) = mislabelled_krkn();
    let rep = verify_table(set.get(&krkn).unwrap(), &set);
    assert!(rep.mismatches > 0, "the missed rulings went unnoticed");
    for e in &rep.examples {
        assert!(e.why.contains("missed ruling"), "{e:?}");
    }
}

/// The same trap check from the files: verification of a table in its files (one side to
/// move at a time, sub-tables through a block cache, the trap check on bitsets) finds the
/// same missed rulings as the table in memory.
#[test]
fn verify_files_finds_the_same_missed_rulings() {
    use xqdb::tablebase::file::write_files;
    use xqdb::tablebase::verify::verify_files;
    let (krkn, set) = mislabelled_krkn();
    let dir = temp_dir("verify-trap");
    for m in closure(&[krkn]) {
        write_files(dir.path(), set.get(&m).unwrap()).unwrap();
    }
    let in_memory = verify_table(set.get(&krkn).unwrap(), &set);
    let from_files = verify_files(dir.path(), &krkn).unwrap();
    assert!(
        from_files.mismatches > 0,
        "the missed rulings went unnoticed"
    );
    assert_eq!(from_files.mismatches, in_memory.mismatches);
    assert_eq!(from_files.checked, in_memory.checked);
    for e in &from_files.examples {
        assert!(e.why.contains("missed ruling"), "{e:?}");
    }
}

/// Files of format version 1 (blocks of values byte by byte, no tag; `tests/data/format-v1`
/// holds KRK and KRKN as the generator wrote them before version 2) are still read, probed
/// and written again as version 2 with the same values.
#[test]
fn format_version_1_files_are_still_read() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/format-v1");
    let tmp = temp_dir("format-v1");
    let tb = Tablebases::open(&dir);
    for name in ["KRK", "KRKN"] {
        let m: Material = name.parse().unwrap();
        for metric in [Metric::Wdl, Metric::Dtm] {
            let f = TableFile::open(&table_path(&dir, &m, metric), Some((m, metric))).unwrap();
            assert_eq!(f.header.version, 1, "{name} {metric:?}");
        }
        let old = load_table(&dir, &m, true).unwrap();
        let new = table(name);
        assert!(old.values == new.values, "{name}: version 1 values differ");
        for (pos, v) in positions(&new).step_by(7) {
            if v != ILLEGAL {
                assert_eq!(tb.probe_dtm(&pos).ok(), expected(v), "{}", pos.to_fen());
            }
        }
        write_files(tmp.path(), &old).unwrap();
        for metric in [Metric::Wdl, Metric::Dtm] {
            let f = TableFile::open(&table_path(tmp.path(), &m, metric), None).unwrap();
            assert_eq!(f.header.version, xqdb::tablebase::file::VERSION);
        }
        let back = load_table(tmp.path(), &m, true).unwrap();
        assert!(
            back.values == old.values && back.verdicts == old.verdicts,
            "{name}"
        );
    }
}
