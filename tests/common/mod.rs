//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

/// A file of the shared game collections (`../shared/games/<rel>`), or None with a notice
/// when the collections are absent (the test is then skipped).
#[allow(dead_code)]
pub fn shared(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/games")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("notice: {} is absent, test skipped", p.display());
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
