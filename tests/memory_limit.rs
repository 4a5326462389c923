//! A table whose generation needs more memory than the process is allowed: under a kernel
//! memory limit (a memory cgroup, hard: the kernel kills a process that goes beyond it and
//! has nothing to reclaim) the in-memory generation of KRNKAB (18 M positions, about 33 MiB
//! at its peak) is killed and leaves no table file, while `gen --memory` builds the same
//! table under the same limit, to the same bytes as an unlimited run, and `verify --memory`
//! checks it there: the size of a table is bounded by disk, not by the memory at hand.
//!
//! Making a memory cgroup needs root and a writable cgroup file system (v1 or v2); where
//! that is not possible the test says so and does nothing else.

mod common;
use common::{files_of as files, temp_dir, text, xqdb_in as xqdb};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const TABLE: &str = "KRNKAB";
/// The hard limit: below the in-memory generation's peak (about 33 MiB resident), above what
/// the out-of-core generation keeps outside the page cache.
const LIMIT: u64 = 22 << 20;
/// The out-of-core limit given to `gen`: far below the table's needs.
const GEN_LIMIT: &str = "8M";

/// A memory cgroup of its own, removed when dropped.
struct MemCgroup {
    dir: PathBuf,
    /// The file a process id is written to, to move that process in.
    procs: PathBuf,
    /// True when swap is no way around the limit (no swap, or swap limited too).
    hard: bool,
}

fn write(path: &Path, value: &str) -> Result<(), String> {
    std::fs::write(path, value).map_err(|e| format!("{}: {e}", path.display()))
}

