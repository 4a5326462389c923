//! Material signatures such as `KRNKAABB`: Red's pieces from its king, then Black's from
//! its king.

use crate::board::{Color, Position, Role, Setup};
use std::fmt;
use std::str::FromStr;

/// Piece counts per colour and role.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Material {
    counts: [[u8; 7]; 2],
}

/// Order in which the pieces of one side are written after its king.
pub const WRITE_ORDER: [Role; 6] = [
    Role::Rook,
    Role::Horse,
    Role::Cannon,
    Role::Pawn,
    Role::Advisor,
    Role::Elephant,
];

/// Why a material signature was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MaterialError {
    /// Does not start with a king, or has no second king.
    #[error("bad material '{0}': expected Red's pieces from its K then Black's from its K, e.g. KRNKAABB")]
    MissingKing(String),
    /// A letter that is not a piece.
    #[error("bad material '{text}': unknown piece letter '{letter}' (use K A B N R C P; E and H are aliases)")]
    Letter {
        /// The signature.
        text: String,
        /// The bad letter.
        letter: char,
    },
    /// More of a kind than the game has.
    #[error("impossible material '{text}': {color} has {count} {}s (at most {})", role.name(), role.max_count())]
    TooMany {
        /// The signature.
        text: String,
        /// Side.
        color: Color,
        /// Kind.
        role: Role,
        /// Count found.
        count: u8,
    },
}

impl Material {
    /// Bare kings.
    pub const fn bare_kings() -> Material {
        let mut counts = [[0u8; 7]; 2];
        counts[0][0] = 1;
        counts[1][0] = 1;
        Material { counts }
    }

    /// Material from counts `[color][role]`; kings must be 1 each and counts within the
    /// game's limits.
    pub fn from_counts(counts: [[u8; 7]; 2]) -> Result<Material, MaterialError> {
        let m = Material { counts };
        for c in Color::ALL {
            for r in Role::ALL {
                let n = m.count(c, r);
                if r == Role::King && n != 1 {
                    return Err(MaterialError::MissingKing(m.to_string()));
                }
                if n > r.max_count() {
                    return Err(MaterialError::TooMany {
                        text: m.to_string(),
                        color: c,
                        role: r,
                        count: n,
                    });
                }
            }
        }
        Ok(m)
    }

    /// Material of a setup (counts are not checked against the game's limits).
    pub fn of_setup(setup: &Setup) -> Material {
        let mut counts = [[0u8; 7]; 2];
        for (_, p) in setup.pieces() {
            counts[p.color.index()][p.role.index()] += 1;
        }
        Material { counts }
    }

    /// Material of a position.
    pub fn of_position(pos: &Position) -> Material {
        let mut counts = [[0u8; 7]; 2];
        for c in Color::ALL {
            for r in Role::ALL {
                counts[c.index()][r.index()] = pos.pieces(c, r).count() as u8;
            }
        }
        Material { counts }
    }

    /// Number of `color`'s pieces of kind `role`.
    #[inline]
    pub const fn count(&self, color: Color, role: Role) -> u8 {
        self.counts[color as usize][role as usize]
    }

    /// All counts `[color][role]`.
    pub const fn counts(&self) -> [[u8; 7]; 2] {
        self.counts
    }

    /// Pieces besides the two kings.
    pub fn pieces_besides_kings(&self) -> u32 {
        self.counts.iter().flatten().map(|&n| n as u32).sum::<u32>() - 2
    }

    /// The same material with colours swapped (KRK <-> KKR).
    pub const fn swap_colors(&self) -> Material {
        Material {
            counts: [self.counts[1], self.counts[0]],
        }
    }

    /// `self` without one piece of `color`/`role` (the material after a capture).
    pub fn without(&self, color: Color, role: Role) -> Option<Material> {
        let n = self.counts[color.index()][role.index()];
        if n == 0 || role == Role::King {
            return None;
        }
        let mut m = *self;
        m.counts[color.index()][role.index()] -= 1;
        Some(m)
    }

    /// A rough strength score of one side (used to name tables with the stronger side first).
    pub fn strength(&self, color: Color) -> u32 {
        const VALUE: [u32; 7] = [0, 2, 2, 4, 9, 4, 1];
        Role::ALL
            .iter()
            .map(|r| VALUE[r.index()] * self.count(color, *r) as u32)
            .sum()
    }

    /// True when Red is the stronger side as tables are named (by strength, then by the
    /// signature text so the choice is deterministic).
    pub fn is_canonical(&self) -> bool {
        let (r, b) = (self.strength(Color::Red), self.strength(Color::Black));
        if r != b {
            return r > b;
        }
        let a = self.side_string(Color::Red);
        let o = self.side_string(Color::Black);
        (a.len(), a.as_str()) >= (o.len(), o.as_str())
    }

