//! An engine in a child process, spoken to in UCI or UCCI (given, or detected by handshake).
//!
//! Writing to an engine that has died must be a write error, not the death of the whole
//! process by SIGPIPE: starting an engine sets SIGPIPE to "ignore" for the process (once; the
//! Rust runtime does the same for programs that do not reset it).

use crate::board::{Move, Square};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How to start an engine.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    /// Program.
    pub cmd: String,
    /// Arguments.
    pub args: Vec<String>,
    /// Options set after the handshake (name, value).
    pub options: Vec<(String, String)>,
    /// The protocol to speak; `None`: detect it (UCI first; an engine that does not answer
    /// `uci`, or exits on it, is started again and spoken to in UCCI).
    pub protocol: Option<Protocol>,
}

impl EngineSpec {
    /// From a command line such as `"xqdb engine"` (split at spaces).
    pub fn parse(line: &str) -> Option<EngineSpec> {
        let mut w = line.split_whitespace().map(str::to_string);
        Some(EngineSpec {
            cmd: w.next()?,
            args: w.collect(),
            options: Vec::new(),
            protocol: None,
        })
    }

    /// The command line, for messages.
    pub fn line(&self) -> String {
        std::iter::once(self.cmd.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Protocol spoken.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// UCI.
    Uci,
    /// UCCI.
    Ucci,
}

impl std::str::FromStr for Protocol {
    type Err = String;
    fn from_str(s: &str) -> Result<Protocol, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "uci" => Ok(Protocol::Uci),
            "ucci" => Ok(Protocol::Ucci),
            _ => Err(format!("unknown protocol '{s}': use uci or ucci")),
        }
    }
}

/// What an engine answered to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The move; `None` for UCCI's `nobestmove`.
    pub mv: Option<Move>,
    /// UCCI's `draw` after the move: the engine offers (or claims, or accepts) a draw.
    pub draw: bool,
    /// UCCI's `resign` after the move.
    pub resign: bool,
}

/// Why an engine failed to give a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    /// The process ended (or could not start).
    #[error("engine crashed: {0}")]
    Crash(String),
    /// No answer in time.
    #[error("engine did not answer in time ({0})")]
    Timeout(String),
    /// An answer that is not a move.
    #[error("engine answered '{0}', not a move")]
    BadAnswer(String),
}

/// A running engine.
pub struct EngineProc {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Its name (from `id name`).
    pub name: String,
    /// Protocol.
    pub protocol: Protocol,
    /// Writes ranks 1-10 (Fairy-Stockfish's plain UCI) instead of ICCS's 0-9.
    pub ranks_from_one: bool,
}

fn to_engine(m: Move, one: bool) -> String {
    if !one {
        return m.to_string();
    }
    let sq = |s: Square| format!("{}{}", (b'a' + s.file()) as char, s.rank() + 1);
    format!("{}{}", sq(m.from()), sq(m.to()))
}

fn from_engine(t: &str, one: bool) -> Option<Move> {
    if !one {
        return t.parse().ok();
    }
    let b = t.as_bytes();
    let split = b.iter().skip(1).position(|c| c.is_ascii_alphabetic())? + 1;
    let sq = |s: &str| -> Option<Square> {
        let f = s.as_bytes().first()?.wrapping_sub(b'a');
        let r: u8 = s.get(1..)?.parse().ok()?;
        Square::from_coords(f, r.checked_sub(1)?)
    };
    Some(Move::new(sq(&t[..split])?, sq(&t[split..])?))
}

impl EngineProc {
    /// Start the engine and shake hands in its protocol: the one given, or UCI and, when the
    /// engine does not answer that (or exits on it, as classic UCCI engines do when their
    /// first command is not `ucci`), UCCI, in the same process if it is still running and
    /// in a new one otherwise.
    pub fn start(spec: &EngineSpec) -> Result<EngineProc, Fault> {
        ignore_sigpipe();
        let (mut e, hello) = match spec.protocol {
            Some(p) => {
                let mut e = EngineProc::spawn(spec)?;
                let h = e.handshake(p)?;
                (e, h)
            }
            None => {
                let mut e = EngineProc::spawn(spec)?;
                match e.handshake(Protocol::Uci) {
                    Ok(h) => (e, h),
                    Err(Fault::Timeout(_)) => match e.handshake(Protocol::Ucci) {
                        Ok(h) => (e, h),
                        Err(Fault::Crash(_)) => EngineProc::restart_ucci(spec)?,
                        Err(f) => return Err(f),
                    },
                    Err(_) => EngineProc::restart_ucci(spec)?,
                }
            }
        };
        e.name = spec.cmd.clone();
        for l in &hello {
            if let Some(n) = l.strip_prefix("id name ") {
                e.name = n.trim().to_string();
            }
        }
        if e.name.to_ascii_lowercase().contains("fairy-stockfish") {
            e.ranks_from_one = true;
            e.set_option("UCI_Variant", "xiangqi")?;
        }
        if e.protocol == Protocol::Ucci {
            e.set_option("usemillisec", "true")?;
        }
        for (k, v) in &spec.options {
            e.set_option(k, v)?;
        }
        e.ready()?;
        Ok(e)
    }

    fn restart_ucci(spec: &EngineSpec) -> Result<(EngineProc, Vec<String>), Fault> {
        let mut e = EngineProc::spawn(spec)?;
        let h = e.handshake(Protocol::Ucci)?;
        Ok((e, h))
    }

