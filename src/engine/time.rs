//! Time management.

use super::params::{
    MAX_SHARE_OF_CLOCK, MOVES_TO_GO, MOVES_TO_GO_MIN, MOVES_TO_GO_STEP, MOVE_OVERHEAD_MS,
};
use super::search::Limits;
use std::time::Duration;

/// Clock state for the side to move, in milliseconds.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    /// Remaining time.
    pub time: Option<u64>,
    /// Increment per move.
    pub inc: u64,
    /// Moves to the next time control.
    pub movestogo: Option<u64>,
    /// Fixed time for this move.
    pub movetime: Option<u64>,
    /// Depth limit.
    pub depth: Option<i32>,
    /// Node limit.
    pub nodes: Option<u64>,
    /// Search until stopped.
    pub infinite: bool,
}

/// Search limits from a clock at the game's first move (see [`limits_at`]).
pub fn limits(c: &Clock) -> Limits {
    limits_at(c, 1)
}

/// The moves still to play on the clock when the clock does not say: [`MOVES_TO_GO`] at
/// the start, one fewer per [`MOVES_TO_GO_STEP`] moves played, at least
/// [`MOVES_TO_GO_MIN`], so that a long game spends the reserve a fixed share keeps.
fn moves_to_go(fullmoves: u32) -> u64 {
    MOVES_TO_GO
        .saturating_sub(u64::from(fullmoves) / MOVES_TO_GO_STEP)
        .max(MOVES_TO_GO_MIN)
}

/// Search limits from a clock at move number `fullmoves`: a soft limit after which no new
/// iteration starts and a hard limit at which the search stops. The clock's share per move
/// is what is left over the moves to go (the clock's, or [`moves_to_go`]'s estimate) plus
/// three quarters of the increment.
pub fn limits_at(c: &Clock, fullmoves: u32) -> Limits {
    let mut l = Limits {
        depth: c.depth,
        nodes: c.nodes,
        soft: None,
        hard: None,
    };
    if c.infinite {
        return l;
    }
    if let Some(mt) = c.movetime {
        let t = Duration::from_millis(mt.saturating_sub(10).max(1));
        l.soft = Some(t);
        l.hard = Some(t);
    } else if let Some(time) = c.time {
        let left = time.saturating_sub(MOVE_OVERHEAD_MS).max(1);
        let mtg = c
            .movestogo
            .unwrap_or_else(|| moves_to_go(fullmoves))
            .clamp(1, 50);
        let share = left / mtg + c.inc * 3 / 4;
        // never more than a fixed fraction of what is left on one move
        let cap = (left / MAX_SHARE_OF_CLOCK).max(1);
        let hard = (share * 3).min(cap).max(1);
        let soft = share.min(hard).max(1);
        l.soft = Some(Duration::from_millis(soft * 6 / 10));
        l.hard = Some(Duration::from_millis(hard));
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_moves_get_a_larger_share_down_to_the_floor() {
        let clock = Clock {
            time: Some(1_000),
            inc: 20,
            ..Clock::default()
        };
        let soft = |n| limits_at(&clock, n).soft.unwrap();
        assert_eq!(soft(1), limits(&clock).soft.unwrap());
        assert!(soft(40) > soft(1));
        assert!(soft(80) > soft(40));
        assert_eq!(soft(500), soft(10_000));
        assert_eq!(moves_to_go(1), MOVES_TO_GO);
        assert_eq!(moves_to_go(u32::MAX), MOVES_TO_GO_MIN);
        // a clock that gives the moves to go is followed
        let fixed = Clock {
            movestogo: Some(10),
            ..clock.clone()
        };
        assert_eq!(limits_at(&fixed, 1).soft, limits_at(&fixed, 100).soft);
    }

    #[test]
    fn one_move_never_takes_more_than_a_tenth_of_the_clock() {
        for time in [100u64, 700, 2_000, 10_000, 600_000] {
            for inc in [0u64, 20, 1_000, 5_000] {
                let l = limits(&Clock {
                    time: Some(time),
                    inc,
                    ..Clock::default()
                });
                let (soft, hard) = (l.soft.unwrap(), l.hard.unwrap());
                let cap =
                    (time.saturating_sub(MOVE_OVERHEAD_MS).max(1) / MAX_SHARE_OF_CLOCK).max(1);
                assert!(hard.as_millis() as u64 <= cap, "{time}+{inc}: {hard:?}");
                assert!(soft <= hard, "{time}+{inc}: {soft:?} {hard:?}");
            }
        }
    }
}
