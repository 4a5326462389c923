//! Checkpoint files: a table's generation state saved beside its files, so that an
//! interrupted `gen` resumes where it was (see [`crate::tablebase::generate::Checkpoint`]).
//!
//! `<MATERIAL>.xqckpt` in the table folder (on shared storage, a table whose worker died is
//! resumed by whichever worker runs it next). The layout is in FORMAT.md: a header (magic,
//! version, material, rule set, metrics, positions, step), the array lengths, zstd frames
//! (level 1, one per MiB of each state array, compressed one at a time with one context,
//! each after its compressed length), and a CRC-32 of
//! everything before it. A file is written to a temporary name, flushed to disk and renamed,
//! so a checkpoint is whole or absent; a file that fails its CRC or belongs to another table,
//! rule set, metrics or index is reported and ignored.
//!
//! When to save ([`SavePolicy`]): at a safe point, only when at least
//! [`SavePolicy::min_interval`] has passed since the last save (or the table's start) and that
//! time is at least [`SavePolicy::cost_ratio`] times what the last save cost, so saving costs
//! at most about 1/ratio of the generation time.

use super::generate::{Checkpoint, Meta, State, Step};
use super::table::TbError;
use crate::board::rules::RuleSet;
use crate::index::Material;
use std::fs;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const MAGIC: [u8; 8] = *b"XQDBCKPT";
const VERSION: u32 = 2;
/// Bytes of a state array per zstd frame.
const FRAME: usize = 1 << 20;
/// zstd level of the frames (fast: a save must cost little next to the generation).
const LEVEL: i32 = 1;
/// Fixed header size (see FORMAT.md).
const HEADER: usize = 64;

/// Extension of checkpoint files.
pub const EXTENSION: &str = "xqckpt";

/// Path of the checkpoint of `m` in `dir`.
pub fn checkpoint_path(dir: &Path, m: &Material) -> PathBuf {
    dir.join(format!("{m}.{EXTENSION}"))
}

/// When checkpoints are saved, and the test hooks.
#[derive(Clone, Debug)]
pub struct SavePolicy {
    /// No save sooner than this after the last (or after the table's start).
    pub min_interval: Duration,
    /// No save before the time since the last save is this many times its cost.
    pub cost_ratio: f64,
    /// Save at every safe point (tests).
    pub every: bool,
    /// Test hook: the process ends abruptly (exit status 86) after this many saves.
    pub abort_after: Option<u64>,
}

impl Default for SavePolicy {
    fn default() -> Self {
        SavePolicy {
            min_interval: Duration::from_secs(10),
            cost_ratio: 10.0,
            every: false,
            abort_after: None,
        }
    }
}

impl SavePolicy {
    /// The default policy with the environment's overrides: `XQDB_CHECKPOINT_EVERY=1` saves
    /// at every safe point, `XQDB_CHECKPOINT_EVERY=0` never saves, and the test hook
    /// `XQDB_TEST_ABORT_AFTER_CHECKPOINTS=N` ends the process right after the N-th save.
    pub fn from_env() -> SavePolicy {
        let mut p = SavePolicy::default();
        match std::env::var("XQDB_CHECKPOINT_EVERY").ok().as_deref() {
            Some("1") => p.every = true,
            Some("0") => p.min_interval = Duration::MAX,
            _ => {}
        }
        p.abort_after = std::env::var("XQDB_TEST_ABORT_AFTER_CHECKPOINTS")
            .ok()
            .and_then(|v| v.parse().ok());
        p
    }
}

/// What the saves of a [`FileCheckpoint`] cost so far.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct SaveStats {
    /// Number of saves.
    pub saves: u64,
    /// Total wall time of the saves, in seconds.
    pub seconds: f64,
    /// Size of the last checkpoint file, in bytes.
    pub last_bytes: u64,
    /// Size of the state it held (uncompressed), in bytes.
    pub last_state_bytes: u64,
}

struct Clock {
    /// End of the last save, or the table's start.
    since: Instant,
    /// Cost of the last save.
    cost: Duration,
    stats: SaveStats,
}

/// Checkpoints as files in a table folder.
pub struct FileCheckpoint {
    dir: PathBuf,
    policy: SavePolicy,
    clock: Mutex<Clock>,
    saves: AtomicU64,
}

