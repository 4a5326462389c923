//! The match command.

use super::ui::Ui;
use std::path::PathBuf;
use xqdb::arena::{run_match, MatchSetup, Openings, Tally};

/// Arguments of `xqdb match`.
#[derive(clap::Args)]
pub struct MatchArgs {
    #[command(flatten)]
    setup: MatchSetup,
    /// Write the games here (PGN, ICCS moves).
    #[arg(long)]
    pgn: Option<PathBuf>,
}

/// `xqdb match`: a line per game on standard error as the games end, then the score.
pub fn run(a: MatchArgs, ui: &Ui) -> Result<(), String> {
    let cfg = a.setup.config().map_err(|e| e.to_string())?;
    let quiet = ui.quiet;
    // said with the first game's line (a match that cannot start says only its error)
    let openings = match &cfg.openings {
        Openings::Start => "every game from the initial position (no --book or --openings, and no default book: `xqdb setup` writes one)".to_string(),
        Openings::Book { path, plies } => format!("{plies} plies from the book {}", path.display()),
        Openings::Fens(f) => format!("{} start positions", f.len()),
    };
    let all = run_match(&cfg, |g, so_far| {
        if quiet {
            return;
        }
        if so_far.len() == 1 {
            eprintln!("openings: {openings}");
        }
        let t = Tally::of(so_far);
        let (s, _, _) = t.elo();
        eprintln!(
            "game {} {}-{} {} ({}); after {}: +{} ={} -{} score {:.1}%",
            g.number + 1,
            g.names[0],
            g.names[1],
            g.result.map_or("*", |r| r.token()),
            g.termination,
            so_far.len(),
            t.wins,
            t.draws,
            t.losses,
            100.0 * s
        );
    })
    .map_err(|e| e.to_string())?;
    if let Some(p) = &a.pgn {
        let text: String = all.iter().map(|g| g.pgn()).collect();
        std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    let t = Tally::of(&all);
    let (s, e, err) = t.elo();
    println!(
        "{} vs {}: {} games, +{} ={} -{}, score {:.1}%, Elo difference {e:+.0} +/- {err:.0} (95%)",
        a.setup.engines[0],
        a.setup.engines[1],
        all.len(),
        t.wins,
        t.draws,
        t.losses,
        100.0 * s
    );
    Ok(())
}
