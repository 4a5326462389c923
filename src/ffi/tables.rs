//! Table handles and probes: WDL, DTM, DTC (not available yet) and the root probe, each for
//! a board array plus side to move and for a FEN.

use super::position::{board_position, fen_position, iccs, XqdbWdl};
use super::status::{c_bytes, c_str, guard, non_null, non_null_mut, Failure, XqdbStatus};
use crate::board::Position;
use crate::index::Material;
use crate::tablebase::probe::DEFAULT_CACHE_BYTES;
use crate::tablebase::Tablebases;
use std::ffi::c_char;
use std::path::PathBuf;

/// An opened table folder. Probes through one handle may run on any number of threads at
/// once; closing must wait until they have returned.
pub struct XqdbTables {
    tb: Tablebases,
}

/// One legal move of a root probe with its verdict for the side that makes it.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct XqdbRootMove {
    /// Origin square, `rank * 9 + file` (0 = a0, Red's back rank left corner; 89 = i9).
    pub from: u8,
    /// Destination square, same numbering.
    pub to: u8,
    /// The move in ICCS, NUL-terminated: `"h2e2"`.
    pub iccs: [c_char; 6],
    /// Verdict for the side making the move (see `XqdbWdl`).
    pub wdl: XqdbWdl,
    /// Plies to mate counted from before the move (odd: the mover mates, even: the mover is
    /// mated); -1 for a draw.
    pub dtm: i32,
    /// Plies to the next capture or mate with best play; -1 until DTC tables exist.
    pub dtc: i32,
}

/// The handle behind a pointer.
///
/// # Safety
/// `p` is NULL or a handle from `xqdb_tables_open` not yet closed.
#[inline]
unsafe fn handle<'a>(p: *const XqdbTables) -> Result<&'a Tablebases, Failure> {
    let p = non_null(p, "tables")?;
    // SAFETY: a live handle by the caller's contract.
    Ok(unsafe { &(*p).tb })
}

/// A path from C bytes (any bytes on Unix, UTF-8 elsewhere).
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
pub(crate) unsafe fn c_path(p: *const c_char, what: &str) -> Result<PathBuf, Failure> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        // SAFETY: forwarded contract.
        let bytes = unsafe { c_bytes(p, what) }?;
        Ok(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
    }
    #[cfg(not(unix))]
    {
        // SAFETY: forwarded contract.
        Ok(PathBuf::from(unsafe {
            c_str(p, what, XqdbStatus::BadArgument)
        }?))
    }
}

/// Open the table folder `dir` (a NUL-terminated path). Nothing is read until the first
/// probe: each table file is opened and memory-mapped when a position of its material is
/// first probed, and decompressed blocks are kept in a cache of at most `cache_bytes` bytes
/// shared by all threads (0: the default, 64 MiB).
///
/// On success `*out` is a handle to give to `xqdb_tables_close`. Fails with
/// `XQDB_STATUS_NOT_FOUND` when `dir` does not exist or is not a folder.
///
/// # Safety
/// `dir` is a NUL-terminated string; `out` points to writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn xqdb_tables_open(
    dir: *const c_char,
    cache_bytes: usize,
    out: *mut *mut XqdbTables,
) -> XqdbStatus {
    guard(|| {
        let out = non_null_mut(out, "out")?;
        // SAFETY: the caller's contract.
        let dir = unsafe { c_path(dir, "dir") }?;
        match std::fs::metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(Failure::new(
                    XqdbStatus::NotFound,
                    format!("table folder {}: not a folder", dir.display()),
                ))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Failure::new(
                    XqdbStatus::NotFound,
                    format!("table folder {}: no such folder", dir.display()),
                ))
            }
            Err(e) => {
                return Err(Failure::new(
                    XqdbStatus::Io,
                    format!("table folder {}: {e}", dir.display()),
                ))
            }
        }
        let cache = if cache_bytes == 0 {
            DEFAULT_CACHE_BYTES
        } else {
            cache_bytes
        };
        let handle = Box::new(XqdbTables {
            tb: Tablebases::with_cache(dir, cache),
        });
        // SAFETY: non-null and writable by the caller's contract.
        unsafe { out.write(Box::into_raw(handle)) };
        Ok(XqdbStatus::Ok)
    })
}

