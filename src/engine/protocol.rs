//! UCI (as the strongest Xiangqi engines speak it) and UCCI (as ElephantEye speaks it),
//! chosen by the first command.
//!
//! The search runs in its own thread, so that the loop keeps reading commands: `isready` is
//! answered at once, `stop` ends the search, and a command that changes the engine's state
//! (`position`, `setoption`, `ucinewgame`, `banmoves`, another `go`) or `quit` or the end of
//! the input stops the search first, as GUIs expect. Every `go` gets exactly one `bestmove`
//! (or UCCI `nobestmove`). Nothing the GUI sends ends the engine except `quit` and the end of
//! the input: bad lines (not UTF-8, too long, unknown commands, bad values) are answered with
//! an `info string` that says what was wrong.

pub use super::commands::Proto;
use super::commands::{parse_bool, parse_go, parse_moves, parse_position, parse_setoption};
use super::player::MAX_HASH_MB;
pub use super::player::{Decision, Engine};
use super::search::Info;
use super::smp::MAX_THREADS;
use crate::board::Color;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Longest command line read, in bytes (a `position` with thousands of moves fits).
pub const MAX_LINE: usize = 1 << 20;

fn info_line(proto: Proto, i: &Info) -> String {
    let pv: Vec<String> = i.pv.iter().map(|m| m.to_string()).collect();
    let nps = i.nodes * 1000 / i.time_ms.max(1);
    match proto {
        Proto::Uci => format!(
            "info depth {} seldepth {} score {} nodes {} nps {nps} time {} hashfull {} pv {}",
            i.depth,
            i.seldepth,
            i.score.uci(),
            i.nodes,
            i.time_ms,
            i.hashfull,
            pv.join(" ")
        ),
        Proto::Ucci => format!(
            "info depth {} score {} pv {}\ninfo time {} nodes {}",
            i.depth,
            i.score.0,
            pv.join(" "),
            i.time_ms,
            i.nodes
        ),
    }
}

type Out = Arc<Mutex<Box<dyn Write + Send>>>;

fn say(out: &Out, line: &str) {
    let mut o = out.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(o, "{line}");
    let _ = o.flush();
}

/// One line of input: text, or what was wrong with it.
enum Line {
    Text(String),
    NotUtf8,
    TooLong,
}

/// Read the next line (without its end), or None at the end of the input. A read error
/// counts as the end of the input.
fn next_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> Option<Line> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let avail = match input.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if avail.is_empty() {
            break;
        }
        any = true;
        let (take, done) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (avail.len(), false),
        };
        if buf.len() + take > MAX_LINE {
            too_long = true;
        } else {
            buf.extend_from_slice(&avail[..take]);
        }
        input.consume(take + done as usize);
        if done {
            break;
        }
    }
    if !any {
        return None;
    }
    if too_long {
        return Some(Line::TooLong);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    match std::str::from_utf8(buf) {
        Ok(t) => Some(Line::Text(t.to_string())),
        Err(_) => Some(Line::NotUtf8),
    }
}

const UCI_OPTIONS: [&str; 8] = [
    "option name Hash type spin default 64 min 1 max 4096",
    "option name Threads type spin default 1 min 1 max 64",
    "option name UseBook type check default true",
    "option name BookBest type check default false",
    "option name BookFile type string default books/default.xqb",
    "option name UseTablebase type check default true",
    "option name TablebasePath type string default tables",
    "option name NaturalLimit type spin default 120 min 1 max 1000",
];

const UCCI_OPTIONS: [&str; 9] = [
    "option usemillisec type check default true",
    "option hashsize type spin min 1 max 4096 default 64",
    "option usebook type check default true",
    "option useegtb type check default true",
    "option bookfiles type string default books/default.xqb",
    "option egtbpaths type string default tables",
    "option naturallimit type spin min 1 max 1000 default 120",
    "option threads type spin min 1 max 64 default 1",
    "option newgame type button",
];

