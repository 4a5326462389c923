//! The probe command: the verdict of a position and of each of its moves, in words.

use super::tables::TableArgs;
use super::ui::Ui;
use std::path::PathBuf;
use xqdb::board::{Color, Position};
use xqdb::index::Material;
use xqdb::records::Notation;
use xqdb::tablebase::values::{Ruling, Verdict};
use xqdb::tablebase::{ProbeError, Tablebases, Wdl};

/// Arguments of `xqdb probe`.
#[derive(clap::Args)]
pub struct ProbeArgs {
    /// A FEN (quoted).
    #[arg(required_unless_present = "batch")]
    fen: Option<String>,
    /// Also print the whole optimal line to mate (or to the ruling); with `--metric dtc`,
    /// the line to the next conversion (capture or mate).
    #[arg(long)]
    line: bool,
    /// The metric of `--line`: dtm (fastest mate) or dtc (fastest conversion).
    #[arg(long, value_enum, default_value_t = LineMetric::Dtm)]
    metric: LineMetric,
    /// The natural limit in plies (a win whose conversion takes longer may be spoilt).
    #[arg(long, value_name = "PLIES", default_value_t = xqdb::tablebase::probe_dtc::DEFAULT_NATURAL_LIMIT)]
    limit: u32,
    /// Probe one FEN per line of FILE (`-` for standard input) and print
    /// FEN<TAB>WDL<TAB>DTM<TAB>DTC lines.
    #[arg(long, value_name = "FILE", conflicts_with = "fen")]
    batch: Option<PathBuf>,
    /// Move notation: iccs, wxf or chinese.
    #[arg(long, value_enum, ignore_case = true, hide_possible_values = true, default_value_t = Notation::Iccs)]
    notation: Notation,
    #[command(flatten)]
    common: TableArgs,
}

/// The metric of `probe --line`.
#[derive(Copy, Clone, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum LineMetric {
    /// Distance to mate.
    Dtm,
    /// Distance to conversion.
    Dtc,
}

/// Probing answers only for endings with at most this many pieces besides the kings (more
/// is far beyond what can be generated); beyond it `probe` says so instead of naming a
/// table to generate.
const MAX_TABLE_PIECES: u32 = 8;

/// `xqdb probe`: a position (board, verdict, rule set, moves best first, the line with
/// `--line`), or a file of positions with `--batch`.
pub fn probe(a: ProbeArgs, ui: &Ui) -> Result<(), String> {
    let tb = Tablebases::open(a.common.dir());
    if let Some(path) = a.batch {
        return probe_batch(&tb, &path);
    }
    let fen = a.fen.ok_or("give a FEN or --batch FILE")?;
    let pos = Position::from_fen(&fen).map_err(|e| e.to_string())?;
    print!("{}", xqdb::display::board_diagram(&pos, ui.color));
    println!("FEN: {}", pos.to_fen());
    let m = Material::of_position(&pos);
    if m.pieces_besides_kings() > MAX_TABLE_PIECES {
        return Err(format!(
            "no tablebase for {} pieces besides the kings: tables are made for endings of at most {MAX_TABLE_PIECES} (such as KRNKR); use `xqdb analyse` for this position",
            m.pieces_besides_kings()
        ));
    }
    let here = tb.probe_verdict(&pos).map_err(|e| e.to_string())?;
    let rules = tb.rules(&pos).map_err(|e| e.to_string())?;
    print_verdict(&pos, &tb, here)?;
    println!("Rule set {rules}");
    // the DTC file is optional: without it the DTC is left out
    let dtc = match tb.probe_limit(&pos, a.limit) {
        Ok((_, _, dtc, class)) => {
            let c = dtc.map_or("-".to_string(), plies);
            println!(
                "DTC {c}: {} (natural limit {})",
                class.describe(),
                plies(a.limit)
            );
            true
        }
        Err(ProbeError::Missing { .. }) => false,
        Err(e) => return Err(e.to_string()),
    };
    print_moves(&pos, &tb, a.notation, dtc)?;
    if a.line && a.metric == LineMetric::Dtc {
        if !dtc {
            return Err(
                "--metric dtc needs the table's DTC file: run `xqdb gen` with --metrics dtc".into(),
            );
        }
        print_dtc_line(&pos, &tb, a.notation)?;
    } else if a.line {
        print_line(&pos, &tb, here, a.notation)?;
    }
    Ok(())
}

fn probe_batch(tb: &Tablebases, path: &std::path::Path) -> Result<(), String> {
    let stdout = std::io::stdout().lock();
    let (ok, bad) = if path == std::path::Path::new("-") {
        tb.probe_batch(std::io::stdin().lock(), stdout)
    } else {
        let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        tb.probe_batch(std::io::BufReader::new(f), stdout)
    }
    .map_err(|e| e.to_string())?;
    eprintln!("{ok} positions probed, {bad} lines with errors");
    Ok(())
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

fn violation(r: Ruling) -> &'static str {
    match r {
        Ruling::PerpetualCheck => "perpetual check",
        Ruling::PerpetualChase => "perpetual chase",
    }
}

