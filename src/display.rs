//! Text rendering of positions for terminals.

use crate::board::{Color, Position, Square};
use std::fmt::Write;

/// Render the board with Chinese piece characters, Red in red and Black in bold, files a-i
/// along the bottom and ranks 9..0 down the side. `color` adds ANSI colour codes.
pub fn board_diagram(pos: &Position, color: bool) -> String {
    let mut s = String::new();
    for rank in (0..10u8).rev() {
        let _ = write!(s, "{rank} ");
        for file in 0..9u8 {
            let sq = Square::from_coords(file, rank).expect("in range");
            match pos.piece_at(sq) {
                Some(p) => {
                    let ch = p.chinese();
                    if color {
                        match p.color {
                            Color::Red => {
                                let _ = write!(s, "\x1b[1;31m{ch}\x1b[0m");
                            }
                            Color::Black => {
                                let _ = write!(s, "\x1b[1;37;40m{ch}\x1b[0m");
                            }
                        }
                    } else {
                        s.push(ch);
                    }
                }
                None => s.push('\u{FF0B}'),
            }
        }
        s.push('\n');
        if rank == 5 {
            s.push_str("  ～～～～～～～～～\n");
        }
    }
    s.push_str("  ａｂｃｄｅｆｇｈｉ\n");
    s
}

/// A few lines about a position: the board, FEN, side to move, check, legal moves.
pub fn describe(pos: &Position, color: bool) -> String {
    let mut s = board_diagram(pos, color);
    let moves = pos.legal_moves();
    let _ = writeln!(s, "FEN: {}", pos.to_fen());
    let _ = writeln!(s, "Side to move: {}", pos.turn());
    let status = if moves.is_empty() {
        if pos.in_check() {
            "checkmated (loses)"
        } else {
            "no legal move (stalemated, loses)"
        }
    } else if pos.in_check() {
        "in check"
    } else {
        "not in check"
    };
    let _ = writeln!(s, "Status: {status}");
    let list: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    let _ = writeln!(s, "Legal moves ({}): {}", list.len(), list.join(" "));
    s
}
