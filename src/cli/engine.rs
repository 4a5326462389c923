//! Engine commands: engine (the protocol loop), analyse (a move decided as the engine
//! decides it: book, then tablebases, then search, with the search lines printed), bench.

use super::ui::Ui;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use xqdb::engine::time::Clock;
use xqdb::engine::Engine;

/// Arguments of `xqdb analyse`.
#[derive(clap::Args)]
pub struct AnalyseArgs {
    /// A FEN (quoted) or `startpos`.
    fen: String,
    /// Depth limit (default 10 without --movetime).
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..=100))]
    depth: Option<i32>,
    /// Time limit in milliseconds.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    movetime: Option<u64>,
    /// Hash size in MiB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=xqdb::engine::MAX_HASH_MB as u64))]
    hash: u64,
    /// Book file (default: books/default.xqb, skipped with a note when absent).
    #[arg(long)]
    book: Option<PathBuf>,
    /// Do not consult the book.
    #[arg(long)]
    no_book: bool,
    /// Table folder (default: $XQDB_TABLES, else $XQDB_HOME/tables, else ./tables).
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Do not consult the tablebases.
    #[arg(long)]
    no_tables: bool,
}

/// `xqdb analyse`: the search lines as they come, then where the move comes from and the
/// move.
pub fn analyse(o: AnalyseArgs, ui: &Ui) -> Result<(), String> {
    let mut e = Engine::new();
    e.set_position(&o.fen, &[])?;
    e.set_hash(o.hash as usize)?;
    e.use_book = !o.no_book;
    e.use_tb = !o.no_tables;
    e.book_best = true;
    if let (Some(b), false) = (o.book, o.no_book) {
        e.set_book(b)?;
    }
    if let (Some(t), false) = (o.tables, o.no_tables) {
        e.set_tables(t)?;
    }
    let pos = e.pos.clone();
    let clock = Clock {
        depth: o
            .depth
            .or(if o.movetime.is_none() { Some(10) } else { None }),
        movetime: o.movetime,
        ..Clock::default()
    };
    let stop = AtomicBool::new(false);
    let quiet = ui.quiet;
    let d = e.think(&clock, &stop, |i| {
        if quiet {
            return;
        }
        let pv: Vec<String> = i.pv.iter().map(|m| m.to_string()).collect();
        println!(
            "depth {:>2} seldepth {:>2} score {:>8} nodes {:>10} time {:>6} ms  {}",
            i.depth,
            i.seldepth,
            i.score.to_string(),
            i.nodes,
            i.time_ms,
            pv.join(" ")
        );
    });
    for n in e.take_notes() {
        eprintln!("note: {n}");
    }
    if let Some(s) = &d.source {
        println!("{s}");
    }
    match d.best {
        Some(m) => println!(
            "best move {m} ({})",
            xqdb::board::notation::to_chinese(&pos, m).unwrap_or_default()
        ),
        None => println!("no legal move"),
    }
    Ok(())
}

/// `xqdb engine`: UCI or UCCI on standard input and output.
pub fn engine() -> Result<(), String> {
    let stdin = std::io::stdin();
    xqdb::engine::run_protocol(stdin.lock(), Box::new(std::io::stdout()));
    Ok(())
}

/// Arguments of `xqdb bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Depth.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(i32).range(1..=30))]
    depth: i32,
    /// Search threads (Lazy SMP; node counts vary from run to run on more than one).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    threads: u16,
}

/// `xqdb bench`: nodes and nodes per second of the fixed bench search.
pub fn bench(a: BenchArgs) -> Result<(), String> {
    let (nodes, secs) = xqdb::engine::smp::bench(a.depth, a.threads as usize);
    println!(
        "{nodes} nodes in {secs:.2} s: {:.0} nodes/s",
        nodes as f64 / secs.max(1e-9)
    );
    Ok(())
}

/// Arguments of `xqdb tune`.
#[derive(clap::Args)]
pub struct TuneArgs {
    /// Game record files or folders (PGN, XQF) with results.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Where to write the weights (Rust source, embedded by the next build).
    #[arg(short, long, default_value = "src/engine/weights.rs")]
    output: PathBuf,
    /// A position every this many plies.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1000))]
    every: u32,
    /// Plies skipped at the start of each game.
    #[arg(long, default_value_t = 10)]
    skip_plies: u32,
    /// Most positions read.
    #[arg(long, default_value_t = 400_000, value_parser = clap::value_parser!(u64).range(100..=50_000_000))]
    max_positions: u64,
    /// Gradient steps.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    iterations: u32,
    /// Step size in centipawns.
    #[arg(long, default_value_t = 1.0)]
    rate: f32,
    /// Ridge penalty per piece-square weight, times its squared distance from the built
    /// value (0: none).
    #[arg(long, default_value_t = 0.0)]
    l2: f64,
    /// Fit only these weights (names as in the weights file, comma-separated; a name ending
    /// in `*` takes every weight it starts, e.g. `pst_*` or `pst_horse_mg_r5*`); the others
    /// stay as built.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
}

/// The indexes of the weights `--only` names (empty: all of them).
fn select_weights(only: &[String]) -> Result<Vec<usize>, String> {
    use xqdb::engine::eval::{param_name, NUM_PARAMS, PARAM_NAMES};
    let mut picked = Vec::new();
    for n in only {
        let hits: Vec<usize> = (0..NUM_PARAMS)
            .filter(|&i| {
                let name = param_name(i).unwrap_or_default();
                match n.strip_suffix('*') {
                    Some(prefix) => name.starts_with(prefix),
                    None => name == *n,
                }
            })
            .collect();
        if hits.is_empty() {
            return Err(format!(
                "tune --only: no weight named '{n}' (one of: {}, and the piece-square \
                 weights pst_<role>_<mg|eg>_r<rank><file a-e>)",
                PARAM_NAMES.join(", ")
            ));
        }
        picked.extend(hits);
    }
    picked.sort_unstable();
    picked.dedup();
    Ok(picked)
}

/// `xqdb tune`: fit the evaluation's weights to game results (Texel's method).
pub fn tune(a: TuneArgs, ui: &Ui) -> Result<(), String> {
    use xqdb::engine::{tune, tune_data, weights::TUNED};
    let opt = tune_data::DataOptions {
        every: a.every as usize,
        skip_plies: a.skip_plies as usize,
        max_positions: a.max_positions as usize,
    };
    let data = tune_data::gather(&a.paths, &opt, &ui.reading_bars())?;
    let only = select_weights(&a.only)?;
    let fopt = tune::FitOptions {
        iterations: a.iterations as usize,
        rate: a.rate,
        only,
        l2: a.l2,
    };
    let f = tune::fit(&data.train, &data.held_out, &TUNED, &fopt, &ui.phase_bars());
    let note = format!(
        "{} training and {} held-out positions of {} games, K {:.4}, loss {:.6} -> {:.6} \
         training, {:.6} -> {:.6} held-out{}",
        data.train.len(),
        data.held_out.len(),
        data.games,
        f.k,
        f.before.0,
        f.after.0,
        f.before.1,
        f.after.1,
        if a.l2 > 0.0 {
            format!(", ridge {} on the piece-square weights", a.l2)
        } else {
            String::new()
        }
    );
    std::fs::write(&a.output, tune::weights_source(&f.weights, &note))
        .map_err(|e| format!("{}: {e}", a.output.display()))?;
    if !ui.quiet {
        println!("{}: {note}", a.output.display());
        println!(
            "{} positions passed over as not quiet, {} games without a result",
            data.not_quiet, data.no_result
        );
    }
    Ok(())
}
