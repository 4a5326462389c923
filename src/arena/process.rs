//! An engine in a child process, spoken to in UCI or UCCI (detected by handshake).

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
}

impl EngineSpec {
    /// From a command line such as `"xqdb engine"` (split at spaces).
    pub fn parse(line: &str) -> Option<EngineSpec> {
        let mut w = line.split_whitespace().map(str::to_string);
        Some(EngineSpec {
            cmd: w.next()?,
            args: w.collect(),
            options: Vec::new(),
        })
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
    /// Start the engine and shake hands (UCI first, then UCCI).
    pub fn start(spec: &EngineSpec) -> Result<EngineProc, Fault> {
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
        let mut e = EngineProc {
            child,
            stdin,
            lines,
            name: spec.cmd.clone(),
            protocol: Protocol::Uci,
            ranks_from_one: false,
        };
        e.send("uci")?;
        let hello = match e.until("uciok", Duration::from_secs(5)) {
            Ok(h) => h,
            Err(_) => {
                e.send("ucci")?;
                e.protocol = Protocol::Ucci;
                e.until("ucciok", Duration::from_secs(5))?
            }
        };
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

    fn send(&mut self, s: &str) -> Result<(), Fault> {
        writeln!(self.stdin, "{s}").map_err(|e| Fault::Crash(e.to_string()))?;
        self.stdin.flush().map_err(|e| Fault::Crash(e.to_string()))
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
    ) -> Result<Move, Fault> {
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
        let t = last.split_whitespace().nth(1).unwrap_or("");
        from_engine(t, self.ranks_from_one).ok_or(Fault::BadAnswer(last))
    }

    /// Stop the process.
    pub fn kill(&mut self) {
        let _ = self.send("quit");
        std::thread::sleep(Duration::from_millis(20));
        let _ = self.child.kill();
        let _ = self.child.wait();
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
}
