//! The setup command: a self-check, the default book and the default tablebases.

use super::tables::gen_tables;
use super::ui::Ui;
use std::time::Instant;
use xqdb::board::rules::RuleSet;
use xqdb::board::{perft, Position};
use xqdb::index::Material;
use xqdb::tablebase::pipeline::Existing;

/// Leaves at depth 5 from the start position (the reference count).
const PERFT_5: u64 = 133_312_995;

/// `xqdb setup`: perft 5 from the start as a self-check, the default book from the embedded
/// openings, the tablebases of at most two pieces besides the kings.
pub fn setup(ui: &Ui) -> Result<(), String> {
    let pos = Position::startpos();
    if !ui.quiet {
        print!("{}", xqdb::display::describe(&pos, ui.color));
    }
    let mut p = pos.clone();
    let start = Instant::now();
    let total = perft(&mut p, 5);
    let secs = start.elapsed().as_secs_f64();
    if total != PERFT_5 {
        return Err(format!(
            "self-check failed: perft 5 from the start gives {total}, not {PERFT_5} (the reference count)"
        ));
    }
    if !ui.quiet {
        println!("perft 5: {total} leaves in {secs:.3} s (self-check passed)");
    }
    let book = xqdb::paths::books_dir().join("default.xqb");
    let s = xqdb::book::build_default(&book).map_err(|e| e.to_string())?;
    if !ui.quiet {
        println!(
            "default book {}: {} positions, {} moves from the embedded repertoire (data/repertoire.txt)",
            book.display(),
            s.positions,
            s.moves
        );
    }
    let dir = xqdb::paths::tables_dir();
    if !ui.quiet {
        println!(
            "default tablebases (at most two pieces besides the kings) in {}:",
            dir.display()
        );
    }
    gen_tables(
        &Material::all_up_to(2),
        &dir,
        RuleSet::CheckChase,
        Existing::ReplaceOtherRules,
        ui,
    )
}