impl FileCheckpoint {
    /// Checkpoints in `dir`, saved by `policy`.
    pub fn new(dir: &Path, policy: SavePolicy) -> FileCheckpoint {
        FileCheckpoint {
            dir: dir.to_path_buf(),
            policy,
            clock: Mutex::new(Clock {
                since: Instant::now(),
                cost: Duration::ZERO,
                stats: SaveStats::default(),
            }),
            saves: AtomicU64::new(0),
        }
    }

    /// What the saves cost so far.
    pub fn stats(&self) -> SaveStats {
        self.lock_clock().stats
    }

    fn lock_clock(&self) -> std::sync::MutexGuard<'_, Clock> {
        self.clock.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn due(&self) -> bool {
        if self.policy.every {
            return true;
        }
        let c = self.lock_clock();
        let since = c.since.elapsed();
        since >= self.policy.min_interval
            && since.as_secs_f64() >= self.policy.cost_ratio * c.cost.as_secs_f64()
    }

    /// Write the checkpoint of `meta` at `step` (temporary file, flushed, renamed).
    fn save(&self, meta: &Meta, step: Step, state: &State<'_>) -> Result<u64, TbError> {
        let path = checkpoint_path(&self.dir, &meta.material);
        let io = |p: &Path, e: std::io::Error| TbError::Io {
            path: format!("checkpoint {}: {}", meta.material, p.display()),
            source: e,
        };
        // every array in frames of FRAME bytes
        let mut jobs = Vec::new();
        for k in 0..state.arrays() {
            let len = state.len(k);
            for start in (0..len).step_by(FRAME) {
                jobs.push((k, start, FRAME.min(len - start)));
            }
        }
        let mut head = header(meta, step);
        head.extend_from_slice(&(state.arrays() as u32).to_le_bytes());
        for k in 0..state.arrays() {
            head.extend_from_slice(&(state.len(k) as u64).to_le_bytes());
        }
        head.extend_from_slice(&(jobs.len() as u32).to_le_bytes());
        let tmp = super::file::temp_path(&path);
        // one frame at a time, one compression context and input buffer for all: the
        // memory of a save stays about 2 MiB (KCAAKCAA's start pass peaks with it), and a
        // level-1 save runs at several hundred MB/s (the policy bounds its share anyway)
        let mut size = 0u64;
        let mut write = || -> std::io::Result<()> {
            let mut f = std::io::BufWriter::new(fs::File::create(&tmp)?);
            let mut crc = crc32fast::Hasher::new();
            let mut put = |f: &mut std::io::BufWriter<fs::File>, b: &[u8]| {
                crc.update(b);
                size += b.len() as u64;
                f.write_all(b)
            };
            put(&mut f, &head)?;
            let mut zc = zstd::bulk::Compressor::new(LEVEL)?;
            let mut raw = Vec::new();
            let mut out = Vec::new();
            for &(k, start, len) in &jobs {
                raw.resize(len, 0);
                state.read(k, start, &mut raw)?;
                out.clear();
                out.reserve(zstd::zstd_safe::compress_bound(len));
                zc.compress_to_buffer(&raw, &mut out)?;
                put(&mut f, &(out.len() as u32).to_le_bytes())?;
                put(&mut f, &out)?;
            }
            f.write_all(&crc.finalize().to_le_bytes())?;
            size += 4;
            f.into_inner().map_err(|e| e.into_error())?.sync_all()
        };
        if let Err(e) = write() {
            let _ = fs::remove_file(&tmp);
            return Err(io(&tmp, e));
        }
        if let Err(e) = fs::rename(&tmp, &path) {
            let _ = fs::remove_file(&tmp);
            return Err(io(&path, e));
        }
        super::commit::sync_dir(&self.dir).map_err(|e| io(&self.dir, e))?;
        Ok(size)
    }

