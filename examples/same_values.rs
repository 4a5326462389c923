//! Checks that two table folders hold the same values: every table file (`.xqw`, `.xqd`,
//! `.xqc`) of the first is decoded position by position and compared with the file of the
//! same name in the second, with their headers' material, metric, rule set, sizes, counts
//! and longest distance. Their compressed bytes may differ (another zstd setting, another
//! block encoding). Used to show that a change of the writer's compression keeps every
//! value:
//!
//! ```text
//! cargo run --release --example same_values -- NEW_DIR REFERENCE_DIR
//! ```
//!
//! Prints one line per file with both sizes, and exits with status 1 on any difference
//! (or a file missing from the second folder).

use std::path::Path;
use std::process::ExitCode;
use xqdb::tablebase::reader::TableFile;

fn compare(a: &Path, b: &Path) -> Result<(u64, u64), String> {
    let fa = TableFile::open(a, None).map_err(|e| e.to_string())?;
    let fb = TableFile::open(b, None).map_err(|e| e.to_string())?;
    let (ha, hb) = (&fa.header, &fb.header);
    let key = |h: &xqdb::tablebase::file::Header| {
        format!(
            "{} {:?} {:?} positions {} counts {:?} longest {}",
            h.material, h.metric, h.rules, h.positions, h.counts, h.max_dtm
        )
    };
    if key(ha) != key(hb) {
        return Err(format!("headers differ: {} / {}", key(ha), key(hb)));
    }
    let (va, vb) = (
        fa.read_all().map_err(|e| e.to_string())?,
        fb.read_all().map_err(|e| e.to_string())?,
    );
    if va.len() != vb.len() {
        return Err(format!("{} positions against {}", va.len(), vb.len()));
    }
    if let Some(k) = va.iter().zip(&vb).position(|(x, y)| x != y) {
        return Err(format!("position {k} differs: {} against {}", va[k], vb[k]));
    }
    Ok((fa.file_size(), fb.file_size()))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [new, reference] = args.as_slice() else {
        eprintln!("usage: same_values NEW_DIR REFERENCE_DIR");
        return ExitCode::from(2);
    };
    let mut names: Vec<_> = match std::fs::read_dir(new) {
        Ok(dir) => dir
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".xqw") || n.ends_with(".xqd") || n.ends_with(".xqc"))
            .collect(),
        Err(e) => {
            eprintln!("{new}: {e}");
            return ExitCode::from(2);
        }
    };
    names.sort();
    let mut bad = 0;
    let mut totals = std::collections::BTreeMap::<String, (u64, u64)>::new();
    for n in &names {
        let (a, b) = (Path::new(new).join(n), Path::new(reference).join(n));
        match compare(&a, &b) {
            Ok((sa, sb)) => {
                let kind = n.rsplit('.').next().unwrap_or_default().to_string();
                let t = totals.entry(kind).or_default();
                t.0 += sa;
                t.1 += sb;
                println!("same values {n}: {sa} B against {sb} B");
            }
            Err(e) => {
                bad += 1;
                println!("DIFFERENT {n}: {e}");
            }
        }
    }
    for (kind, (sa, sb)) in &totals {
        println!("total .{kind}: {sa} B against {sb} B");
    }
    println!("{} files, {bad} different", names.len());
    if bad == 0 && !names.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