    /// The table name form: the stronger side as Red. Returns the material and whether the
    /// colours were swapped.
    pub fn normalized(&self) -> (Material, bool) {
        if self.is_canonical() {
            (*self, false)
        } else {
            (self.swap_colors(), true)
        }
    }

    fn side_string(&self, color: Color) -> String {
        let mut s = String::from("K");
        for r in WRITE_ORDER {
            for _ in 0..self.count(color, r) {
                s.push(r.char());
            }
        }
        s
    }

    /// Every material allowed by the rules with at most `n` pieces besides the kings, one per
    /// table (colour swaps merged, stronger side as Red), smallest first.
    pub fn all_up_to(n: u32) -> Vec<Material> {
        let mut out = Vec::new();
        let mut side = Vec::new();
        // enumerate one side's piece multisets
        fn rec(i: usize, left: u32, cur: &mut [u8; 7], side: &mut Vec<[u8; 7]>) {
            if i == WRITE_ORDER.len() {
                side.push(*cur);
                return;
            }
            let r = WRITE_ORDER[i];
            for k in 0..=(r.max_count() as u32).min(left) {
                cur[r.index()] = k as u8;
                rec(i + 1, left - k, cur, side);
            }
            cur[r.index()] = 0;
        }
        let mut cur = [0u8; 7];
        cur[0] = 1;
        rec(0, n, &mut cur, &mut side);
        for a in &side {
            for b in &side {
                let m = Material { counts: [*a, *b] };
                if m.pieces_besides_kings() <= n && m.is_canonical() {
                    out.push(m);
                }
            }
        }
        out.sort_by_key(|m| (m.pieces_besides_kings(), m.to_string()));
        out.dedup();
        out
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            self.side_string(Color::Red),
            self.side_string(Color::Black)
        )
    }
}

impl FromStr for Material {
    type Err = MaterialError;

    fn from_str(s: &str) -> Result<Material, MaterialError> {
        let text = s.trim();
        let up: Vec<char> = text.chars().map(|c| c.to_ascii_uppercase()).collect();
        if up.first() != Some(&'K') {
            return Err(MaterialError::MissingKing(text.to_string()));
        }
        let second = up[1..]
            .iter()
            .position(|&c| c == 'K')
            .map(|i| i + 1)
            .ok_or_else(|| MaterialError::MissingKing(text.to_string()))?;
        let mut counts = [[0u8; 7]; 2];
        for (i, &c) in up.iter().enumerate() {
            let color = if i < second { 0 } else { 1 };
            let role = Role::from_char(c).ok_or(MaterialError::Letter {
                text: text.to_string(),
                letter: c,
            })?;
            counts[color][role.index()] = counts[color][role.index()].saturating_add(1);
        }
        let m = Material { counts };
        for c in Color::ALL {
            for r in Role::ALL {
                if m.count(c, r) > r.max_count() {
                    return Err(MaterialError::TooMany {
                        text: text.to_string(),
                        color: c,
                        role: r,
                        count: m.count(c, r),
                    });
                }
            }
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_print_swap() {
        let m: Material = "KRNKAABB".parse().unwrap();
        assert_eq!(m.to_string(), "KRNKAABB");
        assert_eq!("KNRKEEAA".parse::<Material>().unwrap(), m);
        assert_eq!("khrkaabb".parse::<Material>().unwrap(), m);
        assert_eq!(m.swap_colors().to_string(), "KAABBKRN");
        assert!(m.is_canonical());
        assert_eq!(
            "KKR"
                .parse::<Material>()
                .unwrap()
                .normalized()
                .0
                .to_string(),
            "KRK"
        );
        assert!("RK".parse::<Material>().is_err());
        assert!("KRRRK"
            .parse::<Material>()
            .unwrap_err()
            .to_string()
            .contains("3 rooks"));
        assert!("KPPPPPPK".parse::<Material>().is_err());
        assert!("KXK"
            .parse::<Material>()
            .unwrap_err()
            .to_string()
            .contains("'X'"));
        assert!("KR".parse::<Material>().is_err());
    }

    #[test]
    fn small_material_lists() {
        let all = Material::all_up_to(1);
        assert_eq!(all.len(), 7); // KK + 6 single pieces
        assert_eq!(all[0].to_string(), "KK");
        assert_eq!(Material::all_up_to(2).len(), 7 + 21 + 21);
    }
}
