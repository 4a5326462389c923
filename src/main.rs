//! Command-line interface: parses arguments, calls the library, prints.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use xqdb::board::{perft, perft_divide, Color, Position};
use xqdb::index::count::{count_material, total_by_dp, total_by_materials, PUBLISHED_2019};
use xqdb::index::Material;
use xqdb::records::{write_game, Notation};
use xqdb::tablebase::file::{table_path, Metric, TableFile};
use xqdb::tablebase::pipeline::{closure, generate_set, load_table, peak_rss, GenSummary};
use xqdb::tablebase::table::TableSet;
use xqdb::tablebase::verify::verify_table;
use xqdb::tablebase::{Tablebases, Wdl};

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
        fen: String,
        /// Also print the whole optimal line to mate.
        #[arg(long)]
        line: bool,
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
    /// Show a position: board, side to move, check status, legal moves.
    Show {
        /// A FEN (quoted) or `startpos`.
        fen: String,
        /// No ANSI colours.
        #[arg(long)]
        no_color: bool,
    },
}

#[derive(Subcommand)]
enum GamesCmd {
    /// Read every game; print games, plies, skipped games grouped by reason, throughput.
    Check {
        /// Files or folders (.pgn, .xqf).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Write the games as UTF-8 PGN (tags and results kept).
    Export {
        /// Files or folders (.pgn, .xqf).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Output file.
        #[arg(short, long)]
        output: PathBuf,
        /// Move notation: iccs, wxf or chinese.
        #[arg(long, default_value = "iccs")]
        notation: String,
    },
}

#[derive(Subcommand)]
enum BookCmd {
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
        #[arg(long)]
        threads: Option<usize>,
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
    },
    /// Summary of a book.
    Stats {
        /// Book file (default: books/default.xqb).
        #[arg(long)]
        book: Option<PathBuf>,
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
            gen_tables(&targets, &common.dir())
        }
        Command::Probe {
            fen,
            line,
            notation,
            no_color,
            common,
        } => {
            let pos = Position::from_fen(&fen).map_err(|e| e.to_string())?;
            let n = parse_notation(&notation)?;
            probe(&pos, &Tablebases::open(common.dir()), line, n, !no_color)
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
            gen_tables(&Material::all_up_to(2), &dir)
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
        Command::Show { fen, no_color } => {
            let pos = Position::from_fen(&fen).map_err(|e| e.to_string())?;
            print!("{}", xqdb::display::describe(&pos, !no_color));
            Ok(())
        }
    }
}

fn gen_tables(targets: &[Material], dir: &std::path::Path) -> Result<(), String> {
    let start = Instant::now();
    let mut generated = 0;
    let mut skipped = 0;
    let interactive = std::io::IsTerminal::is_terminal(&std::io::stderr());
    generate_set(targets, dir, interactive, |s| {
        if s.skipped {
            skipped += 1;
            println!("{:<10} present and valid, skipped", s.material.to_string());
        } else {
            generated += 1;
            print_summary(s);
        }
    })
    .map_err(|e| e.to_string())?;
    println!(
        "{generated} tables generated, {skipped} already present, in {:.1} s; peak memory {:.1} MiB",
        start.elapsed().as_secs_f64(),
        peak_rss() as f64 / 1048576.0
    );
    Ok(())
}

fn print_summary(s: &GenSummary) {
    let side = |i: usize| {
        let c = &s.counts[i];
        format!("W {} D {} L {} illegal {}", c[0], c[1], c[2], c[3])
    };
    println!(
        "{:<10} {} positions in {:.2} s ({:.2} M positions/s), peak RSS {:.1} MiB at the end of generation ({:.2} bytes/position), {:.1} MiB after saving, files WDL {} B + DTM {} B",
        s.material.to_string(),
        s.positions,
        s.seconds,
        s.positions as f64 / s.seconds.max(1e-9) / 1e6,
        s.gen_peak_rss as f64 / 1048576.0,
        s.gen_peak_rss as f64 / s.positions.max(1) as f64,
        s.peak_rss as f64 / 1048576.0,
        s.written.wdl_bytes,
        s.written.dtm_bytes
    );
    println!("           Red to move:   {}", side(0));
    println!("           Black to move: {}", side(1));
    if let Some((plies, fen)) = &s.longest {
        println!("           longest mate: {plies} plies, {fen}");
    }
}

