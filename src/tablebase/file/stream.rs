//! The writer's blocks as one stream of jobs for both files of a table
//! ([`write_streamed`]), and what both files share (their counts, the end of a file).

use super::{
    block_content, block_params, corrupt, release_compressors, table_path, temp_path, zstd_setting,
    Content, FileError, Header, Metric, Written, CTX, HEADER_SIZE, INDEX_SCHEME, VERSION,
    WRITE_BATCH_BLOCKS,
};
use crate::tablebase::values::{wdl_of, Wdl, MAX_DTM};
use crate::tablebase::workfile::Buf;
use byteorder::{ByteOrder, LittleEndian as LE};
use rayon::prelude::*;
use std::fs;
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

/// The outcome counts of `values` per side to move (as [`super::values::outcome_counts`])
/// and their highest decided value, counted in parallel.
pub(in crate::tablebase) fn counts_and_max(values: &[Buf; 2]) -> ([[u64; 4]; 2], u8) {
    let mut counts = [[0u64; 4]; 2];
    let mut max = 0u8;
    for (s, side) in values.iter().enumerate() {
        let (c, m) = side
            .par_chunks(1 << 20)
            .map(|chunk| {
                let mut c = [0u64; 4];
                let mut m = 0u8;
                for &v in chunk {
                    let k = match wdl_of(v) {
                        Some(Wdl::Win) => 0,
                        Some(Wdl::Draw) => 1,
                        Some(Wdl::Loss) => 2,
                        None => 3,
                    };
                    c[k] += 1;
                    if v <= MAX_DTM {
                        m = m.max(v);
                    }
                }
                (c, m)
            })
            .reduce(
                || ([0u64; 4], 0u8),
                |(a, x), (b, y)| (std::array::from_fn(|k| a[k] + b[k]), x.max(y)),
            );
        counts[s] = c;
        max = max.max(m);
    }
    (counts, max)
}

/// Complete a file whose blocks are written: its header (with its CRC-32 over the header,
/// the block offsets `offsets` and the dictionary) and its offsets over the zeros left for
/// them at the start, then flushed to disk.
pub(super) fn finish_file(
    f: std::io::BufWriter<fs::File>,
    header: &Header,
    offsets: &[u8],
    dict: &[u8],
) -> std::io::Result<()> {
    let mut hb = header.encode();
    let mut crc = crc32fast::Hasher::new();
    crc.update(&hb[..136]);
    crc.update(offsets);
    crc.update(dict);
    LE::write_u32(&mut hb[136..140], crc.finalize());
    let mut f = f.into_inner().map_err(|e| e.into_error())?;
    f.seek(std::io::SeekFrom::Start(0))?;
    f.write_all(&hb)?;
    f.write_all(offsets)?;
    f.sync_all()
}

/// Compress block `k` of the file of `c` (`block` positions a block, zstd `level`, tuned
/// by [`zstd_setting`]) with the calling thread's context ([`CTX`]).
pub(super) fn compress_block(
    c: &Content<'_>,
    block: usize,
    level: i32,
    k: usize,
) -> std::io::Result<Vec<u8>> {
    let total = 2 * c.positions as usize;
    let raw = block_content(c, k * block..((k + 1) * block).min(total))?;
    let setting = zstd_setting(c.metric, level, &raw);
    CTX.with(|cell| {
        let mut slot = cell.borrow_mut();
        // the thread's context as it is, or retuned in place, or else a new one (the old
        // one freed first: one context a thread at a time)
        let keep = match &mut *slot {
            Some((s, ctx)) => *s == setting || setting.retune(*s, ctx)?,
            None => false,
        };
        if !keep {
            *slot = None;
        }
        let (s, ctx) = match &mut *slot {
            Some(entry) => entry,
            slot => slot.insert((setting, setting.compressor()?)),
        };
        *s = setting;
        ctx.compress(&raw)
    })
}

