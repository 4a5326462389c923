//! Out-of-core generation (`gen --memory LIMIT`): the generator's per-position arrays, and
//! the table they turn into, kept in a work file instead of anonymous memory.
//!
//! A [`Buf`] is a byte buffer in one of two places: the heap (a plain `Vec<u8>`), or a
//! region of a [`WorkFile`] mapped shared into memory. Either way the code that uses it sees
//! a `[u8]`. A [`Backing`] says where new buffers go; [`Backing::for_table`] picks the work
//! file when a table's estimated state does not fit under the limit.
//!
//! The kernel keeps the mapped pages of a work file in its page cache and writes dirty ones
//! back to the file on its own; what bounds this process's resident set is a *trimmer*
//! thread, which reads the resident set every [`TRIM_EVERY_MS`] milliseconds and, when it is
//! above half the limit, drops every mapped page from this process (`madvise(MADV_DONTNEED)`,
//! which for a shared file mapping keeps the data: a dirty page stays dirty in the page
//! cache, a page touched again is mapped again from the cache or read back from the file).
//! The page cache itself is the kernel's reclaimable memory, not this process's.
//!
//! The work file (`<MATERIAL>.work` in the table folder) is raw arrays at page-aligned
//! offsets, of no use once the process ends: it is created afresh by each generation,
//! its space allocated up front (so that a full disk is an error when a table starts, not a
//! fault in the middle), each region's space freed when its buffer is dropped, and the file
//! removed when the last buffer goes. Checkpoints (see [`super::checkpoint`]) are saved
//! from it as from memory.

use super::table::TbError;
use crate::index::Material;
use memmap2::{MmapMut, MmapOptions};
use std::fs::{File, OpenOptions};
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// How often the trimmer looks at the resident set (milliseconds).
pub const TRIM_EVERY_MS: u64 = 5;

/// [`WorkFile::tick`] checks the resident set at every this many calls (a level scan of
/// KRNKAABB makes about 20,000 calls).
pub const TRIM_CHECK_EVERY: u64 = 32;

/// Alignment of a region in the work file (a mapping's offset must be a multiple of the
/// page size: 64 KiB suits every page size Linux uses; the gaps are never allocated).
const REGION_ALIGN: u64 = 64 << 10;

/// A byte buffer on the heap or in a work file (see the module documentation).
pub struct Buf {
    inner: Inner,
    len: usize,
}

enum Inner {
    Heap(Vec<u8>),
    Mapped {
        /// Taken only by `drop`.
        map: Option<MmapMut>,
        work: Arc<WorkFile>,
        /// Offset of the region in the file.
        offset: u64,
    },
}

impl Buf {
    /// Where this buffer lives, as a backing for more buffers of the same table.
    pub fn backing(&self) -> Backing {
        match &self.inner {
            Inner::Heap(_) => Backing::Heap,
            Inner::Mapped { work, .. } => Backing::File(work.clone()),
        }
    }

    /// The work file the buffer is in, if any.
    pub fn work_file(&self) -> Option<&Arc<WorkFile>> {
        match &self.inner {
            Inner::Heap(_) => None,
            Inner::Mapped { work, .. } => Some(work),
        }
    }

    /// True when the buffer is in a work file.
    pub fn is_mapped(&self) -> bool {
        matches!(self.inner, Inner::Mapped { .. })
    }

    /// Shorten to `len` bytes (no effect when already shorter).
    pub fn truncate(&mut self, len: usize) {
        if let Inner::Heap(v) = &mut self.inner {
            v.truncate(len);
        }
        self.len = self.len.min(len);
    }

    /// The whole buffer's first byte, for shared atomic access (see `generate::bytes`).
    pub(crate) fn as_mut_ptr(&mut self) -> *mut u8 {
        self.deref_mut().as_mut_ptr()
    }
}

impl Deref for Buf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.inner {
            Inner::Heap(v) => &v[..self.len],
            Inner::Mapped { map: Some(m), .. } => &m[..self.len],
            Inner::Mapped { map: None, .. } => &[],
        }
    }
}

