//! An unchecked placement of pieces ([`Setup`]) and the checks that turn it into a legal
//! [`crate::board::Position`].

use super::attacks::reachable;
use super::{Bitboard, Color, Piece, Role, Square};

/// Any placement of pieces with a side to move, legal or not. The tablebase index decodes
/// into this type; [`crate::board::Position::from_setup`] validates it.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Setup {
    /// Piece on each square, indexed by [`Square::index`].
    pub board: [Option<Piece>; 90],
    /// Side to move.
    pub turn: Color,
    /// Plies since the last capture (FEN halfmove clock).
    pub halfmoves: u32,
    /// Move number, starting at 1 and incremented after Black moves.
    pub fullmoves: u32,
}

/// FEN of the standard start position.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

impl Default for Setup {
    fn default() -> Setup {
        Setup::empty()
    }
}

impl Setup {
    /// An empty board, Red to move.
    pub const fn empty() -> Setup {
        Setup {
            board: [None; 90],
            turn: Color::Red,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// The standard start position.
    pub fn start() -> Setup {
        Setup::from_fen(START_FEN).expect("the start FEN is valid")
    }

    /// Piece on `sq`.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// Put `piece` on `sq`, replacing what was there.
    #[inline]
    pub fn put(&mut self, sq: Square, piece: Piece) {
        self.board[sq.index()] = Some(piece);
    }

    /// Clear `sq`, returning what was there.
    #[inline]
    pub fn remove(&mut self, sq: Square) -> Option<Piece> {
        self.board[sq.index()].take()
    }

    /// The occupied squares, found without a branch per square.
    pub fn occupied(&self) -> Bitboard {
        // one byte 0 or 1 per square (a vectorized map), then eight bytes at a time packed
        // into eight bits: byte i of a word, times 2^(56 - 7i), lands on bit 56 + i, and no
        // two products share a bit
        let mut flags = [0u8; 96];
        for (f, p) in flags.iter_mut().zip(&self.board) {
            *f = p.is_some() as u8;
        }
        let mut occ = 0u128;
        for (k, chunk) in flags.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes(chunk.try_into().expect("chunks of 8"));
            occ |= ((word.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u128) << (8 * k);
        }
        Bitboard::from_bits(occ)
    }

    /// All pieces with their squares, in square order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::ALL
            .iter()
            .filter_map(move |&sq| self.board[sq.index()].map(|p| (sq, p)))
    }

    /// Number of pieces of `color` and `role`.
    pub fn count(&self, color: Color, role: Role) -> usize {
        self.board
            .iter()
            .filter(|p| **p == Some(Piece::new(color, role)))
            .count()
    }

    /// Left-right mirror image (same side to move).
    pub fn mirror(&self) -> Setup {
        let mut out = self.clone();
        for sq in Square::ALL {
            out.board[sq.mirror().index()] = self.board[sq.index()];
        }
        out
    }

    /// Colour flip: ranks reversed, colours swapped, the other side to move.
    pub fn flip_colors(&self) -> Setup {
        let mut out = self.clone();
        for sq in Square::ALL {
            out.board[sq.flip().index()] =
                self.board[sq.index()].map(|p| Piece::new(!p.color, p.role));
        }
        out.turn = !self.turn;
        out
    }

    /// Square of `color`'s king, if exactly one is present.
    pub fn king(&self, color: Color) -> Option<Square> {
        let mut it = self
            .pieces()
            .filter(|(_, p)| *p == Piece::new(color, Role::King))
            .map(|(s, _)| s);
        let k = it.next()?;
        if it.next().is_some() {
            None
        } else {
            Some(k)
        }
    }

    /// Check material and placement: counts, kings, points each piece can reach, unpassed
    /// pawns sharing a file. Does not look at checks (see `Position::from_setup`).
    pub fn validate_placement(&self) -> Result<(), PositionError> {
        // one pass over the occupied points (probes through the C API validate each
        // position they are given): the counts, and the first piece on a point it can
        // never reach
        let mut counts = [[0usize; 7]; 2];
        let mut unreachable = None;
        for sq in self.occupied() {
            let Some(p) = self.board[sq.index()] else {
                continue;
            };
            counts[p.color.index()][p.role.index()] += 1;
            if unreachable.is_none() && !reachable(p.color, p.role).contains(sq) {
                unreachable = Some((p, sq));
            }
        }
        for color in Color::ALL {
            for role in Role::ALL {
                let n = counts[color.index()][role.index()];
                if n > role.max_count() as usize {
                    return Err(PositionError::TooMany {
                        color,
                        role,
                        count: n,
                    });
                }
            }
            if counts[color.index()][Role::King.index()] == 0 {
                return Err(PositionError::MissingKing(color));
            }
        }
        if let Some((piece, square)) = unreachable {
            return Err(PositionError::Unreachable { piece, square });
        }
        for color in Color::ALL {
            if counts[color.index()][Role::Pawn.index()] < 2 {
                continue;
            }
            let (r3, r4) = match color {
                Color::Red => (3, 4),
                Color::Black => (6, 5),
            };
            for file in [0u8, 2, 4, 6, 8] {
                let pawn = Some(Piece::new(color, Role::Pawn));
                let a = Square::from_coords(file, r3).expect("constant square");
                let b = Square::from_coords(file, r4).expect("constant square");
                if self.piece_at(a) == pawn && self.piece_at(b) == pawn {
                    return Err(PositionError::PawnsShareFile { color, file });
                }
            }
        }
        Ok(())
    }
}

/// Why a placement is not a legal position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// More pieces of a kind than the game has.
    #[error("too much material: {color} has {count} {}s (at most {})", role.name(), role.max_count())]
    TooMany {
        /// Owner.
        color: Color,
        /// Kind.
        role: Role,
        /// How many were found.
        count: usize,
    },
    /// No king of one colour.
    #[error("{0} has no king")]
    MissingKing(Color),
    /// A piece on a point it can never reach.
    #[error("{piece} on {square}: a point it can never reach")]
    Unreachable {
        /// The piece.
        piece: Piece,
        /// Where it stands.
        square: Square,
    },
    /// Two pawns of one colour that have not crossed the river on one file.
    #[error("two unpassed {color} pawns on file {}", (b'a' + file) as char)]
    PawnsShareFile {
        /// Owner.
        color: Color,
        /// File 0..8.
        file: u8,
    },
    /// The kings face each other on an open file.
    #[error("the kings face each other on an open file")]
    KingsFacing,
    /// The side that is not to move is in check.
    #[error("{0} is in check but it is not {0}'s turn")]
    OppositeCheck(Color),
}

