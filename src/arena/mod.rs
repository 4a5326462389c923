//! Engine matches: games between two engines that speak UCI or UCCI, with openings from a
//! book or a FEN list, clocks, adjudication (no legal move, perpetual check, repetition,
//! the natural limit of plies without capture, move limit, tablebases) and fault handling
//! (illegal moves, time losses, crashes, hangs, `nobestmove`: the game is lost, a failed
//! engine restarted, the match goes on).
//!
//! UCCI claims: `bestmove m resign` loses at once; `bestmove m draw` offers a draw, which is
//! recorded in the PGN as a comment after the move and passed on to a UCCI opponent as
//! `go draw ...`: when its answer carries `draw` too, the game is drawn by agreement. A claim
//! the rules do not support (say, a natural limit counted as 100 plies against this match's
//! 120) does not end the game.
//!
//! Repetition: on the third occurrence of a position, the cycle since the second is ruled by
//! the project's one implementation of the rules ([`crate::board::rules::judge_cycle`]):
//! perpetual check, then perpetual chase, lose; otherwise the game is drawn.

mod openings;
pub mod process;
mod setup;
mod tally;

pub use openings::{pair_openings, Openings};
pub use setup::{engine_specs, MatchSetup, SetupError, TimeControlError};
pub use tally::Tally;

use crate::board::rules::{judge_cycle, CycleVerdict};
use crate::board::{Move, Position};
use crate::book::Book;
use crate::index::Material;
use crate::records::GameResult;
use crate::tablebase::{Tablebases, Wdl};
use process::{EngineProc, EngineSpec, Fault};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Thinking limit per move.
#[derive(Clone, Copy, Debug)]
pub enum TimeControl {
    /// Base time and increment per side, in milliseconds.
    Clock {
        /// Base.
        base_ms: u64,
        /// Increment.
        inc_ms: u64,
    },
    /// Fixed time per move.
    MoveTime(u64),
    /// Fixed nodes per move.
    Nodes(u64),
    /// Fixed depth per move.
    Depth(u32),
}

/// Why a match cannot be played.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// An engine does not start or does not answer the handshake.
    #[error("engine {number} ({cmd}) cannot play: {fault}")]
    Engine {
        /// 1 or 2.
        number: usize,
        /// Its command.
        cmd: String,
        /// What went wrong.
        fault: Fault,
    },
    /// The opening book is missing or corrupt.
    #[error("opening book: {0}")]
    Book(#[from] crate::book::BookError),
    /// A bad openings file.
    #[error("{0}")]
    Openings(String),
}

/// A match.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The two engines.
    pub engines: [EngineSpec; 2],
    /// Time control.
    pub tc: TimeControl,
    /// Games (played in pairs with colours swapped).
    pub games: usize,
    /// Openings.
    pub openings: Openings,
    /// Games played at once.
    pub concurrency: usize,
    /// Seed of the opening choice.
    pub seed: u64,
    /// Tablebase folder for adjudication.
    pub tables: Option<PathBuf>,
    /// Draw after this many plies.
    pub max_plies: usize,
    /// The natural limit: a draw after this many plies without a capture (UCCI's 自然限着,
    /// 120 plies by the Chinese rules; some engines count 100).
    pub natural_limit: usize,
}

/// The usual natural limit: 60 moves (120 plies) without a capture.
pub const NATURAL_LIMIT: usize = 120;

/// One finished game.
#[derive(Clone, Debug)]
pub struct MatchGame {
    /// Number (0-based).
    pub number: usize,
    /// Which engine (0 or 1) played Red.
    pub red: usize,
    /// Engine names (Red, Black).
    pub names: [String; 2],
    /// Start position.
    pub start: Position,
    /// Moves (opening moves included).
    pub moves: Vec<Move>,
    /// Plies of the moves that came from the opening.
    pub opening_plies: usize,
    /// Result (None: unfinished, which does not happen).
    pub result: Option<GameResult>,
    /// Why it ended.
    pub termination: String,
    /// Comments after moves (index into `moves`, text): draw offers and claims.
    pub notes: Vec<(usize, String)>,
}

