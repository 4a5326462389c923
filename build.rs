//! Tells the tests whether the shared material (`../shared`: game records, reference
//! documents) is present. Tests that need it carry
//! `#[cfg_attr(xqdb_no_shared, ignore = "needs ../shared")]`, so that without it they
//! report as ignored rather than passed.

use std::path::Path;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(xqdb_no_shared)");
    if Path::new("../shared").is_dir() {
        // run again when the folder changes or goes away
        println!("cargo:rerun-if-changed=../shared");
    } else {
        println!("cargo:rustc-cfg=xqdb_no_shared");
        // watching a path that does not exist would run this script on every build: a
        // folder that appears later is seen after `touch build.rs` or a clean build
        println!("cargo:rerun-if-changed=build.rs");
    }
}