#[cfg(test)]
mod tests {
    use super::{Bitboard, Color, Piece, PositionError, Role, Setup, Square};

    /// Counts come first, then the first unreachable piece in square order, then pawn files.
    #[test]
    fn placement_errors_in_their_order() {
        let check = |fen: &str| Setup::from_fen(fen).unwrap().validate_placement();
        assert_eq!(check("3k5/9/9/9/9/9/9/9/9/4K4 w"), Ok(()));
        // three rooks and an advisor off its points: the count is reported
        let err = check("3k5/9/9/9/9/9/9/9/RRR1A4/4K4 w").unwrap_err();
        assert!(matches!(
            err,
            PositionError::TooMany {
                role: Role::Rook,
                count: 3,
                ..
            }
        ));
        // Red's missing king before Black's surplus
        let err = check("3k5/9/9/9/9/9/9/9/9/9 w").unwrap_err();
        assert_eq!(err, PositionError::MissingKing(Color::Red));
        // two unreachable pieces: the one on the lower square
        let err = check("3k5/9/9/9/9/9/4a4/9/3A5/4K4 w").unwrap_err();
        assert_eq!(
            err,
            PositionError::Unreachable {
                piece: Piece::new(Color::Red, Role::Advisor),
                square: Square::D1,
            }
        );
        let err = check("3k5/9/9/9/9/9/9/9/9/B3K4 w").unwrap_err();
        assert!(matches!(
            err,
            PositionError::Unreachable {
                square: Square::A0,
                ..
            }
        ));
        let err = check("3k5/9/9/p8/p8/9/9/9/9/4K4 w").unwrap_err();
        assert_eq!(
            err,
            PositionError::PawnsShareFile {
                color: Color::Black,
                file: 0
            }
        );
    }

    /// The occupancy from the packed scan is the squares `pieces` lists.
    #[test]
    fn occupied_is_the_squares_of_the_pieces() {
        let by_pieces =
            |s: &Setup| Bitboard::from_bits(s.pieces().fold(0, |m, (sq, _)| m | sq.bit()));
        let mut setups = vec![Setup::empty(), Setup::start()];
        for sq in Square::ALL {
            let mut s = Setup::empty();
            s.put(sq, Piece::new(Color::Black, Role::Pawn));
            setups.push(s);
        }
        for step in [2, 3, 7] {
            let mut s = Setup::empty();
            for (k, &sq) in Square::ALL.iter().enumerate().step_by(step) {
                s.put(sq, Piece::new(Color::ALL[k % 2], Role::ALL[k % 7]));
            }
            setups.push(s);
        }
        let mut full = Setup::empty();
        for sq in Square::ALL {
            full.put(sq, Piece::new(Color::Red, Role::King));
        }
        setups.push(full);
        for s in &setups {
            assert_eq!(s.occupied(), by_pieces(s), "{}", s.board_fen());
        }
    }
}
