//! Command-line interface: parses arguments, calls the library, prints. Each command's
//! arguments and its function are in `src/cli/`.

mod cli;

use clap::{Parser, Subcommand};
use cli::ui::Ui;
use std::process::ExitCode;

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
    Perft(cli::board::PerftArgs),
    /// Count placements: of one material, or of the whole game with --all.
    Count(cli::tables::CountArgs),
    /// Generate tablebases (WDL and DTM) with every table they depend on.
    Gen(cli::tables::GenArgs),
    /// The tables a set needs, as a graph by captures, with estimated memory, time and disk.
    Plan(cli::plan::PlanArgs),
    /// The named sets of tables with their sizes and estimated costs.
    Sets(cli::plan::SetsArgs),
    /// Which tables of a set a folder holds: present, verified, missing, partial, locked.
    Status(cli::status::StatusArgs),
    /// Re-derive every value of tables from their successors and check their files.
    Verify(cli::tables::VerifyArgs),
    /// Probe the tablebases: the verdict of a position and of every legal move.
    Probe(cli::probe::ProbeArgs),
    /// Header, outcome counts, DTM histogram and sizes of a table; checks every checksum.
    Info(cli::tables::InfoArgs),
    /// Game records: check collections, export them as normalised PGN.
    Games {
        #[command(subcommand)]
        action: cli::records::GamesCmd,
    },
    /// Opening books: build, probe, dump, merge, stats.
    Book {
        #[command(subcommand)]
        action: cli::book::BookCmd,
    },
    /// Run the engine on standard input/output (UCI or UCCI, chosen by the first command).
    Engine,
    /// Decide a move as the engine does: the book, else the tables, else a search (its
    /// lines printed).
    Analyse(cli::engine::AnalyseArgs),
    /// Search a fixed set of positions to a fixed depth: total nodes and nodes per second.
    Bench(cli::engine::BenchArgs),
    /// Fit the evaluation's weights to the results of real games (Texel's method) and write
    /// them as Rust source for the next build.
    Tune(cli::engine::TuneArgs),
    /// Play a match between two engines (UCI or UCCI, detected by handshake).
    Match(cli::arena::MatchArgs),
    /// Serve the web explorer and JSON API: tablebases, book and engine analysis.
    Serve(cli::serve::ServeArgs),
    /// Show a position: board, side to move, check status, legal moves.
    Show(cli::board::ShowArgs),
}

fn run(cli: Cli) -> Result<(), String> {
    let ui = Ui::new(cli.no_color, cli.quiet, cli.verbose);
    match cli.command {
        Command::Setup => cli::setup::setup(&ui),
        Command::Perft(a) => cli::board::perft(a),
        Command::Count(a) => cli::tables::count(a, &ui),
        Command::Gen(a) => cli::tables::gen(a, &ui),
        Command::Plan(a) => cli::plan::plan(a),
        Command::Sets(a) => cli::plan::sets(a),
        Command::Status(a) => cli::status::status(a),
        Command::Verify(a) => cli::tables::verify(a, &ui),
        Command::Probe(a) => cli::probe::probe(a, &ui),
        Command::Info(a) => cli::tables::info(a),
        Command::Games { action } => cli::records::games(action, &ui),
        Command::Book { action } => cli::book::book(action, &ui),
        Command::Engine => cli::engine::engine(),
        Command::Analyse(a) => cli::engine::analyse(a, &ui),
        Command::Bench(a) => cli::engine::bench(a),
        Command::Tune(a) => cli::engine::tune(a, &ui),
        Command::Match(a) => cli::arena::run(a, &ui),
        Command::Serve(a) => cli::serve::serve(a),
        Command::Show(a) => cli::board::show(a, &ui),
    }
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
