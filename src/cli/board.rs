//! Position commands: perft, show.

use super::ui::Ui;
use std::time::Instant;
use xqdb::board::{perft as count_leaves, perft_divide, Position};

/// Arguments of `xqdb perft`.
#[derive(clap::Args)]
pub struct PerftArgs {
    /// A FEN (quoted) or `startpos`.
    fen: String,
    /// Depth in plies (at most 12: deeper counts take days).
    #[arg(value_parser = clap::value_parser!(u32).range(0..=12))]
    depth: u32,
    /// Print the count below each first move.
    #[arg(long)]
    divide: bool,
}

/// `xqdb perft`: the leaf count (below each first move with `--divide`) and the speed.
pub fn perft(a: PerftArgs) -> Result<(), String> {
    let mut p = Position::from_fen(&a.fen).map_err(|e| e.to_string())?;
    let depth = a.depth;
    let start = Instant::now();
    let total = if a.divide {
        let rows = perft_divide(&mut p, depth);
        for (m, n) in &rows {
            println!("{m}: {n}");
        }
        rows.iter().map(|(_, n)| n).sum()
    } else {
        count_leaves(&mut p, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    println!(
        "perft {depth}: {total} leaves in {secs:.3} s ({:.1} M leaves/s)",
        total as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}

/// Arguments of `xqdb show`.
#[derive(clap::Args)]
pub struct ShowArgs {
    /// A FEN (quoted) or `startpos`.
    fen: String,
}

/// `xqdb show`: board, side to move, check status, legal moves.
pub fn show(a: ShowArgs, ui: &Ui) -> Result<(), String> {
    let pos = Position::from_fen(&a.fen).map_err(|e| e.to_string())?;
    print!("{}", xqdb::display::describe(&pos, ui.color));
    Ok(())
}
