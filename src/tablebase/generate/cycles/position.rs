//! The clean-up rules of one position (step 2 of a round, see the parent module): when a
//! position keeps its `CL`/`ZL` ("loses if it keeps checking/chasing") and its `CW`/`ZW`
//! ("wins if the opponent keeps checking/chasing") flags, given its successors' flags.

use super::{Child, Node, Pass, CL, CW, ZL, ZW};
use crate::board::rules::{escape_targets, gives_check, new_attacks};
use crate::board::{Bitboard, Move, MoveList, Position};
use crate::tablebase::generate::Gen;

impl Gen<'_> {
    /// The `CL`/`ZL` clean-up of one position (side to move: the possible violator).
    pub(super) fn remove_lose(&self, x: &Node, flags: u8, cd: bool, pass: Pass) -> u8 {
        let mut f = flags;
        if cd {
            let mut changed = false;
            if f & CL != 0 && f & CW == 0 {
                f &= !CL;
                changed = true;
            }
            if f & ZL != 0 && f & ZW == 0 {
                f &= !ZL;
                changed = true;
            }
            if changed {
                return f;
            }
        }
        if f & CL != 0 && f & CW != 0 {
            // in check and checking: mutual perpetual check
            let (mut empty, mut again, mut way_out, mut other) = (true, false, false, false);
            for m in x.pos.quiet_moves() {
                match self.child(x, m) {
                    Child::Good => way_out = true,
                    Child::Bad => {}
                    Child::Open(cf) if cf & CW == 0 => {
                        way_out = true;
                        if pass == Pass::Three && cf & CL != 0 {
                            other = true;
                        }
                    }
                    Child::Open(cf) => {
                        empty = false;
                        if cf & CL != 0 {
                            again = true;
                        }
                    }
                }
            }
            if again && !other {
                return f;
            }
            if way_out {
                return f & !CL;
            }
            if empty {
                return self.no_checking_move(&x.pos, f, cd);
            }
            return f;
        }
        if f & ZL != 0 && f & ZW != 0 {
            // chased and chasing: mutual chase
            let mut long_check = f & CL != 0;
            let (mut again, mut way_out, mut other) = (false, false, false);
            let mut chasing = MoveList::new();
            for m in x.pos.quiet_moves() {
                match self.child(x, m) {
                    Child::Bad => {}
                    Child::Good => {
                        if long_check {
                            long_check = false;
                            f &= !CL;
                        }
                        way_out = true;
                    }
                    Child::Open(cf) => {
                        if long_check && cf & CW == 0 {
                            long_check = false;
                            f &= !CL;
                        }
                        if cf & ZW == 0 {
                            way_out = true;
                            other = other || chasing_escape(&x.pos, m, cf, pass);
                        } else {
                            chasing.push(m);
                        }
                        if !again
                            && cf & ZW != 0
                            && cf & ZL != 0
                            && is_escape(&x.pos, m)
                            && !new_attacks(&x.pos, m).is_empty()
                        {
                            again = true;
                        }
                    }
                }
            }
            if again && !other {
                return f;
            }
            if way_out {
                return f & !ZL;
            }
            return self.resolve_chase(x, f, cd, &chasing);
        }
        let (mut long_check, mut long_chase) = (f & CL != 0, f & ZL != 0);
        let mut check_empty = true;
        let mut chasing = MoveList::new();
        // the moves generated one by one: the first that clears both flags ends it
        x.pos.quiet_moves_until(|m| {
            if !long_check && !long_chase {
                return true;
            }
            match self.child(x, m) {
                Child::Bad => {}
                Child::Good => {
                    if long_check {
                        long_check = false;
                        f &= !CL;
                    }
                    if long_chase {
                        long_chase = false;
                        f &= !ZL;
                    }
                }
                Child::Open(cf) => {
                    if long_check {
                        if cf & CW == 0 {
                            long_check = false;
                            f &= !CL;
                        } else {
                            check_empty = false;
                        }
                    }
                    if long_chase {
                        if cf & ZW == 0 {
                            long_chase = false;
                            f &= !ZL;
                        } else {
                            chasing.push(m);
                        }
                    }
                }
            }
            !long_check && !long_chase
        });
        if long_check && long_chase {
            self.fail(format!(
                "{}: forced to check and to chase with every move",
                x.pos.to_fen()
            ));
            return f;
        }
        if long_check && check_empty {
            return self.no_checking_move(&x.pos, f, cd);
        }
        if long_chase {
            return self.resolve_chase(x, f, cd, &chasing);
        }
        f
    }

    /// A `CL` position none of whose moves keeps the cycle: only a capture-draw explains it.
    fn no_checking_move(&self, x: &Position, f: u8, cd: bool) -> u8 {
        if cd {
            f & !(CL | CW)
        } else {
            self.fail(format!("{}: open, yet every move loses", x.to_fen()));
            f
        }
    }

    /// The chasing moves of a `ZL` position (all its moves into open positions, each with
    /// `ZW`): they must share a target they attack anew, and a side in check is excused when
    /// the opponent answers every chase with a check.
    fn resolve_chase(&self, x: &Node, f: u8, cd: bool, chasing: &[Move]) -> u8 {
        if chasing.is_empty() {
            if cd {
                return f & !(ZL | ZW);
            }
            self.fail(format!("{}: open, yet every move loses", x.pos.to_fen()));
            return f;
        }
        if !common_target(&x.pos, chasing, Bitboard::FULL) {
            return f & !ZL;
        }
        if !x.pos.in_check() {
            return f;
        }
        for &m in chasing {
            let y = self.node_after(x, m);
            let escapes_without_check = y.pos.quiet_moves_until(|m2| {
                matches!(self.child(&y, m2), Child::Open(zf) if zf & ZL != 0)
                    && !gives_check(&y.pos, m2)
                    && is_escape(&y.pos, m2)
            });
            if !escapes_without_check {
                return f & !ZL;
            }
        }
        f
    }

    /// The `CW`/`ZW` clean-up of one position (side to move: the possible victim).
    pub(super) fn remove_win(&self, x: &Node, flags: u8, cd: bool, pass: Pass) -> u8 {
        let f = flags;
        if f & CW != 0 {
            // the moves generated one by one until one keeps the flag
            let keeps = x
                .pos
                .quiet_moves_until(|m| matches!(self.child(x, m), Child::Open(cf) if cf & CL != 0));
            return if keeps { f } else { f & !CW };
        }
        if f & ZL != 0 {
            // chased and chasing
            let mut draw_move = cd;
            let mut escapes: Vec<(Bitboard, Move, u8)> = Vec::new();
            for m in x.pos.quiet_moves() {
                match self.child(x, m) {
                    Child::Good => draw_move = true,
                    Child::Bad => {}
                    Child::Open(cf) => {
                        if cf & ZL != 0 {
                            let evt = escape_targets(&x.pos, m);
                            if !evt.is_empty() {
                                escapes.push((evt, m, cf));
                            }
                        }
                        if cf & ZW == 0 {
                            draw_move = true;
                        }
                    }
                }
            }
            if escapes.is_empty() {
                return f & !ZW;
            }
            let consider_mutual = !(draw_move && pass == Pass::Two);
            for (evt, m, cf) in escapes {
                let mutual = consider_mutual && cf & ZW != 0 && !new_attacks(&x.pos, m).is_empty();
                let y = self.node_after(x, m);
                let (mut long_chase, mut again, mut other) = (true, false, false);
                let mut chasing = MoveList::new();
                let mut again_moves = MoveList::new();
                for m2 in y.pos.quiet_moves() {
                    match self.child(&y, m2) {
                        Child::Good => {
                            long_chase = false;
                            if !mutual {
                                break;
                            }
                        }
                        Child::Bad => {}
                        Child::Open(zf) => {
                            if zf & ZW == 0 {
                                long_chase = false;
                                if !mutual {
                                    break;
                                }
                                other = other || chasing_escape(&y.pos, m2, zf, pass);
                            } else {
                                chasing.push(m2);
                            }
                            if mutual && zf & ZW != 0 && zf & ZL != 0 && is_escape(&y.pos, m2) {
                                again = true;
                                again_moves.push(m2);
                            }
                        }
                    }
                }
                if again
                    && (!other || pass == Pass::Two)
                    && again_moves
                        .iter()
                        .any(|&m3| !(new_attacks(&y.pos, m3) & evt).is_empty())
                {
                    return f;
                }
                if long_chase && common_target(&y.pos, &chasing, evt) {
                    return f;
                }
            }
            return f & !ZW;
        }
        // the moves generated one by one until an escape keeps the flag
        let keeps = x.pos.quiet_moves_until(|m| {
            let Child::Open(cf) = self.child(x, m) else {
                return false;
            };
            if cf & ZL == 0 {
                return false;
            }
            let evt = escape_targets(&x.pos, m);
            if evt.is_empty() {
                return false;
            }
            let y = self.node_after(x, m);
            let mut chasing = MoveList::new();
            // the chaser's replies until one is not a chase
            let broken = y.pos.quiet_moves_until(|m2| match self.child(&y, m2) {
                Child::Good => true,
                Child::Bad => false,
                Child::Open(zf) if zf & ZW != 0 => {
                    chasing.push(m2);
                    false
                }
                Child::Open(_) => true,
            });
            !broken && common_target(&y.pos, &chasing, evt)
        });
        if keeps {
            f
        } else {
            f & !ZW
        }
    }
}

/// In [`Pass::Three`]: the move `m` is an escape into a position (flags `cf`) whose side is
/// itself a chaser and not checked: the mover has a chasing escape of its own, so a mutual
/// chase is undone.
fn chasing_escape(pos: &Position, m: Move, cf: u8, pass: Pass) -> bool {
    pass == Pass::Three && cf & ZL != 0 && cf & CW == 0 && is_escape(pos, m)
}

/// The move escapes a chase attack.
fn is_escape(pos: &Position, m: Move) -> bool {
    !escape_targets(pos, m).is_empty()
}

/// Some point of `target` is attacked anew by every one of `moves`.
fn common_target(pos: &Position, moves: &[Move], target: Bitboard) -> bool {
    let mut t = target;
    for &m in moves {
        t &= new_attacks(pos, m);
        if t.is_empty() {
            return false;
        }
    }
    !t.is_empty()
}