/// The protocol loop's state.
struct Session {
    out: Out,
    engine: Arc<Mutex<Engine>>,
    stop: Arc<AtomicBool>,
    searching: Option<std::thread::JoinHandle<()>>,
    proto: Proto,
    millis: bool,
    /// Why the last `position` was refused (no move is searched until a valid one).
    bad_position: Option<String>,
}

impl Session {
    fn say(&self, line: &str) {
        say(&self.out, line);
    }

    fn note(&self, text: &str) {
        // one line per note: a newline inside would start a bogus command on the GUI's side
        let clean: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        self.say(&format!("info string {clean}"));
    }

    fn engine(&self) -> std::sync::MutexGuard<'_, Engine> {
        self.engine.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stop the running search, if any, and wait for its `bestmove`.
    fn halt(&mut self) {
        if let Some(t) = self.searching.take() {
            self.stop.store(true, Ordering::Relaxed);
            let _ = t.join();
        }
    }

    fn hello(&self) {
        self.say("id name xqdb");
        match self.proto {
            Proto::Ucci => {
                self.say(&format!("id version {}", env!("CARGO_PKG_VERSION")));
                self.say("id copyright MIT");
                self.say("id author the xqdb developers");
                for o in UCCI_OPTIONS {
                    self.say(o);
                }
                self.say("ucciok");
            }
            Proto::Uci => {
                self.say("id author the xqdb developers");
                for o in UCI_OPTIONS {
                    self.say(o);
                }
                self.say("uciok");
            }
        }
    }

    fn setoption(&mut self, words: &[&str]) {
        let (name, value) = match parse_setoption(words, self.proto) {
            Ok(nv) => nv,
            Err(e) => return self.note(&format!("{e}; ignored")),
        };
        let check = |s: &Session, set: &mut dyn FnMut(bool)| match parse_bool(&value) {
            Some(b) => set(b),
            None => s.note(&format!(
                "option {name}: '{value}' is not true or false; unchanged"
            )),
        };
        let path = || PathBuf::from(value.split(';').next().unwrap_or("").trim());
        match name.to_ascii_lowercase().as_str() {
            "hash" | "hashsize" => match value.trim().parse::<usize>() {
                Ok(mb) => {
                    let r = self.engine().set_hash(mb);
                    if let Err(e) = r {
                        self.note(&format!("option {name}: {e}"));
                    }
                }
                Err(_) => self.note(&format!(
                    "option {name}: '{value}' is not a size in MiB (1..={MAX_HASH_MB}); unchanged"
                )),
            },
            "naturallimit" => match value.trim().parse::<u32>() {
                Ok(n) if (1..=1000).contains(&n) => self.engine().natural_limit = n,
                _ => self.note(&format!(
                    "option {name}: '{value}' is not a number of plies (1..=1000); unchanged"
                )),
            },
            "usebook" => check(self, &mut |b| self.engine().use_book = b),
            "bookbest" => check(self, &mut |b| self.engine().book_best = b),
            "usetablebase" | "useegtb" => check(self, &mut |b| self.engine().use_tb = b),
            "usemillisec" => {
                let mut m = self.millis;
                check(self, &mut |b| m = b);
                self.millis = m;
            }
            "bookfile" | "bookfiles" => {
                let r = self.engine().set_book(path());
                if let Err(e) = r {
                    self.note(&format!("option {name}: {e}"));
                }
            }
            "tablebasepath" | "egtbpaths" => {
                let r = self.engine().set_tables(path());
                if let Err(e) = r {
                    self.note(&format!("option {name}: {e}"));
                }
            }
            "threads" => match value.trim().parse::<usize>() {
                Ok(n) => {
                    let r = self.engine().set_threads(n);
                    if let Err(e) = r {
                        self.note(&format!("option {name}: {e}"));
                    }
                }
                Err(_) => self.note(&format!(
                    "option {name}: '{value}' is not a thread count (1..={MAX_THREADS}); unchanged"
                )),
            },
            "batch" | "debug" | "ponder" | "idle" | "randomness" | "uci_chess960" => {}
            "newgame" => self.engine().new_game(),
            _ => self.note(&format!("unknown option '{name}' ignored")),
        }
    }

