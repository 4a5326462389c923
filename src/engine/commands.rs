//! Parsing the arguments of protocol commands (`go`, `setoption`, `position`, `banmoves`)
//! into values, with a note for every token that is out of range or unreadable: the value is
//! clamped or ignored, and the note is sent to the GUI as an `info string`.

use super::time::Clock;
use crate::board::Move;

/// The largest clock, increment or move time accepted, in milliseconds (24 hours); larger
/// values are clamped to it.
pub const MAX_TIME_MS: u64 = 24 * 3600 * 1000;
/// The deepest search a `go depth` asks for (deeper values are clamped).
pub const MAX_DEPTH: i32 = 100;
/// Move time of a `go` whose every limit was unreadable (instead of searching until `stop`).
pub const FALLBACK_MOVETIME_MS: u64 = 1000;

/// Which protocol is spoken.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Proto {
    /// UCI.
    Uci,
    /// UCCI.
    Ucci,
}

/// A number token: clamped into `min..=max` (a note says so), or None with a note when it is
/// not a number.
fn number(words: &[&str], i: usize, min: u64, max: u64, notes: &mut Vec<String>) -> Option<u64> {
    let name = words[i];
    let Some(&t) = words.get(i + 1) else {
        notes.push(format!("go {name}: no value given; ignored"));
        return None;
    };
    let (v, why) = if let Ok(v) = t.parse::<i128>() {
        (v, None)
    } else if let Some(f) = t.parse::<f64>().ok().filter(|f| f.is_finite()) {
        (f as i128, Some("not a whole number"))
    } else {
        notes.push(format!("go {name} '{t}': not a number; ignored"));
        return None;
    };
    let (v, why) = if v < 0 {
        (min, Some("negative"))
    } else if v < min as i128 {
        (min, Some("too small"))
    } else if v > max as i128 {
        (max, Some("too large"))
    } else {
        (v as u64, why)
    };
    if let Some(why) = why {
        notes.push(format!("go {name} {t}: {why}; taken as {v}"));
    }
    Some(v)
}

/// Parse the words after `go` for the side to move (`red`). `millis`: UCCI times are in
/// milliseconds (`usemillisec true`), else seconds. Returns the clock and the notes.
pub fn parse_go(words: &[&str], proto: Proto, millis: bool, red: bool) -> (Clock, Vec<String>) {
    let mut c = Clock::default();
    let mut notes = Vec::new();
    let unit: u64 = if proto == Proto::Ucci && !millis {
        1000
    } else {
        1
    };
    let time_max = MAX_TIME_MS / unit;
    let mut named_a_limit = false;
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let mut takes_value = true;
        match w {
            "wtime" | "btime" | "winc" | "binc" | "movestogo" | "movetime" | "depth" | "nodes"
            | "time" | "increment" => {
                let max = match w {
                    "depth" => MAX_DEPTH as u64,
                    "nodes" => u64::MAX / 2,
                    "movestogo" => 1000,
                    "time" | "increment" => time_max,
                    _ => MAX_TIME_MS,
                };
                let min = match w {
                    "depth" | "nodes" | "movestogo" => 1,
                    _ => 0,
                };
                let v = number(words, i, min, max, &mut notes);
                let scale = |v: u64| v.saturating_mul(unit).min(MAX_TIME_MS);
                match w {
                    "wtime" if red => c.time = v,
                    "btime" if !red => c.time = v,
                    "winc" if red => c.inc = v.unwrap_or(0),
                    "binc" if !red => c.inc = v.unwrap_or(0),
                    "movestogo" => c.movestogo = v,
                    "movetime" => c.movetime = v,
                    "depth" => c.depth = v.map(|d| d.min(MAX_DEPTH as u64) as i32),
                    "nodes" => c.nodes = v,
                    "time" => c.time = v.map(scale),
                    "increment" => c.inc = v.map(scale).unwrap_or(0),
                    _ => {}
                }
                if matches!(
                    w,
                    "wtime" | "btime" | "movetime" | "depth" | "nodes" | "time"
                ) {
                    named_a_limit = true;
                }
            }
            "infinite" => {
                c.infinite = true;
                takes_value = false;
            }
            "opptime" | "oppmovestogo" | "oppincrement" => {}
            // no value: ponder, draw (UCCI), searchmoves' moves and unknown words
            _ => takes_value = false,
        }
        i += if takes_value { 2 } else { 1 };
    }
    let limited = c.time.is_some()
        || c.movetime.is_some()
        || c.depth.is_some()
        || c.nodes.is_some()
        || c.infinite;
    if named_a_limit && !limited {
        notes.push(format!(
            "go: no readable limit; searching {FALLBACK_MOVETIME_MS} ms instead of until stop"
        ));
        c.movetime = Some(FALLBACK_MOVETIME_MS);
    }
    (c, notes)
}

