//! Legal move generation.
//!
//! Moves are generated as target bitboards per piece. When the side to move is not in
//! check, only two kinds of move can expose its king: moving a piece that shields it (on a
//! line between the king and an enemy rook, king or cannon, counting cannon screens, or on a
//! horse leg next to the king) and moving onto a point between the king and an enemy cannon
//! that has no screen yet. Those moves, king moves and the moves out of check are tested
//! one by one on the changed occupancy; all others are legal as generated, so counting them
//! is a popcount (perft's bulk counting uses this). In check, a move that neither leaves
//! nor enters the king's check zone (its rank and file, horse legs and the points horses
//! and pawns attack it from: [`super::attacks::CHECK_ZONE`]) leaves the check standing and
//! is dropped untested.

use super::attacks::{
    cannon_attacks, cannon_captures, elephant_attacks, horse_attacks, move_targets, nearest_on_ray,
    pawn_attacks, rook_attacks, ADVISOR_MOVES, CHECK_ZONE, HORSE_ATTACKER_LEG, HORSE_ATTACKER_SRC,
    KING_MOVES, RAYS,
};
use super::bitboard::FULL_MASK;
use super::sink::{AnySink, CountCapturesSink, CountSink, ListSink, MaskedSink, Sink, UntilSink};
use super::{Color, Move, Position, Role, Square};
use arrayvec::ArrayVec;

/// Upper bound on the moves of any position (119 pseudo-legal at most).
pub const MAX_MOVES: usize = 128;

/// A list of moves on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

/// Which destinations a generation produces.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Targets {
    All,
    Captures,
    Quiets,
}

