//! A validated position with bitboards, incremental Zobrist keys and make/unmake.

use super::attacks::{
    self, attacked_on, first_blocker, HORSE_ATTACKER_LEG, HORSE_ATTACKER_SRC, PAWN_ATTACKERS,
};
use super::zobrist::{piece_key, side_key};
use super::{Bitboard, Color, Move, Piece, PositionError, Role, Setup, Square};

/// A legal Xiangqi position (or, through [`Position::from_setup_unchecked`], any placement
/// with one king per side, as the tablebase index needs).
///
/// Besides its own Zobrist key the position keeps the key of its left-right mirror image,
/// updated incrementally, so [`Position::mirror`] and book look-ups get it for free.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pub(crate) board: [Option<Piece>; 90],
    pub(crate) by_color: [u128; 2],
    pub(crate) by_role: [u128; 7],
    pub(crate) turn: Color,
    pub(crate) key: u64,
    pub(crate) mirror_key: u64,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
}

/// What [`Position::play`] needs to take a move back.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Undo {
    captured: Option<Piece>,
    halfmoves: u32,
    key: u64,
    mirror_key: u64,
}

impl Undo {
    /// The piece the move captured.
    pub fn captured(&self) -> Option<Piece> {
        self.captured
    }
}

impl Position {
    /// The standard start position.
    pub fn startpos() -> Position {
        Position::from_setup(&Setup::start()).expect("the start position is legal")
    }

    /// Validate `setup` (material, points, kings facing, side not to move in check).
    pub fn from_setup(setup: &Setup) -> Result<Position, PositionError> {
        setup.validate_placement()?;
        let pos = Position::from_setup_unchecked(setup)?;
        pos.check_placement_legal()?;
        Ok(pos)
    }

    /// Build a position from any placement with exactly one king per side, without the
    /// other checks. Move generation works on it; whether it is legal can be asked with
    /// [`Position::check_placement_legal`].
    pub fn from_setup_unchecked(setup: &Setup) -> Result<Position, PositionError> {
        let mut pos = Position {
            board: setup.board,
            by_color: [0; 2],
            by_role: [0; 7],
            turn: setup.turn,
            key: 0,
            mirror_key: 0,
            halfmoves: setup.halfmoves,
            fullmoves: setup.fullmoves.max(1),
        };
        for sq in setup.occupied() {
            if let Some(p) = setup.board[sq.index()] {
                pos.by_color[p.color.index()] |= sq.bit();
                pos.by_role[p.role.index()] |= sq.bit();
                pos.key ^= piece_key(p, sq);
                pos.mirror_key ^= piece_key(p, sq.mirror());
            }
        }
        if setup.turn == Color::Black {
            pos.key ^= side_key();
            pos.mirror_key ^= side_key();
        }
        for c in Color::ALL {
            let n = (pos.by_color[c.index()] & pos.by_role[Role::King.index()]).count_ones();
            if n == 0 {
                return Err(PositionError::MissingKing(c));
            }
            if n > 1 {
                return Err(PositionError::TooMany {
                    color: c,
                    role: Role::King,
                    count: n as usize,
                });
            }
        }
        Ok(pos)
    }

    /// Build a position from a piece list (one king per side required; other counts and
    /// points unchecked), as the tablebase index decodes placements.
    #[inline]
    pub fn from_pieces(pieces: &[(Piece, Square)], turn: Color) -> Result<Position, PositionError> {
        let mut pos = Position::unloaded();
        pos.load_pieces(pieces, turn)?;
        Ok(pos)
    }