fn verify_tables(materials: &[Material], dir: &std::path::Path) -> Result<(), String> {
    let mut bad = 0u64;
    for m in materials {
        let (name, _) = m.normalized();
        let mut set = TableSet::new();
        let start = Instant::now();
        let table = std::sync::Arc::new(load_table(dir, &name).map_err(|e| e.to_string())?);
        for sub in closure(&[name])
            .into_iter()
            .filter(|x| x.pieces_besides_kings() + 1 == name.pieces_besides_kings())
        {
            set.insert(std::sync::Arc::new(
                load_table(dir, &sub).map_err(|e| e.to_string())?,
            ));
        }
        set.insert(table.clone());
        let rep = verify_table(&table, &set);
        println!(
            "{name}: files checked, {} positions re-derived from their successors in {:.1} s, {} mismatches",
            rep.checked,
            start.elapsed().as_secs_f64(),
            rep.mismatches
        );
        for e in &rep.examples {
            println!(
                "  mismatch: stored {} derived {}: {}",
                e.stored, e.derived, e.fen
            );
        }
        bad += rep.mismatches;
    }
    if bad > 0 {
        return Err(format!("{bad} positions disagree with their successors"));
    }
    Ok(())
}

fn byte_bar(total: u64) -> indicatif::ProgressBar {
    if total < (8 << 20) || !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(total);
    pb.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {elapsed}")
            .expect("valid template"),
    );
    pb
}

fn games(action: GamesCmd) -> Result<(), String> {
    use xqdb::records::collection::{collect_files, read_collection};
    let (paths, mut out, notation) = match &action {
        GamesCmd::Check { paths } => (paths.clone(), None, Notation::Iccs),
        GamesCmd::Export {
            paths,
            output,
            notation,
        } => {
            let n = match notation.to_ascii_lowercase().as_str() {
                "iccs" => Notation::Iccs,
                "wxf" => Notation::Wxf,
                "chinese" => Notation::Chinese,
                other => {
                    return Err(format!(
                        "unknown notation '{other}': use iccs, wxf or chinese"
                    ))
                }
            };
            let f =
                std::fs::File::create(output).map_err(|e| format!("{}: {e}", output.display()))?;
            (paths.clone(), Some(std::io::BufWriter::new(f)), n)
        }
    };
    let total: u64 = collect_files(&paths)
        .map_err(|e| e.to_string())?
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let pb = byte_bar(total);
    let mut write_err = None;
    let st = read_collection(
        &paths,
        |g, _| {
            if let Some(w) = out.as_mut() {
                if let Err(e) = std::io::Write::write_all(w, write_game(g, notation).as_bytes()) {
                    write_err.get_or_insert(e);
                }
            }
        },
        |b| pb.set_position(b),
    )
    .map_err(|e| e.to_string())?;
    pb.finish_and_clear();
    if let Some(e) = write_err {
        return Err(format!("writing the export: {e}"));
    }
    if let Some(mut w) = out {
        std::io::Write::flush(&mut w).map_err(|e| e.to_string())?;
    }
    println!(
        "{} files, {} games read, {} plies, {} games skipped ({:.3}%), {:.1} MB in {:.2} s ({:.1} MB/s, {:.0} games/s)",
        st.files,
        st.games,
        st.plies,
        st.skipped.len(),
        100.0 * st.skipped.len() as f64 / (st.games + st.skipped.len()).max(1) as f64,
        st.bytes as f64 / 1e6,
        st.seconds,
        st.bytes as f64 / 1e6 / st.seconds.max(1e-9),
        (st.games + st.skipped.len()) as f64 / st.seconds.max(1e-9)
    );
    if st.empty > 0 {
        println!(
            "{} of the games read have no moves (results or tags only)",
            st.empty
        );
    }
    let mut groups: std::collections::BTreeMap<String, Vec<&xqdb::records::GameError>> =
        Default::default();
    for e in &st.skipped {
        groups.entry(e.category()).or_default().push(e);
    }
    for (reason, list) in groups {
        println!("skipped, {reason}: {} games", list.len());
        for e in list.iter().take(3) {
            println!("  {e}");
        }
    }
    Ok(())
}

fn default_book(p: Option<PathBuf>) -> PathBuf {
    p.unwrap_or_else(|| xqdb::paths::books_dir().join("default.xqb"))
}