    /// Check the checkpoint at `path` for `meta` and `state` (CRC, header, array sizes, frame
    /// count): its step, with the reader at the first frame; or why it cannot be used.
    fn check(
        &self,
        path: &Path,
        meta: &Meta,
        state: &State<'_>,
    ) -> Result<(Step, BufReader<fs::File>), String> {
        let open = || fs::File::open(path).map(BufReader::new);
        // first pass: the CRC of the whole file
        let total = fs::metadata(path).map_err(|e| e.to_string())?.len();
        if total < HEADER as u64 + 4 {
            return Err(format!("{total} bytes, too short"));
        }
        let mut r = open().map_err(|e| e.to_string())?;
        let mut crc = crc32fast::Hasher::new();
        let mut left = total - 4;
        let mut buf = vec![0u8; 1 << 20];
        while left > 0 {
            let n = (buf.len() as u64).min(left) as usize;
            r.read_exact(&mut buf[..n]).map_err(|e| e.to_string())?;
            crc.update(&buf[..n]);
            left -= n as u64;
        }
        let mut stored = [0u8; 4];
        r.read_exact(&mut stored).map_err(|e| e.to_string())?;
        if crc.finalize() != u32::from_le_bytes(stored) {
            return Err("CRC mismatch (damaged file)".into());
        }
        // second pass: header, frame table, frames
        let mut r = open().map_err(|e| e.to_string())?;
        let mut h = [0u8; HEADER];
        r.read_exact(&mut h).map_err(|e| e.to_string())?;
        let (saved, step) = parse_header(&h)?;
        if saved != *meta {
            return Err(format!(
                "it belongs to {} rule set {} metrics {} with {} positions, this run generates {} rule set {} metrics {} with {} positions",
                saved.material, saved.rules, saved.metrics, saved.positions,
                meta.material, meta.rules, meta.metrics, meta.positions
            ));
        }
        let u32_of = |r: &mut BufReader<fs::File>| -> Result<u32, String> {
            let mut b = [0u8; 4];
            r.read_exact(&mut b).map_err(|e| e.to_string())?;
            Ok(u32::from_le_bytes(b))
        };
        let arrays = u32_of(&mut r)? as usize;
        if arrays != state.arrays() {
            return Err(format!(
                "{arrays} state arrays, expected {}",
                state.arrays()
            ));
        }
        for k in 0..arrays {
            let mut b = [0u8; 8];
            r.read_exact(&mut b).map_err(|e| e.to_string())?;
            let len = u64::from_le_bytes(b);
            if len != state.len(k) as u64 && state.sized_by_checkpoint(k) {
                // an array whose length the saved state decides (the rule rounds' slots)
                let len = usize::try_from(len).map_err(|e| e.to_string())?;
                state.resize(k, len).map_err(|e| e.to_string())?;
            }
            if len != state.len(k) as u64 {
                return Err(format!(
                    "array {k} has {len} bytes, expected {}",
                    state.len(k)
                ));
            }
        }
        let nframes = u32_of(&mut r)? as usize;
        let expected: usize = (0..arrays).map(|k| state.len(k).div_ceil(FRAME)).sum();
        if nframes != expected {
            return Err(format!("{nframes} frames, expected {expected}"));
        }
        Ok((step, r))
    }

    /// Decompress the frames of a checked checkpoint into `state`.
    fn apply(mut r: BufReader<fs::File>, state: &State<'_>) -> Result<(), String> {
        let mut frame = Vec::new();
        for k in 0..state.arrays() {
            let len = state.len(k);
            for start in (0..len).step_by(FRAME) {
                let mut b = [0u8; 4];
                r.read_exact(&mut b).map_err(|e| e.to_string())?;
                let size = u32::from_le_bytes(b) as usize;
                if size > zstd::zstd_safe::compress_bound(FRAME) {
                    return Err(format!("array {k} frame at {start}: {size} bytes"));
                }
                frame.resize(size, 0);
                r.read_exact(&mut frame).map_err(|e| e.to_string())?;
                let want = FRAME.min(len - start);
                let raw = zstd::bulk::decompress(&frame, want).map_err(|e| e.to_string())?;
                if raw.len() != want {
                    return Err(format!(
                        "array {k} frame at {start}: {} bytes, expected {want}",
                        raw.len()
                    ));
                }
                state.write(k, start, &raw);
            }
        }
        Ok(())
    }
}

/// The fixed header: magic, version, material, rule set, metrics, positions, step.
fn header(meta: &Meta, step: Step) -> Vec<u8> {
    let mut h = Vec::with_capacity(HEADER);
    h.extend_from_slice(&MAGIC);
    h.extend_from_slice(&VERSION.to_le_bytes());
    let mut name = [0u8; 32];
    let m = meta.material.to_string();
    let n = m.len().min(32);
    name[..n].copy_from_slice(&m.as_bytes()[..n]);
    h.extend_from_slice(&name);
    h.push(meta.rules.code());
    h.push(meta.metrics);
    h.extend_from_slice(&[0, 0]);
    h.extend_from_slice(&meta.positions.to_le_bytes());
    h.extend_from_slice(&step.encode());
    debug_assert_eq!(h.len(), HEADER);
    h
}