/// Close a table folder opened by `xqdb_tables_open` (NULL is accepted and ignored). No
/// probe through the handle may be running or start afterwards.
///
/// # Safety
/// `tables` is NULL or a handle from `xqdb_tables_open`, closed only once.
#[no_mangle]
pub unsafe extern "C" fn xqdb_tables_close(tables: *mut XqdbTables) {
    if tables.is_null() {
        return;
    }
    guard(|| {
        // SAFETY: made by Box::into_raw in xqdb_tables_open, closed once by contract.
        drop(unsafe { Box::from_raw(tables) });
        Ok(XqdbStatus::Ok)
    });
}

/// Whether both files (WDL and DTM) of a material's table are in the folder, e.g.
/// `"KRKAA"` (Red's pieces from its king, then Black's; a material and its colour swap
/// share one table). Only checks that the files exist; a probe checks their content.
///
/// # Safety
/// `tables` is a live handle; `material` a NUL-terminated string; `present` writable.
#[no_mangle]
pub unsafe extern "C" fn xqdb_tables_has(
    tables: *const XqdbTables,
    material: *const c_char,
    present: *mut bool,
) -> XqdbStatus {
    guard(|| {
        // SAFETY: the caller's contract.
        let tb = unsafe { handle(tables) }?;
        let present = non_null_mut(present, "present")?;
        // SAFETY: the caller's contract.
        let text = unsafe { c_str(material, "material", XqdbStatus::BadArgument) }?;
        let m: Material = text.parse().map_err(|e: crate::index::MaterialError| {
            Failure::new(XqdbStatus::BadArgument, e.to_string())
        })?;
        // SAFETY: non-null and writable by the caller's contract.
        unsafe { present.write(tb.has_table(&m)) };
        Ok(XqdbStatus::Ok)
    })
}

/// WDL of a position read by `read`.
#[inline]
fn wdl_probe(
    tables: *const XqdbTables,
    read: impl FnOnce() -> Result<Position, Failure>,
    wdl: *mut XqdbWdl,
) -> XqdbStatus {
    guard(|| {
        // SAFETY: the exported functions' contract.
        let tb = unsafe { handle(tables) }?;
        let wdl = non_null_mut(wdl, "wdl")?;
        let pos = read()?;
        let v = tb.probe_verdict(&pos)?;
        // SAFETY: non-null and writable by contract.
        unsafe { wdl.write(v.into()) };
        Ok(XqdbStatus::Ok)
    })
}

/// WDL probe: the verdict for the side to move of the position given as a board array
/// (`board[rank * 9 + file]`, 90 bytes of `XqdbPiece` codes, rank 0 = Red's back rank, file
/// 0 = file a on Red's left) and `side` (0 Red, 1 Black to move). This is the probe for the
/// search: after the first probe of a block it reads memory only.
///
/// Fails with `XQDB_STATUS_MISSING_TABLE` when the folder has no table for the material;
/// `*wdl` is written only on success.
///
/// # Safety
/// `tables` is a live handle; `board` points to 90 readable bytes; `wdl` is writable.
#[no_mangle]
pub unsafe extern "C" fn xqdb_probe_wdl(
    tables: *const XqdbTables,
    board: *const u8,
    side: i32,
    wdl: *mut XqdbWdl,
) -> XqdbStatus {
    // SAFETY: the caller's contract.
    wdl_probe(tables, || unsafe { board_position(board, side) }, wdl)
}

/// WDL probe of a position given as a FEN (`startpos` is accepted).
///
/// # Safety
/// `tables` is a live handle; `fen` a NUL-terminated string; `wdl` writable.
#[no_mangle]
pub unsafe extern "C" fn xqdb_probe_wdl_fen(
    tables: *const XqdbTables,
    fen: *const c_char,
    wdl: *mut XqdbWdl,
) -> XqdbStatus {
    // SAFETY: the caller's contract.
    wdl_probe(tables, || unsafe { fen_position(fen) }, wdl)
}

