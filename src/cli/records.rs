//! Game record commands: games check, games export.

use super::ui::Ui;
use clap::Subcommand;
use std::path::PathBuf;
use xqdb::records::export::{export_collection, read_reporting};
use xqdb::records::Notation;

#[derive(Subcommand)]
pub enum GamesCmd {
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
        #[arg(long, value_enum, ignore_case = true, hide_possible_values = true, default_value_t = Notation::Iccs)]
        notation: Notation,
    },
}

/// `xqdb games check` and `xqdb games export`: what was read (and written).
pub fn games(action: GamesCmd, ui: &Ui) -> Result<(), String> {
    let bars = ui.reading_bars();
    let st = match &action {
        GamesCmd::Check { paths } => {
            read_reporting(paths, |_, _| {}, &bars).map_err(|e| e.to_string())?
        }
        GamesCmd::Export {
            paths,
            output,
            notation,
        } => export_collection(paths, output, *notation, &bars).map_err(|e| e.to_string())?,
    };
    if ui.quiet {
        return Ok(());
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
    print_skipped(&st, ui);
    Ok(())
}

/// Skipped games grouped by reason, and skipped byte ranges, with examples (all of them
/// with `--verbose`).
pub fn print_skipped(st: &xqdb::records::collection::ReadStats, ui: &Ui) {
    let shown = if ui.verbose { usize::MAX } else { 3 };
    let mut groups: std::collections::BTreeMap<String, Vec<&xqdb::records::GameError>> =
        Default::default();
    for e in &st.skipped {
        groups.entry(e.category()).or_default().push(e);
    }
    for (reason, list) in groups {
        println!("skipped, {reason}: {} games", list.len());
        for e in list.iter().take(shown) {
            println!("  {e}");
        }
    }
    if !st.skipped_bytes.is_empty() {
        let bytes: u64 = st.skipped_bytes.iter().map(|s| s.len).sum();
        println!(
            "skipped bytes outside any game: {} ranges, {bytes} bytes",
            st.skipped_bytes.len()
        );
        for s in st.skipped_bytes.iter().take(shown) {
            println!("  {s}");
        }
    }
}
