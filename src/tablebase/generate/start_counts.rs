//! The start pass's counters, kept for step 4 in a work file.
//!
//! Step 4 ([`super::dtm`]) gives every lost position that was not ruled a counter of its
//! distinct successors: exactly what the start pass ([`super::start`]) counted for it
//! (the same definition, [`Gen::count_children`]: a position far from symmetric counts its
//! legal moves, a nearly symmetric one its successors by mirror class). Both passes count
//! the moves of the position as it stands, whatever the rounds decide later, so the start
//! pass's count is the step-4 count. Counting again costs a decoding and a move generation
//! per lost position (KRNKR: 20 M positions, about 2 CPU s); reading the start pass's value
//! bytes back costs a sequential write of two bytes per position after the start pass and
//! a read of them in step 4.
//!
//! The saved byte of a position with a legal move is [`code::OPEN`] with the count in the
//! counter bits (and the capture-draw flag above them when the value byte holds it); of a
//! position without one, level 0; of an illegal placement, [`compact::ILLEGAL`]. The counter
//! bits' mask is the one of the start pass ([`Gen::counter_mask`]), kept with the file.
//!
//! The file is unlinked at once (its space goes with the handle, also when the run is
//! killed): a resumed generation has none and counts again. Disk: two bytes per position
//! (KRNKR: 53 MB) from the start pass to the end of step 4.

use super::params::CHUNK;
use super::slots::unlinked_work_file;
use super::{code, compact, Gen};
use crate::tablebase::table::TbError;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The value bytes of both sides after the start pass (Red to move first).
pub(super) struct StartCounts {
    file: std::fs::File,
    path: PathBuf,
    /// Positions per side.
    n: usize,
    /// The counter bits of an open position's byte.
    mask: u8,
}

impl StartCounts {
    /// Save the state's value bytes (right after the start pass) to a work file at `path`.
    pub fn save(g: &Gen<'_>, path: &Path) -> Result<StartCounts, TbError> {
        let file = unlinked_work_file(path)?;
        let io = |e: std::io::Error| TbError::Io {
            path: path.display().to_string(),
            source: e,
        };
        let n = g.size();
        let mut w = std::io::BufWriter::new(&file);
        let mut buf = vec![0u8; CHUNK];
        for val in &g.val {
            for start in (0..n).step_by(CHUNK) {
                let len = CHUNK.min(n - start);
                val.read_range(start, &mut buf[..len]);
                w.write_all(&buf[..len]).map_err(io)?;
            }
        }
        w.flush().map_err(io)?;
        drop(w);
        Ok(StartCounts {
            file,
            path: path.to_path_buf(),
            n,
            mask: g.counter_mask(),
        })
    }

    /// The saved bytes of side `s` for the indices `start..start + out.len()`.
    pub fn read(&self, s: usize, start: usize, out: &mut [u8]) -> Result<(), TbError> {
        self.file
            .read_exact_at(out, (s * self.n + start) as u64)
            .map_err(|e| TbError::Io {
                path: self.path.display().to_string(),
                source: e,
            })
    }

    /// The start pass's count of distinct successors in the saved byte `b`, None when `b`
    /// is an illegal placement's (no count).
    #[inline]
    pub fn count(&self, b: u8) -> Option<usize> {
        if b == compact::level_byte(0) {
            Some(0)
        } else if b & code::OPEN != 0 && b != compact::ILLEGAL {
            Some((b & self.mask) as usize)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The saved byte's count: level 0 has none, an open byte its counter bits (the
    /// capture-draw flag masked off), an illegal placement no count.
    #[test]
    fn counts_of_saved_bytes() {
        let dir = std::env::temp_dir();
        let path = dir.join(format!("xqdb-start-counts-{}.work", std::process::id()));
        let file = unlinked_work_file(&path).expect("a work file");
        file.write_all_at(&[0, 0x85, 0xC3, compact::ILLEGAL, 7, 0x81], 0)
            .expect("written");
        let c = StartCounts {
            file,
            path: path.clone(),
            n: 3,
            mask: code::COUNTER,
        };
        let mut out = [0u8; 3];
        c.read(1, 0, &mut out).expect("read");
        assert_eq!(out, [compact::ILLEGAL, 7, 0x81]);
        c.read(0, 0, &mut out).expect("read");
        let counts: Vec<_> = out.iter().map(|&b| c.count(b)).collect();
        assert_eq!(counts, vec![Some(0), Some(5), Some(3)]);
        assert_eq!(c.count(compact::ILLEGAL), None);
        assert_eq!(c.count(7), None, "a level other than 0 is no start byte");
        assert!(!path.exists(), "unlinked at once");
    }
}
