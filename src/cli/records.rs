//! Game record commands: games check, games export.

use clap::Subcommand;
use std::path::PathBuf;
use xqdb::board::Position;
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
        #[arg(long, default_value = "iccs")]
        notation: String,
    },
}

pub fn byte_bar(total: u64) -> indicatif::ProgressBar {
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

pub fn games(action: GamesCmd) -> Result<(), String> {
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

pub fn parse_notation(s: &str) -> Result<Notation, String> {
    match s.to_ascii_lowercase().as_str() {
        "iccs" => Ok(Notation::Iccs),
        "wxf" => Ok(Notation::Wxf),
        "chinese" => Ok(Notation::Chinese),
        other => Err(format!(
            "unknown notation '{other}': use iccs, wxf or chinese"
        )),
    }
}

pub fn notate(pos: &Position, m: xqdb::board::Move, n: Notation) -> String {
    let t = match n {
        Notation::Iccs => None,
        Notation::Wxf => xqdb::board::notation::to_wxf(pos, m),
        Notation::Chinese => xqdb::board::notation::to_chinese(pos, m),
    };
    t.unwrap_or_else(|| m.to_string())
}
