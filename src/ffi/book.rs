//! Book handles: open a book file and read the moves of a position with their weights.

use super::position::{board_position, fen_position, iccs};
use super::status::{guard, non_null, non_null_mut, Failure, XqdbStatus};
use super::tables::c_path;
use crate::board::Position;
use crate::book::Book;
use std::ffi::c_char;

/// An opened book file. Look-ups through one handle may run on any number of threads at
/// once; closing must wait until they have returned.
pub struct XqdbBook {
    book: Book,
}

/// One book move with its statistics, from the side that makes it.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct XqdbBookMove {
    /// Origin square, `rank * 9 + file`.
    pub from: u8,
    /// Destination square.
    pub to: u8,
    /// The move in ICCS, NUL-terminated: `"h2e2"`.
    pub iccs: [c_char; 6],
    /// Weight for picking: pick a move with probability weight / (sum of the weights), or
    /// take the first (highest weight) one.
    pub weight: u32,
    /// Games of the collection that played it here.
    pub games: u32,
    /// Of those, won by the side that played it.
    pub wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Lost (games with an unknown result are in none of the three).
    pub losses: u32,
}

/// The handle behind a pointer.
///
/// # Safety
/// `p` is NULL or a handle from `xqdb_book_open` not yet closed.
#[inline]
unsafe fn handle<'a>(p: *const XqdbBook) -> Result<&'a Book, Failure> {
    let p = non_null(p, "book")?;
    // SAFETY: a live handle by the caller's contract.
    Ok(unsafe { &(*p).book })
}

/// Open a book file (`.xqb`, as `xqdb book build` writes it). The whole file is checked
/// (magic, version, Zobrist scheme, sizes, checksum) and memory-mapped. Fails with
/// `XQDB_STATUS_NOT_FOUND` when the file does not exist, `XQDB_STATUS_CORRUPT` when it is
/// not a valid book.
///
/// # Safety
/// `path` is a NUL-terminated string; `out` points to writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn xqdb_book_open(
    path: *const c_char,
    out: *mut *mut XqdbBook,
) -> XqdbStatus {
    guard(|| {
        let out = non_null_mut(out, "out")?;
        // SAFETY: the caller's contract.
        let path = unsafe { c_path(path, "path") }?;
        let book = Book::open(&path)?;
        // SAFETY: non-null and writable by the caller's contract.
        unsafe { out.write(Box::into_raw(Box::new(XqdbBook { book }))) };
        Ok(XqdbStatus::Ok)
    })
}

/// Close a book opened by `xqdb_book_open` (NULL is accepted and ignored).
///
/// # Safety
/// `book` is NULL or a handle from `xqdb_book_open`, closed only once, with no look-up
/// running.
#[no_mangle]
pub unsafe extern "C" fn xqdb_book_close(book: *mut XqdbBook) {
    if book.is_null() {
        return;
    }
    guard(|| {
        // SAFETY: made by Box::into_raw in xqdb_book_open, closed once by contract.
        drop(unsafe { Box::from_raw(book) });
        Ok(XqdbStatus::Ok)
    });
}

/// Book moves of a position read by `read`.
fn book_moves(
    book: *const XqdbBook,
    read: impl FnOnce() -> Result<Position, Failure>,
    moves: *mut XqdbBookMove,
    capacity: usize,
    count: *mut usize,
) -> XqdbStatus {
    guard(|| {
        // SAFETY: the exported functions' contract.
        let book = unsafe { handle(book) }?;
        let count = non_null_mut(count, "count")?;
        if capacity > 0 {
            non_null_mut(moves, "moves")?;
        }
        let pos = read()?;
        let all = book.moves(&pos);
        for (i, b) in all.iter().take(capacity).enumerate() {
            let m = XqdbBookMove {
                from: b.mv.from() as u8,
                to: b.mv.to() as u8,
                iccs: iccs(b.mv),
                weight: b.weight,
                games: b.games,
                wins: b.wins,
                draws: b.draws,
                losses: b.losses,
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
                    "{} book moves, room for {capacity} (XQDB_MAX_MOVES always suffices)",
                    all.len()
                ),
            ));
        }
        Ok(XqdbStatus::Ok)
    })
}

/// The book moves of a position (board array and side to move, as `xqdb_probe_wdl`),
/// highest weight first, in the position's own orientation (a position and its mirror
/// image share one entry), only legal moves. A position not in the book gives
/// `*count = 0` and `XQDB_STATUS_OK`. `capacity`, `moves` and `*count` behave as in
/// `xqdb_probe_root`.
///
/// # Safety
/// `book` is a live handle; `board` points to 90 readable bytes; `moves` holds `capacity`
/// writable entries; `count` is writable.
#[no_mangle]
pub unsafe extern "C" fn xqdb_book_moves(
    book: *const XqdbBook,
    board: *const u8,
    side: i32,
    moves: *mut XqdbBookMove,
    capacity: usize,
    count: *mut usize,
) -> XqdbStatus {
    // SAFETY: the caller's contract.
    book_moves(
        book,
        || unsafe { board_position(board, side) },
        moves,
        capacity,
        count,
    )
}

/// The book moves of a position given as a FEN (`startpos` is accepted).
///
/// # Safety
/// `book` is a live handle; `fen` a NUL-terminated string; `moves` holds `capacity`
/// writable entries; `count` is writable.
#[no_mangle]
pub unsafe extern "C" fn xqdb_book_moves_fen(
    book: *const XqdbBook,
    fen: *const c_char,
    moves: *mut XqdbBookMove,
    capacity: usize,
    count: *mut usize,
) -> XqdbStatus {
    // SAFETY: the caller's contract.
    book_moves(
        book,
        || unsafe { fen_position(fen) },
        moves,
        capacity,
        count,
    )
}