    /// A board without pieces, not a position yet: only to be filled by
    /// [`Position::load_pieces`].
    pub(crate) fn unloaded() -> Position {
        Position {
            board: [None; 90],
            by_color: [0; 2],
            by_role: [0; 7],
            turn: Color::Red,
            key: 0,
            mirror_key: 0,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// This position made the one of [`Position::from_pieces`] in place (a scan of many
    /// placements reuses one position instead of building and moving a new one each time:
    /// only the points occupied before are cleared). On an error the position must not be
    /// used until loaded again.
    #[inline]
    pub fn load_pieces(
        &mut self,
        pieces: &[(Piece, Square)],
        turn: Color,
    ) -> Result<(), PositionError> {
        for sq in self.occupied() {
            self.board[sq.index()] = None;
        }
        self.by_color = [0; 2];
        self.by_role = [0; 7];
        self.turn = turn;
        self.key = if turn == Color::Black { side_key() } else { 0 };
        self.mirror_key = self.key;
        self.halfmoves = 0;
        self.fullmoves = 1;
        for &(p, sq) in pieces {
            if self.board[sq.index()].is_some() {
                continue;
            }
            self.board[sq.index()] = Some(p);
            self.by_color[p.color.index()] |= sq.bit();
            self.by_role[p.role.index()] |= sq.bit();
            self.key ^= piece_key(p, sq);
            self.mirror_key ^= piece_key(p, sq.mirror());
        }
        for c in Color::ALL {
            let n = (self.by_color[c.index()] & self.by_role[Role::King.index()]).count_ones();
            if n != 1 {
                return Err(if n == 0 {
                    PositionError::MissingKing(c)
                } else {
                    PositionError::TooMany {
                        color: c,
                        role: Role::King,
                        count: n as usize,
                    }
                });
            }
        }
        Ok(())
    }

    /// Pieces with their squares (Red's first, by square).
    pub fn piece_list(&self) -> impl Iterator<Item = (Piece, Square)> + '_ {
        self.occupied().map(move |sq| {
            (
                self.board[sq.index()].expect("occupied square has a piece"),
                sq,
            )
        })
    }

    /// Kings not facing and the side not to move not in check.
    pub fn check_placement_legal(&self) -> Result<(), PositionError> {
        if self.kings_facing() {
            return Err(PositionError::KingsFacing);
        }
        let them = !self.turn;
        if self.is_attacked(self.king(them), self.turn) {
            return Err(PositionError::OppositeCheck(them));
        }
        Ok(())
    }

    /// The unchecked setup of this position.
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board,
            turn: self.turn,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        }
    }

    /// Piece on `sq`.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// Side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Zobrist key (scheme in [`crate::board::zobrist`]).
    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Zobrist key of the left-right mirror image.
    #[inline]
    pub fn mirror_key(&self) -> u64 {
        self.mirror_key
    }

    /// Plies since the last capture.
    #[inline]
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// Move number.
    #[inline]
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// All occupied squares.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        Bitboard::from_bits(self.by_color[0] | self.by_color[1])
    }

    /// Pieces of one colour.
    #[inline]
    pub fn by_color(&self, c: Color) -> Bitboard {
        Bitboard::from_bits(self.by_color[c.index()])
    }

    /// Pieces of one kind, both colours.
    #[inline]
    pub fn by_role(&self, r: Role) -> Bitboard {
        Bitboard::from_bits(self.by_role[r.index()])
    }

    /// Pieces of one colour and kind.
    #[inline]
    pub fn pieces(&self, c: Color, r: Role) -> Bitboard {
        Bitboard::from_bits(self.by_color[c.index()] & self.by_role[r.index()])
    }

    /// Square of `c`'s king.
    #[inline]
    pub fn king(&self, c: Color) -> Square {
        let b = self.by_color[c.index()] & self.by_role[Role::King.index()];
        // Every Position has one king per side (checked at construction).
        debug_assert!(b != 0);
        // SAFETY: b has bits below 90 only; the constructor guarantees a king.
        unsafe { Square::new_unchecked(b.trailing_zeros() as u8) }
    }

    /// True when the kings stand on one file with nothing between them.
    pub fn kings_facing(&self) -> bool {
        let rk = self.king(Color::Red);
        let bk = self.king(Color::Black);
        rk.file() == bk.file()
            && first_blocker(rk, attacks::NORTH, self.by_color[0] | self.by_color[1]) == Some(bk)
    }

    /// True when the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.is_attacked(self.king(self.turn), !self.turn)
    }

    /// [`Position::in_check`] right after `m` was played from a position whose side not to
    /// move was not in check (every legal position): a move that neither leaves nor enters
    /// the king's check zone ([`attacks::CHECK_ZONE`]: its rank and file, horse legs and
    /// the points horses and pawns attack it from) changes no attack on it, so the full
    /// test runs only for the moves that touch the zone.
    #[inline]
    pub fn in_check_after(&self, m: Move) -> bool {
        let ksq = self.king(self.turn);
        if attacks::CHECK_ZONE[ksq.index()] & (m.from().bit() | m.to().bit()) == 0 {
            return false;
        }
        self.in_check()
    }

    /// True when `sq` is attacked by a piece of `by` (the enemy king counts on an open file).
    #[inline]
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        self.attacked_with(
            sq,
            by,
            self.by_color[0] | self.by_color[1],
            self.by_color[by.index()],
        )
    }

    /// Attack test on a hypothetical occupancy: `occ` all pieces, `theirs` the attacker's
    /// pieces still on the board (a captured attacker is removed from `theirs`).
    #[inline(always)]
    pub(crate) fn attacked_with(&self, sq: Square, by: Color, occ: u128, theirs: u128) -> bool {
        attacked_on(&self.by_role, sq, by, occ, theirs)
    }

    /// True when the move `m` (legal here) gives check, tested on the bitboards the move
    /// would leave, without playing it: the same answer as `in_check` after the move.
    #[inline]
    pub fn gives_check(&self, m: Move) -> bool {
        let (from, to) = (m.from(), m.to());
        let Some(p) = self.board[from.index()] else {
            return false;
        };
        let (fb, tb) = (from.bit(), to.bit());
        let mut roles = self.by_role;
        roles[p.role.index()] ^= fb | tb;
        if let Some(c) = self.board[to.index()] {
            roles[c.role.index()] ^= tb;
        }
        let us = self.turn;
        let ours = (self.by_color[us.index()] & !fb) | tb;
        let occ = ((self.by_color[0] | self.by_color[1]) & !fb) | tb;
        attacked_on(&roles, self.king(!us), us, occ, ours)
    }

    /// The pieces of `by` (within `theirs`) that attack `sq` on the occupancy `occ`: pawns,
    /// horses with a free leg, rooks and the king (on a file) with nothing between, cannons
    /// with exactly one screen.
    pub(crate) fn attackers_with(&self, sq: Square, by: Color, occ: u128, theirs: u128) -> u128 {
        let r = &self.by_role;
        let mut out = PAWN_ATTACKERS[by.index()][sq.index()] & r[Role::Pawn.index()] & theirs;
        let horses = r[Role::Horse.index()] & theirs;
        if horses != 0 {
            let legs = &HORSE_ATTACKER_LEG[sq.index()];
            let srcs = &HORSE_ATTACKER_SRC[sq.index()];
            for i in 0..4 {
                if legs[i] & occ == 0 {
                    out |= srcs[i] & horses;
                }
            }
        }
        let rooks = r[Role::Rook.index()] & theirs;
        let cannons = r[Role::Cannon.index()] & theirs;
        let king = r[Role::King.index()] & theirs & Bitboard::file(sq.file()).bits();
        if (rooks | cannons | king) & attacks::LINES[sq.index()] != 0 {
            // the first occupied point each way and, for cannons, the second
            let (first, second) = attacks::line_attacks(sq, occ);
            out |= first & (rooks | king) | second & cannons;
        }
        out
    }

    /// Play `m`, which must be legal here (from [`Position::legal_moves`] or checked with
    /// [`Position::is_legal`]); returns what [`Position::undo`] needs.
    #[inline]
    pub fn play(&mut self, m: Move) -> Undo {
        let from = m.from();
        let to = m.to();
        let piece = self.board[from.index()].expect("play: a legal move starts on a piece");
        let captured = self.board[to.index()];
        let undo = Undo {
            captured,
            halfmoves: self.halfmoves,
            key: self.key,
            mirror_key: self.mirror_key,
        };
        let fb = from.bit();
        let tb = to.bit();
        let us = self.turn.index();
        self.by_color[us] ^= fb | tb;
        self.by_role[piece.role.index()] ^= fb | tb;
        let mut key = self.key ^ piece_key(piece, from) ^ piece_key(piece, to) ^ side_key();
        let mut mkey = self.mirror_key
            ^ piece_key(piece, from.mirror())
            ^ piece_key(piece, to.mirror())
            ^ side_key();
        if let Some(c) = captured {
            self.by_color[1 - us] ^= tb;
            self.by_role[c.role.index()] ^= tb;
            key ^= piece_key(c, to);
            mkey ^= piece_key(c, to.mirror());
            self.halfmoves = 0;
        } else {
            self.halfmoves += 1;
        }
        self.key = key;
        self.mirror_key = mkey;
        self.board[to.index()] = Some(piece);
        self.board[from.index()] = None;
        if self.turn == Color::Black {
            self.fullmoves += 1;
        }
        self.turn = !self.turn;
        undo
    }

    /// Take back `m`, played with [`Position::play`] which returned `undo`.
    #[inline]
    pub fn undo(&mut self, m: Move, undo: Undo) {
        let from = m.from();
        let to = m.to();
        self.turn = !self.turn;
        if self.turn == Color::Black {
            self.fullmoves -= 1;
        }
        let piece = self.board[to.index()].expect("undo: the moved piece stands on `to`");
        let fb = from.bit();
        let tb = to.bit();
        let us = self.turn.index();
        self.by_color[us] ^= fb | tb;
        self.by_role[piece.role.index()] ^= fb | tb;
        if let Some(c) = undo.captured {
            self.by_color[1 - us] ^= tb;
            self.by_role[c.role.index()] ^= tb;
        }
        self.board[from.index()] = Some(piece);
        self.board[to.index()] = undo.captured;
        self.halfmoves = undo.halfmoves;
        self.key = undo.key;
        self.mirror_key = undo.mirror_key;
    }

    /// The Zobrist key of the position after `m` and the key of its mirror image, both
    /// without the side to move's part (the same for every move of a position), without
    /// playing it: two moves of a position lead to mirror images only when the first's
    /// pair equals the second's swapped.
    #[inline]
    pub fn keys_after(&self, m: Move) -> (u64, u64) {
        let (from, to) = (m.from(), m.to());
        let Some(piece) = self.board[from.index()] else {
            return (self.key, self.mirror_key);
        };
        let mut key = self.key ^ piece_key(piece, from) ^ piece_key(piece, to);
        let mut mkey =
            self.mirror_key ^ piece_key(piece, from.mirror()) ^ piece_key(piece, to.mirror());
        if let Some(c) = self.board[to.index()] {
            key ^= piece_key(c, to);
            mkey ^= piece_key(c, to.mirror());
        }
        (key, mkey)
    }

    /// True when the moves `a` and `b` lead to mirror images of each other.
    pub fn mirror_results(&self, a: Move, b: Move) -> bool {
        let (x, y) = (self.after(a), self.after(b));
        (0..90).all(|k| {
            let s = Square::ALL[k];
            x.board[k] == y.board[s.mirror().index()]
        })
    }

    /// Play `m` on a copy.
    pub fn after(&self, m: Move) -> Position {
        let mut p = self.clone();
        p.play(m);
        p
    }

    /// Pass the move (for null-move pruning): the other side to move, same pieces.
    pub fn play_null(&mut self) {
        self.turn = !self.turn;
        self.key ^= side_key();
        self.mirror_key ^= side_key();
    }

    /// Left-right mirror image; its key is this position's mirror key (no recomputation
    /// of the hash).
    pub fn mirror(&self) -> Position {
        let mut board = [None; 90];
        for (i, p) in self.board.iter().enumerate() {
            board[Square::ALL[i].mirror().index()] = *p;
        }
        let mb = |b: u128| Bitboard::from_bits(b).mirror().bits();
        Position {
            board,
            by_color: [mb(self.by_color[0]), mb(self.by_color[1])],
            by_role: std::array::from_fn(|i| mb(self.by_role[i])),
            turn: self.turn,
            key: self.mirror_key,
            mirror_key: self.key,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        }
    }

    /// Colour flip: ranks reversed, colours swapped, the other side to move.
    pub fn flip_colors(&self) -> Position {
        Position::from_setup_unchecked(&self.to_setup().flip_colors())
            .expect("a flipped position keeps one king per side")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_key_matches_recomputed() {
        let p =
            Position::from_fen("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w")
                .unwrap();
        let m = p.mirror();
        let fresh = Position::from_setup(&p.to_setup().mirror()).unwrap();
        assert_eq!(m, fresh);
        assert_eq!(m.key(), fresh.key());
        assert_eq!(m.mirror(), p);
        let f = p.flip_colors();
        assert_eq!(f.flip_colors(), p);
        assert_eq!(f.turn(), Color::Black);
    }

    /// `in_check_after` answers as `in_check` after every legal move of random games from
    /// a few middlegames (a small linear congruential generator picks the moves).
    #[test]
    fn in_check_after_matches_in_check() {
        let fens = [
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
            "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w",
            "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w",
        ];
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        let (mut checks, mut skipped) = (0, 0);
        for fen in fens {
            for _ in 0..20 {
                let mut pos = Position::from_fen(fen).unwrap();
                for _ in 0..100 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    for &m in &moves {
                        let after = pos.after(m);
                        assert_eq!(after.in_check_after(m), after.in_check(), "{m}");
                        checks += after.in_check() as usize;
                        let k = after.king(after.turn()).index();
                        skipped += (attacks::CHECK_ZONE[k] & (m.from().bit() | m.to().bit()) == 0)
                            as usize;
                    }
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    pos.play(moves[(seed >> 33) as usize % moves.len()]);
                }
            }
        }
        // checks were met, and most moves were answered without the full test
        assert!(checks > 100 && skipped > 1000, "{checks} {skipped}");
    }

    /// `keys_after` gives the keys `play` computes (less the side to move's part), and two
    /// moves share a mirror class exactly when `mirror_results` says so.
    #[test]
    fn keys_after_and_mirror_results() {
        // every piece on the centre file: the moves to either side mirror each other in
        // pairs, those along the file (and the capture) have no partner
        let p = Position::from_fen("4k4/4r4/9/9/9/4R4/9/9/4N4/4K4 w").unwrap();
        let moves = p.legal_moves();
        let class = |m: Move| {
            let (k, mk) = p.keys_after(m);
            k.min(mk)
        };
        let mut pairs = 0;
        for &a in &moves {
            let after = p.after(a);
            assert_eq!(
                p.keys_after(a),
                (after.key() ^ side_key(), after.mirror().key() ^ side_key()),
                "{a}"
            );
            for &b in &moves {
                if a == b {
                    continue;
                }
                let mirrored = p.mirror_results(a, b);
                assert_eq!(mirrored, after.mirror() == p.after(b), "{a} {b}");
                assert_eq!(mirrored, class(a) == class(b), "{a} {b}");
                pairs += mirrored as usize;
            }
        }
        // the rook's four pairs along its rank, the horse's three, the king's one (both
        // orders)
        assert_eq!(pairs, 16);
    }
}
