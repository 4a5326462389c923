//! Default folders: `XQDB_HOME` when set, else the current directory.

use std::path::PathBuf;

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