/// DTM of a position read by `read`.
#[inline]
fn dtm_probe(
    tables: *const XqdbTables,
    read: impl FnOnce() -> Result<Position, Failure>,
    wdl: *mut XqdbWdl,
    dtm: *mut i32,
) -> XqdbStatus {
    guard(|| {
        // SAFETY: the exported functions' contract.
        let tb = unsafe { handle(tables) }?;
        let wdl = non_null_mut(wdl, "wdl")?;
        let dtm = non_null_mut(dtm, "dtm")?;
        let pos = read()?;
        let (_, d) = tb.probe_dtm(&pos)?;
        let v = tb.probe_verdict(&pos)?;
        // SAFETY: non-null and writable by contract.
        unsafe {
            wdl.write(v.into());
            dtm.write(d.map_or(-1, |d| d as i32));
        }
        Ok(XqdbStatus::Ok)
    })
}

/// DTM probe: the verdict and the distance to mate in plies with best play (odd when the
/// side to move mates, even when it is mated, 0 when it has no legal move; -1 for a draw).
/// Reads both the WDL and the DTM file of the material.
///
/// # Safety
/// `tables` is a live handle; `board` points to 90 readable bytes; `wdl`, `dtm` writable.
#[no_mangle]
pub unsafe extern "C" fn xqdb_probe_dtm(
    tables: *const XqdbTables,
    board: *const u8,
    side: i32,
    wdl: *mut XqdbWdl,
    dtm: *mut i32,
) -> XqdbStatus {
    // SAFETY: the caller's contract.
    dtm_probe(tables, || unsafe { board_position(board, side) }, wdl, dtm)
}

/// DTM probe of a position given as a FEN.
///
/// # Safety
/// `tables` is a live handle; `fen` a NUL-terminated string; `wdl`, `dtm` writable.
#[no_mangle]
pub unsafe extern "C" fn xqdb_probe_dtm_fen(
    tables: *const XqdbTables,
    fen: *const c_char,
    wdl: *mut XqdbWdl,
    dtm: *mut i32,
) -> XqdbStatus {
    // SAFETY: the caller's contract.
    dtm_probe(tables, || unsafe { fen_position(fen) }, wdl, dtm)
}

/// DTC of a position read by `read`.
#[inline]
fn dtc_probe(
    tables: *const XqdbTables,
    read: impl FnOnce() -> Result<Position, Failure>,
    wdl: *mut XqdbWdl,
    dtc: *mut i32,
) -> XqdbStatus {
    guard(|| {
        // SAFETY: the exported functions' contract.
        let tb = unsafe { handle(tables) }?;
        let wdl = non_null_mut(wdl, "wdl")?;
        let dtc = non_null_mut(dtc, "dtc")?;
        let pos = read()?;
        let v = tb.probe_verdict(&pos)?;
        let missing = !tb.has_dtc(&Material::of_position(&pos));
        let c = match tb.probe_dtc(&pos) {
            Ok(_) | Err(crate::tablebase::ProbeError::Missing { metric: "DTC", .. }) if missing => {
                let (name, _) = Material::of_position(&pos).normalized();
                return Err(Failure::new(
                    XqdbStatus::NotAvailable,
                    format!(
                        "no DTC table for {name} in {}: generate it with `xqdb gen {name}` \
                         (--metrics dtc), or use xqdb_probe_dtm",
                        tb.dir().display()
                    ),
                ));
            }
            Ok(c) => c,
            Err(e) => return Err(e.into()),
        };
        // SAFETY: non-null and writable by contract.
        unsafe {
            wdl.write(v.into());
            dtc.write(c.map_or(-1, |c| c as i32));
        }
        Ok(XqdbStatus::Ok)
    })
}

/// DTC probe: the verdict and the distance in plies to the next capture or mate with best
/// play (the winner converts fastest, the loser delays; -1 for a draw). Reads the WDL, DTM
/// and DTC (`.xqc`) files of the material; a lost position also probes the positions after
/// its moves. Without a DTC file it returns `XQDB_STATUS_NOT_AVAILABLE` and writes nothing:
/// fall back to `xqdb_probe_dtm` on that code.
///
/// # Safety
/// `tables` is a live handle; `board` points to 90 readable bytes; `wdl`, `dtc` writable.
#[no_mangle]
pub unsafe extern "C" fn xqdb_probe_dtc(
    tables: *const XqdbTables,
    board: *const u8,
    side: i32,
    wdl: *mut XqdbWdl,
    dtc: *mut i32,
) -> XqdbStatus {
    // SAFETY: the caller's contract.
    dtc_probe(tables, || unsafe { board_position(board, side) }, wdl, dtc)
}

