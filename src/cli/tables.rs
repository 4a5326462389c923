//! Table commands: gen, verify, info, count.

use super::ui::{size, Ui};
use std::path::PathBuf;
use std::time::Instant;
use xqdb::board::rules::RuleSet;
use xqdb::board::Color;
use xqdb::index::count::{
    all_materials, count_material, total_by_dp, total_by_materials_with, PUBLISHED_2019,
};
use xqdb::index::Material;
use xqdb::tablebase::checkpoint::{FileCheckpoint, SavePolicy};
use xqdb::tablebase::file::{table_path, Metric, TableFile};
use xqdb::tablebase::generate::GenOptions;
use xqdb::tablebase::pipeline::{
    closure, generate_in_order_with, load_table, peak_rss, Existing, GenSummary,
};
use xqdb::tablebase::sets::NamedSet;
use xqdb::tablebase::verify::verify_files_limited;

/// The table folder and the worker threads (arguments of every table command).
#[derive(clap::Args)]
pub struct TableArgs {
    /// Table folder (default: $XQDB_TABLES, else $XQDB_HOME/tables, else ./tables).
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=super::ui::MAX_THREADS as i64))]
    threads: Option<u16>,
}

impl TableArgs {
    /// The table folder.
    pub fn dir(&self) -> PathBuf {
        self.tables.clone().unwrap_or_else(xqdb::paths::tables_dir)
    }

    /// Size the thread pool.
    pub fn init_threads(&self) {
        super::ui::init_threads(self.threads);
    }
}

fn parse_materials(list: &[String]) -> Result<Vec<Material>, String> {
    list.iter()
        .map(|s| s.parse::<Material>().map_err(|e| e.to_string()))
        .collect()
}

/// Arguments of `xqdb gen`.
#[derive(clap::Args)]
pub struct GenArgs {
    /// Materials such as KRNKR (stronger side first; KKR is the same table as KRK).
    materials: Vec<String>,
    /// Every material with at most N pieces besides the kings.
    #[arg(long, value_name = "N")]
    max_pieces: Option<u32>,
    /// The default set: every material with at most two pieces besides the kings.
    #[arg(long)]
    default: bool,
    /// A named set: default, one-sided or one-each (`xqdb sets` lists them).
    #[arg(long, value_name = "NAME")]
    set: Option<NamedSet>,
    /// Repetition rules: check-chase (perpetual check and chase lose, the default) or
    /// none (every cycle is a draw, for comparison).
    #[arg(long, value_enum, default_value_t = RuleSet::CheckChase)]
    rules: RuleSet,
    /// Out-of-core mode: a table whose generation would take more memory than LIMIT (such
    /// as 4G or 512M) keeps its arrays in a work file in the table folder
    /// (`MATERIAL.work`, removed when the table is written) and the process's resident
    /// set near LIMIT; tables that fit stay in memory.
    #[arg(long, value_name = "LIMIT", value_parser = xqdb::tablebase::workfile::parse_size)]
    memory: Option<u64>,
    /// Regenerate tables found in the folder under another rule set (else an error).
    #[arg(long)]
    replace: bool,
    /// Build only the tables named (materials, or a set's targets), not the sub-tables they
    /// need: those must be in the folder (an error lists the missing ones).
    #[arg(long)]
    no_deps: bool,
    /// When another process is generating a table this run needs: fail at once (else wait
    /// for it).
    #[arg(long)]
    no_wait: bool,
    /// Metrics to build, comma-separated: wdl, dtm, dtc (default: all three). WDL and DTM
    /// are always built when missing (DTC needs them); `dtc` adds the DTC file, also to
    /// tables whose WDL and DTM files are already there (without regenerating them).
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [MetricName::Wdl, MetricName::Dtm, MetricName::Dtc])]
    metrics: Vec<MetricName>,
    #[command(flatten)]
    common: TableArgs,
}

