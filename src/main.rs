//! Command-line interface: parses arguments, calls the library, prints.

mod cli;

use clap::{Parser, Subcommand};
use cli::arena::tally;
use cli::book::{book_cmd, BookCmd};
use cli::records::{games, parse_notation, GamesCmd};
use cli::tables::{count_all, count_one, gen_tables, info, probe, probe_batch, verify_tables};
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
}

#[derive(Subcommand)]
enum Command {
    /// Prepare everything a user needs on the embedded defaults.
    Setup,
    /// Count the leaves of the legal move tree.
    Perft {
        /// A FEN (quoted) or `startpos`.
        fen: String,
        /// Depth in plies.
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
        /// No ANSI colours.
        #[arg(long)]
        no_color: bool,
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
    /// Search a position and print the search lines.
    Analyse {
        /// A FEN (quoted) or `startpos`.
        fen: String,
        /// Depth limit.
        #[arg(long)]
        depth: Option<i32>,
        /// Time limit in milliseconds.
        #[arg(long)]
        movetime: Option<u64>,
        /// Hash size in MiB.
        #[arg(long, default_value_t = 64)]
        hash: usize,
    },
    /// Search a fixed set of positions to a fixed depth: total nodes and nodes per second.
    Bench {
        /// Depth.
        #[arg(long, default_value_t = 8)]
        depth: i32,
    },
    /// Play a match between two engines (UCI or UCCI, detected by handshake).
    Match {
        /// An engine command line, quoted (e.g. "target/release/xqdb engine"); give two.
        #[arg(long = "engine", required = true, num_args = 1)]
        engines: Vec<String>,
        /// Engine option as N:NAME=VALUE (N = 1 or 2).
        #[arg(long = "option")]
        options: Vec<String>,
        /// Time control: base+increment in seconds (e.g. 10+0.1).
        #[arg(long)]
        tc: Option<String>,
        /// Fixed time per move in milliseconds.
        #[arg(long)]
        movetime: Option<u64>,
        /// Fixed nodes per move.
        #[arg(long)]
        nodes: Option<u64>,
        /// Fixed depth per move.
        #[arg(long)]
        depth: Option<u32>,
        /// Games (played in pairs with colours swapped).
        #[arg(long, default_value_t = 2)]
        games: usize,
        /// Opening book for random weighted openings.
        #[arg(long)]
        book: Option<PathBuf>,
        /// Plies taken from the book.
        #[arg(long, default_value_t = 8)]
        book_plies: usize,
        /// File of start positions (one FEN per line).
        #[arg(long)]
        openings: Option<PathBuf>,
        /// Games played at once.
        #[arg(long, default_value_t = 1)]
        concurrency: usize,
        /// Seed of the opening choice.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Tablebase folder for adjudication.
        #[arg(long)]
        tables: Option<PathBuf>,
        /// Draw after this many plies.
        #[arg(long, default_value_t = 400)]
        max_plies: usize,
        /// Write the games here (PGN, ICCS moves).
        #[arg(long)]
        pgn: Option<PathBuf>,
    },
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
        /// No ANSI colours.
        #[arg(long)]
        no_color: bool,
    },
}

#[derive(clap::Args)]
struct TableArgs {
    /// Table folder (default: $XQDB_TABLES, else $XQDB_HOME/tables, else ./tables).
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

impl TableArgs {
    fn dir(&self) -> PathBuf {
        self.tables.clone().unwrap_or_else(xqdb::paths::tables_dir)
    }