impl MatchGame {
    /// Score of engine 0 (1, 0.5, 0).
    pub fn score0(&self) -> f64 {
        match (self.result, self.red) {
            (Some(GameResult::Draw), _) | (None, _) => 0.5,
            (Some(GameResult::RedWins), 0) | (Some(GameResult::BlackWins), 1) => 1.0,
            _ => 0.0,
        }
    }

    /// The game as PGN (ICCS moves).
    pub fn pgn(&self) -> String {
        let result = self.result.map_or("*", |r| r.token());
        let mut s = format!(
            "[Event \"xqdb match\"]\n[Round \"{}\"]\n[Red \"{}\"]\n[Black \"{}\"]\n[Result \"{result}\"]\n[Termination \"{}\"]\n[Opening \"{} plies\"]\n",
            self.number + 1,
            self.names[0],
            self.names[1],
            self.termination,
            self.opening_plies
        );
        if self.start != Position::startpos() {
            s.push_str(&format!("[FEN \"{}\"]\n", self.start.to_fen()));
        }
        s.push_str("[Format \"ICCS\"]\n\n");
        let mut line = String::new();
        for (i, m) in self.moves.iter().enumerate() {
            if i % 2 == 0 {
                line.push_str(&format!("{}. ", i / 2 + 1));
            }
            line.push_str(&format!("{m} "));
            for (_, note) in self.notes.iter().filter(|(at, _)| *at == i) {
                line.push_str(&format!("{{{note}}} "));
            }
            if line.len() > 70 {
                s.push_str(line.trim_end());
                s.push('\n');
                line.clear();
            }
        }
        s.push_str(&line);
        s.push_str(result);
        s.push_str("\n\n");
        s
    }
}

/// Decide the game if the rules (or the tables) end it here.
fn adjudicate(
    pos: &Position,
    keys: &[u64],
    moves: &[Move],
    tb: Option<&Tablebases>,
    cfg: &MatchConfig,
) -> Option<(GameResult, String)> {
    let side = pos.turn();
    let win_for = |c: crate::board::Color| {
        if c == crate::board::Color::Red {
            GameResult::RedWins
        } else {
            GameResult::BlackWins
        }
    };
    if !pos.has_legal_move() {
        let how = if pos.in_check() {
            "checkmate"
        } else {
            "no legal move"
        };
        return Some((win_for(!side), how.into()));
    }
    // repetition: keys[i] is the key after moves[i]; on the third occurrence the last cycle
    // is ruled by the rules module, as the engine and the tables rule it
    let key = pos.key();
    let same: Vec<usize> = (0..keys.len())
        .rev()
        .step_by(2)
        .filter(|&i| keys[i] == key)
        .collect();
    if same.len() >= 3 {
        let previous = same[1];
        return Some(match judge_cycle(pos, &moves[previous + 1..]) {
            CycleVerdict::Loss { loser, violation } => (win_for(!loser), violation.to_string()),
            CycleVerdict::Draw => (GameResult::Draw, "repetition".into()),
        });
    }
    if pos.halfmoves() as usize >= cfg.natural_limit {
        return Some((GameResult::Draw, "natural limit".into()));
    }
    if moves.len() >= cfg.max_plies {
        return Some((GameResult::Draw, "move limit".into()));
    }
    if let Some(tb) = tb {
        let m = Material::of_position(pos);
        if tb.has_table(&m) {
            if let Ok(w) = tb.probe_wdl(pos) {
                return Some(match w {
                    Wdl::Win => (win_for(side), "tablebase".into()),
                    Wdl::Loss => (win_for(!side), "tablebase".into()),
                    Wdl::Draw => (GameResult::Draw, "tablebase".into()),
                });
            }
        }
    }
    None
}

fn go_args(tc: TimeControl, proto: process::Protocol, own: u64, opp: u64, red: bool) -> String {
    use process::Protocol::*;
    match (tc, proto) {
        (TimeControl::Clock { inc_ms, .. }, Uci) => {
            let (w, b) = if red { (own, opp) } else { (opp, own) };
            format!("wtime {w} btime {b} winc {inc_ms} binc {inc_ms}")
        }
        (TimeControl::Clock { inc_ms, .. }, Ucci) => {
            format!("time {own} increment {inc_ms} opptime {opp} oppincrement {inc_ms}")
        }
        (TimeControl::MoveTime(t), Uci) => format!("movetime {t}"),
        (TimeControl::MoveTime(t), Ucci) => format!("time {t} movestogo 1"),
        (TimeControl::Nodes(n), _) => format!("nodes {n}"),
        (TimeControl::Depth(d), _) => format!("depth {d}"),
    }
}