    fn position(&mut self, words: &[&str]) {
        let result =
            parse_position(words).and_then(|(fen, moves)| self.engine().set_position(&fen, &moves));
        match result {
            Ok(()) => self.bad_position = None,
            Err(e) => {
                self.note(&format!(
                    "bad position: {e}; no move until a valid position command"
                ));
                self.bad_position = Some(e);
            }
        }
    }

    fn go(&mut self, words: &[&str]) {
        let none = match self.proto {
            Proto::Ucci => "nobestmove",
            Proto::Uci => "bestmove (none)",
        };
        if let Some(why) = &self.bad_position {
            self.note(&format!("no valid position ({why}): no move searched"));
            self.say(none);
            return;
        }
        let red = self.engine().pos.turn() == Color::Red;
        let (clock, notes) = parse_go(words, self.proto, self.millis, red);
        for n in notes {
            self.note(&n);
        }
        self.stop.store(false, Ordering::Relaxed);
        let (engine, out, stop, p) = (
            self.engine.clone(),
            self.out.clone(),
            self.stop.clone(),
            self.proto,
        );
        self.searching = Some(std::thread::spawn(move || {
            let mut e = engine.lock().unwrap_or_else(|e| e.into_inner());
            let d = e.think(&clock, &stop, |i| say(&out, &info_line(p, i)));
            for n in e.take_notes() {
                say(&out, &format!("info string {n}"));
            }
            drop(e);
            if let Some(s) = &d.source {
                say(&out, &format!("info string {s}"));
            }
            if clock.infinite {
                // in infinite mode the answer waits for `stop` (or a command that stops)
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
            }
            match d.best {
                Some(m) => say(&out, &format!("bestmove {m}")),
                None => say(&out, none),
            }
        }));
    }

    fn banmoves(&mut self, words: &[&str]) {
        let (moves, notes) = parse_moves(words);
        for n in notes {
            self.note(&format!("banmoves: {n}"));
        }
        let mut e = self.engine();
        let illegal: Vec<String> = moves
            .iter()
            .filter(|m| !e.pos.is_legal(**m))
            .map(|m| m.to_string())
            .collect();
        e.ban(moves);
        drop(e);
        if !illegal.is_empty() {
            self.note(&format!(
                "banmoves: {} not legal here (kept for this position)",
                illegal.join(" ")
            ));
        }
    }

    /// Handle one command; false on `quit`.
    fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = words.first() else {
            return true;
        };
        let args = &words[1..];
        match cmd {
            "uci" | "ucci" => {
                self.halt();
                self.proto = if cmd == "ucci" {
                    Proto::Ucci
                } else {
                    Proto::Uci
                };
                self.hello();
            }
            "isready" => self.say("readyok"),
            "stop" => self.halt(),
            "ponderhit" => {}
            "quit" => {
                self.halt();
                if self.proto == Proto::Ucci {
                    self.say("bye");
                }
                return false;
            }
            "ucinewgame" => {
                self.halt();
                self.engine().new_game();
            }
            "setoption" => {
                self.halt();
                self.setoption(args);
            }
            "position" => {
                self.halt();
                self.position(args);
            }
            "banmoves" => {
                self.halt();
                self.banmoves(args);
            }
            "go" => {
                self.halt();
                self.go(args);
            }
            "probe" if self.proto == Proto::Ucci => {
                self.note("probe: no hash information");
            }
            _ => {
                let shown: String = cmd.chars().take(40).collect();
                self.note(&format!("unknown command '{shown}' ignored"));
            }
        }
        true
    }
}

