//! Move notation: WXF and Chinese, read and written against a position.
//!
//! Both describe a move by the piece, where it stands (its file counted from the mover's
//! right, or its place among pieces of its kind on one file: front, middle, rear), the
//! direction (forward, back, sideways) and a number: the destination file for sideways moves
//! and for the diagonal movers (advisor, elephant, horse), else the number of ranks. Reading
//! resolves the description against the legal moves: exactly one must match.

use super::{Color, Move, Position, Role, Square};

/// Where the moving piece stands, as written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Its file, 1-9 from the mover's right.
    File(u8),
    /// Its place among the pieces of its kind on one file, 0 = front (nearest the enemy).
    /// `of` is how many there are when the notation says it (0 = not said), `file` the
    /// file when it is written too.
    Rank {
        /// 0-based from the front; negative from the rear (-1 = rear).
        place: i8,
        /// Their number on the file, when known.
        of: u8,
        /// The file, when written too.
        file: Option<u8>,
    },
}

/// Direction of a move as written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Towards the enemy.
    Forward,
    /// Towards the own side.
    Back,
    /// Along the rank.
    Sideways,
}

/// A move description parsed from WXF or Chinese notation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Described {
    /// Piece kind.
    pub role: Role,
    /// Where it stands.
    pub source: Source,
    /// Direction.
    pub direction: Direction,
    /// Destination file (1-9) or number of ranks.
    pub number: u8,
}

/// Why a move could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// Not a move in any known notation.
    #[error("unreadable move '{0}'")]
    Syntax(String),
    /// No legal move fits.
    #[error("'{0}' matches no legal move")]
    NoMatch(String),
    /// Several legal moves fit.
    #[error("'{0}' is ambiguous: {1} legal moves match")]
    Ambiguous(String, usize),
}

/// File number of a square for `c`: 1-9 from `c`'s right.
#[inline]
pub fn file_number(c: Color, sq: Square) -> u8 {
    match c {
        Color::Red => 9 - sq.file(),
        Color::Black => sq.file() + 1,
    }
}

fn diagonal(role: Role) -> bool {
    matches!(role, Role::Advisor | Role::Elephant | Role::Horse)
}

/// The description of a legal move: (direction, number, file, place from front, count on
/// that file).
fn describe(pos: &Position, m: Move) -> Option<(Role, Direction, u8, u8, u8, u8)> {
    let p = pos.piece_at(m.from())?;
    let c = p.color;
    let fwd = |a: Square, b: Square| -> i8 {
        let d = b.rank() as i8 - a.rank() as i8;
        if c == Color::Red {
            d
        } else {
            -d
        }
    };
    let d = fwd(m.from(), m.to());
    let direction = if d > 0 {
        Direction::Forward
    } else if d < 0 {
        Direction::Back
    } else {
        Direction::Sideways
    };
    let number = if direction == Direction::Sideways || diagonal(p.role) {
        file_number(c, m.to())
    } else {
        d.unsigned_abs()
    };
    // pieces of the same kind on the same file, front first (no allocation)
    let file_mask = super::Bitboard::file(m.from().file());
    let same = pos.pieces(c, p.role) & file_mask;
    let count = same.count() as u8;
    let ahead = same
        .filter(|s| match c {
            Color::Red => s.rank() > m.from().rank(),
            Color::Black => s.rank() < m.from().rank(),
        })
        .count() as u8;
    Some((
        p.role,
        direction,
        number,
        file_number(c, m.from()),
        ahead,
        count,
    ))
}

/// True when the legal move `m` fits the description.
fn fits(pos: &Position, m: Move, want: &Described) -> bool {
    let Some((role, dir, number, file, place, count)) = describe(pos, m) else {
        return false;
    };
    if role != want.role || dir != want.direction || number != want.number {
        return false;
    }
    match want.source {
        Source::File(f) => {
            // a file digit alone names the middle one of three on that file
            f == file && (count == 1 || (count == 3 && place == 1))
        }
        Source::Rank {
            place: p,
            of,
            file: f,
        } => {
            if f.is_some_and(|f| f != file) || count < 2 {
                return false;
            }
            if of != 0 && of != count {
                return false;
            }
            let idx = if p >= 0 {
                p as i16
            } else {
                count as i16 + p as i16
            };
            idx == place as i16
        }
    }
}

