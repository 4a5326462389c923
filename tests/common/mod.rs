//! Helpers shared by the integration tests: the shared game records, temporary folders and
//! one seeded random number generator.
//!
//! Each test file that uses them includes this module, and none uses all of it.
#![allow(dead_code)]

use rand::rngs::StdRng;
use rand::SeedableRng;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use tempfile::TempDir;
use xqdb::board::attacks::reachable;
use xqdb::board::{Color, Piece, Role, Setup};
use xqdb::index::Material;

fn shared_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/games")
        .join(rel)
}

/// A file or folder of the shared game records (`../shared/games/<rel>`), for a test marked
/// `#[cfg_attr(xqdb_no_shared, ignore = "needs ../shared")]` (reported as ignored when
/// `../shared` is absent, see `build.rs`). Panics when `../shared` is there without it.
pub fn shared(rel: &str) -> PathBuf {
    let p = shared_path(rel);
    assert!(p.exists(), "{} is missing from ../shared", p.display());
    p
}

/// The same for a test that also proves something without the shared records: None, with
/// a notice, when they are absent.
pub fn shared_if_present(rel: &str) -> Option<PathBuf> {
    let p = shared_path(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("notice: {} is absent, that part is skipped", p.display());
        None
    }
}

/// The binary under test: `$XQDB_TEST_BIN` when set (to replay a regression test against
/// another build), else the one cargo built.
#[allow(dead_code)]
pub fn bin() -> PathBuf {
    std::env::var_os("XQDB_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_xqdb")))
}

/// A new empty temporary folder, removed with everything in it when dropped.
pub fn temp_dir(tag: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("xqdb-{tag}-"))
        .tempdir()
        .expect("a temporary folder")
}

/// The random number generator of the tests: seeded, so every run draws the same numbers.
pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// Every placement of a material, by brute force: each piece on every point it can reach
/// (`board::attacks::reachable`), one piece per point, kept when
/// `Setup::validate_placement` accepts it (two unpassed pawns on one file are refused
/// there); identical pieces swapped count once.
pub fn all_placements(m: Material) -> Vec<Setup> {
    fn rec(
        i: usize,
        pieces: &[Piece],
        s: &mut Setup,
        out: &mut Vec<Setup>,
        seen: &mut HashSet<Vec<(u8, u8)>>,
    ) {
        if i == pieces.len() {
            let key = s
                .pieces()
                .map(|(q, p)| (q as u8, p.index() as u8))
                .collect();
            if s.validate_placement().is_ok() && seen.insert(key) {
                out.push(s.clone());
            }
            return;
        }
        let p = pieces[i];
        for q in reachable(p.color, p.role) {
            if s.piece_at(q).is_none() {
                s.put(q, p);
                rec(i + 1, pieces, s, out, seen);
                s.remove(q);
            }
        }
    }
    let mut pieces = Vec::new();
    for c in Color::ALL {
        for r in Role::ALL {
            pieces.extend(std::iter::repeat_n(
                Piece::new(c, r),
                m.count(c, r) as usize,
            ));
        }
    }
    let mut out = Vec::new();
    rec(
        0,
        &pieces,
        &mut Setup::empty(),
        &mut out,
        &mut HashSet::new(),
    );
    out
}

/// `xqdb ARGS --tables DIR` with the environment `env`, the test hooks of the generator
/// (checkpoint interval, aborts) cleared first.
pub fn xqdb_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_xqdb"))
        .args(args)
        .arg("--tables")
        .arg(dir)
        .env_remove("XQDB_CHECKPOINT_EVERY")
        .env_remove("XQDB_TEST_ABORT_AFTER_CHECKPOINTS")
        .env_remove("XQDB_TEST_ABORT_IN_COMMIT")
        .envs(env.iter().copied())
        .output()
        .expect("xqdb runs")
}

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Every file of a folder by name with its bytes.
pub fn files_of(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .expect("a folder")
        .map(|e| {
            let e = e.expect("an entry");
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("readable"),
            )
        })
        .collect()
}