/// Play one game; engines are restarted when they fail. `procs[i]` is engine i.
fn play(
    cfg: &MatchConfig,
    number: usize,
    procs: &mut [Option<EngineProc>; 2],
    openings: &[(Position, Vec<Move>)],
    tb: Option<&Tablebases>,
) -> MatchGame {
    let pair = number / 2;
    let red = number % 2; // engine playing Red
    let (start, opening_moves) = openings
        .get(pair)
        .cloned()
        .unwrap_or_else(|| (Position::startpos(), Vec::new()));
    let mut names = [String::new(), String::new()];
    for (k, p) in procs.iter_mut().enumerate() {
        let ok = p.as_mut().is_some_and(|e| e.new_game().is_ok());
        if !ok {
            *p = EngineProc::start(&cfg.engines[k]).ok();
        }
    }
    for (c, e) in [(0, red), (1, 1 - red)] {
        names[c] = procs[e]
            .as_ref()
            .map_or(cfg.engines[e].cmd.clone(), |p| p.name.clone());
    }
    let fen = start.to_fen();
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let mut keys: Vec<u64> = Vec::new();
    for &m in &opening_moves {
        pos.play(m);
        moves.push(m);
        keys.push(pos.key());
    }
    let (base, inc) = match cfg.tc {
        TimeControl::Clock { base_ms, inc_ms } => (base_ms, inc_ms),
        _ => (0, 0),
    };
    let mut clock = [base, base]; // by colour
    let finish = |result, termination: String, moves: Vec<Move>, notes| MatchGame {
        number,
        red,
        names: names.clone(),
        start: start.clone(),
        moves,
        opening_plies: opening_moves.len(),
        result: Some(result),
        termination,
        notes,
    };
    let mut notes: Vec<(usize, String)> = Vec::new();
    // a draw offered with the last move, to be passed on to the side to move
    let mut offered = false;
    loop {
        if let Some((r, why)) = adjudicate(&pos, &keys, &moves, tb, cfg) {
            return finish(r, why, moves, notes);
        }
        let side = pos.turn();
        let c = side.index();
        let engine = if c == 0 { red } else { 1 - red };
        let lose = if side == crate::board::Color::Red {
            GameResult::BlackWins
        } else {
            GameResult::RedWins
        };
        let Some(proc_) = procs[engine].as_mut() else {
            return finish(
                lose,
                format!("{} could not be started", cfg.engines[engine].cmd),
                moves,
                notes,
            );
        };
        let within = match cfg.tc {
            TimeControl::Clock { .. } => Duration::from_millis(clock[c].saturating_add(1000)),
            TimeControl::MoveTime(t) => Duration::from_millis(t.saturating_add(2000)),
            _ => Duration::from_secs(60),
        };
        let mut args = go_args(cfg.tc, proc_.protocol, clock[c], clock[1 - c], c == 0);
        let pass_offer = offered && proc_.protocol == process::Protocol::Ucci;
        if pass_offer {
            args = format!("draw {args}");
        }
        let t0 = Instant::now();
        let answer = proc_.think(&fen, &moves, &args, within);
        let spent = t0.elapsed().as_millis() as u64;
        let reply = match answer {
            Ok(r) => r,
            Err(f) => {
                procs[engine] = None; // restarted for the next game
                let why = match f {
                    Fault::Timeout(_) => format!("{} hung (no move in time)", names[c]),
                    Fault::Crash(_) => format!("{} crashed", names[c]),
                    Fault::BadAnswer(a) => format!("{} answered '{a}'", names[c]),
                };
                return finish(lose, why, moves, notes);
            }
        };
        if let TimeControl::Clock { .. } = cfg.tc {
            if spent > clock[c] {
                return finish(lose, format!("{} lost on time", names[c]), moves, notes);
            }
            clock[c] = (clock[c] - spent).saturating_add(inc);
        }
        if reply.resign {
            return finish(lose, format!("{} resigned", names[c]), moves, notes);
        }
        let Some(m) = reply.mv else {
            // the game is not over (adjudicate found a legal move): giving none loses
            return finish(
                lose,
                format!("{} gave no move (nobestmove)", names[c]),
                moves,
                notes,
            );
        };
        if pass_offer && reply.draw {
            let last = moves.len().saturating_sub(1);
            notes.push((last, format!("{} accepts the draw", names[c])));
            return finish(GameResult::Draw, "draw by agreement".into(), moves, notes);
        }
        if !pos.is_legal(m) {
            return finish(
                lose,
                format!("{} played the illegal move {m}", names[c]),
                moves,
                notes,
            );
        }
        pos.play(m);
        moves.push(m);
        keys.push(pos.key());
        offered = reply.draw;
        if reply.draw {
            notes.push((moves.len() - 1, format!("{} offers a draw", names[c])));
        }
    }
}

