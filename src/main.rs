//! Command-line interface: parses arguments, calls the library, prints.

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Instant;
use xqdb::board::{perft, perft_divide, Position};

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
    /// Show a position: board, side to move, check status, legal moves.
    Show {
        /// A FEN (quoted) or `startpos`.
        fen: String,
        /// No ANSI colours.
        #[arg(long)]
        no_color: bool,
    },
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Setup => {
            let pos = Position::startpos();
            print!("{}", xqdb::display::describe(&pos, true));
            run_perft(&pos, 5, false);
            Ok(())
        }
        Command::Perft { fen, depth, divide } => {
            let pos = Position::from_fen(&fen).map_err(|e| e.to_string())?;
            run_perft(&pos, depth, divide);
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
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
