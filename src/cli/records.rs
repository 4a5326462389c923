//! Game record commands: games check, games export.

use super::ui::Ui;
use clap::Subcommand;
use std::path::PathBuf;
use xqdb::records::{write_game, Notation};

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

pub fn games(action: GamesCmd, ui: &Ui) -> Result<(), String> {
    use xqdb::records::collection::{collect_files, read_collection};
    let (paths, output, notation) = match &action {
        GamesCmd::Check { paths } => (paths.clone(), None, Notation::Iccs),
        GamesCmd::Export {
            paths,
            output,
            notation,
        } => (paths.clone(), Some(output.clone()), *notation),
    };
    let files = collect_files(&paths).map_err(|e| e.to_string())?;
    // the export goes to a temporary file renamed at the end: the output is never half
    // written, and never one of the inputs
    let mut out = None;
    let tmp = match &output {
        Some(o) => {
            xqdb::paths::check_output_not_input(o, &files)?;
            let t = xqdb::tablebase::file::temp_path(o);
            let f = std::fs::File::create(&t).map_err(|e| format!("{}: {e}", t.display()))?;
            out = Some(std::io::BufWriter::new(f));
            Some(t)
        }
        None => None,
    };
    let total: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let pb = ui.bytes_bar(total, "reading");
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
    );
    pb.finish_and_clear();
    let finish = || -> Result<(), String> {
        if let Some(e) = write_err {
            return Err(format!("writing the export: {e}"));
        }
        if let (Some(mut w), Some(t), Some(o)) = (out, &tmp, &output) {
            std::io::Write::flush(&mut w).map_err(|e| format!("writing the export: {e}"))?;
            drop(w);
            std::fs::rename(t, o).map_err(|e| format!("{}: {e}", o.display()))?;
        }
        Ok(())
    };
    let st = match st
        .map_err(|e| e.to_string())
        .and_then(|st| finish().map(|()| st))
    {
        Ok(st) => st,
        Err(e) => {
            if let Some(t) = &tmp {
                let _ = std::fs::remove_file(t);
            }
            return Err(e);
        }
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