/// Resolve a description against the legal moves.
pub fn resolve(pos: &Position, want: &Described, text: &str) -> Result<Move, NotationError> {
    let mut found = None;
    let mut n = 0;
    let candidates = pos.legal_moves_of(want.role);
    for &m in &candidates {
        if fits(pos, m, want) {
            n += 1;
            found = Some(m);
        }
    }
    match (n, found) {
        (1, Some(m)) => Ok(m),
        (0, _) => {
            // a file digit on a file with two pieces of the kind, where only one can make
            // the move, is written by many sources: accept it when unique
            if let Source::File(f) = want.source {
                let loose: Vec<Move> = candidates
                    .iter()
                    .copied()
                    .filter(|&m| {
                        describe(pos, m).is_some_and(|(r, d, num, file, _, _)| {
                            r == want.role && d == want.direction && num == want.number && file == f
                        })
                    })
                    .collect();
                if loose.len() == 1 {
                    return Ok(loose[0]);
                }
                if loose.len() > 1 {
                    return Err(NotationError::Ambiguous(text.to_string(), loose.len()));
                }
            }
            Err(NotationError::NoMatch(text.to_string()))
        }
        (k, _) => Err(NotationError::Ambiguous(text.to_string(), k)),
    }
}

const RED_NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

fn numeral(c: char) -> Option<u8> {
    if let Some(i) = RED_NUMERALS.iter().position(|&x| x == c) {
        return Some(i as u8 + 1);
    }
    match c {
        '1'..='9' => Some(c as u8 - b'0'),
        '１'..='９' => Some((c as u32 - '１' as u32) as u8 + 1),
        _ => None,
    }
}

fn chinese_role(c: char) -> Option<Role> {
    Some(match c {
        '车' | '車' | '俥' | '伡' => Role::Rook,
        '马' | '馬' | '傌' | '㐷' => Role::Horse,
        '炮' | '砲' | '包' => Role::Cannon,
        '相' | '象' => Role::Elephant,
        '仕' | '士' => Role::Advisor,
        '帅' | '帥' | '将' | '將' => Role::King,
        '兵' | '卒' => Role::Pawn,
        _ => return None,
    })
}

fn chinese_dir(c: char) -> Option<Direction> {
    Some(match c {
        '进' | '進' => Direction::Forward,
        '退' => Direction::Back,
        '平' => Direction::Sideways,
        _ => return None,
    })
}

fn tandem(c: char) -> Option<i8> {
    match c {
        '前' => Some(0),
        '中' => Some(1),
        '后' | '後' => Some(-1),
        _ => None,
    }
}

/// Parse Chinese notation (`炮二平五`, `马８进７`, `前炮平四`, `中兵进一`, `二兵平三`).
pub fn parse_chinese(text: &str) -> Option<Described> {
    let ch: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    if ch.len() != 4 {
        return None;
    }
    let direction = chinese_dir(ch[2])?;
    let number = numeral(ch[3])?;
    let (role, source) = if let (Some(t), Some(r)) = (tandem(ch[0]), chinese_role(ch[1])) {
        (
            r,
            Source::Rank {
                place: t,
                of: if t == 1 { 3 } else { 0 },
                file: None,
            },
        )
    } else if let (Some(k), Some(r)) = (numeral(ch[0]), chinese_role(ch[1])) {
        // pawn columns: the k-th pawn from the front
        (
            r,
            Source::Rank {
                place: k as i8 - 1,
                of: 0,
                file: None,
            },
        )
    } else if let (Some(r), Some(t)) = (chinese_role(ch[0]), tandem(ch[1])) {
        (
            r,
            Source::Rank {
                place: t,
                of: if t == 1 { 3 } else { 0 },
                file: None,
            },
        )
    } else {
        (chinese_role(ch[0])?, Source::File(numeral(ch[1])?))
    };
    Some(Described {
        role,
        source,
        direction,
        number,
    })
}