impl DerefMut for Buf {
    fn deref_mut(&mut self) -> &mut [u8] {
        let len = self.len;
        match &mut self.inner {
            Inner::Heap(v) => &mut v[..len],
            Inner::Mapped { map: Some(m), .. } => &mut m[..len],
            Inner::Mapped { map: None, .. } => &mut [],
        }
    }
}

impl AsRef<[u8]> for Buf {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl From<Vec<u8>> for Buf {
    fn from(v: Vec<u8>) -> Buf {
        Buf {
            len: v.len(),
            inner: Inner::Heap(v),
        }
    }
}

impl Clone for Buf {
    /// A copy on the heap.
    fn clone(&self) -> Buf {
        Buf::from(self.to_vec())
    }
}

impl PartialEq for Buf {
    fn eq(&self, other: &Buf) -> bool {
        **self == **other
    }
}

impl Eq for Buf {}

impl std::fmt::Debug for Buf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let place = if self.is_mapped() { "mapped" } else { "heap" };
        write!(f, "Buf({} bytes, {place})", self.len)
    }
}

impl<'a> IntoIterator for &'a Buf {
    type Item = &'a u8;
    type IntoIter = std::slice::Iter<'a, u8>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Buf {
    type Item = &'a mut u8;
    type IntoIter = std::slice::IterMut<'a, u8>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        if let Inner::Mapped { map, work, offset } = &mut self.inner {
            if let Some(m) = map.take() {
                // unregistered before it is unmapped, under the lock the trimmer holds
                let mut regions = work
                    .shared
                    .regions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                regions.retain(|r| r.0 != m.as_ptr() as usize);
                let len = m.len() as u64;
                drop(m);
                drop(regions);
                work.free(*offset, len);
            }
        }
    }
}

/// Where new buffers go.
#[derive(Clone, Default)]
pub enum Backing {
    /// Anonymous memory.
    #[default]
    Heap,
    /// Regions of a work file.
    File(Arc<WorkFile>),
}

impl std::fmt::Debug for Backing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Backing::Heap => write!(f, "Heap"),
            Backing::File(w) => write!(f, "File({})", w.path.display()),
        }
    }
}

impl Backing {
    /// The backing of a table whose generation state takes `state_bytes` (besides what
    /// the process needs anyway, `base_bytes`): the heap without a limit or when it fits
    /// under `limit`, else a new work file for `material` in `dir`.
    pub fn for_table(
        material: Material,
        state_bytes: u64,
        base_bytes: u64,
        limit: Option<u64>,
        dir: &Path,
    ) -> Result<Backing, TbError> {
        match limit {
            Some(limit) if base_bytes + state_bytes > limit => {
                let path = work_path(dir, &material);
                Ok(Backing::File(Arc::new(WorkFile::create(
                    &path,
                    state_bytes,
                    limit,
                )?)))
            }
            _ => Ok(Backing::Heap),
        }
    }

    /// True for a work file.
    pub fn is_file(&self) -> bool {
        matches!(self, Backing::File(_))
    }

    /// A buffer of `len` bytes of value `fill`.
    pub fn buf(&self, len: usize, fill: u8) -> Result<Buf, TbError> {
        match self {
            Backing::Heap => Ok(Buf::from(vec![fill; len])),
            Backing::File(w) => w.region(len, fill),
        }
    }
}

/// The work file of `material` in `dir`.
pub fn work_path(dir: &Path, material: &Material) -> PathBuf {
    dir.join(format!("{material}.work"))
}

/// What the trimmer thread and the buffers share.
struct Shared {
    /// Mapped regions: address and length.
    regions: Mutex<Vec<(usize, usize)>>,
    stop: AtomicBool,
    /// Resident-set limit (bytes).
    limit: u64,
    /// Number of times the mapped pages were dropped.
    trims: AtomicU64,
    /// Calls of [`WorkFile::tick`].
    ticks: AtomicU64,
}

/// A work file: regions allocated one after the other, mapped shared, and a trimmer
/// thread that keeps the resident set under the limit (see the module documentation).
pub struct WorkFile {
    path: PathBuf,
    file: File,
    /// The next free offset.
    next: Mutex<u64>,
    shared: Arc<Shared>,
    trimmer: Option<JoinHandle<()>>,
}

