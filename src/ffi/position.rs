//! Positions and moves across the boundary: the verdict scale, the piece codes of the board
//! array, reading a FEN or a board array into a [`Position`], and moves as squares and ICCS.

use super::status::{c_str, non_null, Failure, XqdbStatus};
use crate::board::{Color, Move, Piece, Position, Role, Setup, Square};
use crate::tablebase::Wdl;
use std::ffi::c_char;

/// The verdict of a position for the side to move (or of a move for the side making it).
///
/// The scale is signed and ordered: the higher, the better for the side it speaks for; 0 is
/// a draw. This version of xqdb returns `XQDB_WDL_LOSS`, `XQDB_WDL_DRAW`, `XQDB_WDL_WIN`
/// and, from tables of rule set 1,
/// - `XQDB_WDL_WIN_BY_RULE` / `XQDB_WDL_LOSS_BY_RULE`: decided by the repetition rules (the
///   loser's only way to avoid mate is a forbidden perpetual check or chase; rule set 0
///   would call the position a draw).
///
/// `XQDB_WDL_CURSED_WIN` / `XQDB_WDL_BLESSED_LOSS` are reserved: a mate exists but a
/// move-count rule reaches the draw first.
///
/// Code written today keeps working when they appear if it tests ranges, not values:
/// `v >= XQDB_WDL_WIN_BY_RULE` is a win, `v <= XQDB_WDL_LOSS_BY_RULE` a loss, anything
/// between is a draw in practice. Values beyond -3..3 may be added later with the same
/// meaning of their sign.
#[repr(i32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum XqdbWdl {
    /// Mated with best play.
    Loss = -3,
    /// Mated with best play, and lost only through the repetition rules (rule set 0 would
    /// call it a draw).
    LossByRule = -2,
    /// Reserved: mated with best play, but a move-count rule draws first.
    BlessedLoss = -1,
    /// Neither side can force mate.
    Draw = 0,
    /// Reserved: mates with best play, but a move-count rule draws first.
    CursedWin = 1,
    /// Mates with best play, won only through the repetition rules (rule set 0 would call it
    /// a draw).
    WinByRule = 2,
    /// Mates with best play.
    Win = 3,
}

impl From<crate::tablebase::values::Verdict> for XqdbWdl {
    #[inline]
    fn from(v: crate::tablebase::values::Verdict) -> XqdbWdl {
        match (v.wdl, v.rests_on_rule()) {
            (Wdl::Loss, true) => XqdbWdl::LossByRule,
            (Wdl::Win, true) => XqdbWdl::WinByRule,
            (w, _) => w.into(),
        }
    }
}

impl From<Wdl> for XqdbWdl {
    #[inline]
    fn from(w: Wdl) -> XqdbWdl {
        match w {
            Wdl::Loss => XqdbWdl::Loss,
            Wdl::Draw => XqdbWdl::Draw,
            Wdl::Win => XqdbWdl::Win,
        }
    }
}

/// The side to move in the board-array calls.
#[repr(i32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum XqdbSide {
    /// Red (moves first, ranks 0-4 at the start).
    Red = 0,
    /// Black.
    Black = 1,
}

/// The byte of a board array for each piece: 0 for an empty point, 1-7 for Red's king,
/// advisor, elephant, horse, rook, cannon and pawn, 9-15 for Black's in the same order
/// (Black's code is Red's plus 8). Any other byte is refused with
/// `XQDB_STATUS_BAD_ARGUMENT`.
#[repr(u8)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum XqdbPiece {
    /// No piece.
    Empty = 0,
    /// Red king.
    RedKing = 1,
    /// Red advisor.
    RedAdvisor = 2,
    /// Red elephant.
    RedElephant = 3,
    /// Red horse.
    RedHorse = 4,
    /// Red rook.
    RedRook = 5,
    /// Red cannon.
    RedCannon = 6,
    /// Red pawn.
    RedPawn = 7,
    /// Black king.
    BlackKing = 9,
    /// Black advisor.
    BlackAdvisor = 10,
    /// Black elephant.
    BlackElephant = 11,
    /// Black horse.
    BlackHorse = 12,
    /// Black rook.
    BlackRook = 13,
    /// Black cannon.
    BlackCannon = 14,
    /// Black pawn.
    BlackPawn = 15,
}

/// The board-array byte of a piece.
pub fn piece_code(p: Option<Piece>) -> u8 {
    match p {
        None => 0,
        Some(p) => 1 + p.role.index() as u8 + 8 * p.color.index() as u8,
    }
}

/// The piece of each board-array byte below 16 (None for 0 and for the unused 8).
const DECODE: [Option<Piece>; 16] = {
    let mut t = [None; 16];
    let mut code = 1;
    while code < 16 {
        if code != 8 {
            let color = if code < 8 { Color::Red } else { Color::Black };
            t[code] = Some(Piece::new(color, Role::ALL[(code & 7) - 1]));
        }
        code += 1;
    }
    t
};

/// True for a byte that is no piece code.
#[inline]
fn is_bad_code(code: u8) -> bool {
    code >= 16 || code == 8
}

