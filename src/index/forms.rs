//! The forms a placement is ranked from and unranked into: a piece list (the fast form,
//! fastest in kind order, read and written in place for pawnless materials), a
//! [`Setup`] and a [`Position`].
//!
//! Every form reaches the same numbering ([`super::placement`]); a placement that has no
//! index gets an error naming the other material or the piece the index cannot place.

use super::bucket::{bucket, Bucketed};
use super::masks::{bits, mask};
use super::placement::{IndexError, PieceList, PlacementIndex};
use crate::board::{Color, Piece, Position, Role, Setup, Square};

impl PlacementIndex {
    /// Index of a placement (its mirror image has the same index).
    pub fn rank(&self, setup: &Setup) -> Result<u64, IndexError> {
        let b = bucket(
            &self.kind_start,
            setup
                .occupied()
                .into_iter()
                .filter_map(|s| setup.board[s.index()].map(|p| (p.index(), s as u8))),
        );
        if !b.fits(self.signature, self.total) {
            let mut counts = [0u8; 14];
            for p in setup.board.iter().flatten() {
                counts[p.index()] = counts[p.index()].saturating_add(1);
            }
            return Err(self.wrong_material(&counts));
        }
        self.rank_bucketed(&b)
            .ok_or_else(|| IndexError::BadPoint(setup.board_fen()))
    }

    /// Index of a placement given as a piece list (the fast form; any order, fastest in
    /// kind order: Red's king, advisors, elephants, horses, rooks, cannons, pawns, then
    /// Black's, as [`PlacementIndex::unrank_pieces`] gives them).
    #[inline]
    pub fn rank_pieces(&self, pieces: &[(Piece, Square)]) -> Result<u64, IndexError> {
        if self.flat {
            if let Some(x) = self.rank_list(pieces) {
                return Ok(x);
            }
        }
        self.rank_grouped(pieces)
    }

    /// [`super::split::Split::rank_list`] for a pawnless material (its own function: a small frame,
    /// apart from the general path's).
    #[inline(never)]
    fn rank_list(&self, pieces: &[(Piece, Square)]) -> Option<u64> {
        self.splits[0].rank_list(&self.kinds, self.total, pieces)
    }

    /// [`PlacementIndex::rank_pieces`] by grouping the pieces by kind.
    #[inline(never)]
    fn rank_grouped(&self, pieces: &[(Piece, Square)]) -> Result<u64, IndexError> {
        let mut b = Bucketed::EMPTY;
        if !b.read_ordered(&self.order, self.signature, pieces) {
            b = bucket(
                &self.kind_start,
                pieces.iter().map(|&(p, s)| (p.index(), s as u8)),
            );
        }
        if b.fits(self.signature, self.total) {
            if let Some(x) = self.rank_bucketed(&b) {
                return Ok(x);
            }
        }
        Err(self.rank_error(pieces))
    }

    /// Why a piece list has no index: another material, or a piece where the index
    /// cannot place it (two pieces on one point included).
    #[cold]
    #[inline(never)]
    fn rank_error(&self, pieces: &[(Piece, Square)]) -> IndexError {
        let mut counts = [0u8; 14];
        for &(p, _) in pieces {
            counts[p.index()] = counts[p.index()].saturating_add(1);
        }
        if counts != self.counts {
            return self.wrong_material(&counts);
        }
        IndexError::BadPoint(
            pieces
                .iter()
                .map(|(p, s)| format!("{}{}", p.char(), s))
                .collect::<Vec<_>>()
                .join(" "),
        )
    }

    /// The canonical placement with this index as a piece list (the fast form) in kind
    /// order: Red's king, advisors, elephants, horses, rooks, cannons and pawns, then
    /// Black's (the order [`PlacementIndex::rank_pieces`] reads fastest).
    #[inline(always)]
    pub fn unrank_pieces(&self, index: u64) -> Result<PieceList, IndexError> {
        let mut out = PieceList::new();
        // built in the caller's frame (inlined): returning a list filled elsewhere costs a
        // copy whose wide loads wait for the narrow stores that wrote it
        if self.unrank_into(index, &mut out) {
            Ok(out)
        } else {
            Err(IndexError::OutOfRange {
                index,
                size: self.size,
            })
        }
    }

    /// Fill `out` with the canonical placement with this index (false when out of range,
    /// `out` then empty). At most 32 pieces (the material's count), so it never overflows.
    #[inline]
    pub fn unrank_into(&self, index: u64, out: &mut PieceList) -> bool {
        if index >= self.size {
            out.clear();
            return false;
        }
        if self.flat && self.unrank_list(index, out) {
            return true;
        }
        self.unrank_visited(index, out)
    }

    /// [`super::split::Split::unrank_list`] for a pawnless material (its own function, as
    /// [`PlacementIndex::rank_list`]).
    #[inline(never)]
    fn unrank_list(&self, index: u64, out: &mut PieceList) -> bool {
        self.splits[0].unrank_list(index, self.total, out)
    }

    /// [`PlacementIndex::unrank_into`] through [`PlacementIndex::unrank_visit`] (`index`
    /// in range).
    #[inline(never)]
    fn unrank_visited(&self, index: u64, out: &mut PieceList) -> bool {
        // the list is set to its full length and each slot written in place (the visit
        // hands out each slot of the kind-ordered list once); no copy of a buffer, whose
        // wide loads would wait for the narrow stores that wrote it
        *out = PieceList::from([(Piece::new(Color::Red, Role::King), Square::ALL[0]); 32]);
        let ok = self.unrank_visit(index, |slot, p, s| {
            if let Some(x) = out.get_mut(slot) {
                *x = (p, s);
            }
        });
        out.truncate(self.total);
        ok
    }

    /// Index of a position's placement. None when the position has another material or a
    /// piece stands where the index cannot place it.
    #[inline]
    pub fn rank_position(&self, pos: &Position) -> Option<u64> {
        // the kinds' bitboards in kind order give the bucketed form directly; each kind's
        // count is checked against the material's
        let mut b = Bucketed::EMPTY;
        let mut counts_ok = true;
        for c in Color::ALL {
            for r in Role::ALL {
                let k = Piece::new(c, r).index();
                let bb = mask(pos.pieces(c, r));
                counts_ok &= bb.count_ones() == self.counts[k] as u32;
                b.all |= bb;
                for s in bits(bb) {
                    b.sq[b.n & 31] = s;
                    b.n += 1;
                }
            }
        }
        b.signature = self.signature;
        if !counts_ok || !b.fits(self.signature, self.total) {
            return None;
        }
        self.rank_bucketed(&b)
    }

    /// The canonical placement with this index (Red to move).
    pub fn unrank(&self, index: u64) -> Result<Setup, IndexError> {
        // through the piece list: the fast paths and the general one as `unrank_into` picks
        let list = self.unrank_pieces(index)?;
        let mut setup = Setup::empty();
        for &(p, s) in &list {
            setup.put(s, p);
        }
        Ok(setup)
    }

    /// The canonical member of a placement's mirror pair (what `unrank(rank(p))` returns).
    pub fn canonical(&self, setup: &Setup) -> Result<Setup, IndexError> {
        let i = self.rank(setup)?;
        let mut s = self.unrank(i)?;
        s.turn = setup.turn;
        Ok(s)
    }
}