fn wxf_role(c: char) -> Option<Role> {
    Some(match c.to_ascii_uppercase() {
        'K' => Role::King,
        'A' => Role::Advisor,
        'E' | 'B' => Role::Elephant,
        'H' | 'N' => Role::Horse,
        'R' => Role::Rook,
        'C' => Role::Cannon,
        'P' => Role::Pawn,
        _ => return None,
    })
}

/// Full-width letters, digits and signs to ASCII.
pub fn to_ascii_width(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            c => c,
        })
        .collect()
}

/// Parse WXF notation (`C2.5`, `C2=5`, `H8+7`, `R+.3`, `+R.3`, `C-+1`, `P3+.4`, full width).
pub fn parse_wxf(text: &str) -> Option<Described> {
    let t: Vec<char> = to_ascii_width(text)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    if t.len() < 4 || t.len() > 6 {
        return None;
    }
    let number = t[t.len() - 1].to_digit(10)? as u8;
    let direction = match t[t.len() - 2] {
        '+' => Direction::Forward,
        '-' => Direction::Back,
        '.' | '=' => Direction::Sideways,
        _ => return None,
    };
    let body = &t[..t.len() - 2];
    let li = body.iter().position(|c| c.is_ascii_alphabetic())?;
    let role = wxf_role(body[li])?;
    let marks: String = body[..li]
        .iter()
        .chain(&body[li + 1..])
        .filter(|c| **c == '+' || **c == '-')
        .collect();
    let digits: Vec<u8> = body[li + 1..]
        .iter()
        .filter_map(|c| c.to_digit(10))
        .map(|d| d as u8)
        .collect();
    if number == 0 || digits.len() > 1 || body.len() != 1 + marks.len() + digits.len() {
        return None;
    }
    let file = digits.first().copied();
    let source = match marks.as_str() {
        "" => Source::File(file?),
        "+" => Source::Rank {
            place: 0,
            of: 0,
            file,
        },
        "-" => Source::Rank {
            place: -1,
            of: 0,
            file,
        },
        "++" => Source::Rank {
            place: 0,
            of: 0,
            file,
        },
        "--" => Source::Rank {
            place: -1,
            of: 0,
            file,
        },
        _ => return None,
    };
    Some(Described {
        role,
        source,
        direction,
        number,
    })
}

/// Write a legal move in Chinese notation (Red with Chinese numerals, Black with full-width
/// digits; simplified characters).
pub fn to_chinese(pos: &Position, m: Move) -> Option<String> {
    let (role, dir, number, file, place, count) = describe(pos, m)?;
    let c = pos.turn();
    let name = match (c, role) {
        (Color::Red, Role::Rook) | (Color::Black, Role::Rook) => '车',
        (_, Role::Horse) => '马',
        (_, Role::Cannon) => '炮',
        (Color::Red, Role::Elephant) => '相',
        (Color::Black, Role::Elephant) => '象',
        (Color::Red, Role::Advisor) => '仕',
        (Color::Black, Role::Advisor) => '士',
        (Color::Red, Role::King) => '帅',
        (Color::Black, Role::King) => '将',
        (Color::Red, Role::Pawn) => '兵',
        (Color::Black, Role::Pawn) => '卒',
    };
    let num = |n: u8| -> char {
        match c {
            Color::Red => RED_NUMERALS[(n - 1) as usize],
            Color::Black => char::from_u32('１' as u32 + n as u32 - 1).unwrap_or('?'),
        }
    };
    let d = match dir {
        Direction::Forward => '进',
        Direction::Back => '退',
        Direction::Sideways => '平',
    };
    let mut s = String::new();
    if count >= 2 {
        let t = match (place, count) {
            (0, _) => '前',
            (p, n) if p + 1 == n => '后',
            (1, 3) => '中',
            (p, _) => RED_NUMERALS[p as usize],
        };
        s.push(t);
        s.push(name);
    } else {
        s.push(name);
        s.push(num(file));
    }
    s.push(d);
    s.push(num(number));
    Some(s)
}

