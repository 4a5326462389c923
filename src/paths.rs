//! Default folders: `XQDB_HOME` when set, else the current directory.

use std::path::{Path, PathBuf};

fn home() -> PathBuf {
    std::env::var_os("XQDB_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Tablebase folder: `XQDB_TABLES`, else `$XQDB_HOME/tables`, else `tables`.
pub fn tables_dir() -> PathBuf {
    std::env::var_os("XQDB_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| home().join("tables"))
}

/// Book folder: `$XQDB_HOME/books`, else `books`.
pub fn books_dir() -> PathBuf {
    home().join("books")
}

/// Refuse an output that is one of the inputs (the same file, by any path): writing it
/// would destroy what is being read. `inputs` are files (folders are not searched here;
/// pass the files found in them).
pub fn check_output_not_input(output: &Path, inputs: &[PathBuf]) -> Result<(), String> {
    let Ok(out) = std::fs::metadata(output) else {
        return Ok(()); // a new file cannot be an input
    };
    for i in inputs {
        if let Ok(m) = std::fs::metadata(i) {
            if same_file(&out, &m) {
                return Err(format!(
                    "{}: the output is also an input ({}); choose another output",
                    output.display(),
                    i.display()
                ));
            }
        }
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok() && a.is_file() && b.is_file()
}
