//! Book commands: build, probe, dump, merge, stats.

use super::ui::Ui;
use clap::Subcommand;
use std::path::PathBuf;
use std::time::Instant;
use xqdb::board::Position;

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
        #[arg(long, default_value = "score")]
        weight: String,
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
        #[arg(long)]
        weight: Option<String>,
    },
    /// Summary of a book.
    Stats {
        /// Book file (default: books/default.xqb).
        #[arg(long)]
        book: Option<PathBuf>,
    },
}

pub fn default_book(p: Option<PathBuf>) -> PathBuf {
    p.unwrap_or_else(|| xqdb::paths::books_dir().join("default.xqb"))
}

fn weighting(w: &str) -> Result<xqdb::book::Weighting, String> {
    xqdb::book::Weighting::from_name(w)
        .ok_or_else(|| format!("unknown weighting '{w}': use score, games or wins"))
}

pub fn book_cmd(action: BookCmd, ui: &Ui) -> Result<(), String> {
    use xqdb::book::{merge, write, Book, BookBuilder, BookOptions};
    use xqdb::records::collection::{collect_files, read_collection};
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
                weighting: weighting(&weight)?,
            };
            let start = Instant::now();
            let files = collect_files(&paths).map_err(|e| e.to_string())?;
            xqdb::paths::check_output_not_input(&output, &files)?;
            let total: u64 = files
                .iter()
                .filter_map(|f| std::fs::metadata(f).ok())
                .map(|m| m.len())
                .sum();
            let pb = ui.bytes_bar(total, "reading");
            // games go into the builder one by one: memory follows the book, not the input
            let mut builder = BookBuilder::new(&opts);
            let st = read_collection(&paths, |g, _| builder.add(g), |b| pb.set_position(b))
                .map_err(|e| e.to_string())?;
            pb.finish_and_clear();
            let (entries, summary) = builder.finish();
            let size =
                write(&output, &entries, &opts, summary.games_used).map_err(|e| e.to_string())?;
            if !ui.quiet {
                println!(
                    "{}: {} games used, {} skipped, {} positions, {} moves, {}, in {:.2} s",
                    output.display(),
                    summary.games_used,
                    st.skipped.len(),
                    summary.positions,
                    summary.moves,
                    super::ui::size(size),
                    start.elapsed().as_secs_f64()
                );
                super::records::print_skipped(&st, ui);
            }
            Ok(())
        }
        BookCmd::Repertoire {
            paths,
            output,
            max_ply,
            min_games,
            depth,
            margin,
        } => {
            use xqdb::book::repertoire::{derive, RepertoireOptions};
            let ropts = RepertoireOptions {
                min_games,
                max_ply,
                check_depth: depth,
                margin,
            };
            let opts = xqdb::book::repertoire::book_options(&ropts);
            let files = collect_files(&paths).map_err(|e| e.to_string())?;
            xqdb::paths::check_output_not_input(&output, &files)?;
            let mut builder = BookBuilder::new(&opts);
            let st = read_collection(&paths, |g, _| builder.add(g), |_| {})
                .map_err(|e| e.to_string())?;
            let games = builder.games_used();
            let (entries, _) = builder.finish();
            let rep = derive(&entries, &ropts);
            let names: Vec<String> = paths
                .iter()
                .map(|p| {
                    p.file_name()
                        .map_or(p.display().to_string(), |n| n.to_string_lossy().into())
                })
                .collect();
            let header = rep.header(games, &names.join(", "), &ropts);
            std::fs::write(&output, rep.to_text(&header))
                .map_err(|e| format!("{}: {e}", output.display()))?;
            if !ui.quiet {
                println!(
                    "{}: {} games read ({} skipped), {} positions, {} moves, distinct lines: {} of 8 plies, {} of 10",
                    output.display(),
                    games,
                    st.skipped.len(),
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
            }
            Ok(())
        }
        BookCmd::Probe { fen, book } => {
            let pos = Position::from_fen(&fen).map_err(|e| e.to_string())?;
            let b = Book::open(default_book(book)).map_err(|e| e.to_string())?;
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
        BookCmd::Dump { book } => {
            let b = Book::open(default_book(book)).map_err(|e| e.to_string())?;
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
        BookCmd::Merge {
            a,
            b,
            output,
            weight,
        } => {
            xqdb::paths::check_output_not_input(&output, &[a.clone(), b.clone()])?;
            let w = weight.as_deref().map(weighting).transpose()?;
            let ba = Book::open(&a).map_err(|e| e.to_string())?;
            let bb = Book::open(&b).map_err(|e| e.to_string())?;
            let (p, m, size) = merge(&[&ba, &bb], &output, w).map_err(|e| e.to_string())?;
            if !ui.quiet {
                println!(
                    "{}: {p} positions, {m} moves, {size} bytes, weights by {}",
                    output.display(),
                    w.unwrap_or(ba.options.weighting).name()
                );
            }
            Ok(())
        }
        BookCmd::Stats { book } => {
            let path = default_book(book);
            let b = Book::open(&path).map_err(|e| e.to_string())?;
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
    }
}
