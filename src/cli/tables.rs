//! Table commands: gen, verify, probe, info, count.

use super::records::notate;
use super::ui::{size, Ui};
use std::time::Instant;
use xqdb::board::rules::RuleSet;
use xqdb::board::{Color, Position};
use xqdb::index::count::{
    all_materials, count_material, total_by_dp, total_by_materials_with, PUBLISHED_2019,
};
use xqdb::index::Material;
use xqdb::records::Notation;
use xqdb::tablebase::file::{table_path, Metric, TableFile};
use xqdb::tablebase::generate::GenOptions;
use xqdb::tablebase::pipeline::{generate_set, load_table, peak_rss, Existing, GenSummary};
use xqdb::tablebase::values::Ruling;
use xqdb::tablebase::verify::verify_files;
use xqdb::tablebase::{Tablebases, Wdl};

pub fn gen_tables(
    targets: &[Material],
    dir: &std::path::Path,
    rules: RuleSet,
    existing: Existing,
    ui: &Ui,
) -> Result<(), String> {
    let start = Instant::now();
    let mut generated = 0;
    let mut present = 0;
    let mut bytes = 0u64;
    let opts = GenOptions {
        rules,
        progress: ui.bars,
    };
    generate_set(targets, dir, opts, existing, |s| {
        if s.skipped {
            present += 1;
            if !ui.quiet {
                println!(
                    "{:<10} present, every block checked",
                    s.material.to_string()
                );
            }
        } else {
            generated += 1;
            bytes += s.written.wdl_bytes + s.written.dtm_bytes;
            if !ui.quiet {
                print_summary(s, ui.verbose);
            }
        }
    })
    .map_err(|e| e.to_string())?;
    if !ui.quiet {
        println!(
            "{} tables: {generated} generated ({}), {present} already present; rule set {rules}; {:.1} s, peak memory {:.1} MiB",
            generated + present,
            size(bytes),
            start.elapsed().as_secs_f64(),
            peak_rss() as f64 / 1048576.0
        );
    }
    Ok(())
}

/// One line per generated table; with `verbose` its outcome counts, longest mate and the
/// process's memory when its generation ended.
pub fn print_summary(s: &GenSummary, verbose: bool) {
    let what = match &s.replaced {
        Some(why) => format!("regenerated ({why})"),
        None => "generated".to_string(),
    };
    println!(
        "{:<10} {what}: {} positions in {:.2} s, files {} + {}",
        s.material.to_string(),
        s.positions,
        s.seconds,
        size(s.written.wdl_bytes),
        size(s.written.dtm_bytes)
    );
    if !verbose {
        return;
    }
    let side = |i: usize| {
        let c = &s.counts[i];
        format!("W {} D {} L {} illegal {}", c[0], c[1], c[2], c[3])
    };
    println!("           Red to move:   {}", side(0));
    println!("           Black to move: {}", side(1));
    if let Some((plies, fen)) = &s.longest {
        println!("           longest mate: {plies} plies, {fen}");
    }
    println!(
        "           {:.2} M positions/s; process peak memory {:.1} MiB when generation ended",
        s.positions as f64 / s.seconds.max(1e-9) / 1e6,
        s.gen_peak_rss as f64 / 1048576.0
    );
}

pub fn verify_tables(materials: &[Material], dir: &std::path::Path, ui: &Ui) -> Result<(), String> {
    let mut bad = 0u64;
    for (k, m) in materials.iter().enumerate() {
        let start = Instant::now();
        let name = m.normalized().0;
        let pb = ui.spinner(&format!(
            "verifying {name} ({} of {})",
            k + 1,
            materials.len()
        ));
        let rep = verify_files(dir, m);
        pb.finish_and_clear();
        let rep = rep.map_err(|e| e.to_string())?;
        if !ui.quiet || rep.mismatches > 0 {
            println!(
                "{name}: files checked, {} positions re-derived from their successors in {:.1} s ({} rulings by the repetition rules checked), {} mismatches",
                rep.checked,
                start.elapsed().as_secs_f64(),
                rep.rulings,
                rep.mismatches
            );
        }
        for e in &rep.examples {
            println!(
                "  mismatch ({}): stored {} derived {}: {}",
                e.why, e.stored, e.derived, e.fen
            );
        }
        bad += rep.mismatches;
    }
    if bad > 0 {
        return Err(format!("{bad} positions disagree with their successors"));
    }
    Ok(())
}

/// Probing answers only for endings with at most this many pieces besides the kings (more
/// is far beyond what can be generated); beyond it `probe` says so instead of naming a
/// table to generate.
pub const MAX_TABLE_PIECES: u32 = 8;