impl WorkFile {
    /// Create (or truncate) the work file at `path` with room for `bytes` of buffers, and
    /// start the trimmer for a resident-set limit of `limit` bytes.
    pub fn create(path: &Path, bytes: u64, limit: u64) -> Result<WorkFile, TbError> {
        let io = |what: &str, e: std::io::Error| TbError::Io {
            path: format!("{} ({what})", path.display()),
            source: e,
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(|e| io("creating the work file", e))?;
        let shared = Arc::new(Shared {
            regions: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
            limit,
            trims: AtomicU64::new(0),
            ticks: AtomicU64::new(0),
        });
        let mut work = WorkFile {
            path: path.to_path_buf(),
            file,
            next: Mutex::new(0),
            shared: shared.clone(),
            trimmer: None,
        };
        // the space, reserved now: a full disk is an error here, not a fault later
        work.reserve(0, bytes)
            .map_err(|e| io("reserving space for the work file", e))?;
        let trimmer = std::thread::Builder::new()
            .name("xqdb-trim".into())
            .spawn(move || trim_loop(&shared))
            .map_err(|e| io("starting the trimmer thread", e))?;
        work.trimmer = Some(trimmer);
        Ok(work)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A worker's pass has done a slice of work (the generator's scans call this once per
    /// chunk): every [`TRIM_CHECK_EVERY`]-th call checks the resident set and trims at once
    /// (besides the trimmer thread, which a busy machine may wake late).
    pub fn tick(&self) {
        if self
            .shared
            .ticks
            .fetch_add(1, Relaxed)
            .is_multiple_of(TRIM_CHECK_EVERY)
        {
            self.shared.trim_if_over();
        }
    }

    /// How many times the trimmer dropped the mapped pages.
    pub fn trims(&self) -> u64 {
        self.shared.trims.load(Relaxed)
    }

    /// Allocate disk blocks for `offset..offset + len` (growing the file).
    fn reserve(&self, offset: u64, len: u64) -> std::io::Result<()> {
        if len == 0 {
            return Ok(());
        }
        use std::os::fd::AsRawFd;
        // SAFETY: posix_fallocate on our open file descriptor with non-negative offsets.
        let r = unsafe { libc::posix_fallocate(self.file.as_raw_fd(), offset as i64, len as i64) };
        match r {
            0 => Ok(()),
            // file systems without fallocate: grow the file sparsely
            libc::EOPNOTSUPP | libc::EINVAL => {
                let end = offset + len;
                if self.file.metadata()?.len() < end {
                    self.file.set_len(end)?;
                }
                Ok(())
            }
            e => Err(std::io::Error::from_raw_os_error(e)),
        }
    }

    /// Give the disk blocks of a dropped region back (its data is no longer needed).
    fn free(&self, offset: u64, len: u64) {
        use std::os::fd::AsRawFd;
        // SAFETY: fallocate on our open file descriptor; failure only keeps the blocks.
        unsafe {
            libc::fallocate(
                self.file.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                offset as i64,
                len as i64,
            );
        }
    }

    /// A new region of `len` bytes of value `fill`, mapped.
    fn region(self: &Arc<WorkFile>, len: usize, fill: u8) -> Result<Buf, TbError> {
        let io = |what: &str, e: std::io::Error| TbError::Io {
            path: format!("{} ({what})", self.path.display()),
            source: e,
        };
        let size = (len as u64).max(1).next_multiple_of(4096);
        let offset = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let at = *next;
            *next = (at + size).next_multiple_of(REGION_ALIGN);
            at
        };
        self.reserve(offset, size)
            .map_err(|e| io("growing the work file", e))?;
        // SAFETY: the file is private to this generation (created afresh, named after the
        // table, whose lock this process holds); the region is mapped once and only
        // reached through the returned buffer.
        let mut map = unsafe {
            MmapOptions::new()
                .offset(offset)
                .len(size as usize)
                .map_mut(&self.file)
        }
        .map_err(|e| io("mapping the work file", e))?;
        if fill != 0 {
            // the reserved blocks read as zeros: write the rest, a slice at a time (the
            // trimmer keeps what this touches within the limit)
            for chunk in map.chunks_mut(1 << 20) {
                chunk.fill(fill);
            }
        }
        let addr = map.as_ptr() as usize;
        self.shared
            .regions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((addr, size as usize));
        Ok(Buf {
            inner: Inner::Mapped {
                map: Some(map),
                work: self.clone(),
                offset,
            },
            len,
        })
    }
}

impl Drop for WorkFile {
    fn drop(&mut self) {
        self.shared.stop.store(true, Relaxed);
        if let Some(t) = self.trimmer.take() {
            let _ = t.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A memory size such as `4G`, `512M`, `1.5GiB`, `100000` (bytes): a number with an optional
/// suffix K, M, G or T (powers of 1024, with or without `iB`/`B`).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let x: f64 = num
        .parse()
        .map_err(|_| format!("{s:?}: not a size (examples: 4G, 512M, 1.5GiB)"))?;
    let shift = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches("IB")
        .trim_end_matches('B')
    {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("{s:?}: unknown unit (use K, M, G or T)")),
    };
    Ok((x * (1u64 << shift) as f64) as u64)
}

/// Resident set of this process in bytes (0 when unknown).
pub fn resident_bytes() -> u64 {
    // statm counts pages of the system's size (4 KiB on x86_64, up to 64 KiB elsewhere)
    // SAFETY: sysconf only reads a system constant.
    let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        p if p > 0 => p as u64,
        _ => 4096,
    };
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |p| p * page)
}