fn parse_header(h: &[u8; HEADER]) -> Result<(Meta, Step), String> {
    if h[..8] != MAGIC {
        return Err("not a checkpoint file (bad magic)".into());
    }
    let version = u32::from_le_bytes([h[8], h[9], h[10], h[11]]);
    if version != VERSION {
        return Err(format!("version {version}, this build reads {VERSION}"));
    }
    let name = &h[12..44];
    let end = name.iter().position(|&b| b == 0).unwrap_or(32);
    let name = std::str::from_utf8(&name[..end]).map_err(|_| "material name not UTF-8")?;
    let material: Material = name
        .parse()
        .map_err(|e| format!("material {name:?}: {e}"))?;
    let rules = RuleSet::from_code(h[44]).ok_or(format!("unknown rule set {}", h[44]))?;
    let metrics = h[45];
    let mut p = [0u8; 8];
    p.copy_from_slice(&h[48..56]);
    let positions = u64::from_le_bytes(p);
    let mut s = [0u8; 8];
    s.copy_from_slice(&h[56..64]);
    let step = Step::decode(s).ok_or("unknown step")?;
    Ok((
        Meta {
            material,
            rules,
            metrics,
            positions,
        },
        step,
    ))
}

/// The step and size of the checkpoint of `m` in `dir` (header only: no CRC check), for
/// `status`; None when there is none, Err when its header cannot be read.
pub fn peek(dir: &Path, m: &Material) -> Option<Result<(Step, u64), String>> {
    let path = checkpoint_path(dir, m);
    let mut f = fs::File::open(&path).ok()?;
    let mut read = || -> Result<(Step, u64), String> {
        let size = f.metadata().map_err(|e| e.to_string())?.len();
        let mut h = [0u8; HEADER];
        f.read_exact(&mut h).map_err(|e| e.to_string())?;
        let (_, step) = parse_header(&h)?;
        Ok((step, size))
    };
    Some(read())
}

impl Checkpoint for FileCheckpoint {
    fn safe_point(&self, meta: &Meta, step: Step, state: &State<'_>) -> Result<(), TbError> {
        if !self.due() {
            return Ok(());
        }
        let t = Instant::now();
        let size = self.save(meta, step, state)?;
        let cost = t.elapsed();
        {
            let mut c = self.lock_clock();
            c.cost = cost;
            c.since = Instant::now();
            c.stats.saves += 1;
            c.stats.seconds += cost.as_secs_f64();
            c.stats.last_bytes = size;
            c.stats.last_state_bytes = (0..state.arrays()).map(|k| state.len(k) as u64).sum();
        }
        let n = self.saves.fetch_add(1, Relaxed) + 1;
        if self.policy.abort_after == Some(n) {
            eprintln!(
                "test hook: ending the process after checkpoint {n} ({} at {step})",
                meta.material
            );
            // SAFETY: _exit ends the process at once; nothing is shared with other processes
            // but files, which are flushed (the point is to die as a kill would).
            unsafe { libc::_exit(86) };
        }
        Ok(())
    }

    fn restore(
        &self,
        meta: &Meta,
        state: &State<'_>,
        notify: &dyn Fn(&str),
    ) -> Result<Option<Step>, TbError> {
        {
            let mut c = self.lock_clock();
            c.since = Instant::now();
            c.cost = Duration::ZERO;
        }
        let path = checkpoint_path(&self.dir, &meta.material);
        if !path.exists() {
            return Ok(None);
        }
        let (step, reader) = match self.check(&path, meta, state) {
            Ok(x) => x,
            Err(why) => {
                notify(&format!(
                    "{}: checkpoint {} ignored ({why}); generating from the start",
                    meta.material,
                    path.display()
                ));
                return Ok(None);
            }
        };
        // past its CRC a frame cannot fail but by a bug; the state is then half written
        Self::apply(reader, state).map_err(|why| TbError::Corrupt {
            path: path.display().to_string(),
            reason: format!("checkpoint frames: {why}; delete the file to start over"),
        })?;
        Ok(Some(step))
    }

    fn finished(&self, meta: &Meta) -> Result<(), TbError> {
        let path = checkpoint_path(&self.dir, &meta.material);
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(TbError::Io {
                path: path.display().to_string(),
                source: e,
            }),
        }
    }
}