    fn spawn(spec: &EngineSpec) -> Result<EngineProc, Fault> {
        let mut child = Command::new(&spec.cmd)
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Fault::Crash(format!("{}: {e}", spec.cmd)))?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| Fault::Crash("no stdin".into()))?;
        let out = child
            .stdout
            .take()
            .ok_or_else(|| Fault::Crash("no stdout".into()))?;
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Ok(EngineProc {
            child,
            stdin,
            lines,
            name: spec.cmd.clone(),
            protocol: Protocol::Uci,
            ranks_from_one: false,
        })
    }

    /// Send `uci` or `ucci` and wait for its `uciok` / `ucciok`; the lines before it.
    fn handshake(&mut self, p: Protocol) -> Result<Vec<String>, Fault> {
        self.protocol = p;
        match p {
            Protocol::Uci => {
                self.send("uci")?;
                self.until("uciok", Duration::from_secs(5))
            }
            Protocol::Ucci => {
                self.send("ucci")?;
                self.until("ucciok", Duration::from_secs(5))
            }
        }
    }

    fn send(&mut self, s: &str) -> Result<(), Fault> {
        let dead = |e: std::io::Error| Fault::Crash(format!("cannot write to it: {e}"));
        writeln!(self.stdin, "{s}").map_err(dead)?;
        self.stdin.flush().map_err(dead)
    }

    fn until(&mut self, prefix: &str, within: Duration) -> Result<Vec<String>, Fault> {
        let deadline = Instant::now() + within;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let done = l.starts_with(prefix);
                    got.push(l);
                    if done {
                        return Ok(got);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(Fault::Timeout(format!("waiting for {prefix}")))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Fault::Crash("output closed".into()))
                }
            }
        }
    }

    /// Set an option.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), Fault> {
        match self.protocol {
            Protocol::Uci => self.send(&format!("setoption name {name} value {value}")),
            Protocol::Ucci => self.send(&format!("setoption {name} {value}")),
        }
    }

    /// Wait until the engine is ready.
    pub fn ready(&mut self) -> Result<(), Fault> {
        self.send("isready")?;
        self.until("readyok", Duration::from_secs(10)).map(|_| ())
    }

    /// A new game.
    pub fn new_game(&mut self) -> Result<(), Fault> {
        match self.protocol {
            Protocol::Uci => self.send("ucinewgame")?,
            Protocol::Ucci => self.send("setoption newgame")?,
        }
        self.ready()
    }

    /// Ask for a move: `go_args` is the rest of the `go` command; the answer must come
    /// within `within`.
    pub fn think(
        &mut self,
        fen: &str,
        moves: &[Move],
        go_args: &str,
        within: Duration,
    ) -> Result<Reply, Fault> {
        let mv: Vec<String> = moves
            .iter()
            .map(|&m| to_engine(m, self.ranks_from_one))
            .collect();
        let pos = if mv.is_empty() {
            format!("position fen {fen}")
        } else {
            format!("position fen {fen} moves {}", mv.join(" "))
        };
        self.send(&pos)?;
        self.send(&format!("go {go_args}"))?;
        // "bestmove m" (both protocols) or UCCI's "nobestmove"
        let deadline = Instant::now() + within;
        let last = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l.starts_with("bestmove") || l.starts_with("nobestmove") => break l,
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    return Err(Fault::Timeout("waiting for bestmove".into()))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Fault::Crash("output closed".into()))
                }
            }
        };
        parse_reply(&last, self.ranks_from_one).ok_or(Fault::BadAnswer(last))
    }

    /// Stop the process.
    pub fn kill(&mut self) {
        let _ = self.send("quit");
        std::thread::sleep(Duration::from_millis(20));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `bestmove m [ponder p] [draw|resign]` or `nobestmove`.
fn parse_reply(line: &str, one: bool) -> Option<Reply> {
    let mut w = line.split_whitespace();
    match w.next()? {
        "nobestmove" => Some(Reply {
            mv: None,
            draw: false,
            resign: false,
        }),
        "bestmove" => {
            let mv = Some(from_engine(w.next()?, one)?);
            let rest: Vec<&str> = w.collect();
            Some(Reply {
                mv,
                draw: rest.contains(&"draw"),
                resign: rest.contains(&"resign"),
            })
        }
        _ => None,
    }
}

/// Set SIGPIPE to "ignore" for the process, once: a write to a dead engine then fails with
/// EPIPE (a [`Fault::Crash`]) instead of ending the process.
fn ignore_sigpipe() {
    #[cfg(unix)]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: SIG_IGN is a valid disposition for SIGPIPE; signal() has no other
            // effect, and ignoring SIGPIPE only turns the signal into EPIPE write errors.
            unsafe {
                libc::signal(libc::SIGPIPE, libc::SIG_IGN);
            }
        });
    }
}

impl Drop for EngineProc {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_conventions() {
        let m: Move = "h2e2".parse().unwrap();
        assert_eq!(to_engine(m, true), "h3e3");
        assert_eq!(from_engine("h3e3", true), Some(m));
        assert_eq!(from_engine("a10a9", true), "a9a8".parse().ok());
        assert_eq!(from_engine("h2e2", false), Some(m));
    }

    #[test]
    fn replies_with_claims() {
        let m: Move = "h2e2".parse().unwrap();
        let r = parse_reply("bestmove h2e2 ponder h9g7 draw", false).unwrap();
        assert_eq!((r.mv, r.draw, r.resign), (Some(m), true, false));
        let r = parse_reply("bestmove h2e2 resign", false).unwrap();
        assert_eq!((r.mv, r.draw, r.resign), (Some(m), false, true));
        let r = parse_reply("nobestmove", false).unwrap();
        assert_eq!((r.mv, r.draw, r.resign), (None, false, false));
        assert_eq!(parse_reply("bestmove", false), None);
        assert_eq!(parse_reply("bestmove (none)", false), None);
        assert_eq!("UCCI".parse::<Protocol>(), Ok(Protocol::Ucci));
        assert!("xboard".parse::<Protocol>().is_err());
    }
}
