//! Faults and interruptions around files: corrupt blocks, reserved bytes, sizes that would
//! wrap, write errors, two writers of one folder, outputs that are inputs. Each ends in a
//! clear error or is survived; none leaves a half-written or temporary file behind.

mod common;
use byteorder::{ByteOrder, LittleEndian as LE};
use std::path::{Path, PathBuf};
use std::process::Command;
use xqdb::board::Position;
use xqdb::index::Material;
use xqdb::tablebase::file::{table_path, FileError, Metric, TableFile};
use xqdb::tablebase::pipeline::{check_files, generate_set};
use xqdb::tablebase::Tablebases;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xqdb-faults-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn xqdb(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(common::bin()).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("tmp"))
        .collect()
}

fn mat(s: &str) -> Material {
    s.parse().unwrap()
}

/// Rewrite the header checksum of a table file after an edit of a checksummed field.
fn reseal(bytes: &mut [u8]) {
    let blocks = LE::read_u32(&bytes[60..64]) as usize;
    let dict = LE::read_u32(&bytes[64..68]) as usize;
    let end = 144 + (blocks + 1) * 8 + dict;
    let mut crc = crc32fast::Hasher::new();
    crc.update(&bytes[..136]);
    crc.update(&bytes[144..end]);
    let c = crc.finalize();
    LE::write_u32(&mut bytes[136..140], c);
}

