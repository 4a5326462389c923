//! Moves: a from and a to square packed in 16 bits.

use super::{ParseSquareError, Square};
use std::fmt;
use std::str::FromStr;

/// A move from one point to another (captures are implied by the board).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Move(u16);

impl Move {
    /// The move `from` -> `to`.
    #[inline]
    pub const fn new(from: Square, to: Square) -> Move {
        Move(from as u16 | (to as u16) << 7)
    }

    /// Origin.
    #[inline]
    pub fn from(self) -> Square {
        // SAFETY: constructed from a Square in `new` (7 bits, < 90).
        unsafe { Square::new_unchecked((self.0 & 0x7F) as u8) }
    }

    /// Destination.
    #[inline]
    pub fn to(self) -> Square {
        // SAFETY: constructed from a Square in `new` (< 90).
        unsafe { Square::new_unchecked((self.0 >> 7) as u8) }
    }

    /// Left-right mirror image.
    #[inline]
    pub fn mirror(self) -> Move {
        Move::new(self.from().mirror(), self.to().mirror())
    }

    /// Top-bottom flip (used with the colour flip).
    #[inline]
    pub fn flip(self) -> Move {
        Move::new(self.from().flip(), self.to().flip())
    }

    /// The packed 14-bit value (from | to << 7).
    #[inline]
    pub const fn to_u16(self) -> u16 {
        self.0
    }

    /// Unpack a value produced by [`Move::to_u16`].
    pub fn from_u16(v: u16) -> Option<Move> {
        let from = Square::new((v & 0x7F) as u8)?;
        let to = Square::new(((v >> 7) & 0x7F) as u8)?;
        if v >> 14 != 0 {
            return None;
        }
        Some(Move::new(from, to))
    }
}

impl fmt::Display for Move {
    /// ICCS coordinates, e.g. `h2e2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())
    }
}

/// A move string that is not ICCS.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseMoveError {
    /// Wrong shape.
    #[error("invalid ICCS move '{0}': expected from and to squares such as 'h2e2' or 'H2-E2'")]
    Syntax(String),
    /// A square is invalid.
    #[error("invalid ICCS move '{0}': {1}")]
    Square(String, ParseSquareError),
}

impl FromStr for Move {
    type Err = ParseMoveError;

    /// Parse `h2e2` or `H2-E2` (ranks 0-9; a rank 10 is rejected with an explanation).
    fn from_str(s: &str) -> Result<Move, ParseMoveError> {
        let t: String = s.trim().chars().filter(|&c| c != '-').collect();
        let split = |t: &str| -> Result<(Square, Square), ParseMoveError> {
            // the destination starts at the second letter
            let second = t
                .char_indices()
                .skip(1)
                .find(|(_, c)| c.is_ascii_alphabetic())
                .map(|(i, _)| i)
                .ok_or_else(|| ParseMoveError::Syntax(s.to_string()))?;
            let a = t[..second]
                .parse::<Square>()
                .map_err(|e| ParseMoveError::Square(s.to_string(), e))?;
            let b = t[second..]
                .parse::<Square>()
                .map_err(|e| ParseMoveError::Square(s.to_string(), e))?;
            Ok((a, b))
        };
        if !t.is_ascii() || t.len() < 4 || t.len() > 6 {
            return Err(ParseMoveError::Syntax(s.to_string()));
        }
        let (a, b) = split(&t)?;
        if a == b {
            return Err(ParseMoveError::Syntax(s.to_string()));
        }
        Ok(Move::new(a, b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        let m: Move = "h2e2".parse().unwrap();
        assert_eq!(m.from(), Square::H2);
        assert_eq!(m.to(), Square::E2);
        assert_eq!(m.to_string(), "h2e2");
        assert_eq!("H2-E2".parse::<Move>(), Ok(m));
        assert_eq!(m.mirror().to_string(), "b2e2");
        assert_eq!(Move::from_u16(m.to_u16()), Some(m));
        let err = "h3e10".parse::<Move>().unwrap_err().to_string();
        assert!(err.contains("rank 10"), "{err}");
        assert!("h2h2".parse::<Move>().is_err());
        assert!("xyz".parse::<Move>().is_err());
    }
}