/// Score, Elo difference and its 95 % error bar, from engine 0's point of view.
pub fn elo(w: usize, d: usize, l: usize) -> (f64, f64, f64) {
    let n = (w + d + l).max(1) as f64;
    let s = (w as f64 + 0.5 * d as f64) / n;
    let var =
        (w as f64 * (1.0 - s).powi(2) + d as f64 * (0.5 - s).powi(2) + l as f64 * s.powi(2)) / n;
    let se = (var / n).sqrt();
    let to_elo = |x: f64| {
        let x = x.clamp(1e-3, 1.0 - 1e-3);
        -400.0 * (1.0 / x - 1.0).log10()
    };
    let lo = to_elo(s - 1.96 * se);
    let hi = to_elo(s + 1.96 * se);
    (s, to_elo(s), (hi - lo) / 2.0)
}

/// Play a match; `progress` is called after every game with the games so far. Before any
/// game, both engines must start and answer the handshake, the book must open and every
/// opening FEN must be legal: otherwise the error says which and why. (An engine that
/// fails during the match loses that game and is restarted.)
pub fn run_match(
    cfg: &MatchConfig,
    mut progress: impl FnMut(&MatchGame, &[MatchGame]) + Send,
) -> Result<Vec<MatchGame>, MatchError> {
    let book = match &cfg.openings {
        Openings::Book { path, .. } => Some(Book::open(path)?),
        _ => None,
    };
    if let Openings::Fens(list) = &cfg.openings {
        if list.is_empty() {
            return Err(MatchError::Openings("no opening FEN given".into()));
        }
        for (i, f) in list.iter().enumerate() {
            Position::from_fen(f)
                .map_err(|e| MatchError::Openings(format!("opening {}: '{f}': {e}", i + 1)))?;
        }
    }
    // start each engine once to check it; an engine restarted during the match speaks the
    // protocol found here without detecting it again
    let mut checked = cfg.clone();
    for (k, spec) in checked.engines.iter_mut().enumerate() {
        let e = EngineProc::start(spec).map_err(|fault| MatchError::Engine {
            number: k + 1,
            cmd: spec.line(),
            fault,
        })?;
        spec.protocol = Some(e.protocol);
    }
    let cfg = &checked;
    let openings = openings::all_openings(cfg, book.as_ref());
    let tb = cfg.tables.as_ref().map(Tablebases::open);
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<MatchGame>> = Mutex::new(Vec::new());
    let progress = Mutex::new(&mut progress);
    std::thread::scope(|s| {
        for _ in 0..cfg.concurrency.max(1) {
            s.spawn(|| {
                let mut procs: [Option<EngineProc>; 2] = [None, None];
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= cfg.games {
                        break;
                    }
                    let g = play(cfg, i, &mut procs, &openings, tb.as_ref());
                    let mut all = done.lock().unwrap_or_else(|e| e.into_inner());
                    all.push(g.clone());
                    let mut p = progress.lock().unwrap_or_else(|e| e.into_inner());
                    (**p)(&g, &all);
                }
            });
        }
    });
    let mut games = done.into_inner().unwrap_or_else(|e| e.into_inner());
    games.sort_by_key(|g| g.number);
    Ok(games)
}
