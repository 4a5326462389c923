//! Book commands: build, probe, dump, merge, stats.

use super::ui::Ui;
use clap::Subcommand;
use std::path::{Path, PathBuf};
use std::time::Instant;
use xqdb::board::Position;
use xqdb::book::{build_files, merge, Book, BookOptions, Weighting};

#[derive(Subcommand)]
pub enum BookCmd {
    /// Build a book from game records.
    Build {
        /// Files or folders (.pgn, .xqf).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Output book (e.g. books/NAME.xqb).
        #[arg(short, long)]
        output: PathBuf,
        /// Plies of each game that enter the book.
        #[arg(long, default_value_t = 40)]
        max_ply: u32,
        /// Moves seen in fewer games are dropped.
        #[arg(long, default_value_t = 2)]
        min_games: u32,
        /// Move weights: score (2 x wins + draws, unknown results as draws), games, wins.
        #[arg(long, value_enum, hide_possible_values = true, default_value_t = Weighting::Score)]
        weight: Weighting,
        /// Worker threads (default: all cores).
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=super::ui::MAX_THREADS as i64))]
        threads: Option<u16>,
    },
    /// Derive the default repertoire (data/repertoire.txt) from game records: moves played
    /// in at least --min-games games, each checked by a short search.
    Repertoire {
        /// Files or folders (.pgn, .xqf).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Output text file.
        #[arg(short, long)]
        output: PathBuf,
        /// Plies of each game looked at.
        #[arg(long, default_value_t = 20)]
        max_ply: u32,
        /// Moves played in fewer games are left out.
        #[arg(long, default_value_t = 40)]
        min_games: u32,
        /// Depth of the search that checks each move.
        #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(i32).range(1..=20))]
        depth: i32,
        /// Drop a move scored this many centipawns below the best move of its position.
        #[arg(long, default_value_t = 150)]
        margin: i32,
    },
    /// Book moves of a position, best first.
    Probe {
        /// A FEN (quoted) or `startpos`.
        fen: String,
        /// Book file (default: books/default.xqb).
        #[arg(long)]
        book: Option<PathBuf>,
    },
    /// Print the whole book as text.
    Dump {
        /// Book file (default: books/default.xqb).
        #[arg(long)]
        book: Option<PathBuf>,
    },
    /// Add the statistics of two books.
    Merge {
        /// First book.
        a: PathBuf,
        /// Second book.
        b: PathBuf,
        /// Output.
        #[arg(short, long)]
        output: PathBuf,
        /// Weighting of the merged book: score, games or wins (needed when the books differ).
        #[arg(long, value_enum, hide_possible_values = true)]
        weight: Option<Weighting>,
    },
    /// Summary of a book.
    Stats {
        /// Book file (default: books/default.xqb).
        #[arg(long)]
        book: Option<PathBuf>,
    },
}

fn default_book(p: Option<PathBuf>) -> PathBuf {
    p.unwrap_or_else(|| xqdb::paths::books_dir().join("default.xqb"))
}

/// `xqdb book ...`.
pub fn book(action: BookCmd, ui: &Ui) -> Result<(), String> {
    match action {
        BookCmd::Build {
            paths,
            output,
            max_ply,
            min_games,
            weight,
            threads,
        } => {
            super::ui::init_threads(threads);
            let opts = BookOptions {
                max_ply,
                min_games,
                weighting: weight,
            };
            build(&paths, &output, opts, ui)
        }
        BookCmd::Repertoire {
            paths,
            output,
            max_ply,
            min_games,
            depth,
            margin,
        } => {
            let opts = xqdb::book::repertoire::RepertoireOptions {
                min_games,
                max_ply,
                check_depth: depth,
                margin,
            };
            repertoire(&paths, &output, &opts, ui)
        }
        BookCmd::Probe { fen, book } => probe(&fen, &default_book(book)),
        BookCmd::Dump { book } => dump(&default_book(book)),
        BookCmd::Merge {
            a,
            b,
            output,
            weight,
        } => merge_books(&a, &b, &output, weight, ui),
        BookCmd::Stats { book } => stats(&default_book(book)),
    }
}

