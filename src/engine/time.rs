//! Time management.

use super::params::{MAX_SHARE_OF_CLOCK, MOVE_OVERHEAD_MS};
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

/// Search limits from a clock: a soft limit after which no new iteration starts and a hard
/// limit at which the search stops.
pub fn limits(c: &Clock) -> Limits {
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
        let mtg = c.movestogo.unwrap_or(30).clamp(1, 50);
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
