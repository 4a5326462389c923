//! The C API: table and book handles, WDL/DTM/DTC and root probes of a position given as a
//! FEN or as a board array plus side to move, book moves with weights, status codes and a
//! per-thread last error message. Built into `libxqdb.so` / `libxqdb.a` (the `cdylib` and
//! `staticlib` crate types); the header `include/xqdb.h` is generated from this module by
//! cbindgen (`cbindgen.toml`) and a test keeps the committed copy in line.
//!
//! Rules every entry point follows: pointers are checked for NULL, every input is validated
//! and refused with a status and a message (never undefined behaviour for a bad value), a
//! Rust panic is caught and returned as `XQDB_STATUS_INTERNAL`, and the only state is the
//! handles the caller opened plus one message per thread.

mod book;
mod position;
mod status;
mod tables;

pub use book::{
    xqdb_book_close, xqdb_book_moves, xqdb_book_moves_fen, xqdb_book_open, XqdbBook, XqdbBookMove,
};
pub use position::{board_array, piece_code, XqdbPiece, XqdbSide, XqdbWdl};
pub use status::XqdbStatus;
pub use tables::{
    xqdb_probe_dtc, xqdb_probe_dtc_fen, xqdb_probe_dtm, xqdb_probe_dtm_fen, xqdb_probe_root,
    xqdb_probe_root_fen, xqdb_probe_wdl, xqdb_probe_wdl_fen, xqdb_tables_close, xqdb_tables_has,
    xqdb_tables_open, XqdbRootMove, XqdbTables,
};

use std::ffi::c_char;

/// Version of the C API described by this header; raised when a function or a struct
/// changes incompatibly (adding a status or verdict value does not raise it).
pub const XQDB_API_VERSION: i32 = 1;

/// Points of the board: the length of a board array.
pub const XQDB_BOARD_SIZE: usize = 90;

/// Most legal moves of any position: a `moves` array of this size always suffices.
pub const XQDB_MAX_MOVES: usize = 128;

const _: () = assert!(XQDB_MAX_MOVES == crate::board::MAX_MOVES);
const _: () = assert!(XQDB_BOARD_SIZE == crate::board::NUM_SQUARES);

// The header promises that handles can be shared by threads.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<XqdbTables>();
    shared::<XqdbBook>();
};

/// The library's version, e.g. `"0.1.0"` (a static string).
#[no_mangle]
pub extern "C" fn xqdb_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// The C API version the library was built with (`XQDB_API_VERSION` of its header).
#[no_mangle]
pub extern "C" fn xqdb_api_version() -> i32 {
    XQDB_API_VERSION
}

/// The message of the last call that failed on the calling thread: what went wrong and
/// where (file, square, FEN field). Empty before any failure. A successful call leaves it
/// as it was. The string belongs to the library and stays valid until the next failing
/// call on the same thread; copy it to keep it.
#[no_mangle]
pub extern "C" fn xqdb_last_error() -> *const c_char {
    std::panic::catch_unwind(status::last_error_ptr).unwrap_or(c"".as_ptr())
}

/// The name of a status code as the header spells it (`"XQDB_STATUS_BAD_FEN"`), or
/// `"XQDB_STATUS_UNKNOWN"` for a code this version does not know. A static string.
#[no_mangle]
pub extern "C" fn xqdb_status_name(status: i32) -> *const c_char {
    status::ALL_STATUSES
        .iter()
        .find(|s| **s as i32 == status)
        .map_or(c"XQDB_STATUS_UNKNOWN".as_ptr(), |s| s.name().as_ptr())
}