/// Write the files of `files` (blocks of at least 64K positions: no dictionary) under
/// temporary names (flushed to disk), added to `pending`, their sizes into `written`.
///
/// Their blocks, the first file's then the next's, are one stream of jobs: each of `threads`
/// threads (see [`super::write_threads`]) takes the next block as soon as it is done with
/// one, and the calling thread writes the compressed blocks in order. So every core stays
/// busy to the last block of the last file (a parallel pass per batch of blocks leaves one
/// idle at the end of each batch), and at most [`WRITE_BATCH_BLOCKS`] compressed blocks wait
/// in memory (a thread ahead by that many waits). A thread changes its compression context
/// only where the blocks' settings change (the level, or the DTM file's tuning of big
/// blocks, see [`zstd_setting`]). The bytes written do not depend on `threads`.
pub(super) fn write_streamed(
    dir: &Path,
    files: &[Content<'_>],
    threads: usize,
    written: &mut Written,
    pending: &mut Vec<crate::tablebase::commit::Pending>,
) -> Result<(), FileError> {
    let io = |path: &Path, e: std::io::Error| FileError::Io {
        path: path.display().to_string(),
        source: e,
    };
    fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    // per file: its path, temporary path, header, layout and writer
    struct Out {
        path: PathBuf,
        tmp: PathBuf,
        header: Header,
        block: usize,
        level: i32,
        f: std::io::BufWriter<fs::File>,
        offsets: Vec<u8>,
        off: u64,
    }
    let mut outs = Vec::with_capacity(files.len());
    let mut jobs = Vec::new();
    for (n, c) in files.iter().enumerate() {
        let path = table_path(dir, &c.material, c.metric);
        let (block, level) = block_params(c.metric);
        let total = 2 * c.positions as usize;
        let nblocks = total.div_ceil(block as usize);
        jobs.extend((0..nblocks).map(|k| (n, k)));
        let header = Header {
            metric: c.metric,
            version: VERSION,
            rules: c.rules,
            index_scheme: INDEX_SCHEME,
            max_dtm: c.max_dtm,
            material: c.material,
            positions: c.positions,
            block_size: block,
            blocks: nblocks as u32,
            dict_len: 0,
            counts: c.counts,
        };
        let tmp = temp_path(&path);
        let offsets_len = (nblocks + 1) * 8;
        let open = || -> std::io::Result<std::io::BufWriter<fs::File>> {
            let mut f = std::io::BufWriter::new(fs::File::create(&tmp)?);
            // the header and the offsets are written last, once the blocks' sizes are known
            f.write_all(&[0u8; HEADER_SIZE])?;
            f.write_all(&vec![0u8; offsets_len])?;
            Ok(f)
        };
        let f = open().map_err(|e| io(&tmp, e));
        // (a file created is removed by the caller on any error)
        pending.push(crate::tablebase::commit::Pending {
            tmp: tmp.clone(),
            path: path.clone(),
        });
        outs.push(Out {
            path,
            tmp,
            header,
            block: block as usize,
            level,
            f: f?,
            offsets: Vec::with_capacity(offsets_len),
            off: 0,
        });
    }
    // the jobs taken so far, and how many are written (under the lock: a thread too far
    // ahead waits for it), and the first error
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new((0usize, false));
    let moved = std::sync::Condvar::new();
    let threads = threads.max(1);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, std::io::Result<Vec<u8>>)>();
    // what the threads read of each file: positions per block and zstd level
    let layout: Vec<(usize, i32)> = outs.iter().map(|o| (o.block, o.level)).collect();
    let (jobs, layout) = (&jobs, &layout);
    let mut failed: Option<FileError> = None;
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, done, moved) = (&next, &done, &moved);
            scope.spawn(move || loop {
                let j = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(n, k)) = jobs.get(j) else {
                    break;
                };
                {
                    let mut d = done.lock().unwrap_or_else(|e| e.into_inner());
                    while j >= d.0 + WRITE_BATCH_BLOCKS && !d.1 {
                        d = moved.wait(d).unwrap_or_else(|e| e.into_inner());
                    }
                    if d.1 {
                        break;
                    }
                }
                let (block, level) = layout[n];
                let r = compress_block(&files[n], block, level, k);
                if tx.send((j, r)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        // the blocks in job order: those done early wait here
        let mut early = std::collections::BTreeMap::new();
        let mut first = 0usize;
        for (j, r) in rx {
            early.insert(j, r);
            while let Some(r) = early.remove(&first) {
                let o = &mut outs[jobs[first].0];
                let put = r.and_then(|b| {
                    o.offsets.extend_from_slice(&o.off.to_le_bytes());
                    o.off += b.len() as u64;
                    o.f.write_all(&b)
                });
                if let Err(e) = put {
                    failed.get_or_insert_with(|| io(&o.tmp, e));
                }
                first += 1;
                let mut d = done.lock().unwrap_or_else(|e| e.into_inner());
                *d = (first, failed.is_some());
                moved.notify_all();
            }
        }
    });
    release_compressors();
    if let Some(e) = failed {
        return Err(e);
    }
    for mut o in outs {
        if o.offsets.len() != 8 * o.header.blocks as usize {
            return Err(corrupt(&o.path, "a block was not compressed"));
        }
        o.offsets.extend_from_slice(&o.off.to_le_bytes());
        finish_file(o.f, &o.header, &o.offsets, &[]).map_err(|e| io(&o.tmp, e))?;
        let size = HEADER_SIZE as u64 + o.offsets.len() as u64 + o.off;
        match o.header.metric {
            Metric::Wdl => written.wdl_bytes = size,
            Metric::Dtm => written.dtm_bytes = size,
            Metric::Dtc => written.dtc_bytes = size,
        }
    }
    Ok(())
}