/// DTC probe of a position given as a FEN (see `xqdb_probe_dtc`).
///
/// # Safety
/// `tables` is a live handle; `fen` a NUL-terminated string; `wdl`, `dtc` writable.
#[no_mangle]
pub unsafe extern "C" fn xqdb_probe_dtc_fen(
    tables: *const XqdbTables,
    fen: *const c_char,
    wdl: *mut XqdbWdl,
    dtc: *mut i32,
) -> XqdbStatus {
    // SAFETY: the caller's contract.
    dtc_probe(tables, || unsafe { fen_position(fen) }, wdl, dtc)
}

/// Root probe of a position read by `read`.
fn root_probe(
    tables: *const XqdbTables,
    read: impl FnOnce() -> Result<Position, Failure>,
    moves: *mut XqdbRootMove,
    capacity: usize,
    count: *mut usize,
) -> XqdbStatus {
    guard(|| {
        // SAFETY: the exported functions' contract.
        let tb = unsafe { handle(tables) }?;
        let count = non_null_mut(count, "count")?;
        if capacity > 0 {
            non_null_mut(moves, "moves")?;
        }
        let pos = read()?;
        let all = tb.best_moves(&pos)?;
        for (i, o) in all.iter().take(capacity).enumerate() {
            let m = XqdbRootMove {
                from: o.mv.from() as u8,
                to: o.mv.to() as u8,
                iccs: iccs(o.mv),
                wdl: crate::tablebase::values::Verdict {
                    wdl: o.wdl,
                    order: o.after.order,
                    ruling: None,
                }
                .into(),
                dtm: o.dtm.map_or(-1, |d| d as i32),
                dtc: -1,
            };
            // SAFETY: i < capacity, and `moves` holds `capacity` entries by contract.
            unsafe { moves.add(i).write(m) };
        }
        // SAFETY: non-null and writable by contract.
        unsafe { count.write(all.len()) };
        if all.len() > capacity {
            return Err(Failure::new(
                XqdbStatus::BufferTooSmall,
                format!(
                    "{} legal moves, room for {capacity} (XQDB_MAX_MOVES always suffices)",
                    all.len()
                ),
            ));
        }
        Ok(XqdbStatus::Ok)
    })
}

/// Root probe: every legal move with its verdict and distance to mate for the side making
/// it, best first (fastest mates, then draws, then the slowest losses), written to
/// `moves[0 .. *count]`. A position without legal moves gives `*count = 0` (it is lost).
///
/// `capacity` is the number of entries `moves` holds (`XQDB_MAX_MOVES` always suffices;
/// `moves` may be NULL when `capacity` is 0). When there are more moves than that, the best
/// `capacity` ones are written, `*count` is set to the number of legal moves and the call
/// returns `XQDB_STATUS_BUFFER_TOO_SMALL`. Needs the tables of the material and of every
/// material a capture leads to.
///
/// # Safety
/// `tables` is a live handle; `board` points to 90 readable bytes; `moves` holds
/// `capacity` writable entries; `count` is writable.
#[no_mangle]
pub unsafe extern "C" fn xqdb_probe_root(
    tables: *const XqdbTables,
    board: *const u8,
    side: i32,
    moves: *mut XqdbRootMove,
    capacity: usize,
    count: *mut usize,
) -> XqdbStatus {
    // SAFETY: the caller's contract.
    root_probe(
        tables,
        || unsafe { board_position(board, side) },
        moves,
        capacity,
        count,
    )
}

/// Root probe of a position given as a FEN (see `xqdb_probe_root`).
///
/// # Safety
/// `tables` is a live handle; `fen` a NUL-terminated string; `moves` holds `capacity`
/// writable entries; `count` is writable.
#[no_mangle]
pub unsafe extern "C" fn xqdb_probe_root_fen(
    tables: *const XqdbTables,
    fen: *const c_char,
    moves: *mut XqdbRootMove,
    capacity: usize,
    count: *mut usize,
) -> XqdbStatus {
    // SAFETY: the caller's contract.
    root_probe(
        tables,
        || unsafe { fen_position(fen) },
        moves,
        capacity,
        count,
    )
}
