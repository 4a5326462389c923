//! Putting a table's files in place so that no reader ever sees half a table.
//!
//! Each file is first written whole under a temporary name in the table folder
//! ([`super::file::temp_path`]: `NAME.EXT.PID-N.tmp`, which nothing opens) and flushed to
//! disk. [`commit_files`] then renames them into place with the WDL file last, after taking
//! away the WDL file of an older table first: probing opens a table through its WDL file, so
//! until the last rename the table is absent, and after it whole. The folder itself is
//! flushed last, so the renames survive a power loss.

use std::fs;
use std::path::{Path, PathBuf};

/// A file written under a temporary name, to be renamed into place.
#[derive(Clone, Debug)]
pub struct Pending {
    /// The temporary file (complete and flushed).
    pub tmp: PathBuf,
    /// Its final name.
    pub path: PathBuf,
}

/// Flush a folder's entries (renames, new files) to disk.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

/// Rename `files` into place in `dir` in order, the last one (the WDL file) last; a file
/// already at the last one's name is removed first, so that the table is invisible while
/// the others change. On an error every temporary file not yet renamed is removed; the
/// error names the file.
///
/// Test hook: with `XQDB_TEST_ABORT_IN_COMMIT` set, the process ends abruptly (exit status
/// 87) after the first rename, as a kill at the worst moment would.
pub fn commit_files(dir: &Path, files: &[Pending]) -> Result<(), (PathBuf, std::io::Error)> {
    let cleanup = |from: usize| {
        for f in &files[from..] {
            let _ = fs::remove_file(&f.tmp);
        }
    };
    if let Some(last) = files.last() {
        match fs::remove_file(&last.path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                cleanup(0);
                return Err((last.path.clone(), e));
            }
        }
    }
    for (k, f) in files.iter().enumerate() {
        if let Err(e) = fs::rename(&f.tmp, &f.path) {
            cleanup(k);
            return Err((f.path.clone(), e));
        }
        if k == 0 && files.len() > 1 && std::env::var_os("XQDB_TEST_ABORT_IN_COMMIT").is_some() {
            eprintln!(
                "test hook: ending the process inside the commit, after {}",
                f.path.display()
            );
            // SAFETY: _exit ends the process at once (the point is to die as a kill would).
            unsafe { libc::_exit(87) };
        }
    }
    sync_dir(dir).map_err(|e| (dir.to_path_buf(), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_renames_in_order_and_replaces() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let d = dir.path();
        fs::write(d.join("A.xqw"), b"old").expect("write");
        let files: Vec<Pending> = ["A.xqd", "A.xqw"]
            .iter()
            .map(|n| {
                let path = d.join(n);
                let tmp = super::super::file::temp_path(&path);
                fs::write(&tmp, n.as_bytes()).expect("write");
                Pending { tmp, path }
            })
            .collect();
        commit_files(d, &files).expect("commit");
        assert_eq!(fs::read(d.join("A.xqw")).expect("read"), b"A.xqw");
        assert_eq!(fs::read(d.join("A.xqd")).expect("read"), b"A.xqd");
        let left: Vec<_> = fs::read_dir(d).expect("list").collect();
        assert_eq!(left.len(), 2);
        // a missing temporary file: an error naming it, the others removed
        let files = vec![
            Pending {
                tmp: d.join("gone.tmp"),
                path: d.join("B.xqd"),
            },
            Pending {
                tmp: d.join("B.xqw.tmp"),
                path: d.join("B.xqw"),
            },
        ];
        fs::write(d.join("B.xqw.tmp"), b"x").expect("write");
        let (path, _) = commit_files(d, &files).expect_err("the first rename fails");
        assert_eq!(path, d.join("B.xqd"));
        assert!(!d.join("B.xqw.tmp").exists() && !d.join("B.xqw").exists());
    }
}
