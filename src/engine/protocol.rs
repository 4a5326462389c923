//! UCI (as the strongest Xiangqi engines speak it) and UCCI (as ElephantEye speaks it),
//! chosen by the first command.

use super::params::DEFAULT_HASH_MB;
use super::search::{Info, Limits, Searcher};
use super::time::{limits, Clock};
use super::tt::Tt;
use crate::board::{Move, Position};
use crate::book::{Book, PickMode};
use crate::index::Material;
use crate::tablebase::{Tablebases, Wdl};
use rand::SeedableRng;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Which protocol is spoken.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Proto {
    /// UCI.
    Uci,
    /// UCCI.
    Ucci,
}

/// Engine state: position, options, table, book, tablebases.
pub struct Engine {
    /// Root position.
    pub pos: Position,
    history: Vec<(u64, bool)>,
    tt: Tt,
    hash_mb: usize,
    book_path: PathBuf,
    book: Option<Book>,
    /// Play book moves.
    pub use_book: bool,
    /// Best book move instead of weighted random.
    pub book_best: bool,
    tb_path: PathBuf,
    tb: Option<Tablebases>,
    /// Use tablebases.
    pub use_tb: bool,
    banned: Vec<Move>,
    rng: rand::rngs::StdRng,
}

/// What a search decided.
#[derive(Clone, Debug)]
pub struct Decision {
    /// The move (None: no legal move).
    pub best: Option<Move>,
    /// Where it came from, for `info string`.
    pub source: Option<String>,
    /// The last search report.
    pub info: Option<Info>,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

impl Engine {
    /// Defaults: 64 MiB hash, books/default.xqb, tables/ (both opened on first use).
    pub fn new() -> Engine {
        Engine {
            pos: Position::startpos(),
            history: Vec::new(),
            tt: Tt::new(DEFAULT_HASH_MB),
            hash_mb: DEFAULT_HASH_MB,
            book_path: crate::paths::books_dir().join("default.xqb"),
            book: None,
            use_book: true,
            book_best: false,
            tb_path: crate::paths::tables_dir(),
            tb: None,
            use_tb: true,
            banned: Vec::new(),
            rng: rand::rngs::StdRng::seed_from_u64(0x5851_4442),
        }
    }

    /// Seed the book's random choice.
    pub fn seed(&mut self, s: u64) {
        self.rng = rand::rngs::StdRng::seed_from_u64(s);
    }

    /// Set the hash size in MiB.
    pub fn set_hash(&mut self, mb: usize) {
        self.hash_mb = mb.clamp(1, 4096);
        self.tt = Tt::new(self.hash_mb);
    }

    /// Use another book file.
    pub fn set_book(&mut self, p: PathBuf) {
        self.book_path = p;
        self.book = None;
    }

    /// Use another tablebase folder.
    pub fn set_tables(&mut self, p: PathBuf) {
        self.tb_path = p;
        self.tb = None;
    }

    /// Forget the game (new game).
    pub fn new_game(&mut self) {
        self.tt.clear();
    }

    /// Set the position: a FEN or `startpos`, then moves in ICCS.
    pub fn set_position(&mut self, fen: &str, moves: &[&str]) -> Result<(), String> {
        let mut pos = Position::from_fen(fen).map_err(|e| e.to_string())?;
        let mut history = Vec::new();
        for t in moves {
            let m: Move = t
                .parse()
                .map_err(|e: crate::board::ParseMoveError| e.to_string())?;
            if !pos.is_legal(m) {
                return Err(format!("illegal move {m} in {}", pos.to_fen()));
            }
            let key = pos.key();
            pos.play(m);
            history.push((key, pos.in_check()));
        }
        self.pos = pos;
        self.history = history;
        self.banned.clear();
        Ok(())
    }

    /// Moves not to play in the next search (UCCI `banmoves`).
    pub fn ban(&mut self, moves: Vec<Move>) {
        self.banned = moves;
    }

    fn tables(&mut self) -> Option<&Tablebases> {
        if !self.use_tb {
            return None;
        }
        if self.tb.is_none() && self.tb_path.is_dir() {
            self.tb = Some(Tablebases::open(&self.tb_path));
        }
        self.tb.as_ref()
    }