/// Regression: `gen` used to keep ("present and valid") a table whose data block was
/// corrupt, checking only its header.
#[test]
fn gen_regenerates_a_table_whose_data_block_is_corrupt() {
    let dir = tmp("gen-corrupt");
    let d = dir.to_str().unwrap();
    let (ok, _, err) = xqdb(&["gen", "KRK", "--tables", d]);
    assert!(ok, "{err}");
    let path = table_path(&dir, &mat("KRK"), Metric::Dtm);
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 6] ^= 0x5A; // inside the last zstd frame
    std::fs::write(&path, &bytes).unwrap();
    assert!(check_files(&dir, &mat("KRK")).is_err());
    let (ok, out, err) = xqdb(&["gen", "KRK", "--tables", d]);
    assert!(ok, "{err}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("KRK ") && l.contains("regenerated")),
        "{out}"
    );
    check_files(&dir, &mat("KRK")).unwrap();
    let (ok, out, _) = xqdb(&["gen", "KRK", "--tables", d]);
    assert!(ok && out.contains("present"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Regression: reserved header bytes were read without a look (140..144 is not even covered
/// by the checksum); now they must be zero.
#[test]
fn reserved_table_header_bytes_must_be_zero() {
    let dir = tmp("reserved");
    generate_set(
        &[mat("KRK")],
        &dir,
        xqdb::tablebase::generate::GenOptions::default(),
        xqdb::tablebase::pipeline::Existing::Keep,
        |_| {},
    )
    .unwrap();
    let path = table_path(&dir, &mat("KRK"), Metric::Wdl);
    let good = std::fs::read(&path).unwrap();
    for at in [68usize, 71, 140, 143] {
        let mut bytes = good.clone();
        bytes[at] = 1;
        reseal(&mut bytes);
        std::fs::write(&path, &bytes).unwrap();
        let err = TableFile::open(&path, None).unwrap_err();
        assert!(
            matches!(&err, FileError::Corrupt { reason, .. } if reason.contains("reserved")),
            "byte {at}: {err}"
        );
    }
    std::fs::write(&path, &good).unwrap();
    TableFile::open(&path, None).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Regression: `2 * positions` wrapped on a hostile header (release builds), so a position
/// count near 2^63 passed the block-count check.
#[test]
fn a_position_count_that_would_wrap_is_corrupt() {
    let dir = tmp("wrap");
    generate_set(
        &[mat("KRK")],
        &dir,
        xqdb::tablebase::generate::GenOptions::default(),
        xqdb::tablebase::pipeline::Existing::Keep,
        |_| {},
    )
    .unwrap();
    let path = table_path(&dir, &mat("KRK"), Metric::Wdl);
    let mut bytes = std::fs::read(&path).unwrap();
    let p = LE::read_u64(&bytes[48..56]);
    LE::write_u64(&mut bytes[48..56], p + (1 << 63));
    reseal(&mut bytes);
    std::fs::write(&path, &bytes).unwrap();
    let err = TableFile::open(&path, None).unwrap_err();
    assert!(
        matches!(&err, FileError::Corrupt { reason, .. } if reason.contains("out of range")),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Regression: a write error (disk full) left `.tmp` files behind. The file size limit
/// (`ulimit -f`) makes every write past 1 KiB fail, as a full disk would.
#[test]
fn a_write_error_leaves_no_temporary_file_and_says_what_failed() {
    let dir = tmp("full");
    let script = format!(
        "trap '' XFSZ; ulimit -f 2; exec \"{}\" gen KRKN --tables \"{}\"",
        common::bin().display(),
        dir.display()
    );
    let out = Command::new("sh").arg("-c").arg(&script).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.starts_with("error: ") && err.contains("KRKN"), "{err}");
    assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
    // the tables written before the failure are whole
    for m in ["KK", "KRK", "KNK"] {
        if table_path(&dir, &mat(m), Metric::Wdl).exists() {
            check_files(&dir, &mat(m)).unwrap();
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Regression: two writers of one folder used the same temporary name, so one could rename
/// the other's half-written file or fail. Names are now unique per process and call.
#[test]
fn two_writers_of_one_folder_never_collide() {
    let dir = tmp("two");
    generate_set(
        &[mat("KNK")],
        &dir,
        xqdb::tablebase::generate::GenOptions::default(),
        xqdb::tablebase::pipeline::Existing::Keep,
        |_| {},
    )
    .unwrap();
    let t = xqdb::tablebase::pipeline::load_table(&dir, &mat("KNK"), false).unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..25 {
                    xqdb::tablebase::file::write_files(&dir, &t).unwrap();
                }
            });
        }
    });
    check_files(&dir, &mat("KNK")).unwrap();
    assert!(leftovers(&dir).is_empty());
    // and two processes generating into one folder both succeed
    let d = dir.to_str().unwrap().to_string();
    let runs: Vec<_> = (0..2)
        .map(|_| {
            Command::new(common::bin())
                .args(["gen", "KRKN", "--quiet", "--tables", &d])
                .spawn()
                .unwrap()
        })
        .collect();
    for mut r in runs {
        assert!(r.wait().unwrap().success());
    }
    check_files(&dir, &mat("KRKN")).unwrap();
    assert!(leftovers(&dir).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Regression: a missing table was remembered for good, so a table generated while a
/// program ran (an engine, a match) was never seen.
#[test]
fn a_table_generated_after_a_failed_probe_is_found() {
    let dir = tmp("late");
    let tb = Tablebases::open(&dir);
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w").unwrap();
    assert!(tb.probe_wdl(&pos).is_err());
    generate_set(
        &[mat("KRK")],
        &dir,
        xqdb::tablebase::generate::GenOptions::default(),
        xqdb::tablebase::pipeline::Existing::Keep,
        |_| {},
    )
    .unwrap();
    assert_eq!(
        tb.probe_wdl(&pos).unwrap(),
        xqdb::tablebase::Wdl::Win,
        "the earlier miss was cached"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The generator reads sub-tables from their files block by block: a sub-table whose block
/// is corrupt, or whose file is missing, is an error that names it, not a panic.
#[test]
fn a_corrupt_or_missing_sub_table_is_an_error_naming_it() {
    use xqdb::tablebase::generate::GenOptions;
    use xqdb::tablebase::pipeline::{generate_in_order, Existing};
    let dir = tmp("sub-corrupt");
    let opts = GenOptions::default();
    generate_set(&[mat("KRKA")], &dir, opts, Existing::Keep, |_| {}).unwrap();
    let drop_krka = || {
        for metric in [Metric::Wdl, Metric::Dtm] {
            std::fs::remove_file(table_path(&dir, &mat("KRKA"), metric)).unwrap();
        }
    };
    drop_krka();
    let path = table_path(&dir, &mat("KRK"), Metric::Dtm);
    let good = std::fs::read(&path).unwrap();
    let mut bytes = good.clone();
    let n = bytes.len();
    bytes[n - 6] ^= 0x5A; // inside the last zstd frame
    std::fs::write(&path, &bytes).unwrap();
    let err = generate_in_order(&[mat("KRKA")], &dir, opts, Existing::Keep, |_| {})
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("KRK.xqd") && err.contains("sub-table KRK"),
        "{err}"
    );
    std::fs::remove_file(&path).unwrap();
    let err = generate_in_order(&[mat("KRKA")], &dir, opts, Existing::Keep, |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("no table for KRK"), "{err}");
    // with the file back the table is generated, byte for byte as before
    std::fs::write(&path, &good).unwrap();
    generate_in_order(&[mat("KRKA")], &dir, opts, Existing::Keep, |_| {}).unwrap();
    check_files(&dir, &mat("KRKA")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