/// A metric of `gen --metrics`.
#[derive(Copy, Clone, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum MetricName {
    /// Win/draw/loss (the .xqw file).
    Wdl,
    /// Distance to mate (the .xqd file).
    Dtm,
    /// Distance to conversion: plies to the next capture or mate (the .xqc file).
    Dtc,
}

/// `xqdb gen`: the materials named and the sets asked for.
pub fn gen(a: GenArgs, ui: &Ui) -> Result<(), String> {
    a.common.init_threads();
    let mut targets = parse_materials(&a.materials)?;
    if a.default {
        targets.extend(Material::all_up_to(2));
    }
    if let Some(set) = a.set {
        targets.extend(set.targets());
    }
    if let Some(n) = a.max_pieces {
        targets.extend(Material::all_up_to(n));
    }
    if targets.is_empty() {
        return Err(
            "nothing to generate: name materials, or use --set NAME, --default or --max-pieces N"
                .into(),
        );
    }
    let dtc = a.metrics.contains(&MetricName::Dtc);
    let existing = if a.replace {
        Existing::ReplaceOtherRules
    } else {
        Existing::Keep
    };
    let how = How {
        rules: a.rules,
        existing,
        wait: !a.no_wait,
        dtc,
        memory: a.memory,
    };
    if a.no_deps {
        return gen_no_deps(&targets, &a.common.dir(), how, ui);
    }
    gen_order(&closure(&targets), &a.common.dir(), how, ui)
}

/// How `gen` builds tables.
#[derive(Copy, Clone)]
pub struct How {
    /// Repetition rule set.
    pub rules: RuleSet,
    /// What to do with tables of another rule set.
    pub existing: Existing,
    /// Wait for tables another process generates.
    pub wait: bool,
    /// Build the DTC files too.
    pub dtc: bool,
    /// Out-of-core limit (`gen --memory`).
    pub memory: Option<u64>,
}

/// `gen --no-deps`: the tables named, smallest first, once their sub-tables are all there.
fn gen_no_deps(
    targets: &[Material],
    dir: &std::path::Path,
    how: How,
    ui: &Ui,
) -> Result<(), String> {
    use xqdb::tablebase::plan::{missing_subtables, named_in_order};
    let missing = missing_subtables(dir, targets, how.rules);
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|(m, _)| m.to_string()).collect();
        let mut msg = format!(
            "--no-deps: {} sub-table(s) missing in {}: {}",
            missing.len(),
            dir.display(),
            names.join(" ")
        );
        for (m, why) in &missing {
            msg.push_str(&format!("\n  {m}: {why}"));
        }
        msg.push_str(&format!(
            "\ngenerate them first (`xqdb gen {}`), or drop --no-deps",
            names.join(" ")
        ));
        return Err(msg);
    }
    gen_order(&named_in_order(targets), dir, how, ui)
}

/// Generate `targets` and what they need into `dir`: a line per table, then a total.
pub fn gen_tables(
    targets: &[Material],
    dir: &std::path::Path,
    rules: RuleSet,
    existing: Existing,
    ui: &Ui,
) -> Result<(), String> {
    let how = How {
        rules,
        existing,
        wait: true,
        dtc: true,
        memory: None,
    };
    gen_order(&closure(targets), dir, how, ui)
}

