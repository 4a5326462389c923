//! The value byte of a position while it is generated.
//!
//! * Bit 7 set: not decided yet. In steps 2 and 3 the low bits count the successors not yet
//!   known to win for the opponent: six bits ([`COUNTER`]), bit 6 being the capture-draw flag
//!   ([`CAPDRAW`]) of a table whose sides have at most 63 moves (see
//!   [`super::capdraw_in_value`]), else seven; in step 4 the low seven bits keep the position's
//!   final code.
//! * Bit 7 clear: decided; the byte is a code `order << 2 | kind`.

/// Not decided.
pub const OPEN: u8 = 0x80;
/// In steps 2 and 3, of an open position with six-bit counters: one of its legal moves is a
/// capture into a drawn position of a smaller table (a drawing way out of any cycle).
pub const CAPDRAW: u8 = 0x40;
/// The counter bits of an open position with the capture-draw flag in its byte.
pub const COUNTER: u8 = 0x3F;
/// Kinds.
pub const LOSS: u8 = 0;
pub const WIN: u8 = 1;
pub const RULE_CHECK: u8 = 2;
pub const RULE_CHASE: u8 = 3;
/// Illegal placement (order 0, kind 2) and draw (order 0, kind 3).
pub const ILLEGAL: u8 = 2;
pub const DRAW: u8 = 3;
/// Highest rule round a code holds.
pub const MAX_ORDER: u8 = 31;

pub const fn make(order: u8, kind: u8) -> u8 {
    (order << 2) | kind
}

pub const fn order(c: u8) -> u8 {
    (c & 0x7F) >> 2
}

/// A decided loss (plain or by ruling).
pub const fn is_loss(c: u8) -> bool {
    c & OPEN == 0 && (c & 3 == LOSS || (c >> 2 > 0 && c & 3 >= RULE_CHECK))
}

pub const fn is_win(c: u8) -> bool {
    c & OPEN == 0 && c & 3 == WIN
}

pub const fn is_ruling(c: u8) -> bool {
    c >> 2 > 0 && c & 3 >= RULE_CHECK
}
