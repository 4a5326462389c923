//! The analyse command: a move decided as the engine decides it (book, then tablebases,
//! then search), with the search lines printed.

use super::ui::Ui;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use xqdb::engine::time::Clock;
use xqdb::engine::Engine;

/// Options of `xqdb analyse`.
pub struct AnalyseOptions {
    pub depth: Option<i32>,
    pub movetime: Option<u64>,
    pub hash: usize,
    pub book: Option<PathBuf>,
    pub no_book: bool,
    pub tables: Option<PathBuf>,
    pub no_tables: bool,
}

pub fn analyse(fen: &str, o: AnalyseOptions, ui: &Ui) -> Result<(), String> {
    let mut e = Engine::new();
    e.set_position(fen, &[])?;
    e.set_hash(o.hash)?;
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