/// `xqdb book build`: the book of the games of `paths`, and what went in.
fn build(paths: &[PathBuf], output: &Path, opts: BookOptions, ui: &Ui) -> Result<(), String> {
    let start = Instant::now();
    let b = build_files(paths, output, &opts, &ui.reading_bars()).map_err(|e| e.to_string())?;
    if !ui.quiet {
        println!(
            "{}: {} games used, {} skipped, {} positions, {} moves, {}, in {:.2} s",
            output.display(),
            b.summary.games_used,
            b.read.skipped.len(),
            b.summary.positions,
            b.summary.moves,
            super::ui::size(b.bytes),
            start.elapsed().as_secs_f64()
        );
        super::records::print_skipped(&b.read, ui);
    }
    Ok(())
}

/// `xqdb book probe`: the book moves of a position, best first.
fn repertoire(
    paths: &[PathBuf],
    output: &Path,
    opts: &xqdb::book::repertoire::RepertoireOptions,
    ui: &Ui,
) -> Result<(), String> {
    let run = xqdb::book::repertoire::derive_from_files(paths, output, opts)?;
    if ui.quiet {
        return Ok(());
    }
    let rep = &run.repertoire;
    println!(
        "{}: {} games read ({} skipped), {} positions, {} moves, distinct lines: {} of 8 plies, {} of 10",
        output.display(),
        run.games,
        run.skipped,
        rep.nodes.len(),
        rep.move_count(),
        rep.distinct_lines(8),
        rep.distinct_lines(10),
    );
    for d in &rep.dropped {
        let path: Vec<String> = d.path.iter().map(|m| m.to_string()).collect();
        println!(
            "dropped: {} {} ({} games, {} cp below the best)",
            path.join(" "),
            d.mv,
            d.games,
            d.loss
        );
    }
    Ok(())
}

fn probe(fen: &str, book: &Path) -> Result<(), String> {
    let pos = Position::from_fen(fen).map_err(|e| e.to_string())?;
    let b = Book::open(book).map_err(|e| e.to_string())?;
    let moves = b.moves(&pos);
    if moves.is_empty() {
        println!("not in the book");
    }
    for m in moves {
        let chinese = xqdb::board::notation::to_chinese(&pos, m.mv).unwrap_or_default();
        let score = m
            .score_percent()
            .map_or("-".to_string(), |s| format!("{s:.1}%"));
        println!(
            "{}  {chinese}  games {:>6}  score {:>6}  (+{} ={} -{})  weight {}",
            m.mv, m.games, score, m.wins, m.draws, m.losses, m.weight
        );
    }
    Ok(())
}

/// `xqdb book dump`: every entry of a book.
fn dump(book: &Path) -> Result<(), String> {
    let b = Book::open(book).map_err(|e| e.to_string())?;
    for e in b.entries() {
        let moves: Vec<String> = e
            .moves
            .iter()
            .map(|m| {
                format!(
                    "{} {}/{}/{}/{} w{}",
                    m.mv, m.games, m.wins, m.draws, m.losses, m.weight
                )
            })
            .collect();
        println!("{:016x}  {}", e.key, moves.join("  "));
    }
    Ok(())
}

/// `xqdb book merge`.
fn merge_books(
    a: &Path,
    b: &Path,
    output: &Path,
    weight: Option<Weighting>,
    ui: &Ui,
) -> Result<(), String> {
    xqdb::paths::check_output_not_input(output, &[a.to_path_buf(), b.to_path_buf()])?;
    let ba = Book::open(a).map_err(|e| e.to_string())?;
    let bb = Book::open(b).map_err(|e| e.to_string())?;
    let s = merge(&[&ba, &bb], output, weight).map_err(|e| e.to_string())?;
    if !ui.quiet {
        println!(
            "{}: {} positions, {} moves, {} bytes, weights by {}",
            output.display(),
            s.positions,
            s.moves,
            s.bytes,
            s.weighting.name()
        );
    }
    Ok(())
}

/// `xqdb book stats`: the figures of a book and its first moves.
fn stats(path: &Path) -> Result<(), String> {
    let b = Book::open(path).map_err(|e| e.to_string())?;
    println!(
        "{}: {} positions, {} moves, {} games, {} bytes; built with max ply {}, min games {}, weights {:?}",
        path.display(),
        b.positions(),
        b.move_count(),
        b.games,
        b.file_size(),
        b.options.max_ply,
        b.options.min_games,
        b.options.weighting
    );
    let start = Position::startpos();
    for m in b.moves(&start).iter().take(5) {
        println!("  start: {} games {} weight {}", m.mv, m.games, m.weight);
    }
    Ok(())
}