/// The option name and value of a `setoption` command (the words after `setoption`). UCI:
/// `name N... [value V...]`, in either order; UCCI: `NAME [VALUE...]`.
pub fn parse_setoption(words: &[&str], proto: Proto) -> Result<(String, String), String> {
    match proto {
        Proto::Uci => {
            let ni = words.iter().position(|w| *w == "name");
            let vi = words.iter().position(|w| *w == "value");
            let span = |from: usize, other: Option<usize>| {
                let end = other.filter(|&o| o > from).unwrap_or(words.len());
                words[from + 1..end].join(" ")
            };
            let Some(ni) = ni else {
                return Err("setoption without 'name'".into());
            };
            let name = span(ni, vi);
            if name.is_empty() {
                return Err("setoption with an empty name".into());
            }
            let value = vi.map(|v| span(v, Some(ni))).unwrap_or_default();
            Ok((name, value))
        }
        Proto::Ucci => {
            let Some(name) = words.first() else {
                return Err("setoption without a name".into());
            };
            Ok((name.to_string(), words[1..].join(" ")))
        }
    }
}

/// A check option's value: true/false (also on/off, 1/0, yes/no), or None.
pub fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "1" | "yes" => Some(true),
        "false" | "off" | "0" | "no" => Some(false),
        _ => None,
    }
}

/// The moves of a `banmoves` command, and a note for each token that is not a move.
pub fn parse_moves(words: &[&str]) -> (Vec<Move>, Vec<String>) {
    let mut moves = Vec::new();
    let mut notes = Vec::new();
    for w in words {
        match w.parse::<Move>() {
            Ok(m) => moves.push(m),
            Err(e) => notes.push(format!("'{w}' is not a move ({e}); ignored")),
        }
    }
    (moves, notes)
}

/// The FEN (or `startpos`) and the moves of a `position` command (the words after it).
pub fn parse_position<'a>(words: &[&'a str]) -> Result<(String, Vec<&'a str>), String> {
    let mi = words.iter().position(|w| *w == "moves");
    let spec = &words[..mi.unwrap_or(words.len())];
    let moves: Vec<&str> = mi.map(|i| words[i + 1..].to_vec()).unwrap_or_default();
    match spec.first() {
        Some(&"startpos") if spec.len() == 1 => Ok(("startpos".to_string(), moves)),
        Some(&"fen") if spec.len() > 1 => Ok((spec[1..].join(" "), moves)),
        Some(&"fen") => Err("'position fen' without a FEN".into()),
        _ => Err("use 'position startpos [moves ...]' or 'position fen FEN [moves ...]'".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(s: &str) -> (Clock, Vec<String>) {
        let w: Vec<&str> = s.split_whitespace().collect();
        parse_go(&w, Proto::Uci, true, true)
    }

    #[test]
    fn go_values_out_of_range_are_clamped_with_a_note() {
        let (c, n) = go("movetime -5");
        assert_eq!(c.movetime, Some(0));
        assert!(n[0].contains("negative"), "{n:?}");
        let (c, n) = go("depth -1");
        assert_eq!(c.depth, Some(1));
        assert_eq!(n.len(), 1);
        let (c, n) = go("depth 100000");
        assert_eq!(c.depth, Some(MAX_DEPTH));
        assert_eq!(n.len(), 1);
        let (c, n) = go("wtime 99999999999999999999999 btime 5");
        assert_eq!(c.time, Some(MAX_TIME_MS));
        assert!(n[0].contains("taken as"), "{n:?}");
        let (c, n) = go("wtime -100 btime -100");
        assert_eq!(c.time, Some(0));
        assert_eq!(n.len(), 2);
        let (c, n) = go("wtime abc");
        assert_eq!(c.time, None);
        assert_eq!(c.movetime, Some(FALLBACK_MOVETIME_MS));
        assert_eq!(n.len(), 2, "{n:?}");
        let (c, n) = go("depth 7 wtime 1000 winc 10 movestogo 5");
        assert!(n.is_empty());
        assert_eq!(
            (c.depth, c.time, c.inc, c.movestogo),
            (Some(7), Some(1000), 10, Some(5))
        );
        let (c, n) = go("infinite");
        assert!(c.infinite && n.is_empty());
        let (c, n) = go("movetime");
        assert!(c.movetime.is_some() && !n.is_empty());
    }

    #[test]
    fn ucci_seconds_saturate() {
        let w: Vec<&str> = "time 18446744073709551615 increment 3".split(' ').collect();
        let (c, n) = parse_go(&w, Proto::Ucci, false, true);
        assert_eq!(c.time, Some(MAX_TIME_MS));
        assert_eq!(c.inc, 3000);
        assert_eq!(n.len(), 1);
    }

    #[test]
    fn setoption_tokens_in_any_order() {
        let p = |s: &str| {
            let w: Vec<&str> = s.split_whitespace().collect();
            parse_setoption(&w, Proto::Uci)
        };
        assert_eq!(p("name Hash value 5"), Ok(("Hash".into(), "5".into())));
        assert_eq!(p("value 5 name Hash"), Ok(("Hash".into(), "5".into())));
        assert_eq!(
            p("name Book File value a b"),
            Ok(("Book File".into(), "a b".into()))
        );
        assert_eq!(p("name UseBook"), Ok(("UseBook".into(), String::new())));
        assert!(p("value 5").is_err());
        assert!(p("name").is_err());
        assert!(p("name value 3").is_err());
        assert!(p("").is_err());
    }
}