    /// Decide a move: book, then tablebase (DTM), then search.
    pub fn think(
        &mut self,
        clock: &Clock,
        stop: &AtomicBool,
        mut report: impl FnMut(&Info),
    ) -> Decision {
        if self.use_book && self.banned.is_empty() {
            if self.book.is_none() && self.book_path.is_file() {
                self.book = Book::open(&self.book_path).ok();
            }
            if let Some(b) = &self.book {
                let mode = if self.book_best {
                    PickMode::Best
                } else {
                    PickMode::Weighted
                };
                if let Some(m) = b.pick(&self.pos, &mut self.rng, mode) {
                    return Decision {
                        best: Some(m),
                        source: Some(format!("book move {m}")),
                        info: None,
                    };
                }
            }
        }
        let pos = self.pos.clone();
        let banned = self.banned.clone();
        if let Some(tb) = self.tables() {
            let m = Material::of_position(&pos);
            if tb.has_table(&m) {
                if let Ok(list) = tb.best_moves(&pos) {
                    if let Some(best) = list.into_iter().find(|o| !banned.contains(&o.mv)) {
                        let verdict = match (best.wdl, best.dtm) {
                            (Wdl::Win, Some(d)) => format!("wins, mate in {d} plies"),
                            (Wdl::Loss, Some(d)) => format!("loses, mated in {d} plies"),
                            _ => "draws".to_string(),
                        };
                        return Decision {
                            best: Some(best.mv),
                            source: Some(format!("tablebase move {}: {verdict}", best.mv)),
                            info: None,
                        };
                    }
                }
            }
        }
        let lim: Limits = limits(clock);
        let tb = if self.use_tb { self.tb.as_ref() } else { None };
        let mut s = Searcher::new(&pos, &self.history, &mut self.tt, tb, stop, lim, banned);
        let (best, info) = s.run(&mut report);
        Decision {
            best,
            source: None,
            info,
        }
    }
}

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

fn parse_go(words: &[&str], proto: Proto, millis: bool, white: bool) -> Clock {
    let mut c = Clock::default();
    let num = |i: usize| words.get(i + 1).and_then(|w| w.parse::<u64>().ok());
    let unit = |v: u64| {
        if proto == Proto::Ucci && !millis {
            v * 1000
        } else {
            v
        }
    };
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            "wtime" if white => c.time = num(i),
            "btime" if !white => c.time = num(i),
            "winc" if white => c.inc = num(i).unwrap_or(0),
            "binc" if !white => c.inc = num(i).unwrap_or(0),
            "movestogo" => c.movestogo = num(i),
            "movetime" => c.movetime = num(i),
            "depth" => c.depth = num(i).map(|d| d as i32),
            "nodes" => c.nodes = num(i),
            "infinite" => c.infinite = true,
            "time" => c.time = num(i).map(unit),
            "increment" => c.inc = num(i).map(unit).unwrap_or(0),
            "opptime" | "oppmovestogo" | "oppincrement" => i += 1,
            _ => {}
        }
        i += 1;
    }
    c
}

