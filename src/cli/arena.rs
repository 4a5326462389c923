//! The match command.

use super::ui::Ui;
use std::path::PathBuf;
use xqdb::arena::process::EngineSpec;
use xqdb::arena::{elo, run_match, MatchConfig, MatchGame, Openings, TimeControl};

/// Arguments of `xqdb match`.
#[derive(clap::Args)]
pub struct MatchArgs {
    /// An engine command line, quoted (e.g. "target/release/xqdb engine"); give two.
    #[arg(long = "engine", required = true, num_args = 1)]
    engines: Vec<String>,
    /// Engine option as N:NAME=VALUE (N = 1 or 2).
    #[arg(long = "option")]
    options: Vec<String>,
    /// Protocol of an engine as N:uci or N:ucci (N = 1 or 2); otherwise detected.
    #[arg(long = "protocol")]
    protocols: Vec<String>,
    /// Time control: base+increment in seconds (e.g. 10+0.1).
    #[arg(long)]
    tc: Option<String>,
    /// Fixed time per move in milliseconds.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    movetime: Option<u64>,
    /// Fixed nodes per move.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Fixed depth per move.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
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
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    concurrency: u16,
    /// Seed of the opening choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Tablebase folder for adjudication.
    #[arg(long)]
    tables: Option<PathBuf>,
    /// Draw after this many plies.
    #[arg(long, default_value_t = 400)]
    max_plies: usize,
    /// Natural limit: draw after this many plies without a capture (some engines count 100).
    #[arg(long, default_value_t = xqdb::arena::NATURAL_LIMIT)]
    natural_limit: usize,
    /// Write the games here (PGN, ICCS moves).
    #[arg(long)]
    pgn: Option<PathBuf>,
}

pub fn tally(games: &[MatchGame]) -> (usize, usize, usize) {
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

/// Base+increment in seconds, both finite, non-negative and at most a day.
fn parse_tc(t: &str) -> Result<TimeControl, String> {
    let (b, i) = t.split_once('+').unwrap_or((t, "0"));
    let ms = |x: &str| {
        x.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && (0.0..=86_400.0).contains(v))
            .map(|v| (v * 1000.0).round() as u64)
            .ok_or_else(|| format!("bad --tc '{t}': use BASE+INC in seconds, each from 0 to 86400"))
    };
    let base_ms = ms(b)?;
    if base_ms == 0 {
        return Err(format!("bad --tc '{t}': the base time must be above 0"));
    }
    Ok(TimeControl::Clock {
        base_ms,
        inc_ms: ms(i)?,
    })
}

pub fn run(a: MatchArgs, ui: &Ui) -> Result<(), String> {
    if a.engines.len() != 2 {
        return Err(format!(
            "a match needs two --engine, got {}",
            a.engines.len()
        ));
    }
    let mut specs: Vec<EngineSpec> = a
        .engines
        .iter()
        .map(|e| EngineSpec::parse(e).ok_or_else(|| format!("empty engine command '{e}'")))
        .collect::<Result<_, _>>()?;
    for o in &a.options {
        let bad = || format!("bad --option '{o}': use N:NAME=VALUE with N 1 or 2");
        let (n, rest) = o.split_once(':').ok_or_else(bad)?;
        let (k, v) = rest.split_once('=').ok_or_else(bad)?;
        let i: usize = n.parse().map_err(|_| bad())?;
        specs
            .get_mut(i.wrapping_sub(1))
            .ok_or_else(bad)?
            .options
            .push((k.to_string(), v.to_string()));
    }
    for p in &a.protocols {
        let bad = || format!("bad --protocol '{p}': use N:uci or N:ucci with N 1 or 2");
        let (n, name) = p.split_once(':').ok_or_else(bad)?;
        let i: usize = n.parse().map_err(|_| bad())?;
        specs.get_mut(i.wrapping_sub(1)).ok_or_else(bad)?.protocol = Some(
            name.parse()
                .map_err(|e: String| format!("--protocol '{p}': {e}"))?,
        );
    }
    let tc = if let Some(t) = &a.tc {
        parse_tc(t)?
    } else if let Some(m) = a.movetime {
        TimeControl::MoveTime(m)
    } else if let Some(n) = a.nodes {
        TimeControl::Nodes(n)
    } else if let Some(d) = a.depth {
        TimeControl::Depth(d)
    } else {
        TimeControl::Clock {
            base_ms: 10_000,
            inc_ms: 100,
        }
    };
    let openings = if let Some(f) = &a.openings {
        Openings::from_fen_file(f).map_err(|e| e.to_string())?
    } else if let Some(b) = a.book {
        Openings::Book {
            path: b,
            plies: a.book_plies,
        }
    } else {
        Openings::Start
    };
    let cfg = MatchConfig {
        engines: [specs[0].clone(), specs[1].clone()],
        tc,
        games: a.games,
        openings,
        concurrency: a.concurrency as usize,
        seed: a.seed,
        tables: a.tables,
        max_plies: a.max_plies,
        natural_limit: a.natural_limit,
    };
    let quiet = ui.quiet;
    let all = run_match(&cfg, |g, so_far| {
        if quiet {
            return;
        }
        let (w, d, l) = tally(so_far);
        let (s, _, _) = elo(w, d, l);
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
    })
    .map_err(|e| e.to_string())?;
    if let Some(p) = &a.pgn {
        let text: String = all.iter().map(|g| g.pgn()).collect();
        std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    let (w, d, l) = tally(&all);
    let (s, e, err) = elo(w, d, l);
    println!(
        "{} vs {}: {} games, +{w} ={d} -{l}, score {:.1}%, Elo difference {e:+.0} +/- {err:.0} (95%)",
        a.engines[0],
        a.engines[1],
        all.len(),
        100.0 * s
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_out_of_range_are_refused() {
        assert!(parse_tc("10+0.1").is_ok());
        assert!(parse_tc("5").is_ok());
        for bad in ["-1+0", "1e300+0", "NaN", "10+-1", "0+1", "inf", "10+x"] {
            assert!(parse_tc(bad).is_err(), "{bad}");
        }
    }
}