/// Run the protocol loop on `input`, writing to `output`, until `quit` or end of input.
pub fn run_protocol(mut input: impl BufRead, output: Box<dyn Write + Send>) {
    let mut s = Session {
        out: Arc::new(Mutex::new(output)),
        engine: Arc::new(Mutex::new(Engine::new())),
        stop: Arc::new(AtomicBool::new(false)),
        searching: None,
        proto: Proto::Uci,
        millis: true,
        bad_position: None,
    };
    let mut first = true;
    let mut buf = Vec::new();
    let mut number = 0usize;
    while let Some(line) = next_line(&mut input, &mut buf) {
        number += 1;
        let text = match line {
            Line::Text(t) => t,
            Line::NotUtf8 => {
                s.note(&format!("line {number} is not valid UTF-8; ignored"));
                continue;
            }
            Line::TooLong => {
                s.note(&format!(
                    "line {number} is longer than {MAX_LINE} bytes; ignored"
                ));
                continue;
            }
        };
        if first && !text.trim().is_empty() {
            first = false;
            if text.split_whitespace().next() == Some("ucci") {
                s.proto = Proto::Ucci;
            }
        }
        if !s.command(&text) {
            return;
        }
    }
    s.halt();
}

#[cfg(test)]
mod tests {
    use super::Proto;
    use crate::engine::commands::parse_go;
    use crate::engine::time::{limits, Clock};
    use std::time::Duration;

    fn go(line: &str, proto: Proto, millis: bool, white: bool) -> Clock {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (clock, warnings) = parse_go(&words[1..], proto, millis, white);
        assert!(warnings.is_empty(), "{line}: {warnings:?}");
        clock
    }

    /// The same clock said three ways: UCCI in seconds, UCCI in milliseconds, UCI for
    /// Black; and the search limits it gives, worked out by hand: 60 s left less 50 ms of
    /// overhead over 20 moves plus three quarters of the 2 s increment is a share of
    /// 2,997 + 1,500 ms; the soft limit is 6/10 of it, the hard one three shares but never
    /// more than a tenth of the 59,950 ms left.
    #[test]
    fn clocks_in_every_unit_give_the_same_limits() {
        let clocks = [
            go(
                "go time 60 increment 2 movestogo 20 opptime 9",
                Proto::Ucci,
                false,
                true,
            ),
            go(
                "go time 60000 increment 2000 movestogo 20",
                Proto::Ucci,
                true,
                false,
            ),
            go(
                "go wtime 1000 btime 60000 winc 10 binc 2000 movestogo 20",
                Proto::Uci,
                true,
                false,
            ),
        ];
        for c in clocks {
            assert_eq!(
                (c.time, c.inc, c.movestogo),
                (Some(60_000), 2_000, Some(20))
            );
            let l = limits(&c);
            assert_eq!(l.soft, Some(Duration::from_millis(2_698)));
            assert_eq!(l.hard, Some(Duration::from_millis(5_995)));
            assert_eq!((l.depth, l.nodes), (None, None));
        }
    }

    #[test]
    fn short_clocks_fixed_times_and_depths() {
        // 1 s in seconds mode: 950 ms usable over 30 moves is 31 ms a move; three shares
        // (93 ms) are under a tenth of the clock (95 ms)
        let c = go("go time 1 increment 0", Proto::Ucci, false, true);
        assert_eq!((c.time, c.inc), (Some(1_000), 0));
        let l = limits(&c);
        assert_eq!(l.soft, Some(Duration::from_millis(18)));
        assert_eq!(l.hard, Some(Duration::from_millis(93)));
        // a fixed time keeps 10 ms in hand
        let l = limits(&go("go movetime 500", Proto::Uci, true, true));
        assert_eq!((l.soft, l.hard), (Some(Duration::from_millis(490)), l.soft));
        // depth and nodes alone set no time limit
        let l = limits(&go("go depth 7 nodes 1000", Proto::Ucci, false, true));
        assert_eq!(
            (l.depth, l.nodes, l.soft, l.hard),
            (Some(7), Some(1000), None, None)
        );
        assert!(go("go infinite", Proto::Uci, true, true).infinite);
    }
}