/// The board array of a position (index `rank * 9 + file`).
pub fn board_array(pos: &Position) -> [u8; 90] {
    let mut b = [0u8; 90];
    for sq in Square::ALL {
        b[sq.index()] = piece_code(pos.piece_at(sq));
    }
    b
}

/// Read a board array and side to move into a legal position.
///
/// # Safety
/// `board` is NULL or points to 90 readable bytes.
#[inline]
pub(crate) unsafe fn board_position(board: *const u8, side: i32) -> Result<Position, Failure> {
    let board = non_null(board, "board")?;
    // SAFETY: non-null, and 90 bytes long by the caller's contract.
    let bytes = unsafe { std::slice::from_raw_parts(board, 90) };
    let mut setup = Setup::empty();
    setup.turn = match side {
        0 => Color::Red,
        1 => Color::Black,
        _ => {
            return Err(Failure::new(
                XqdbStatus::BadArgument,
                format!("side {side}: expected 0 (Red to move) or 1 (Black to move)"),
            ))
        }
    };
    // decode every byte without a branch, then look for a bad one only if there is one
    let mut bad = false;
    for (slot, &code) in setup.board.iter_mut().zip(bytes) {
        bad |= is_bad_code(code);
        *slot = DECODE[(code & 15) as usize];
    }
    if bad {
        return Err(bad_code(bytes));
    }
    Position::from_setup(&setup).map_err(|e| {
        Failure::new(
            XqdbStatus::IllegalPosition,
            format!("illegal position: {e}"),
        )
    })
}

#[cold]
fn bad_code(bytes: &[u8]) -> Failure {
    let (i, code) = bytes
        .iter()
        .enumerate()
        .find(|(_, &c)| is_bad_code(c))
        .map_or((0, 0), |(i, &c)| (i, c));
    let sq = Square::ALL[i];
    Failure::new(
        XqdbStatus::BadArgument,
        format!(
            "board[{i}] ({sq}) = {code}: not a piece code (0 empty, 1-7 Red K A B N R C P, \
             9-15 Black K A B N R C P)"
        ),
    )
}

/// Read a FEN (or `startpos`) into a legal position.
///
/// # Safety
/// `fen` is NULL or a NUL-terminated string.
pub(crate) unsafe fn fen_position(fen: *const c_char) -> Result<Position, Failure> {
    // SAFETY: forwarded contract.
    let text = unsafe { c_str(fen, "fen", XqdbStatus::BadFen) }?;
    Ok(Position::from_fen(text)?)
}

/// The ICCS text of a move as a NUL-terminated C array (`h2e2`).
pub(crate) fn iccs(m: Move) -> [c_char; 6] {
    let mut out = [0 as c_char; 6];
    let (from, to) = (m.from(), m.to());
    let text = [
        b'a' + from.file(),
        b'0' + from.rank(),
        b'a' + to.file(),
        b'0' + to.rank(),
    ];
    for (o, b) in out.iter_mut().zip(text) {
        *o = b as c_char;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_codes_round_trip_and_others_are_refused() {
        for code in 0..=255u8 {
            if is_bad_code(code) {
                assert!(code == 8 || code > 15, "{code}");
            } else {
                assert_eq!(piece_code(DECODE[code as usize]), code);
            }
        }
        assert_eq!(
            piece_code(Some(Piece::new(Color::Black, Role::Pawn))),
            XqdbPiece::BlackPawn as u8
        );
        assert_eq!(
            piece_code(Some(Piece::new(Color::Red, Role::Horse))),
            XqdbPiece::RedHorse as u8
        );
    }

    #[test]
    fn a_board_array_reads_back_to_its_position() {
        let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 b").unwrap();
        let b = board_array(&pos);
        // SAFETY: a 90-byte array.
        let back = unsafe { board_position(b.as_ptr(), 1) }.unwrap();
        assert_eq!(back, pos);
        // SAFETY: as above.
        let bad = unsafe { board_position(b.as_ptr(), 2) }.unwrap_err();
        assert_eq!(bad.status, XqdbStatus::BadArgument);
        let mut b2 = b;
        b2[40] = 8;
        // SAFETY: as above.
        let bad = unsafe { board_position(b2.as_ptr(), 0) }.unwrap_err();
        assert_eq!(bad.status, XqdbStatus::BadArgument);
        assert!(
            bad.message.contains("board[40] (e4) = 8"),
            "{}",
            bad.message
        );
        let mut b3 = [0u8; 90];
        b3[Square::E0.index()] = 1;
        b3[Square::E9.index()] = 9;
        // SAFETY: as above.
        let bad = unsafe { board_position(b3.as_ptr(), 0) }.unwrap_err();
        assert_eq!(bad.status, XqdbStatus::IllegalPosition);
        assert!(bad.message.contains("face"), "{}", bad.message);
        // SAFETY: NULL is checked.
        let bad = unsafe { board_position(std::ptr::null(), 0) }.unwrap_err();
        assert_eq!(bad.status, XqdbStatus::NullArgument);
    }

    #[test]
    fn iccs_text() {
        let m: Move = "h2e2".parse().unwrap();
        let t = iccs(m);
        let s: Vec<u8> = t.iter().map(|&c| c as u8).collect();
        assert_eq!(&s, b"h2e2\0\0");
    }
}
