//! Time management.

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
        let overhead = 30;
        let left = time.saturating_sub(overhead).max(1);
        let mtg = c.movestogo.unwrap_or(30).clamp(1, 50);
        let share = left / mtg + c.inc * 3 / 4;
        let soft = share.min(left / 2).max(1);
        let hard = (share * 3).min(left * 2 / 5).max(soft);
        l.soft = Some(Duration::from_millis(soft * 6 / 10));
        l.hard = Some(Duration::from_millis(hard));
    }
    l
}
