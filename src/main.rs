//! Command-line interface: parses arguments, calls the library, prints.

mod cli;

use clap::{Parser, Subcommand};
use cli::book::{book_cmd, BookCmd};
use cli::records::{games, parse_notation, GamesCmd};
use cli::tables::{count_all, count_one, gen_tables, info, probe, probe_batch, verify_tables};
use cli::ui::Ui;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use xqdb::board::rules::RuleSet;
use xqdb::board::{perft, perft_divide, Position};
use xqdb::index::Material;
use xqdb::tablebase::pipeline::Existing;
use xqdb::tablebase::Tablebases;

#[derive(Parser)]
#[command(
    name = "xqdb",
    version,
    about = "Xiangqi tablebases, opening books and engine"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// No ANSI colours (also when NO_COLOR is set, or the output is not a terminal).
    #[arg(long, global = true)]
    no_color: bool,
    /// Print nothing but errors and the answers asked for (no progress, no summaries).
    #[arg(long, short, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Print details (per-table counts, longest mates, memory).
    #[arg(long, short, global = true)]
    verbose: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Prepare everything a user needs on the embedded defaults.
    Setup,
    /// Count the leaves of the legal move tree.
    Perft {
        /// A FEN (quoted) or `startpos`.
        fen: String,
        /// Depth in plies (at most 12: deeper counts take days).
        #[arg(value_parser = clap::value_parser!(u32).range(0..=12))]
        depth: u32,
        /// Print the count below each first move.
        #[arg(long)]
        divide: bool,
    },
    /// Count placements: of one material, or of the whole game with --all.
    Count {
        /// A material signature such as KRNKR.
        #[arg(required_unless_present = "all")]
        material: Option<String>,
        /// The whole game: every material the rules allow, by two independent methods.
        #[arg(long, conflicts_with = "material")]
        all: bool,
    },
    /// Generate tablebases (WDL and DTM) with every table they depend on.
    Gen {
        /// Materials such as KRNKR (stronger side first; KKR is the same table as KRK).
        materials: Vec<String>,
        /// Every material with at most N pieces besides the kings.
        #[arg(long, value_name = "N")]
        max_pieces: Option<u32>,
        /// The default set: every material with at most two pieces besides the kings.
        #[arg(long)]
        default: bool,
        /// Repetition rules: check-chase (perpetual check and chase lose, the default) or
        /// none (every cycle is a draw, for comparison).
        #[arg(long, value_enum, default_value_t = RuleSet::CheckChase)]
        rules: RuleSet,
        /// Regenerate tables found in the folder under another rule set (else an error).
        #[arg(long)]
        replace: bool,
        #[command(flatten)]
        common: TableArgs,
    },
    /// Re-derive every value of tables from their successors and check their files.
    Verify {
        /// Materials to verify.
        #[arg(required = true)]
        materials: Vec<String>,
        #[command(flatten)]
        common: TableArgs,
    },
    /// Probe the tablebases: the verdict of a position and of every legal move.
    Probe {
        /// A FEN (quoted).
        #[arg(required_unless_present = "batch")]
        fen: Option<String>,
        /// Also print the whole optimal line to mate (or to the ruling).
        #[arg(long)]
        line: bool,
        /// Probe one FEN per line of FILE (`-` for standard input) and print
        /// FEN<TAB>WDL<TAB>DTM lines.
        #[arg(long, value_name = "FILE", conflicts_with = "fen")]
        batch: Option<PathBuf>,
        /// Move notation: iccs, wxf or chinese.
        #[arg(long, default_value = "iccs")]
        notation: String,
        #[command(flatten)]
        common: TableArgs,
    },
    /// Header, outcome counts, DTM histogram and sizes of a table; checks every checksum.
    Info {
        /// A material (both files) or the path of one table file.
        target: String,
        #[command(flatten)]
        common: TableArgs,
    },
    /// Game records: check collections, export them as normalised PGN.
    Games {
        #[command(subcommand)]
        action: GamesCmd,
    },
    /// Opening books: build, probe, dump, merge, stats.
    Book {
        #[command(subcommand)]
        action: BookCmd,
    },
    /// Run the engine on standard input/output (UCI or UCCI, chosen by the first command).
    Engine,
    /// Decide a move as the engine does: the book, else the tables, else a search (its
    /// lines printed).
    Analyse {
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
    },
    /// Search a fixed set of positions to a fixed depth: total nodes and nodes per second.
    Bench {
        /// Depth.
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(i32).range(1..=30))]
        depth: i32,
    },
    /// Play a match between two engines (UCI or UCCI, detected by handshake).
    Match(cli::arena::MatchArgs),
    /// Serve the web explorer and JSON API: tablebases, book and engine analysis.
    Serve {
        /// Table folder (default: $XQDB_TABLES, else $XQDB_HOME/tables, else ./tables).
        #[arg(long, value_name = "DIR")]
        tables: Option<PathBuf>,
        /// Opening book (default: books/default.xqb under $XQDB_HOME when it exists).
        #[arg(long, value_name = "PATH")]
        book: Option<PathBuf>,
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        bind: std::net::SocketAddr,
        /// Longest analysis a request may ask for, in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = 10_000)]
        max_movetime: u64,
        /// Analyses running at once.
        #[arg(long, value_name = "N", default_value_t = 2)]
        analyses: usize,
    },
    /// Show a position: board, side to move, check status, legal moves.
    Show {
        /// A FEN (quoted) or `startpos`.
        fen: String,
    },
}

