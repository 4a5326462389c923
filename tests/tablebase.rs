//! Tablebase generation: full verification, known endgame facts, DTM semantics, replays of
//! the longest mates, and files.

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
            let t = generate(m, &set, false).unwrap();
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
    let dir = std::env::temp_dir().join(format!("xqdb-tb-test-{}", std::process::id()));
    for name in ["KRK", "KCPK", "KRKAA"] {
        let t = table(name);
        xqdb::tablebase::file::write_files(&dir, &t.material, &t.values).unwrap();
        let back = load_table(&dir, &t.material).unwrap();
        assert_eq!(back.values, t.values, "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
