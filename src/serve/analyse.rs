//! Engine analysis streamed as server-sent events.
//!
//! Each analysis runs the engine's search on its own thread for a bounded time, holding one
//! of the server's analysis permits (a request beyond them gets 503). Events:
//! * `start`: `{"fen", "movetime"}` (the time granted, after the cap);
//! * `info`, one per completed iteration: `{"depth", "seldepth", "score": {"cp": N} or
//!   {"mate": N} (side to move's view, mate in moves), "nodes", "nps", "time", "hashfull",
//!   "pv", "pv_iccs", "pv_chinese"}`;
//! * `bestmove`: `{"uci", "iccs", "chinese"}` (all null without a legal move), then the stream
//!   ends.
//!
//! The search stops early when the client goes away or the server shuts down.

use super::api::{iccs, ApiError, MoveNames};
use super::State;
use crate::board::notation::to_chinese;
use crate::board::{Move, Position};
use crate::engine::search::Info;
use crate::engine::tt::Tt;
use crate::engine::{Limits, Searcher};
use axum::response::sse::Event;
use serde_json::json;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// Events sent at most per analysis: one per iteration (the search stops below 128 plies),
/// the start and the best move; the channel holds them all, so the search never waits for a
/// slow client.
const EVENTS: usize = 256;

/// Read the `movetime` parameter (milliseconds): absent gives the default, above the cap
/// gives the cap; not a positive whole number is an error.
pub fn movetime(text: Option<&str>, state: &State) -> Result<Duration, ApiError> {
    let Some(t) = text else {
        return Ok(state.limits.default_movetime.min(state.limits.max_movetime));
    };
    let ms: u64 = t.trim().parse().map_err(|_| {
        ApiError::bad_request(format!(
            "bad movetime '{}': expected a whole number of milliseconds",
            t.chars().take(32).collect::<String>()
        ))
    })?;
    if ms == 0 {
        return Err(ApiError::bad_request(
            "bad movetime 0: it must be at least 1 ms",
        ));
    }
    Ok(Duration::from_millis(ms).min(state.limits.max_movetime))
}

/// The events of one analysis, as a stream; dropping it (the client went away) stops the
/// search.
pub struct AnalysisStream {
    rx: tokio::sync::mpsc::Receiver<Event>,
    stop: Arc<AtomicBool>,
}

impl futures_core::Stream for AnalysisStream {
    type Item = Result<Event, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.rx.poll_recv(cx).map(|e| e.map(Ok))
    }
}

impl Drop for AnalysisStream {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn event(name: &str, data: serde_json::Value) -> Event {
    Event::default().event(name).data(data.to_string())
}

fn info_event(pos: &Position, i: &Info) -> Event {
    let mut p = pos.clone();
    let mut chinese = Vec::new();
    for &m in &i.pv {
        if !p.is_legal(m) {
            break;
        }
        chinese.push(to_chinese(&p, m).unwrap_or_default());
        p.play(m);
    }
    let score = match i.score.mate_moves() {
        Some(m) => json!({ "mate": m }),
        None => json!({ "cp": i.score.0 }),
    };
    event(
        "info",
        json!({
            "depth": i.depth,
            "seldepth": i.seldepth,
            "score": score,
            "nodes": i.nodes,
            "nps": i.nodes * 1000 / i.time_ms.max(1),
            "time": i.time_ms,
            "hashfull": i.hashfull,
            "pv": i.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            "pv_iccs": i.pv.iter().map(|&m| iccs(m)).collect::<Vec<_>>(),
            "pv_chinese": chinese,
        }),
    )
}

fn bestmove_event(pos: &Position, best: Option<Move>) -> Event {
    let data = match best {
        Some(m) => {
            serde_json::to_value(MoveNames::of(pos, m)).expect("three strings always serialise")
        }
        None => json!({ "uci": null, "iccs": null, "chinese": null }),
    };
    event("bestmove", data)
}

/// Start an analysis of `pos` for `movetime`: 503 when every analysis permit is taken.
pub fn start(
    state: Arc<State>,
    pos: Position,
    movetime: Duration,
) -> Result<AnalysisStream, ApiError> {
    let permit = state.analyses.clone().try_acquire_owned().map_err(|_| {
        ApiError::unavailable(format!(
            "{} analyses are running, the most this server allows: try again later",
            state.limits.max_analyses
        ))
    })?;
    let (tx, rx) = tokio::sync::mpsc::channel(EVENTS);
    let stop = Arc::new(AtomicBool::new(false));
    let _ = tx.try_send(event(
        "start",
        json!({ "fen": pos.to_fen(), "movetime": movetime.as_millis() as u64 }),
    ));
    // the server's shutdown stops the search too
    let mut shutdown = state.shutdown.subscribe();
    let watch_stop = stop.clone();
    let watcher = tokio::spawn(async move {
        if shutdown.wait_for(|&down| down).await.is_ok() {
            watch_stop.store(true, Ordering::Relaxed);
        }
    });
    let search_stop = stop.clone();
    std::thread::Builder::new()
        .name("xqdb-analyse".into())
        .spawn(move || {
            let _permit = permit;
            let tt = Tt::new(state.limits.analysis_hash_mb);
            let limits = Limits {
                depth: None,
                nodes: None,
                soft: Some(movetime),
                hard: Some(movetime),
            };
            let tb = state.tables.as_ref().map(|c| &c.tb);
            let mut s = Searcher::new(&pos, &[], &tt, tb, &search_stop, limits, Vec::new());
            let (best, _) = s.run(|i| {
                let _ = tx.try_send(info_event(&pos, i));
            });
            let _ = tx.try_send(bestmove_event(&pos, best));
            watcher.abort();
        })
        .map_err(|e| ApiError::internal(format!("cannot start an analysis thread: {e}")))?;
    Ok(AnalysisStream { rx, stop })
}