fn book_cmd(action: BookCmd) -> Result<(), String> {
    use xqdb::book::{build, merge, write, Book, BookOptions, Weighting};
    match action {
        BookCmd::Build {
            paths,
            output,
            max_ply,
            min_games,
            weight,
            threads,
        } => {
            if let Some(n) = threads {
                let _ = rayon::ThreadPoolBuilder::new()
                    .num_threads(n.max(1))
                    .build_global();
            }
            let weighting = match weight.as_str() {
                "score" => Weighting::Score,
                "games" => Weighting::Games,
                "wins" => Weighting::Wins,
                w => return Err(format!("unknown weighting '{w}': use score, games or wins")),
            };
            let start = Instant::now();
            let mut games = Vec::new();
            let st = xqdb::records::collection::read_collection(
                &paths,
                |g, _| games.push(g.clone()),
                |_| {},
            )
            .map_err(|e| e.to_string())?;
            let opts = BookOptions {
                max_ply,
                min_games,
                weighting,
            };
            let (entries, summary) = build(&games, &opts);
            let size =
                write(&output, &entries, &opts, summary.games_used).map_err(|e| e.to_string())?;
            println!(
                "{}: {} games used, {} skipped, {} positions, {} moves, {size} bytes, in {:.2} s",
                output.display(),
                summary.games_used,
                st.skipped.len(),
                summary.positions,
                summary.moves,
                start.elapsed().as_secs_f64()
            );
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
        BookCmd::Merge { a, b, output } => {
            let ba = Book::open(&a).map_err(|e| e.to_string())?;
            let bb = Book::open(&b).map_err(|e| e.to_string())?;
            let (p, m, size) = merge(&[&ba, &bb], &output).map_err(|e| e.to_string())?;
            println!(
                "{}: {p} positions, {m} moves, {size} bytes",
                output.display()
            );
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

fn tally(games: &[xqdb::arena::MatchGame]) -> (usize, usize, usize) {
    let mut t = (0, 0, 0);
    for g in games {
        match g.score0() {
            x if x > 0.75 => t.0 += 1,
            x if x < 0.25 => t.2 += 1,
            _ => t.1 += 1,
        }
    }
    t
}

fn plies(n: u32) -> String {
    if n == 1 {
        "1 ply".to_string()
    } else {
        format!("{n} plies")
    }
}

fn verdict(side: Color, wdl: Wdl, dtm: Option<u32>) -> String {
    match (wdl, dtm) {
        (Wdl::Draw, _) => "draw".to_string(),
        (Wdl::Win, Some(d)) => format!("{side} wins, mate in {}", plies(d)),
        (Wdl::Loss, Some(0)) => format!("{} wins: {side} has no legal move", !side),
        (Wdl::Loss, Some(d)) => format!("{} wins, mate in {}", !side, plies(d)),
        (w, None) => format!("{w:?}"),
    }
}

fn parse_notation(s: &str) -> Result<Notation, String> {
    match s.to_ascii_lowercase().as_str() {
        "iccs" => Ok(Notation::Iccs),
        "wxf" => Ok(Notation::Wxf),
        "chinese" => Ok(Notation::Chinese),
        other => Err(format!(
            "unknown notation '{other}': use iccs, wxf or chinese"
        )),
    }
}

fn notate(pos: &Position, m: xqdb::board::Move, n: Notation) -> String {
    let t = match n {
        Notation::Iccs => None,
        Notation::Wxf => xqdb::board::notation::to_wxf(pos, m),
        Notation::Chinese => xqdb::board::notation::to_chinese(pos, m),
    };
    t.unwrap_or_else(|| m.to_string())
}

fn probe(
    pos: &Position,
    tb: &Tablebases,
    line: bool,
    n: Notation,
    color: bool,
) -> Result<(), String> {
    print!("{}", xqdb::display::board_diagram(pos, color));
    println!("FEN: {}", pos.to_fen());
    let (wdl, dtm) = tb.probe_dtm(pos).map_err(|e| e.to_string())?;
    println!("{} to move: {}", pos.turn(), verdict(pos.turn(), wdl, dtm));
    let moves = tb.best_moves(pos).map_err(|e| e.to_string())?;
    println!("Moves, best first:");
    for m in &moves {
        // the verdict after the move, from the board's point of view
        let after = match (m.wdl, m.dtm) {
            (Wdl::Draw, _) => "draw".to_string(),
            (w, Some(d)) => {
                let winner = if w == Wdl::Win {
                    pos.turn()
                } else {
                    !pos.turn()
                };
                match d.saturating_sub(1) {
                    0 => format!("{winner} wins: checkmate or no legal move"),
                    n => format!("{winner} wins, mate in {}", plies(n)),
                }
            }
            (w, None) => format!("{w:?}"),
        };
        println!("  {}  {after}", notate(pos, m.mv, n));
    }
    if line {
        let l = tb.best_line(pos, 400).map_err(|e| e.to_string())?;
        let mut p = pos.clone();
        let text: Vec<String> = l
            .iter()
            .map(|&m| {
                let t = notate(&p, m, n);
                p.play(m);
                t
            })
            .collect();
        println!("Line ({}): {}", plies(l.len() as u32), text.join(" "));
    }
    Ok(())
}

fn info(target: &str, dir: &std::path::Path) -> Result<(), String> {
    let path = std::path::Path::new(target);
    if path.is_file() {
        let f = TableFile::open(path, None).map_err(|e| e.to_string())?;
        print_header(&f);
        f.read_all().map_err(|e| e.to_string())?;
        println!("checksums:   header and all {} blocks OK", f.blocks());
        return Ok(());
    }
    let m: Material = target
        .parse()
        .map_err(|e: xqdb::index::MaterialError| e.to_string())?;
    let (name, _) = m.normalized();
    let mut total = 0u64;
    for metric in [Metric::Wdl, Metric::Dtm] {
        let p = table_path(dir, &name, metric);
        let f = TableFile::open(&p, Some((name, metric))).map_err(|e| e.to_string())?;
        print_header(&f);
        total += f.file_size();
    }
    let t = load_table(dir, &name).map_err(|e| e.to_string())?;
    println!("checksums:   headers and every block of both files OK");
    let counts = xqdb::tablebase::pipeline::outcome_counts(&t.values);
    for (side, c) in Color::ALL.iter().zip(counts) {
        println!(
            "{side} to move: wins {} draws {} losses {} illegal {}",
            c[0], c[1], c[2], c[3]
        );
    }
    let mut hist = std::collections::BTreeMap::new();
    for side in &t.values {
        for &v in side {
            if v <= xqdb::tablebase::values::MAX_DTM {
                *hist.entry(v).or_insert(0u64) += 1;
            }
        }
    }
    println!("DTM histogram (plies: positions, both sides to move):");
    for (d, n) in hist {
        println!("  {d:>3}: {n}");
    }
    println!(
        "total size:  {total} bytes, {:.3} bits per position",
        total as f64 * 8.0 / t.positions() as f64
    );
    Ok(())
}

fn print_header(f: &TableFile) {
    let h = &f.header;
    let positions = 2 * h.positions;
    println!("file:        {}", f.path.display());
    println!(
        "material {}  metric {:?}  format version {}  rule set {}  index scheme {}",
        h.material, h.metric, h.version, h.rules, h.index_scheme
    );
    println!(
        "positions:   {} per side to move; {} blocks of {} positions; dictionary {} bytes; longest mate {} plies",
        h.positions, h.blocks, h.block_size, h.dict_len, h.max_dtm
    );
    println!(
        "size:        {} bytes, {:.3} bits per position",
        f.file_size(),
        f.file_size() as f64 * 8.0 / positions as f64
    );
}

fn count_one(m: &Material) {
    let c = count_material(m);
    println!("material:           {}", c.material);
    println!("placements:         {}", c.placements);
    println!("symmetric:          {}", c.symmetric);
    println!("mirror classes:     {}", c.mirror_classes);
    match c.index_size {
        Some(size) => {
            println!("index size:         {size} per side to move");
            println!(
                "redundant indexes:  {}",
                num_bigint::BigUint::from(size) - &c.mirror_classes
            );
            println!(
                "1-byte table:       {} bytes per side to move, {} for both ({:.1} MiB)",
                size,
                2 * size as u128,
                2.0 * size as f64 / (1024.0 * 1024.0)
            );
        }
        None => println!("index size:         does not fit in 64 bits"),
    }
}

fn count_all() {
    let start = Instant::now();
    let dp = total_by_dp();
    let t_dp = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let (sum, n) = total_by_materials();
    let t_sum = start.elapsed().as_secs_f64();
    println!(
        "legal placements of the whole game (kings facing included, side to move not counted):"
    );
    println!("  by dynamic programming over placement order: {dp} ({t_dp:.2} s)");
    println!("  by summing {n} per-material counts:        {sum} ({t_sum:.2} s)");
    println!(
        "  the two methods {}",
        if dp == sum { "agree" } else { "DISAGREE" }
    );
    let digits = dp.to_string();
    println!(
        "  about {}.{} x 10^{}",
        &digits[..1],
        &digits[1..4],
        digits.len() - 1
    );
    let published: num_bigint::BigUint = PUBLISHED_2019.parse().expect("constant");
    if dp > published {
        println!(
            "  the 2019 figure {PUBLISHED_2019} is {} short",
            &dp - &published
        );
    } else {
        println!(
            "  the 2019 figure {PUBLISHED_2019} exceeds this by {}",
            &published - &dp
        );
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