/// Run the protocol loop on `input`, writing to `output`, until `quit` or end of input.
pub fn run_protocol(input: impl BufRead, output: Box<dyn Write + Send>) {
    let out: Out = Arc::new(Mutex::new(output));
    let engine = Arc::new(Mutex::new(Engine::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut searching: Option<std::thread::JoinHandle<()>> = None;
    let mut proto: Option<Proto> = None;
    let mut millis = true;
    let wait = |h: &mut Option<std::thread::JoinHandle<()>>| {
        if let Some(t) = h.take() {
            let _ = t.join();
        }
    };
    for line in input.lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = words.first() else { continue };
        let p = *proto.get_or_insert(if cmd == "ucci" {
            Proto::Ucci
        } else {
            Proto::Uci
        });
        match cmd {
            "uci" | "ucci" => {
                if cmd == "ucci" {
                    say(&out, "id name xqdb");
                    say(&out, &format!("id version {}", env!("CARGO_PKG_VERSION")));
                    say(&out, "id copyright MIT");
                    say(&out, "id author the xqdb developers");
                    for o in [
                        "option usemillisec type check default true",
                        "option hashsize type spin min 1 max 4096 default 64",
                        "option usebook type check default true",
                        "option useegtb type check default true",
                        "option bookfiles type string default books/default.xqb",
                        "option egtbpaths type string default tables",
                        "option threads type spin min 1 max 1 default 1",
                        "option newgame type button",
                    ] {
                        say(&out, o);
                    }
                    say(&out, "ucciok");
                } else {
                    say(&out, "id name xqdb");
                    say(&out, "id author the xqdb developers");
                    for o in [
                        "option name Hash type spin default 64 min 1 max 4096",
                        "option name Threads type spin default 1 min 1 max 1",
                        "option name UseBook type check default true",
                        "option name BookBest type check default false",
                        "option name BookFile type string default books/default.xqb",
                        "option name UseTablebase type check default true",
                        "option name TablebasePath type string default tables",
                    ] {
                        say(&out, o);
                    }
                    say(&out, "uciok");
                }
            }
            "isready" => say(&out, "readyok"),
            "stop" => {
                stop.store(true, Ordering::Relaxed);
                wait(&mut searching);
            }
            "ponderhit" => {}
            "quit" => {
                stop.store(true, Ordering::Relaxed);
                wait(&mut searching);
                if p == Proto::Ucci {
                    say(&out, "bye");
                }
                return;
            }
            "ucinewgame" => {
                wait(&mut searching);
                engine.lock().unwrap_or_else(|e| e.into_inner()).new_game();
            }
            "setoption" => {
                wait(&mut searching);
                let (name, value) = if p == Proto::Uci {
                    let ni = words.iter().position(|w| *w == "name");
                    let vi = words.iter().position(|w| *w == "value");
                    let name = ni
                        .map(|i| words[i + 1..vi.unwrap_or(words.len())].join(" "))
                        .unwrap_or_default();
                    let value = vi.map(|i| words[i + 1..].join(" ")).unwrap_or_default();
                    (name, value)
                } else {
                    (
                        words.get(1).unwrap_or(&"").to_string(),
                        words[2.min(words.len())..].join(" "),
                    )
                };
                let truthy =
                    |v: &str| matches!(v.to_ascii_lowercase().as_str(), "true" | "on" | "1");
                let mut e = engine.lock().unwrap_or_else(|e| e.into_inner());
                match name.to_ascii_lowercase().as_str() {
                    "hash" | "hashsize" => e.set_hash(value.parse().unwrap_or(DEFAULT_HASH_MB)),
                    "usebook" => e.use_book = truthy(&value),
                    "bookbest" => e.book_best = truthy(&value),
                    "bookfile" | "bookfiles" => {
                        e.set_book(PathBuf::from(value.split(';').next().unwrap_or("")))
                    }
                    "usetablebase" | "useegtb" => e.use_tb = truthy(&value),
                    "tablebasepath" | "egtbpaths" => {
                        e.set_tables(PathBuf::from(value.split(';').next().unwrap_or("")))
                    }
                    "usemillisec" => millis = truthy(&value),
                    "threads" | "batch" | "debug" | "ponder" | "idle" | "randomness" => {}
                    "newgame" => e.new_game(),
                    other => say(
                        &out,
                        &format!("info string unknown option '{other}' ignored"),
                    ),
                }
            }
            "position" => {
                wait(&mut searching);
                let rest = &words[1..];
                let mi = rest.iter().position(|w| *w == "moves");
                let spec = &rest[..mi.unwrap_or(rest.len())];
                let moves: Vec<&str> = mi.map(|i| rest[i + 1..].to_vec()).unwrap_or_default();
                let fen = match spec.first() {
                    Some(&"startpos") => "startpos".to_string(),
                    Some(&"fen") => spec[1..].join(" "),
                    _ => {
                        say(&out, &format!("info string bad position command: {line}"));
                        continue;
                    }
                };
                if let Err(err) = engine
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .set_position(&fen, &moves)
                {
                    say(&out, &format!("info string bad position: {err}"));
                }
            }
            "banmoves" => {
                wait(&mut searching);
                let ms: Vec<Move> = words[1..].iter().filter_map(|w| w.parse().ok()).collect();
                engine.lock().unwrap_or_else(|e| e.into_inner()).ban(ms);
            }
            "go" => {
                wait(&mut searching);
                stop.store(false, Ordering::Relaxed);
                let white = engine.lock().unwrap_or_else(|e| e.into_inner()).pos.turn()
                    == crate::board::Color::Red;
                let clock = parse_go(&words[1..], p, millis, white);
                let (engine, out, stop) = (engine.clone(), out.clone(), stop.clone());
                searching = Some(std::thread::spawn(move || {
                    let mut e = engine.lock().unwrap_or_else(|e| e.into_inner());
                    let d = e.think(&clock, &stop, |i| say(&out, &info_line(p, i)));
                    if let Some(s) = &d.source {
                        say(&out, &format!("info string {s}"));
                    }
                    match d.best {
                        Some(m) => say(&out, &format!("bestmove {m}")),
                        None if p == Proto::Ucci => say(&out, "nobestmove"),
                        None => say(&out, "bestmove (none)"),
                    }
                }));
            }
            "probe" if p == Proto::Ucci => {
                say(&out, "info string probe: no hash information");
            }
            _ => say(
                &out,
                &format!("info string unknown command '{cmd}' ignored"),
            ),
        }
    }
    stop.store(true, Ordering::Relaxed);
    wait(&mut searching);
}

#[cfg(test)]
mod tests {
    use super::{parse_go, Proto};
    use crate::engine::time::limits;
    use std::time::Duration;

    fn go(line: &str, proto: Proto, millis: bool, white: bool) -> super::Clock {
        let words: Vec<&str> = line.split_whitespace().collect();
        parse_go(&words[1..], proto, millis, white)
    }

    /// The same clock said three ways: UCCI in seconds, UCCI in milliseconds, UCI for
    /// Black; and the search limits it gives, worked out by hand: 60 s left less 30 ms of
    /// overhead over 20 moves plus three quarters of the 2 s increment is a share of
    /// 2,998 + 1,500 ms; the soft limit is 6/10 of it, the hard one three shares.
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
            assert_eq!(l.hard, Some(Duration::from_millis(13_494)));
            assert_eq!((l.depth, l.nodes), (None, None));
        }
    }

    #[test]
    fn short_clocks_fixed_times_and_depths() {
        // 1 s in seconds mode: 970 ms usable over 30 moves is 32 ms a move
        let c = go("go time 1 increment 0", Proto::Ucci, false, true);
        assert_eq!((c.time, c.inc), (Some(1_000), 0));
        let l = limits(&c);
        assert_eq!(l.soft, Some(Duration::from_millis(19)));
        assert_eq!(l.hard, Some(Duration::from_millis(96)));
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