pub fn plies(n: u32) -> String {
    if n == 1 {
        "1 ply".to_string()
    } else {
        format!("{n} plies")
    }
}

pub fn verdict(side: Color, wdl: Wdl, dtm: Option<u32>) -> String {
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

pub fn probe_batch(tb: &Tablebases, path: &std::path::Path) -> Result<(), String> {
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

pub fn probe(
    pos: &Position,
    tb: &Tablebases,
    line: bool,
    n: Notation,
    color: bool,
) -> Result<(), String> {
    print!("{}", xqdb::display::board_diagram(pos, color));
    println!("FEN: {}", pos.to_fen());
    let m = Material::of_position(pos);
    if m.pieces_besides_kings() > MAX_TABLE_PIECES {
        return Err(format!(
            "no tablebase for {} pieces besides the kings: tables are made for endings of at most {MAX_TABLE_PIECES} (such as KRNKR); use `xqdb analyse` for this position",
            m.pieces_besides_kings()
        ));
    }
    let (wdl, dtm) = tb.probe_dtm(pos).map_err(|e| e.to_string())?;
    let here = tb.probe_verdict(pos).map_err(|e| e.to_string())?;
    let rules = tb.rules(pos).map_err(|e| e.to_string())?;
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
    println!("Rule set {rules}");
    let moves = tb.best_moves(pos).map_err(|e| e.to_string())?;
    println!("Moves, best first:");
    for m in &moves {
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
        println!("  {}  {after}{note}", notate(pos, m.mv, n));
    }
    if line {
        let l = tb.best_line(pos, 400).map_err(|e| e.to_string())?;
        let mut p = pos.clone();
        let text: Vec<String> = l
            .iter()
            .map(|&m| {
                let t = notate(&p, m, n);
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
    }
    Ok(())
}

pub fn info(target: &str, dir: &std::path::Path) -> Result<(), String> {
    let path = std::path::Path::new(target);
    if path.is_file() {
        let f = TableFile::open(path, None).map_err(|e| e.to_string())?;
        print_header(&f);
        f.read_all().map_err(|e| e.to_string())?;
        println!("checksums:   header and all {} blocks OK", f.blocks());
        return Ok(());
    }
    let m: Material = target
        .parse()
        .map_err(|e: xqdb::index::MaterialError| e.to_string())?;
    let (name, _) = m.normalized();
    let mut total = 0u64;
    for metric in [Metric::Wdl, Metric::Dtm] {
        let p = table_path(dir, &name, metric);
        let f = TableFile::open(&p, Some((name, metric))).map_err(|e| e.to_string())?;
        print_header(&f);
        total += f.file_size();
    }
    let t = load_table(dir, &name, true).map_err(|e| e.to_string())?;
    println!("checksums:   headers and every block of both files OK");
    let counts = xqdb::tablebase::pipeline::outcome_counts(&t.values);
    for (side, c) in Color::ALL.iter().zip(counts) {
        println!(
            "{side} to move: wins {} draws {} losses {} illegal {}",
            c[0], c[1], c[2], c[3]
        );
    }
    println!("DTM histogram (plies: positions, both sides to move):");
    for (d, n) in t.dtm_histogram() {
        println!("  {d:>3}: {n}");
    }
    println!(
        "total size:  {total} bytes, {:.3} bits per position",
        total as f64 * 8.0 / t.positions() as f64
    );
    Ok(())
}

pub fn print_header(f: &TableFile) {
    let h = &f.header;
    let positions = 2 * h.positions;
    println!("file:        {}", f.path.display());
    println!(
        "material {}  metric {:?}  format version {}  rule set {}  index scheme {}",
        h.material, h.metric, h.version, h.rules, h.index_scheme
    );
    println!(
        "positions:   {} per side to move; {} blocks of {} positions; dictionary {} bytes; longest mate {} plies",
        h.positions, h.blocks, h.block_size, h.dict_len, h.max_dtm
    );
    println!(
        "size:        {} bytes, {:.3} bits per position",
        f.file_size(),
        f.file_size() as f64 * 8.0 / positions as f64
    );
}

pub fn count_one(m: &Material) {
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

pub fn count_all(ui: &Ui) {
    let start = Instant::now();
    let dp = total_by_dp();
    let t_dp = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let pb = ui.count_bar(all_materials().len() as u64, "materials");
    let (sum, n) = total_by_materials_with(|k| pb.inc(k as u64));
    pb.finish_and_clear();
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