fn no_swap() -> bool {
    std::fs::read_to_string("/proc/meminfo")
        .map(|m| {
            m.lines()
                .any(|l| l.starts_with("SwapTotal:") && l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

impl MemCgroup {
    /// A new cgroup limited to `limit` bytes: cgroup v2 where the memory controller is
    /// there, else v1's memory hierarchy.
    fn new(limit: u64) -> Result<MemCgroup, String> {
        let name = format!("xqdb-test-{}", std::process::id());
        let v2 = Path::new("/sys/fs/cgroup");
        let v2_controllers = std::fs::read_to_string(v2.join("cgroup.controllers"));
        if v2_controllers.is_ok_and(|c| c.split_whitespace().any(|c| c == "memory")) {
            // the memory controller for the children (may be enabled already)
            let _ = write(&v2.join("cgroup.subtree_control"), "+memory");
            return MemCgroup::create(v2.join(&name), limit, "memory.max", ("memory.swap.max", 0));
        }
        let v1 = Path::new("/sys/fs/cgroup/memory");
        if !v1.join("memory.limit_in_bytes").exists() {
            return Err("no cgroup memory controller (v1 or v2) under /sys/fs/cgroup".into());
        }
        // v1 bounds memory and swap together
        let swap = ("memory.memsw.limit_in_bytes", limit);
        MemCgroup::create(v1.join(&name), limit, "memory.limit_in_bytes", swap)
    }

    /// The cgroup `dir` with `limit` written to its file `limit_file` and `swap.1` to its
    /// file `swap.0` (a swap limit the kernel may not offer).
    fn create(
        dir: PathBuf,
        limit: u64,
        limit_file: &str,
        swap: (&str, u64),
    ) -> Result<MemCgroup, String> {
        std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        // removed on drop from here on, whatever fails next
        let mut group = MemCgroup {
            procs: dir.join("cgroup.procs"),
            dir,
            hard: false,
        };
        write(&group.dir.join(limit_file), &limit.to_string())?;
        let swap_limited = write(&group.dir.join(swap.0), &swap.1.to_string()).is_ok();
        group.hard = swap_limited || no_swap();
        Ok(group)
    }

    /// `xqdb ARGS` in `dir`, run inside the cgroup (a shell moves itself in, then becomes
    /// the binary, so a kill by the kernel is the binary's exit status).
    fn xqdb(&self, dir: &Path, args: &[&str]) -> Output {
        Command::new("sh")
            .arg("-c")
            .arg(r#"echo $$ > "$0" && exec "$@""#)
            .arg(&self.procs)
            .arg(env!("CARGO_BIN_EXE_xqdb"))
            .args(args)
            .arg("--tables")
            .arg(dir)
            .env_remove("XQDB_CHECKPOINT_EVERY")
            .env_remove("XQDB_TEST_ABORT_AFTER_CHECKPOINTS")
            .output()
            .expect("sh runs")
    }
}

impl Drop for MemCgroup {
    fn drop(&mut self) {
        // empty once its processes are gone; the kernel may take a moment to notice
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        eprintln!("notice: could not remove the cgroup {}", self.dir.display());
    }
}

#[test]
fn a_table_beyond_the_memory_limit_is_generated_out_of_core() {
    let group = match MemCgroup::new(LIMIT) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("notice: no memory cgroup can be made here ({e}); test skipped");
            return;
        }
    };
    let dir = temp_dir("memlimit");
    let metrics = ["--metrics", "wdl,dtm", "--threads", "2"];
    // the closure without a limit; the table itself is the reference
    let mut args = vec!["gen", TABLE];
    args.extend(metrics);
    let out = xqdb(dir.path(), &args, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let want = files(dir.path());
    let table_files: Vec<String> = want
        .keys()
        .filter(|n| n.starts_with(&format!("{TABLE}.")) && !n.ends_with(".xqverified"))
        .cloned()
        .collect();
    assert_eq!(table_files.len(), 2, "{table_files:?}");
    let remove_table = || {
        for entry in std::fs::read_dir(dir.path()).expect("the folder") {
            let path = entry.expect("an entry").path();
            let name = path
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .to_string();
            if name.starts_with(&format!("{TABLE}.")) {
                std::fs::remove_file(&path).expect("removable");
            }
        }
    };
    remove_table();

    let mut args = vec!["gen", TABLE, "--no-deps"];
    args.extend(metrics);
    // in memory, under the limit: killed by the kernel, no table file left
    let out = group.xqdb(dir.path(), &args);
    if group.hard {
        assert_eq!(
            out.status.signal(),
            Some(9),
            "in memory under {} MiB: {:?} {}",
            LIMIT >> 20,
            out.status,
            text(&out.stderr)
        );
        let left = files(dir.path());
        for name in &table_files {
            assert!(!left.contains_key(name), "a killed run left {name}");
        }
    } else {
        eprintln!("notice: swap is not limited here: the in-memory run is not expected to die");
    }
    remove_table();

    // out of core, under the same limit: the same bytes
    args.extend(["--memory", GEN_LIMIT]);
    let out = group.xqdb(dir.path(), &args);
    let err = text(&out.stderr);
    assert!(
        out.status.success(),
        "out of core under {} MiB: {:?} {err}",
        LIMIT >> 20,
        out.status
    );
    assert!(err.contains(&format!("{TABLE}: out of core")), "{err}");
    let got = files(dir.path());
    for name in &table_files {
        assert!(got.get(name) == want.get(name), "{name} differs");
    }
    // and verified under the same limit, out of core too
    let out = group.xqdb(dir.path(), &["verify", TABLE, "--memory", GEN_LIMIT]);
    let said = text(&out.stdout);
    assert!(
        out.status.success(),
        "verify under {} MiB: {:?} {said} {}",
        LIMIT >> 20,
        out.status,
        text(&out.stderr)
    );
    assert!(
        said.contains(", 0 mismatches (out of core, arrays in "),
        "{said}"
    );
    let got = files(dir.path());
    assert!(
        !got.keys()
            .any(|n| n.ends_with(".work") || n.ends_with(".xqlock")),
        "nothing left behind: {:?}",
        got.keys().collect::<Vec<_>>()
    );
}
