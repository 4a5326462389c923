//! Command-line interface: parses arguments, calls the library, prints.

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Instant;
use xqdb::board::{perft, perft_divide, Position};
use xqdb::index::count::{count_material, total_by_dp, total_by_materials, PUBLISHED_2019};
use xqdb::index::Material;

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
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