/// Write a legal move in WXF notation (tandems as `+R.3` / `-R.3`).
pub fn to_wxf(pos: &Position, m: Move) -> Option<String> {
    let (role, dir, number, file, place, count) = describe(pos, m)?;
    let letter = match role {
        Role::King => 'K',
        Role::Advisor => 'A',
        Role::Elephant => 'E',
        Role::Horse => 'H',
        Role::Rook => 'R',
        Role::Cannon => 'C',
        Role::Pawn => 'P',
    };
    let d = match dir {
        Direction::Forward => '+',
        Direction::Back => '-',
        Direction::Sideways => '.',
    };
    let src = if count >= 2 {
        match (place, count) {
            (0, _) => format!("+{letter}"),
            (p, n) if p + 1 == n => format!("-{letter}"),
            _ => format!("{letter}{file}"),
        }
    } else {
        format!("{letter}{file}")
    };
    Some(format!("{src}{d}{number}"))
}

/// Parse a move in any notation (ICCS, WXF, Chinese) and resolve it in `pos`.
pub fn parse_any(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let t = text.trim();
    if t.is_ascii()
        && t.len() >= 4
        && t.as_bytes()[0].is_ascii_alphabetic()
        && t.as_bytes()[1].is_ascii_digit()
    {
        if let Ok(m) = t.parse::<Move>() {
            return if pos.is_legal(m) {
                Ok(m)
            } else {
                Err(NotationError::NoMatch(t.to_string()))
            };
        }
    }
    let d = if t
        .chars()
        .any(|c| c as u32 > 0x2FFF && !('\u{FF01}'..='\u{FF5E}').contains(&c))
    {
        parse_chinese(t)
    } else {
        parse_wxf(t)
    }
    .ok_or_else(|| NotationError::Syntax(t.to_string()))?;
    resolve(pos, &d, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_moves_in_three_notations() {
        let p = Position::startpos();
        let m: Move = "h2e2".parse().unwrap();
        assert_eq!(parse_any(&p, "炮二平五"), Ok(m));
        assert_eq!(parse_any(&p, "C2.5"), Ok(m));
        assert_eq!(parse_any(&p, "Ｃ２＝５"), Ok(m));
        assert_eq!(parse_any(&p, "H2-E2"), Ok(m));
        assert_eq!(to_chinese(&p, m).unwrap(), "炮二平五");
        assert_eq!(to_wxf(&p, m).unwrap(), "C2.5");
        let p = p.after(m);
        let m: Move = "h9g7".parse().unwrap();
        assert_eq!(parse_any(&p, "马８进７"), Ok(m));
        assert_eq!(parse_any(&p, "馬8進7"), Ok(m));
        assert_eq!(parse_any(&p, "H8+7"), Ok(m));
        assert_eq!(to_chinese(&p, m).unwrap(), "马８进７");
        assert!(parse_any(&p, "马８进６").is_err());
        assert!(parse_any(&p, "xyz").is_err());
    }

    #[test]
    fn every_legal_move_round_trips_through_both_writers() {
        let fens = [
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
            "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w",
            "4k4/9/9/2PPP4/9/9/9/9/9/4K4 w",
            "3k5/4P4/4P4/4P4/9/9/9/9/9/5K3 w",
        ];
        for fen in fens {
            for pos in [
                Position::from_fen(fen).unwrap(),
                Position::from_fen(fen).unwrap().flip_colors(),
            ] {
                for m in pos.legal_moves() {
                    let c = to_chinese(&pos, m).unwrap();
                    assert_eq!(parse_any(&pos, &c), Ok(m), "{fen}: {m} written {c}");
                    let w = to_wxf(&pos, m).unwrap();
                    assert_eq!(parse_any(&pos, &w), Ok(m), "{fen}: {m} written {w}");
                }
            }
        }
    }
}
