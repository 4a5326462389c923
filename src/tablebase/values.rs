//! One byte per position: the distance to mate in plies, or a marker.
//!
//! A position whose value `d` is at most [`MAX_DTM`] is decided: the side to move wins when
//! `d` is odd (it mates in `d` plies) and loses when `d` is even (it is mated in `d` plies;
//! 0 means it has no legal move now).

/// Longest distance to mate the one-byte format holds.
pub const MAX_DTM: u8 = 252;
/// Neither side can force mate.
pub const DRAW: u8 = 253;
/// Not a legal position (kings facing, or the side not to move in check).
pub const ILLEGAL: u8 = 254;
/// Not known yet (during generation only).
pub const UNKNOWN: u8 = 255;

/// Win/draw/loss from the side to move's point of view.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// The side to move is mated with best play.
    Loss,
    /// Neither side can force mate.
    Draw,
    /// The side to move mates with best play.
    Win,
}

impl Wdl {
    /// The same outcome seen from the other side.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }
}

/// Outcome of a value, None for illegal or unknown.
#[inline]
pub fn wdl_of(v: u8) -> Option<Wdl> {
    match v {
        0..=MAX_DTM if v % 2 == 1 => Some(Wdl::Win),
        0..=MAX_DTM => Some(Wdl::Loss),
        DRAW => Some(Wdl::Draw),
        _ => None,
    }
}

/// True for a decided value (win or loss).
#[inline]
pub fn is_decided(v: u8) -> bool {
    v <= MAX_DTM
}

/// Value of a position from the values of its children (each from the child's side to
/// move), or None if a child is illegal or unknown. No child means loss in 0.
pub fn value_from_children(children: impl IntoIterator<Item = u8>) -> Option<u8> {
    let mut best_win: Option<u8> = None; // fastest win through a losing child
    let mut all_win = true;
    let mut longest = 0u8;
    for c in children {
        match wdl_of(c)? {
            Wdl::Loss => {
                best_win = Some(best_win.map_or(c + 1, |b| b.min(c + 1)));
            }
            Wdl::Draw => all_win = false,
            Wdl::Win => longest = longest.max(c + 1),
        }
    }
    Some(match best_win {
        Some(w) => w,
        None if all_win => longest,
        None => DRAW,
    })
}

/// How a rule-set-1 verdict rests on the repetition rules.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum Ruling {
    /// The side to move loses now: every move that does not lose otherwise continues its
    /// perpetual check.
    PerpetualCheck,
    /// The side to move loses now: every move that does not lose otherwise continues its
    /// perpetual chase.
    PerpetualChase,
}

/// The WDL-file byte of a position: the outcome, the round of the repetition rules that
/// decided it (0 = no rule needed, the value rule set 0 gives too), and whether the position
/// is itself a ruling (the side to move is the violator who must deviate).
///
/// Encoding (one byte): 0 loss, 1 draw, 2 win in round 0; for round `k >= 1`,
/// `3 + 4 (k - 1) + kind` with kind 0 loss, 1 win, 2 ruling by perpetual check, 3 ruling by
/// perpetual chase. Rounds up to [`MAX_ORDER`].
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub struct Verdict {
    /// Outcome for the side to move.
    pub wdl: Wdl,
    /// Round of the repetition rules that decided it (0 for draws and plain results).
    pub order: u8,
    /// Set when the position is a ruling (then `wdl` is a loss).
    pub ruling: Option<Ruling>,
}

/// Highest rule round the WDL byte holds.
pub const MAX_ORDER: u8 = 63;

impl Verdict {
    /// A result that needs no repetition rule.
    pub fn plain(wdl: Wdl) -> Verdict {
        Verdict {
            wdl,
            order: 0,
            ruling: None,
        }
    }

    /// The WDL-file byte.
    pub fn encode(self) -> u8 {
        if self.order == 0 {
            return match self.wdl {
                Wdl::Loss => 0,
                Wdl::Draw => 1,
                Wdl::Win => 2,
            };
        }
        let kind = match (self.wdl, self.ruling) {
            (_, Some(Ruling::PerpetualCheck)) => 2,
            (_, Some(Ruling::PerpetualChase)) => 3,
            (Wdl::Win, None) => 1,
            _ => 0,
        };
        3 + 4 * (self.order.min(MAX_ORDER) - 1) + kind
    }

    /// Read a WDL-file byte (None for a byte no encoding produces).
    pub fn decode(b: u8) -> Option<Verdict> {
        Some(match b {
            0 => Verdict::plain(Wdl::Loss),
            1 => Verdict::plain(Wdl::Draw),
            2 => Verdict::plain(Wdl::Win),
            255 => return None,
            _ => {
                let k = (b - 3) / 4 + 1;
                let (wdl, ruling) = match (b - 3) % 4 {
                    0 => (Wdl::Loss, None),
                    1 => (Wdl::Win, None),
                    2 => (Wdl::Loss, Some(Ruling::PerpetualCheck)),
                    _ => (Wdl::Loss, Some(Ruling::PerpetualChase)),
                };
                Verdict {
                    wdl,
                    order: k,
                    ruling,
                }
            }
        })
    }

    /// True when the result exists only because of the repetition rules (rule set 0 would
    /// call the position a draw).
    pub fn rests_on_rule(self) -> bool {
        self.order > 0
    }
}

/// Per side to move (Red, Black): wins, draws, losses, illegal.
pub fn outcome_counts<B: AsRef<[u8]>>(values: &[B; 2]) -> [[u64; 4]; 2] {
    let mut counts = [[0u64; 4]; 2];
    for (s, side) in values.iter().enumerate() {
        for &v in side.as_ref() {
            let k = match wdl_of(v) {
                Some(Wdl::Win) => 0,
                Some(Wdl::Draw) => 1,
                Some(Wdl::Loss) => 2,
                None => 3,
            };
            counts[s][k] += 1;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_bytes_round_trip() {
        for b in 0..=254u8 {
            let v = Verdict::decode(b).expect("every byte below 255 is a verdict");
            assert_eq!(v.encode(), b, "{v:?}");
        }
        assert_eq!(Verdict::decode(255), None);
        let r = Verdict {
            wdl: Wdl::Loss,
            order: 2,
            ruling: Some(Ruling::PerpetualChase),
        };
        assert_eq!(r.encode(), 3 + 4 + 3);
        assert!(r.rests_on_rule() && !Verdict::plain(Wdl::Win).rests_on_rule());
    }

    #[test]
    fn children_rule() {
        assert_eq!(value_from_children([]), Some(0));
        assert_eq!(value_from_children([0]), Some(1));
        assert_eq!(value_from_children([1, 3]), Some(4));
        assert_eq!(value_from_children([1, DRAW]), Some(DRAW));
        assert_eq!(value_from_children([4, 2, DRAW, 1]), Some(3));
        assert_eq!(value_from_children([ILLEGAL]), None);
        assert_eq!(wdl_of(0), Some(Wdl::Loss));
        assert_eq!(wdl_of(7), Some(Wdl::Win));
    }
}