impl Position {
    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut ListSink(&mut list));
        list
    }

    /// Legal moves of the side to move's pieces of one kind.
    pub fn legal_moves_of(&self, role: Role) -> MoveList {
        let mut list = MoveList::new();
        self.generate_roles(
            Targets::All,
            1 << role.index(),
            None,
            &mut ListSink(&mut list),
        );
        list
    }

    /// Legal captures only (for quiescence search).
    pub fn capture_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate_roles(Targets::Captures, 0x7F, None, &mut ListSink(&mut list));
        list
    }

    /// [`Position::capture_moves`] into `out` (cleared first), with no list moved.
    pub(crate) fn capture_moves_into(&self, out: &mut MoveList) {
        out.clear();
        self.generate_roles(Targets::Captures, 0x7F, None, &mut ListSink(out));
    }

    /// Legal moves that capture nothing (the moves a repetition cycle is made of).
    pub fn quiet_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate_roles(Targets::Quiets, 0x7F, None, &mut ListSink(&mut list));
        list
    }

    /// The moves of [`Position::quiet_moves`], in the same order, handed to `f` one by one
    /// until it answers true; the rest are not generated where the generation can tell
    /// (between pieces, before a move's legality test). True when `f` stopped it.
    pub fn quiet_moves_until(&self, f: impl FnMut(Move) -> bool) -> bool {
        let mut sink = UntilSink { f, stopped: false };
        self.generate_roles(Targets::Quiets, 0x7F, None, &mut sink);
        sink.stopped
    }

    /// The quiet legal moves of the pieces on `free`, and the other quiet legal moves that
    /// reach a point of `to` or, for a horse, of `horse_to`: those of
    /// [`Position::quiet_moves`] that pass this test, in the same order, without generating
    /// the others (quiescence's candidates for a check: [`crate::engine::check_filter`]).
    pub fn quiet_moves_within(&self, free: u128, to: u128, horse_to: u128) -> MoveList {
        let mut list = MoveList::new();
        let horses = self.by_color[self.turn.index()] & self.by_role[Role::Horse.index()];
        let mut sink = MaskedSink {
            list: &mut list,
            free,
            to,
            horses,
            horse_to,
        };
        self.generate_roles(Targets::Quiets, 0x7F, None, &mut sink);
        list
    }

    /// [`Position::legal_moves`] with the check told: `in_check` must be whether the side
    /// to move is in check (a wrong answer gives wrong moves), which the search knows.
    pub fn legal_moves_told(&self, in_check: bool) -> MoveList {
        let mut list = MoveList::new();
        self.generate_roles(Targets::All, 0x7F, Some(in_check), &mut ListSink(&mut list));
        list
    }

    /// [`Position::quiet_moves`] with the check told, as [`Position::legal_moves_told`].
    pub fn quiet_moves_told(&self, in_check: bool) -> MoveList {
        let mut list = MoveList::new();
        let mut sink = ListSink(&mut list);
        self.generate_roles(Targets::Quiets, 0x7F, Some(in_check), &mut sink);
        list
    }

    /// [`Position::capture_moves`] with the check told, as [`Position::legal_moves_told`].
    pub fn capture_moves_told(&self, in_check: bool) -> MoveList {
        let mut list = MoveList::new();
        let mut sink = ListSink(&mut list);
        self.generate_roles(Targets::Captures, 0x7F, Some(in_check), &mut sink);
        list
    }

    /// Number of legal moves (without building a list).
    pub fn count_legal(&self) -> usize {
        let mut s = CountSink(0);
        self.generate(&mut s);
        s.0
    }

    /// Number of legal moves, with the legal captures (the moves of
    /// [`Position::capture_moves`]) put in `captures` (cleared first): one generation for both.
    /// `in_check`: whether the side to move is in check, when the caller knows it already
    /// (None: tested here; a wrong answer gives wrong moves).
    pub(crate) fn count_legal_with_captures(
        &self,
        in_check: Option<bool>,
        captures: &mut MoveList,
    ) -> usize {
        captures.clear();
        let enemy = self.by_color[(!self.turn).index()];
        let mut s = CountCapturesSink(0, captures, enemy);
        self.generate_roles(Targets::All, 0x7F, in_check, &mut s);
        s.0
    }

    /// True when the side to move has at least one legal move.
    pub fn has_legal_move(&self) -> bool {
        let mut s = AnySink(false);
        self.generate(&mut s);
        s.0
    }

    /// True when `m` is a legal move here (checked for this one move, without generating
    /// the others).
    #[inline]
    pub fn is_legal(&self, m: Move) -> bool {
        self.is_legal_for(self.turn, m)
    }

    /// [`Position::is_legal`] with `us` to move, whoever's turn it is here: the answer of
    /// this position turned by a null move when `us` is not to move, without a copy (a null
    /// move changes nothing a legality test reads but the side).
    #[inline]
    pub(crate) fn is_legal_for(&self, us: Color, m: Move) -> bool {
        let from = m.from();
        let to = m.to();
        let Some(p) = self.piece_at(from) else {
            return false;
        };
        if p.color != us || from == to {
            return false;
        }
        let capture = match self.piece_at(to) {
            Some(q) if q.color == us => return false,
            Some(_) => true,
            None => false,
        };
        let own = self.by_color[us.index()];
        let enemy = self.by_color[(!us).index()];
        let occ = own | enemy;
        let t = move_targets(us, p.role, from, occ, capture);
        t & to.bit() != 0 && self.safe_after_for(us, from, to, self.king(us), occ, enemy)
    }

    /// As [`Position::is_legal`], but a check the side to move is already in is ignored: the
    /// move is refused only when it opens a new attack on the mover's king (it leaves a line,
    /// a horse leg or becomes a cannon screen) or, for a king move, when the destination is
    /// attacked. This is the legality the chase rule asks of an attack: a piece still attacks
    /// while its own king is in check.
    #[inline]
    pub fn is_legal_ignoring_check(&self, m: Move) -> bool {
        self.is_legal_ignoring_check_for(self.turn, m)
    }

    /// [`Position::is_legal_ignoring_check`] with `us` to move, whoever's turn it is here
    /// (as [`Position::is_legal_for`]: the answer of the position turned by a null move
    /// when `us` is not to move, without a copy).
    pub(crate) fn is_legal_ignoring_check_for(&self, us: Color, m: Move) -> bool {
        if !self.is_attacked(self.king(us), !us) {
            return self.is_legal_for(us, m);
        }
        let (from, to) = (m.from(), m.to());
        let Some(p) = self.piece_at(from) else {
            return false;
        };
        if p.color != us || from == to || self.piece_at(to).is_some_and(|q| q.color == us) {
            return false;
        }
        let own = self.by_color[us.index()];
        let enemy = self.by_color[(!us).index()];
        let occ = own | enemy;
        let reach = move_targets(us, p.role, from, occ, self.piece_at(to).is_some());
        if reach & to.bit() == 0 {
            return false;
        }
        let occ2 = (occ & !from.bit()) | to.bit();
        let enemy2 = enemy & !to.bit();
        if p.role == Role::King {
            return !self.attacked_with(to, !us, occ2, enemy2);
        }
        let ksq = self.king(us);
        let before = self.attackers_with(ksq, !us, occ, enemy);
        let after = self.attackers_with(ksq, !us, occ2, enemy2);
        after & !before == 0
    }

    /// The pseudo-legal move `from`-`to` leaves the mover's king safe.
    #[inline(always)]
    fn safe_after(&self, from: Square, to: Square, ksq: Square, occ: u128, enemy: u128) -> bool {
        self.safe_after_for(self.turn, from, to, ksq, occ, enemy)
    }

    /// [`Position::safe_after`] for a move of `us` (`ksq` its king, `enemy` the other side's
    /// pieces), whoever's turn it is here.
    #[inline(always)]
    fn safe_after_for(
        &self,
        us: Color,
        from: Square,
        to: Square,
        ksq: Square,
        occ: u128,
        enemy: u128,
    ) -> bool {
        let fb = from.bit();
        let tb = to.bit();
        let occ2 = (occ & !fb) | tb;
        let enemy2 = enemy & !tb;
        let k = if from == ksq { to } else { ksq };
        !self.attacked_with(k, !us, occ2, enemy2)
    }

    /// Own pieces whose move may expose the king, and points whose filling may (a cannon
    /// with no screen between it and the king).
    #[inline(always)]
    fn king_danger(&self, ksq: Square, own: u128, enemy: u128, occ: u128) -> (u128, u128) {
        let r = &self.by_role;
        let rooks = r[Role::Rook.index()] & enemy;
        let cannons = r[Role::Cannon.index()] & enemy;
        let eking = r[Role::King.index()] & enemy;
        let mut pinned = 0u128;
        let mut danger = 0u128;
        let rays = &RAYS[ksq.index()];
        for (dir, &ray) in rays.iter().enumerate() {
            let vert = dir & 1 == 0;
            let straight = rooks | if vert { eking } else { 0 };
            if (straight | cannons) & ray == 0 {
                continue;
            }
            let b1 = ray & occ;
            let s1 = nearest_on_ray(b1, dir);
            let s1b = 1u128 << s1;
            if s1b & cannons != 0 {
                // filling any point between the king and this cannon gives check
                danger |= ray ^ RAYS[s1 as usize][dir] ^ s1b;
            }
            let b2 = RAYS[s1 as usize][dir] & occ;
            if b2 == 0 {
                continue;
            }
            let s2 = nearest_on_ray(b2, dir);
            let s2b = 1u128 << s2;
            if s2b & straight != 0 {
                pinned |= s1b & own;
            }
            let b3 = RAYS[s2 as usize][dir] & occ;
            if b3 != 0 && (1u128 << nearest_on_ray(b3, dir)) & cannons != 0 {
                pinned |= (s1b | s2b) & own;
            }
        }
        let horses = r[Role::Horse.index()] & enemy;
        if horses != 0 {
            let legs = &HORSE_ATTACKER_LEG[ksq.index()];
            let srcs = &HORSE_ATTACKER_SRC[ksq.index()];
            for i in 0..4 {
                if srcs[i] & horses != 0 {
                    pinned |= legs[i] & own;
                }
            }
        }
        (pinned, danger)
    }

    #[inline(always)]
    fn emit<S: Sink>(
        &self,
        sink: &mut S,
        from: Square,
        targets: u128,
        slow: u128,
        danger: u128,
        ctx: (Square, u128, u128, u128),
    ) {
        let (ksq, occ, enemy, zone) = ctx;
        let targets = if S::MASKED {
            targets & sink.mask(from)
        } else {
            targets
        };
        if targets == 0 {
            return;
        }
        let checked = if slow & from.bit() != 0 {
            // in check, a move that neither leaves nor enters the king's check zone leaves
            // the check as it was: only the others are tested (`zone` is full otherwise)
            if zone & from.bit() != 0 {
                targets
            } else {
                targets & zone
            }
        } else {
            sink.many(from, targets & !danger);
            targets & danger
        };
        let mut t = checked;
        while t != 0 && !sink.done() {
            // SAFETY: bits below 90.
            let to = unsafe { Square::new_unchecked(t.trailing_zeros() as u8) };
            t &= t - 1;
            if self.safe_after(from, to, ksq, occ, enemy) {
                sink.one(Move::new(from, to));
            }
        }
    }

    #[inline(always)]
    fn generate<S: Sink>(&self, sink: &mut S) {
        self.generate_roles(Targets::All, 0x7F, None, sink)
    }

    /// The moves of `kind` of the pieces of `roles` (a bit per role) into `sink`;
    /// `in_check` whether the side to move is in check when the caller knows it already
    /// (None: tested here).
    fn generate_roles<S: Sink>(
        &self,
        kind: Targets,
        roles: u8,
        in_check: Option<bool>,
        sink: &mut S,
    ) {
        let want = |r: Role| roles & (1 << r.index()) != 0;
        let us = self.turn;
        let own = self.by_color[us.index()];
        let enemy = self.by_color[(!us).index()];
        let occ = own | enemy;
        let ksq = self.king(us);
        let targets = match kind {
            Targets::All => !own & FULL_MASK,
            Targets::Captures => enemy,
            Targets::Quiets => !occ & FULL_MASK,
        };
        debug_assert!(
            in_check.is_none_or(|c| c == self.attacked_with(ksq, !us, occ, enemy)),
            "the check told to the move generator is wrong"
        );
        let in_check = in_check.unwrap_or_else(|| self.attacked_with(ksq, !us, occ, enemy));
        let (slow, danger, zone) = if in_check {
            (own, 0, CHECK_ZONE[ksq.index()])
        } else {
            let (pinned, danger) = self.king_danger(ksq, own, enemy, occ);
            (pinned, danger, FULL_MASK)
        };
        let ctx = (ksq, occ, enemy, zone);
        let r = &self.by_role;

        let only = |r: Role| if want(r) { own } else { 0 };
        for from in super::Bitboard::from_bits(r[Role::Rook.index()] & only(Role::Rook)) {
            self.emit(
                sink,
                from,
                rook_attacks(from, occ) & targets,
                slow,
                danger,
                ctx,
            );
        }
        if sink.done() {
            return;
        }
        for from in super::Bitboard::from_bits(r[Role::Cannon.index()] & only(Role::Cannon)) {
            let t = match kind {
                Targets::All => {
                    let (q, x) = cannon_attacks(from, occ);
                    q | (x & enemy)
                }
                Targets::Captures => cannon_captures(from, occ) & enemy,
                Targets::Quiets => rook_attacks(from, occ) & !occ,
            };
            self.emit(sink, from, t, slow, danger, ctx);
        }
        if sink.done() {
            return;
        }
        for from in super::Bitboard::from_bits(r[Role::Horse.index()] & only(Role::Horse)) {
            self.emit(
                sink,
                from,
                horse_attacks(from, occ) & targets,
                slow,
                danger,
                ctx,
            );
        }
        if sink.done() {
            return;
        }
        for from in super::Bitboard::from_bits(r[Role::Pawn.index()] & only(Role::Pawn)) {
            self.emit(
                sink,
                from,
                pawn_attacks(us, from) & targets,
                slow,
                danger,
                ctx,
            );
        }
        if sink.done() {
            return;
        }
        for from in super::Bitboard::from_bits(r[Role::Advisor.index()] & only(Role::Advisor)) {
            self.emit(
                sink,
                from,
                ADVISOR_MOVES[from.index()] & targets,
                slow,
                danger,
                ctx,
            );
        }
        if sink.done() {
            return;
        }
        for from in super::Bitboard::from_bits(r[Role::Elephant.index()] & only(Role::Elephant)) {
            self.emit(
                sink,
                from,
                elephant_attacks(from, occ) & targets,
                slow,
                danger,
                ctx,
            );
        }
        if sink.done() {
            return;
        }
        // king moves are always tested
        self.emit(
            sink,
            ksq,
            KING_MOVES[ksq.index()] & targets,
            FULL_MASK,
            0,
            (ksq, occ, enemy, FULL_MASK),
        );
    }
}

/// Perft: leaf count of the legal move tree to `depth` plies (bulk counting at the last ply).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal() as u64,
        _ => {
            let mut n = 0;
            for m in pos.legal_moves() {
                let u = pos.play(m);
                n += perft(pos, depth - 1);
                pos.undo(m, u);
            }
            n
        }
    }
}

/// Perft split by the first move (`--divide`), in generation order.
pub fn perft_divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let u = pos.play(m);
            let n = perft(pos, depth - 1);
            pos.undo(m, u);
            (m, n)
        })
        .collect()
}

#[cfg(test)]
mod tests;
