//! Status codes, the per-thread last error message, the panic guard every entry point runs
//! in, and the checks of the pointers a C caller passes.

use crate::board::FenError;
use crate::book::BookError;
use crate::tablebase::file::FileError;
use crate::tablebase::ProbeError;
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{self, AssertUnwindSafe};

/// What a call did. Every function that can fail returns one; on anything but
/// `XQDB_STATUS_OK`, `xqdb_last_error()` on the same thread says what and where.
/// New codes may be added at the end in later versions: treat an unknown code as an error.
#[repr(i32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum XqdbStatus {
    /// Success.
    Ok = 0,
    /// A pointer the call needs is NULL.
    NullArgument = 1,
    /// An argument out of range: a side other than 0 or 1, a byte of the board that is no
    /// piece code, a material name that cannot be read, a string that is not UTF-8.
    BadArgument = 2,
    /// A FEN that cannot be read (bad board field, side to move, counters).
    BadFen = 3,
    /// A readable position that is not legal (kings facing, the side not to move in check,
    /// too much material, a piece on a point it can never reach, a missing king).
    IllegalPosition = 4,
    /// The table folder or the book file does not exist.
    NotFound = 5,
    /// No table for the position's material (or one of the materials its captures lead to)
    /// in the folder.
    MissingTable = 6,
    /// A table or book file that is corrupt, cut short, of another format version or of
    /// another material than its name says. Never a wrong value instead.
    Corrupt = 7,
    /// A file that exists but cannot be read or mapped.
    Io = 8,
    /// The metric is not available: DTC probes answer this until DTC tables exist.
    NotAvailable = 9,
    /// The output array is too small; the count says how many entries are needed.
    BufferTooSmall = 10,
    /// An internal error (a Rust panic caught at the boundary); the handle stays usable.
    Internal = 11,
}

/// Every status, in code order.
pub(crate) const ALL_STATUSES: [XqdbStatus; 12] = [
    XqdbStatus::Ok,
    XqdbStatus::NullArgument,
    XqdbStatus::BadArgument,
    XqdbStatus::BadFen,
    XqdbStatus::IllegalPosition,
    XqdbStatus::NotFound,
    XqdbStatus::MissingTable,
    XqdbStatus::Corrupt,
    XqdbStatus::Io,
    XqdbStatus::NotAvailable,
    XqdbStatus::BufferTooSmall,
    XqdbStatus::Internal,
];

impl XqdbStatus {
    /// The name of the status as the header spells it.
    pub fn name(self) -> &'static CStr {
        match self {
            XqdbStatus::Ok => c"XQDB_STATUS_OK",
            XqdbStatus::NullArgument => c"XQDB_STATUS_NULL_ARGUMENT",
            XqdbStatus::BadArgument => c"XQDB_STATUS_BAD_ARGUMENT",
            XqdbStatus::BadFen => c"XQDB_STATUS_BAD_FEN",
            XqdbStatus::IllegalPosition => c"XQDB_STATUS_ILLEGAL_POSITION",
            XqdbStatus::NotFound => c"XQDB_STATUS_NOT_FOUND",
            XqdbStatus::MissingTable => c"XQDB_STATUS_MISSING_TABLE",
            XqdbStatus::Corrupt => c"XQDB_STATUS_CORRUPT",
            XqdbStatus::Io => c"XQDB_STATUS_IO",
            XqdbStatus::NotAvailable => c"XQDB_STATUS_NOT_AVAILABLE",
            XqdbStatus::BufferTooSmall => c"XQDB_STATUS_BUFFER_TOO_SMALL",
            XqdbStatus::Internal => c"XQDB_STATUS_INTERNAL",
        }
    }
}

/// A failed call: its status and the message `xqdb_last_error` will return.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub(crate) status: XqdbStatus,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(status: XqdbStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }
}

impl From<ProbeError> for Failure {
    fn from(e: ProbeError) -> Failure {
        let status = match &e {
            ProbeError::Missing { .. } | ProbeError::NoIndex(_) => XqdbStatus::MissingTable,
            ProbeError::RuleMismatch { .. } => XqdbStatus::Corrupt,
            ProbeError::Illegal(_) => XqdbStatus::IllegalPosition,
            ProbeError::File { source, .. } => match **source {
                FileError::Io { .. } => XqdbStatus::Io,
                FileError::Corrupt { .. }
                | FileError::Version { .. }
                | FileError::WrongTable { .. } => XqdbStatus::Corrupt,
            },
        };
        Failure::new(status, e.to_string())
    }
}

impl From<FenError> for Failure {
    fn from(e: FenError) -> Failure {
        let status = match e {
            FenError::Position(_) => XqdbStatus::IllegalPosition,
            _ => XqdbStatus::BadFen,
        };
        Failure::new(status, e.to_string())
    }
}