    fn init_threads(&self) {
        if let Some(n) = self.threads {
            // Only fails if a pool was built already, in which case it stays as it is.
            let _ = rayon::ThreadPoolBuilder::new()
                .num_threads(n.max(1))
                .build_global();
        }
    }
}

fn parse_materials(list: &[String]) -> Result<Vec<Material>, String> {
    list.iter()
        .map(|s| s.parse::<Material>().map_err(|e| e.to_string()))
        .collect()
}

fn run(cli: Cli) -> Result<(), String> {
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
            gen_tables(&targets, &common.dir(), rules, existing)
        }
        Command::Probe {
            fen,
            line,
            batch,
            notation,
            no_color,
            common,
        } => {
            let tb = Tablebases::open(common.dir());
            if let Some(path) = batch {
                return probe_batch(&tb, &path);
            }
            let fen = fen.ok_or("give a FEN or --batch FILE")?;
            let pos = Position::from_fen(&fen).map_err(|e| e.to_string())?;
            let n = parse_notation(&notation)?;
            probe(&pos, &tb, line, n, !no_color)
        }
        Command::Info { target, common } => {
            common.init_threads();
            info(&target, &common.dir())
        }
        Command::Games { action } => games(action),
        Command::Match {
            engines,
            options,
            tc,
            movetime,
            nodes,
            depth,
            games,
            book,
            book_plies,
            openings,
            concurrency,
            seed,
            tables,
            max_plies,
            pgn,
        } => {
            use xqdb::arena::{process::EngineSpec, run_match, MatchConfig, Openings, TimeControl};
            if engines.len() != 2 {
                return Err(format!("a match needs two --engine, got {}", engines.len()));
            }
            let mut specs: Vec<EngineSpec> = engines
                .iter()
                .map(|e| EngineSpec::parse(e).ok_or_else(|| format!("empty engine command '{e}'")))
                .collect::<Result<_, _>>()?;
            for o in &options {
                let (n, rest) = o
                    .split_once(':')
                    .ok_or_else(|| format!("bad --option '{o}': use N:NAME=VALUE"))?;
                let (k, v) = rest
                    .split_once('=')
                    .ok_or_else(|| format!("bad --option '{o}': use N:NAME=VALUE"))?;
                let i: usize = n
                    .parse()
                    .map_err(|_| format!("bad engine number in --option '{o}'"))?;
                specs
                    .get_mut(i.wrapping_sub(1))
                    .ok_or_else(|| format!("--option '{o}': engine {i} does not exist"))?
                    .options
                    .push((k.to_string(), v.to_string()));
            }
            let tc = if let Some(t) = tc {
                let (b, i) = t.split_once('+').unwrap_or((&t, "0"));
                let secs = |x: &str| {
                    x.parse::<f64>()
                        .map_err(|_| format!("bad --tc '{t}': use BASE+INC in seconds"))
                };
                TimeControl::Clock {
                    base_ms: (secs(b)? * 1000.0) as u64,
                    inc_ms: (secs(i)? * 1000.0) as u64,
                }
            } else if let Some(m) = movetime {
                TimeControl::MoveTime(m)
            } else if let Some(n) = nodes {
                TimeControl::Nodes(n)
            } else if let Some(d) = depth {
                TimeControl::Depth(d)
            } else {
                TimeControl::Clock {
                    base_ms: 10_000,
                    inc_ms: 100,
                }
            };
            let openings = if let Some(f) = openings {
                let text =
                    std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
                let list: Vec<String> = text
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(str::to_string)
                    .collect();
                for l in &list {
                    Position::from_fen(l).map_err(|e| format!("{}: {l}: {e}", f.display()))?;
                }
                Openings::Fens(list)
            } else if let Some(b) = book {
                xqdb::book::Book::open(&b).map_err(|e| e.to_string())?;
                Openings::Book {
                    path: b,
                    plies: book_plies,
                }
            } else {
                Openings::Start
            };
            let cfg = MatchConfig {
                engines: [specs[0].clone(), specs[1].clone()],
                tc,
                games,
                openings,
                concurrency,
                seed,
                tables,
                max_plies,
            };
            let all = run_match(&cfg, |g, so_far| {
                let (w, d, l) = tally(so_far);
                let (s, _, _) = xqdb::arena::elo(w, d, l);
                eprintln!(
                    "game {} {}-{} {} ({}); after {}: +{w} ={d} -{l} score {:.1}%",
                    g.number + 1,
                    g.names[0],
                    g.names[1],
                    g.result.map_or("*", |r| r.token()),
                    g.termination,
                    so_far.len(),
                    100.0 * s
                );
            });
            if let Some(p) = pgn {
                let text: String = all.iter().map(|g| g.pgn()).collect();
                std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))?;
            }
            let (w, d, l) = tally(&all);
            let (s, e, err) = xqdb::arena::elo(w, d, l);
            println!(
                "{} vs {}: {} games, +{w} ={d} -{l}, score {:.1}%, Elo difference {e:+.0} +/- {err:.0} (95%)",
                engines[0],
                engines[1],
                all.len(),
                100.0 * s
            );
            Ok(())
        }
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
        } => {
            let pos = Position::from_fen(&fen).map_err(|e| e.to_string())?;
            let mut tt = xqdb::engine::tt::Tt::new(hash);
            let stop = std::sync::atomic::AtomicBool::new(false);
            let limits = xqdb::engine::Limits {
                depth: depth.or(if movetime.is_none() { Some(10) } else { None }),
                nodes: None,
                soft: movetime.map(std::time::Duration::from_millis),
                hard: movetime.map(std::time::Duration::from_millis),
            };
            let mut s =
                xqdb::engine::Searcher::new(&pos, &[], &mut tt, None, &stop, limits, Vec::new());
            let (best, _) = s.run(|i| {
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
            match best {
                Some(m) => println!(
                    "best move {m} ({})",
                    xqdb::board::notation::to_chinese(&pos, m).unwrap_or_default()
                ),
                None => println!("no legal move"),
            }
            Ok(())
        }
        Command::Bench { depth } => {
            let (nodes, secs) = xqdb::engine::search::bench(depth);
            println!(
                "{nodes} nodes in {secs:.2} s: {:.0} nodes/s",
                nodes as f64 / secs.max(1e-9)
            );
            Ok(())
        }
        Command::Book { action } => book_cmd(action),
        Command::Verify { materials, common } => {
            common.init_threads();
            verify_tables(&parse_materials(&materials)?, &common.dir())
        }
        Command::Setup => {
            let pos = Position::startpos();
            print!("{}", xqdb::display::describe(&pos, true));
            run_perft(&pos, 5, false);
            let book = xqdb::paths::books_dir().join("default.xqb");
            let s = xqdb::book::build_default(&book).map_err(|e| e.to_string())?;
            println!(
                "\nDefault book {}: {} positions, {} moves from the embedded openings",
                book.display(),
                s.positions,
                s.moves
            );
            let dir = xqdb::paths::tables_dir();
            println!("\nDefault tablebases (every material with at most two pieces besides the kings) into {}:", dir.display());
            gen_tables(
                &Material::all_up_to(2),
                &dir,
                RuleSet::CheckChase,
                Existing::ReplaceOtherRules,
            )
        }
        Command::Perft { fen, depth, divide } => {
            let pos = Position::from_fen(&fen).map_err(|e| e.to_string())?;
            run_perft(&pos, depth, divide);
            Ok(())
        }
        Command::Count { material, all } => {
            if all {
                count_all();
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
        Command::Show { fen, no_color } => {
            let pos = Position::from_fen(&fen).map_err(|e| e.to_string())?;
            print!("{}", xqdb::display::describe(&pos, !no_color));
            Ok(())
        }
    }
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