/// Generate exactly the tables of `order` (smallest first) into `dir`.
fn gen_order(order: &[Material], dir: &std::path::Path, how: How, ui: &Ui) -> Result<(), String> {
    let How {
        rules,
        existing,
        wait,
        dtc,
        memory,
    } = how;
    let start = Instant::now();
    let mut generated = 0;
    let mut present = 0;
    let mut bytes = 0u64;
    let bars = ui.phase_bars();
    let ck = FileCheckpoint::new(dir, SavePolicy::from_env());
    let notify = |text: &str| {
        if !ui.quiet {
            bars.notice(text);
        }
    };
    let opts = GenOptions {
        rules,
        progress: &bars,
        checkpoint: Some(&ck),
        notify: &notify,
        wait_for_lock: wait,
        memory,
        work_dir: Some(dir),
    };
    generate_in_order_with(order, dir, opts, dtc, existing, |s| {
        if s.skipped {
            present += 1;
            bytes += s.written.dtc_bytes;
            if !ui.quiet && s.written.dtc_bytes > 0 {
                println!(
                    "{:<10} present, every block checked; DTC file added ({})",
                    s.material.to_string(),
                    size(s.written.dtc_bytes)
                );
            } else if !ui.quiet {
                println!(
                    "{:<10} present, every block checked",
                    s.material.to_string()
                );
            }
        } else {
            generated += 1;
            bytes += s.written.wdl_bytes + s.written.dtm_bytes + s.written.dtc_bytes;
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
    let st = ck.stats();
    if ui.verbose && st.saves > 0 {
        println!(
            "checkpoints: {} saves, {:.2} s in all ({:.2} s each), last {} of {} state",
            st.saves,
            st.seconds,
            st.seconds / st.saves as f64,
            size(st.last_bytes),
            size(st.last_state_bytes)
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
        "{:<10} {what}: {} positions in {:.2} s, files {} + {}{}",
        s.material.to_string(),
        s.positions,
        s.seconds,
        size(s.written.wdl_bytes),
        size(s.written.dtm_bytes),
        if s.written.dtc_bytes > 0 {
            format!(" + {} (DTC)", size(s.written.dtc_bytes))
        } else {
            String::new()
        }
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

/// Arguments of `xqdb verify`.
#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Materials to verify.
    #[arg(required_unless_present = "set")]
    materials: Vec<String>,
    /// Verify every table of a named set (default, one-sided or one-each), smallest first,
    /// after the materials named.
    #[arg(long, value_name = "NAME")]
    set: Option<NamedSet>,
    /// Skip the tables whose files carry a verification stamp that still matches them (an
    /// interrupted verification of a set goes on where it stopped).
    #[arg(long)]
    skip_verified: bool,
    /// Out-of-core mode: a table whose check would take more memory than LIMIT (such as 4G
    /// or 512M; about 1.5 bytes per position, 1.9 for two-sided tables, and 16 MiB besides a
    /// sub-table cache of at most a quarter of LIMIT) keeps its arrays in a work file in
    /// the table folder (`MATERIAL.verify.work`, removed when the check ends).
    #[arg(long, value_name = "LIMIT", value_parser = xqdb::tablebase::workfile::parse_size)]
    memory: Option<u64>,
    #[command(flatten)]
    common: TableArgs,
}

/// `xqdb verify`: a line per table (mismatches with examples); an error when any.
pub fn verify(a: VerifyArgs, ui: &Ui) -> Result<(), String> {
    a.common.init_threads();
    let mut materials = parse_materials(&a.materials)?;
    if let Some(set) = a.set {
        materials.extend(set.tables());
    }
    let dir = a.common.dir();
    let mut bad = 0u64;
    let (mut skipped, mut seen) = (0usize, std::collections::HashSet::new());
    let bars = ui.phase_bars();
    for m in &materials {
        let name = m.normalized().0;
        if !seen.insert(name) {
            continue;
        }
        if a.skip_verified && xqdb::tablebase::status::stamp_matches(&dir, &name) {
            skipped += 1;
            continue;
        }
        let start = Instant::now();
        let rep = verify_files_limited(&dir, m, a.memory, &bars);
        let rep = rep.map_err(|e| e.to_string())?;
        if !ui.quiet || rep.mismatches > 0 {
            println!(
                "{name}: files checked, {} positions re-derived from their successors in {:.1} s ({} rulings by the repetition rules checked{}), {} mismatches{}",
                rep.checked,
                start.elapsed().as_secs_f64(),
                rep.rulings,
                if rep.dtc_checked > 0 {
                    format!("; {} distances to conversion", rep.dtc_checked)
                } else {
                    String::new()
                },
                rep.mismatches,
                match &rep.work_file {
                    Some(w) => format!(" (out of core, arrays in {})", w.display()),
                    None => String::new(),
                }
            );
        }
        for e in &rep.examples {
            println!(
                "  mismatch ({}): stored {} derived {}: {}",
                e.why, e.stored, e.derived, e.fen
            );
        }
        bad += rep.mismatches;
        if rep.mismatches == 0 {
            // a read-only folder verifies all the same, without the stamp `status` reads
            if let Err(e) = xqdb::tablebase::status::write_stamp(&dir, &name) {
                eprintln!("warning: {name}: no verification stamp written: {e}");
            }
        }
    }
    if skipped > 0 && !ui.quiet {
        println!("{skipped} tables skipped: verified before (their stamps match their files)");
    }
    if bad > 0 {
        return Err(format!("{bad} positions disagree with their successors"));
    }
    Ok(())
}

/// Arguments of `xqdb info`.
#[derive(clap::Args)]
pub struct InfoArgs {
    /// A material (both files) or the path of one table file.
    target: String,
    #[command(flatten)]
    common: TableArgs,
}

/// `xqdb info`: headers, checksums, outcome counts, DTM histogram and size.
pub fn info(a: InfoArgs) -> Result<(), String> {
    a.common.init_threads();
    let dir = a.common.dir();
    let target = a.target.as_str();
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
        let p = table_path(&dir, &name, metric);
        let f = TableFile::open(&p, Some((name, metric))).map_err(|e| e.to_string())?;
        print_header(&f);
        total += f.file_size();
    }
    let mut t = load_table(&dir, &name, true).map_err(|e| e.to_string())?;
    println!("checksums:   headers and every block of both files OK");
    let dtc_path = table_path(&dir, &name, Metric::Dtc);
    if dtc_path.exists() {
        let f = TableFile::open(&dtc_path, Some((name, Metric::Dtc))).map_err(|e| e.to_string())?;
        print_header(&f);
        total += f.file_size();
        xqdb::tablebase::pipeline_dtc::load_dtc(&dir, &mut t).map_err(|e| e.to_string())?;
        println!("checksums:   DTC file header and every block OK");
    }
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
    if t.dtc.is_some() {
        println!("DTC histogram (plies to capture or mate: positions, both sides to move):");
        for (d, n) in t.dtc_histogram() {
            println!("  {d:>3}: {n}");
        }
        if let Some((v, i, side)) = t.longest_dtc() {
            let pieces = t.index.unrank_pieces(i).map_err(|e| e.to_string())?;
            let pos =
                xqdb::board::Position::from_pieces(&pieces, side).map_err(|e| e.to_string())?;
            println!("longest conversion: {v} plies, {}", pos.to_fen());
        }
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
        "positions:   {} per side to move; {} blocks of {} positions; dictionary {} bytes; longest {} {} plies",
        h.positions,
        h.blocks,
        h.block_size,
        h.dict_len,
        if h.metric == Metric::Dtc { "conversion" } else { "mate" },
        h.max_dtm
    );
    println!(
        "size:        {} bytes, {:.3} bits per position",
        f.file_size(),
        f.file_size() as f64 * 8.0 / positions as f64
    );
}

/// Arguments of `xqdb count`.
#[derive(clap::Args)]
pub struct CountArgs {
    /// A material signature such as KRNKR.
    #[arg(required_unless_present = "all")]
    material: Option<String>,
    /// The whole game: every material the rules allow, by two independent methods.
    #[arg(long, conflicts_with = "material")]
    all: bool,
}

/// `xqdb count`: the placements of one material, or of the whole game with `--all`.
pub fn count(a: CountArgs, ui: &Ui) -> Result<(), String> {
    if a.all {
        count_all(ui);
    } else {
        let text = a.material.unwrap_or_default();
        let m: Material = text
            .parse()
            .map_err(|e: xqdb::index::MaterialError| e.to_string())?;
        count_one(&m);
    }
    Ok(())
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

fn count_all(ui: &Ui) {
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