/// `SIDE to move: ...`: the verdict of the position, and the rule it rests on.
fn print_verdict(pos: &Position, tb: &Tablebases, here: Verdict) -> Result<(), String> {
    let (wdl, dtm) = tb.probe_dtm(pos).map_err(|e| e.to_string())?;
    let side = pos.turn();
    match (here.ruling, dtm) {
        (Some(r), Some(0)) => println!(
            "{side} to move: {} wins: every legal move of {side} continues its {} (lost by the rules)",
            !side,
            violation(r)
        ),
        (Some(r), Some(d)) => println!(
            "{side} to move: {} wins, mate in {}: {side} can avoid mate only by {}, which the rules forbid",
            !side,
            plies(d),
            violation(r)
        ),
        _ => {
            let text = verdict(side, wdl, dtm);
            match tb.rule_behind(pos).map_err(|e| e.to_string())? {
                Some((who, r)) => println!(
                    "{side} to move: {text}: {who} can only avoid mate by {}, which the rules forbid",
                    violation(r)
                ),
                None => println!("{side} to move: {text}"),
            }
        }
    }
    Ok(())
}

/// `Moves, best first:` and a line per legal move with the verdict after it (and its DTC
/// from before the move, with `dtc`).
fn print_moves(pos: &Position, tb: &Tablebases, n: Notation, dtc: bool) -> Result<(), String> {
    let side = pos.turn();
    let moves: Vec<(xqdb::tablebase::MoveOutcome, Option<Option<u32>>)> = if dtc {
        tb.moves_dtc(pos)
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|m| (m.outcome, Some(m.dtc)))
            .collect()
    } else {
        tb.best_moves(pos)
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|m| (m, None))
            .collect()
    };
    println!("Moves, best first:");
    for (m, c) in &moves {
        // the verdict after the move, from the board's point of view
        let after = match (m.wdl, m.dtm) {
            (Wdl::Draw, _) => "draw".to_string(),
            (w, Some(d)) => {
                let winner = if w == Wdl::Win { side } else { !side };
                match d.saturating_sub(1) {
                    0 => format!("{winner} wins: checkmate, no legal move or a ruling"),
                    n => format!("{winner} wins, mate in {}", plies(n)),
                }
            }
            (w, None) => format!("{w:?}"),
        };
        let note = match m.forbidden {
            Some(r) => format!("  (forbidden: continues the {})", violation(r)),
            None if m.after.rests_on_rule() => "  (by the repetition rules)".to_string(),
            None => String::new(),
        };
        let counts = match (m.dtm, c) {
            (Some(d), Some(Some(c))) => format!("  [DTM {d}, DTC {c}]"),
            (Some(d), _) => format!("  [DTM {d}]"),
            _ => String::new(),
        };
        println!("  {}  {after}{note}{counts}", n.write_move(pos, m.mv));
    }
    Ok(())
}

/// `Line to conversion (N plies): ...`: the winner converts fastest, the loser delays.
fn print_dtc_line(pos: &Position, tb: &Tablebases, n: Notation) -> Result<(), String> {
    let l = tb.best_dtc_line(pos, 400).map_err(|e| e.to_string())?;
    let mut p = pos.clone();
    let mut capture = false;
    let text: Vec<String> = l
        .iter()
        .map(|&m| {
            let t = n.write_move(&p, m);
            capture = p.piece_at(m.to()).is_some();
            p.play(m);
            t
        })
        .collect();
    let end = if capture {
        ", then the capture converts".to_string()
    } else if p.legal_moves().is_empty() {
        ", then mate".to_string()
    } else {
        match tb.probe_verdict(&p).map_err(|e| e.to_string())?.ruling {
            Some(r) => format!(", then {} loses by the rules ({})", p.turn(), violation(r)),
            None => String::new(),
        }
    };
    println!(
        "Line to conversion ({}): {}{end}",
        plies(l.len() as u32),
        text.join(" ")
    );
    Ok(())
}

/// `Line (N plies): ...`: the optimal line to mate, or to the ruling.
fn print_line(pos: &Position, tb: &Tablebases, here: Verdict, n: Notation) -> Result<(), String> {
    let l = tb.best_line(pos, 400).map_err(|e| e.to_string())?;
    let mut p = pos.clone();
    let text: Vec<String> = l
        .iter()
        .map(|&m| {
            let t = n.write_move(&p, m);
            p.play(m);
            t
        })
        .collect();
    let end = match tb.probe_verdict(&p).map_err(|e| e.to_string())?.ruling {
        Some(r) if !text.is_empty() || here.ruling.is_some() => {
            format!(", then {} loses by the rules ({})", p.turn(), violation(r))
        }
        _ => String::new(),
    };
    println!("Line ({}): {}{end}", plies(l.len() as u32), text.join(" "));
    Ok(())
}