impl From<BookError> for Failure {
    fn from(e: BookError) -> Failure {
        let status = match &e {
            BookError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                XqdbStatus::NotFound
            }
            BookError::Io { .. } => XqdbStatus::Io,
            BookError::Corrupt { .. } => XqdbStatus::Corrupt,
        };
        Failure::new(status, e.to_string())
    }
}

thread_local! {
    /// The message of the last failed call on this thread.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Keep `message` as this thread's last error (NUL bytes inside become spaces).
fn set_last_error(message: &str) {
    let bytes: Vec<u8> = message
        .bytes()
        .map(|b| if b == 0 { b' ' } else { b })
        .collect();
    let text = CString::new(bytes).unwrap_or_default();
    // A thread being torn down has no slot any more: the message is then dropped.
    let _ = LAST_ERROR.try_with(|slot| *slot.borrow_mut() = text);
}

/// Pointer to this thread's last error message (empty when no call has failed yet).
pub(crate) fn last_error_ptr() -> *const c_char {
    LAST_ERROR
        .try_with(|slot| slot.borrow().as_ptr())
        .unwrap_or(c"".as_ptr())
}

/// The text of a panic payload.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// Run the body of an entry point: its error becomes the status and this thread's last error,
/// a panic becomes `XQDB_STATUS_INTERNAL` (never unwinds into C).
#[inline]
pub(crate) fn guard(body: impl FnOnce() -> Result<XqdbStatus, Failure>) -> XqdbStatus {
    match panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(status)) => status,
        Ok(Err(f)) => fail(f),
        Err(payload) => {
            let text = panic_text(payload.as_ref());
            // dropping a payload can panic in turn; never let that cross the boundary
            let _ = panic::catch_unwind(AssertUnwindSafe(move || drop(payload)));
            fail(Failure::new(
                XqdbStatus::Internal,
                format!("internal error in xqdb (please report it): {text}"),
            ))
        }
    }
}

#[cold]
fn fail(f: Failure) -> XqdbStatus {
    set_last_error(&f.message);
    f.status
}

/// A required pointer, or `XQDB_STATUS_NULL_ARGUMENT` naming the argument.
#[inline]
pub(crate) fn non_null<T>(p: *const T, what: &str) -> Result<*const T, Failure> {
    if p.is_null() {
        Err(null(what))
    } else {
        Ok(p)
    }
}

/// A required output pointer.
#[inline]
pub(crate) fn non_null_mut<T>(p: *mut T, what: &str) -> Result<*mut T, Failure> {
    if p.is_null() {
        Err(null(what))
    } else {
        Ok(p)
    }
}

#[cold]
fn null(what: &str) -> Failure {
    Failure::new(
        XqdbStatus::NullArgument,
        format!("{what} is NULL: it must point to a valid object"),
    )
}

/// The bytes of a NUL-terminated C string.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that outlives the call.
pub(crate) unsafe fn c_bytes<'a>(p: *const c_char, what: &str) -> Result<&'a [u8], Failure> {
    let p = non_null(p, what)?;
    // SAFETY: non-null, and NUL-terminated by the caller's contract.
    Ok(unsafe { CStr::from_ptr(p) }.to_bytes())
}

/// A NUL-terminated UTF-8 C string.
///
/// # Safety
/// As [`c_bytes`].
pub(crate) unsafe fn c_str<'a>(
    p: *const c_char,
    what: &str,
    not_utf8: XqdbStatus,
) -> Result<&'a str, Failure> {
    // SAFETY: forwarded contract.
    let bytes = unsafe { c_bytes(p, what) }?;
    std::str::from_utf8(bytes).map_err(|e| {
        Failure::new(
            not_utf8,
            format!(
                "{what} is not UTF-8 text (bad byte at offset {})",
                e.valid_up_to()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last() -> String {
        // SAFETY: the pointer is this thread's NUL-terminated message.
        unsafe { CStr::from_ptr(last_error_ptr()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn a_failure_sets_the_message_and_a_panic_becomes_internal() {
        // on a thread of its own: its message starts empty
        std::thread::spawn(failures_and_panics).join().unwrap();
    }

    fn failures_and_panics() {
        assert_eq!(last(), "");
        let s = guard(|| Err(Failure::new(XqdbStatus::BadFen, "bad\0fen")));
        assert_eq!(s, XqdbStatus::BadFen);
        assert_eq!(last(), "bad fen");
        assert_eq!(guard(|| Ok(XqdbStatus::Ok)), XqdbStatus::Ok);
        assert_eq!(last(), "bad fen", "success leaves the message");
        let s = guard(|| panic!("boom {}", 7));
        assert_eq!(s, XqdbStatus::Internal);
        assert!(last().contains("boom 7"), "{}", last());
        // another thread has its own message
        std::thread::spawn(|| assert_eq!(last(), ""))
            .join()
            .unwrap();
    }

    #[test]
    fn status_names_follow_the_codes() {
        for (i, s) in ALL_STATUSES.iter().enumerate() {
            assert_eq!(*s as i32, i as i32);
            assert!(s.name().to_str().unwrap().starts_with("XQDB_STATUS_"));
        }
    }
}
