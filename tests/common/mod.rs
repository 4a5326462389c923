//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

/// A file of the shared game collections (`../shared/games/<rel>`), or None with a notice
/// when the collections are absent (the test is then skipped).
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
