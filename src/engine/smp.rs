//! Lazy SMP: several threads search the same root with one shared transposition table.
//! The main thread keeps the limits and gives the answer; every helper searches the same
//! iterations, odd helpers one ply deeper, and stops when the main thread is done. They help
//! through the entries they leave in the table (the main thread finds cut-offs and better
//! move orders there) and differ from each other by the order their own killers and history
//! give and by the races of the table.

use super::search::{Info, Limits, Memory, Searcher, BENCH_FENS};
use super::tt::Tt;
use crate::board::{Move, Position};
use crate::tablebase::Tablebases;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Most search threads (the `Threads` option's maximum).
pub const MAX_THREADS: usize = 64;

/// Stack of each helper thread: the search recurses up to its maximum ply with a move list
/// on every frame.
const HELPER_STACK: usize = 64 << 20;

/// One search to run on several threads.
pub struct Job<'a> {
    /// The root.
    pub pos: &'a Position,
    /// The earlier positions' keys, oldest first, each with the move played from it.
    pub history: &'a [(u64, Move)],
    /// The shared table.
    pub tt: &'a Tt,
    /// Tablebases probed in the search.
    pub tb: Option<&'a Tablebases>,
    /// Stops the search from outside.
    pub stop: &'a AtomicBool,
    /// Limits (kept by the main thread).
    pub limits: Limits,
    /// Moves not played at the root.
    pub banned: Vec<Move>,
    /// What the main thread learnt in the game's previous search, loaded before this one
    /// and replaced by this one's (None: start from nothing).
    pub memory: Option<&'a mut Memory>,
}

/// The result of a threaded search.
pub struct Outcome {
    /// The best move (None when there is no legal move).
    pub best: Option<Move>,
    /// The main thread's last report.
    pub info: Option<Info>,
    /// Nodes searched by all threads.
    pub nodes: u64,
}

/// Search `job` on `threads` threads (1 to [`MAX_THREADS`]; 1 searches on this thread
/// alone); `report` is called after each iteration of the main thread.
pub fn search(job: Job<'_>, threads: usize, mut report: impl FnMut(&Info)) -> Outcome {
    let threads = threads.clamp(1, MAX_THREADS);
    job.tt.new_search();
    let done = AtomicBool::new(false);
    let helper_limits = Limits {
        depth: job.limits.depth,
        ..Limits::default()
    };
    std::thread::scope(|scope| {
        let mut helpers = Vec::new();
        for i in 1..threads {
            let (pos, history, tt, tb) = (job.pos, job.history, job.tt, job.tb);
            let (limits, banned, done) = (helper_limits.clone(), job.banned.clone(), &done);
            let h = std::thread::Builder::new()
                .stack_size(HELPER_STACK)
                .spawn_scoped(scope, move || {
                    let mut s = Searcher::new(pos, history, tt, tb, done, limits, banned);
                    s.share((i % 2) as i32);
                    s.run(|_| {});
                    s.nodes
                });
            match h {
                Ok(h) => helpers.push(h),
                // no thread to be had: search with those there are
                Err(_) => break,
            }
        }
        let mut main = Searcher::new(
            job.pos,
            job.history,
            job.tt,
            job.tb,
            job.stop,
            job.limits,
            job.banned,
        );
        main.share(0);
        let memory = job.memory;
        if let Some(m) = memory.as_deref() {
            main.load_memory(m);
        }
        let (best, info) = main.run(&mut report);
        if let Some(m) = memory {
            main.save_memory(m);
        }
        done.store(true, Ordering::Relaxed);
        let nodes = main.nodes
            + helpers
                .into_iter()
                // a helper that panicked searched nothing the answer rests on
                .map(|h| h.join().unwrap_or(0))
                .sum::<u64>();
        Outcome { best, info, nodes }
    })
}

/// Search every bench position to `depth` on `threads` threads with a fresh 16 MiB table:
/// total nodes and seconds. On one thread the node count changes only when the search
/// changes; on more it varies from run to run.
pub fn bench(depth: i32, threads: usize) -> (u64, f64) {
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let mut nodes = 0;
    for fen in BENCH_FENS {
        let pos = Position::from_fen(fen).expect("bench positions are legal");
        let tt = Tt::new(16);
        let job = Job {
            pos: &pos,
            history: &[],
            tt: &tt,
            tb: None,
            stop: &stop,
            limits: Limits {
                depth: Some(depth),
                ..Limits::default()
            },
            banned: Vec::new(),
            memory: None,
        };
        nodes += search(job, threads, |_| {}).nodes;
    }
    (nodes, start.elapsed().as_secs_f64())
}