fn trim_loop(shared: &Shared) {
    while !shared.stop.load(Relaxed) {
        std::thread::sleep(std::time::Duration::from_millis(TRIM_EVERY_MS));
        shared.trim_if_over();
    }
}

impl Shared {
    /// Drop the mapped pages when the resident set is above half the limit. At half: the
    /// threads go on touching pages until they are dropped (a scan maps pages at several
    /// GB/s; KRNKAABB at 62M with the trigger at three quarters of the limit, checked every
    /// 20 ms by the trimmer alone, peaked at 155 MiB, its median 38 MiB).
    fn trim_if_over(&self) {
        if resident_bytes() <= self.limit / 2 {
            return;
        }
        // one trim at a time; a thread that finds one running goes on
        let regions = match self.regions.try_lock() {
            Ok(r) => r,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return,
        };
        for &(addr, len) in regions.iter() {
            // SAFETY: the region is mapped (regions are unregistered under this lock before
            // they are unmapped); MADV_DONTNEED on a shared file mapping only drops this
            // process's page table entries: the data stays in the page cache and the file.
            unsafe {
                libc::madvise(addr as *mut libc::c_void, len, libc::MADV_DONTNEED);
            }
        }
        self.trims.fetch_add(1, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapped_buffers_read_back_and_the_file_goes() {
        let dir = std::env::temp_dir().join(format!("xqdb-work-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let m: Material = "KRK".parse().unwrap();
        let b = Backing::for_table(m, 1 << 20, 0, Some(1), &dir).unwrap();
        assert!(b.is_file());
        let path = work_path(&dir, &m);
        let mut x = b.buf(10_000, 0xFF).unwrap();
        let y = b.buf(3, 0).unwrap();
        assert!(x.is_mapped() && x.iter().all(|&v| v == 0xFF) && *y == [0, 0, 0]);
        x[9_999] = 7;
        x.truncate(10_000);
        assert_eq!((x.len(), x[9_999]), (10_000, 7));
        assert_eq!(x.clone().to_vec(), x.to_vec());
        assert!(!x.clone().is_mapped());
        drop(b);
        assert!(path.exists());
        drop((x, y));
        assert!(
            !path.exists(),
            "the work file is removed with its last buffer"
        );
        // under the limit: the heap
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("4X").is_err() && parse_size("G").is_err());
        let h = Backing::for_table(m, 10, 0, Some(1 << 30), &dir).unwrap();
        assert!(!h.is_file() && !h.buf(4, 1).unwrap().is_mapped());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