#[derive(clap::Args)]
struct TableArgs {
    /// Table folder (default: $XQDB_TABLES, else $XQDB_HOME/tables, else ./tables).
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=cli::ui::MAX_THREADS as i64))]
    threads: Option<u16>,
}

impl TableArgs {
    fn dir(&self) -> PathBuf {
        self.tables.clone().unwrap_or_else(xqdb::paths::tables_dir)
    }

    fn init_threads(&self) {
        cli::ui::init_threads(self.threads);
    }
}

fn parse_materials(list: &[String]) -> Result<Vec<Material>, String> {
    list.iter()
        .map(|s| s.parse::<Material>().map_err(|e| e.to_string()))
        .collect()
}

fn run(cli: Cli) -> Result<(), String> {
    let ui = Ui::new(cli.no_color, cli.quiet, cli.verbose);
    match cli.command {
        Command::Gen {
            materials,
            max_pieces,
            default,
            rules,
            replace,
            common,
        } => {
            common.init_threads();
            let mut targets = parse_materials(&materials)?;
            if default {
                targets.extend(Material::all_up_to(2));
            }
            if let Some(n) = max_pieces {
                targets.extend(Material::all_up_to(n));
            }
            if targets.is_empty() {
                return Err(
                    "nothing to generate: name materials, or use --default or --max-pieces N"
                        .into(),
                );
            }
            let existing = if replace {
                Existing::ReplaceOtherRules
            } else {
                Existing::Keep
            };
            gen_tables(&targets, &common.dir(), rules, existing, &ui)
        }
        Command::Probe {
            fen,
            line,
            batch,
            notation,
            common,
        } => {
            let tb = Tablebases::open(common.dir());
            if let Some(path) = batch {
                return probe_batch(&tb, &path);
            }
            let fen = fen.ok_or("give a FEN or --batch FILE")?;
            let pos = Position::from_fen(&fen).map_err(|e| e.to_string())?;
            let n = parse_notation(&notation)?;
            probe(&pos, &tb, line, n, ui.color)
        }
        Command::Info { target, common } => {
            common.init_threads();
            info(&target, &common.dir())
        }
        Command::Games { action } => games(action, &ui),
        Command::Match(args) => cli::arena::run(args, &ui),
        Command::Engine => {
            let stdin = std::io::stdin();
            xqdb::engine::run_protocol(stdin.lock(), Box::new(std::io::stdout()));
            Ok(())
        }
        Command::Analyse {
            fen,
            depth,
            movetime,
            hash,
            book,
            no_book,
            tables,
            no_tables,
        } => cli::engine::analyse(
            &fen,
            cli::engine::AnalyseOptions {
                depth,
                movetime,
                hash: hash as usize,
                book,
                no_book,
                tables,
                no_tables,
            },
            &ui,
        ),
        Command::Bench { depth } => {
            let (nodes, secs) = xqdb::engine::search::bench(depth);
            println!(
                "{nodes} nodes in {secs:.2} s: {:.0} nodes/s",
                nodes as f64 / secs.max(1e-9)
            );
            Ok(())
        }
        Command::Book { action } => book_cmd(action, &ui),
        Command::Verify { materials, common } => {
            common.init_threads();
            verify_tables(&parse_materials(&materials)?, &common.dir(), &ui)
        }
        Command::Setup => {
            let pos = Position::startpos();
            if !ui.quiet {
                print!("{}", xqdb::display::describe(&pos, ui.color));
            }
            let mut p = pos.clone();
            let (total, secs) = timed(|| perft(&mut p, 5));
            if total != 133_312_995 {
                return Err(format!(
                    "self-check failed: perft 5 from the start gives {total}, not 133312995 (the reference count)"
                ));
            }
            if !ui.quiet {
                println!("perft 5: {total} leaves in {secs:.3} s (self-check passed)");
            }
            let book = xqdb::paths::books_dir().join("default.xqb");
            let s = xqdb::book::build_default(&book).map_err(|e| e.to_string())?;
            if !ui.quiet {
                println!(
                    "default book {}: {} positions, {} moves from the embedded openings",
                    book.display(),
                    s.positions,
                    s.moves
                );
            }
            let dir = xqdb::paths::tables_dir();
            if !ui.quiet {
                println!(
                    "default tablebases (at most two pieces besides the kings) in {}:",
                    dir.display()
                );
            }
            gen_tables(
                &Material::all_up_to(2),
                &dir,
                RuleSet::CheckChase,
                Existing::ReplaceOtherRules,
                &ui,
            )
        }
        Command::Perft { fen, depth, divide } => {
            let pos = Position::from_fen(&fen).map_err(|e| e.to_string())?;
            run_perft(&pos, depth, divide);
            Ok(())
        }
        Command::Count { material, all } => {
            if all {
                count_all(&ui);
            } else {
                let text = material.unwrap_or_default();
                let m: Material = text
                    .parse()
                    .map_err(|e: xqdb::index::MaterialError| e.to_string())?;
                count_one(&m);
            }
            Ok(())
        }
        Command::Serve {
            tables,
            book,
            bind,
            max_movetime,
            analyses,
        } => {
            let default_book = xqdb::paths::books_dir().join("default.xqb");
            let config = xqdb::serve::ServeConfig {
                tables: Some(tables.unwrap_or_else(xqdb::paths::tables_dir)),
                book: book.or_else(|| default_book.is_file().then_some(default_book)),
                bind,
                limits: xqdb::serve::Limits {
                    max_movetime: std::time::Duration::from_millis(max_movetime.max(1)),
                    max_analyses: analyses,
                    ..Default::default()
                },
            };
            let server = xqdb::serve::Server::bind(&config).map_err(|e| e.to_string())?;
            println!(
                "xqdb serve: listening on http://{} ({})",
                server.local_addr(),
                server.summary()
            );
            server.run_until_signal().map_err(|e| e.to_string())?;
            println!("xqdb serve: stopped");
            Ok(())
        }
        Command::Show { fen } => {
            let pos = Position::from_fen(&fen).map_err(|e| e.to_string())?;
            print!("{}", xqdb::display::describe(&pos, ui.color));
            Ok(())
        }
    }
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let t = f();
    (t, start.elapsed().as_secs_f64())
}

fn run_perft(pos: &Position, depth: u32, divide: bool) {
    let mut p = pos.clone();
    let start = Instant::now();
    let total = if divide {
        let rows = perft_divide(&mut p, depth);
        for (m, n) in &rows {
            println!("{m}: {n}");
        }
        rows.iter().map(|(_, n)| n).sum()
    } else {
        perft(&mut p, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    println!(
        "perft {depth}: {total} leaves in {secs:.3} s ({:.1} M leaves/s)",
        total as f64 / secs.max(1e-9) / 1e6
    );
}

fn main() -> ExitCode {
    #[cfg(unix)]
    // SAFETY: setting a signal disposition to its default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
