//! Piece kinds and coloured pieces.

use super::Color;
use std::fmt;

/// The seven kinds of piece. The discriminant order is the Zobrist order (see
/// [`crate::board::zobrist`]): changing it changes every key.
#[repr(u8)]
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Role {
    /// 帥/將: one step orthogonally inside the palace.
    King = 0,
    /// 仕/士: one step diagonally inside the palace.
    Advisor = 1,
    /// 相/象 (FEN `B`, alias `E`): two steps diagonally, never across the river.
    Elephant = 2,
    /// 傌/馬 (FEN `N`, alias `H`).
    Horse = 3,
    /// 俥/車.
    Rook = 4,
    /// 炮/砲.
    Cannon = 5,
    /// 兵/卒.
    Pawn = 6,
}

impl Role {
    /// All roles in discriminant order.
    pub const ALL: [Role; 7] = [
        Role::King,
        Role::Advisor,
        Role::Elephant,
        Role::Horse,
        Role::Rook,
        Role::Cannon,
        Role::Pawn,
    ];

    /// Index 0..7.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Upper-case FEN letter as written (K A B N R C P).
    pub const fn char(self) -> char {
        match self {
            Role::King => 'K',
            Role::Advisor => 'A',
            Role::Elephant => 'B',
            Role::Horse => 'N',
            Role::Rook => 'R',
            Role::Cannon => 'C',
            Role::Pawn => 'P',
        }
    }

    /// Parse a FEN letter of either case, accepting the aliases `E` (elephant) and `H` (horse).
    pub const fn from_char(c: char) -> Option<Role> {
        match c.to_ascii_uppercase() {
            'K' => Some(Role::King),
            'A' => Some(Role::Advisor),
            'B' | 'E' => Some(Role::Elephant),
            'N' | 'H' => Some(Role::Horse),
            'R' => Some(Role::Rook),
            'C' => Some(Role::Cannon),
            'P' => Some(Role::Pawn),
            _ => None,
        }
    }

    /// Most pieces of this kind one side can have.
    pub const fn max_count(self) -> u8 {
        match self {
            Role::King => 1,
            Role::Pawn => 5,
            _ => 2,
        }
    }

    /// English name.
    pub const fn name(self) -> &'static str {
        match self {
            Role::King => "king",
            Role::Advisor => "advisor",
            Role::Elephant => "elephant",
            Role::Horse => "horse",
            Role::Rook => "rook",
            Role::Cannon => "cannon",
            Role::Pawn => "pawn",
        }
    }
}

/// A piece of one colour.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Piece {
    /// Owner.
    pub color: Color,
    /// Kind.
    pub role: Role,
}

impl Piece {
    /// A piece of `color` and `role`.
    #[inline]
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }

    /// FEN letter: upper case for Red, lower case for Black.
    pub const fn char(self) -> char {
        let c = self.role.char();
        match self.color {
            Color::Red => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }

    /// Parse a FEN letter (E/H aliases accepted); case gives the colour.
    pub const fn from_char(c: char) -> Option<Piece> {
        let role = match Role::from_char(c) {
            Some(r) => r,
            None => return None,
        };
        let color = if c.is_ascii_uppercase() {
            Color::Red
        } else {
            Color::Black
        };
        Some(Piece { color, role })
    }

    /// Traditional Chinese character, distinct for Red and Black
    /// (帥仕相傌俥炮兵 / 將士象馬車砲卒).
    pub const fn chinese(self) -> char {
        match (self.color, self.role) {
            (Color::Red, Role::King) => '帥',
            (Color::Red, Role::Advisor) => '仕',
            (Color::Red, Role::Elephant) => '相',
            (Color::Red, Role::Horse) => '傌',
            (Color::Red, Role::Rook) => '俥',
            (Color::Red, Role::Cannon) => '炮',
            (Color::Red, Role::Pawn) => '兵',
            (Color::Black, Role::King) => '將',
            (Color::Black, Role::Advisor) => '士',
            (Color::Black, Role::Elephant) => '象',
            (Color::Black, Role::Horse) => '馬',
            (Color::Black, Role::Rook) => '車',
            (Color::Black, Role::Cannon) => '砲',
            (Color::Black, Role::Pawn) => '卒',
        }
    }

    /// Index 0..14: colour * 7 + role.
    #[inline]
    pub const fn index(self) -> usize {
        self.color.index() * 7 + self.role.index()
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.color.name(), self.role.name())
    }
}
