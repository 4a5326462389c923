//! The generator reports its progress through `xqdb::progress::Progress` (the library
//! draws nothing; the command line draws bars from the reports).

use std::sync::Mutex;
use xqdb::index::Material;
use xqdb::progress::Progress;
use xqdb::tablebase::generate::GenOptions;
use xqdb::tablebase::pipeline::generate_closure;

/// One report.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Report {
    Begin(String, String, u64),
    Status(String),
    Advance(u64),
    End,
}

#[derive(Default)]
struct Log(Mutex<Vec<Report>>);

impl Progress for Log {
    fn begin(&self, job: &str, phase: &str, steps: u64) {
        let r = Report::Begin(job.into(), phase.into(), steps);
        self.0.lock().unwrap().push(r);
    }
    fn status(&self, text: &str) {
        self.0.lock().unwrap().push(Report::Status(text.into()));
    }
    fn advance(&self, n: u64) {
        self.0.lock().unwrap().push(Report::Advance(n));
    }
    fn end(&self) {
        self.0.lock().unwrap().push(Report::End);
    }
}

/// The phases of a generation: (job, phase, steps, steps advanced, statuses).
fn phases(log: &[Report]) -> Vec<(String, String, u64, u64, Vec<String>)> {
    let mut out = Vec::new();
    let mut open: Option<(String, String, u64, u64, Vec<String>)> = None;
    for r in log {
        match r {
            Report::Begin(j, p, s) => {
                assert!(open.is_none(), "a phase begins inside {open:?}");
                open = Some((j.clone(), p.clone(), *s, 0, Vec::new()));
            }
            Report::Status(t) => open
                .as_mut()
                .expect("status inside a phase")
                .4
                .push(t.clone()),
            Report::Advance(n) => open.as_mut().expect("steps inside a phase").3 += n,
            Report::End => out.push(open.take().expect("an end after a begin")),
        }
    }
    assert!(open.is_none(), "a phase never ended: {open:?}");
    out
}

#[test]
fn generation_reports_each_phase_of_each_table() {
    let log = Log::default();
    let opts = GenOptions {
        progress: &log,
        ..GenOptions::default()
    };
    // KRK needs KK; KRKN (both sides attack) also needs KNK and the repetition rules
    let m: Material = "KRKN".parse().unwrap();
    generate_closure(&[m], opts).unwrap();
    let log = log.0.into_inner().unwrap();
    let ph = phases(&log);
    let jobs: Vec<&str> = ph.iter().map(|p| p.0.as_str()).collect();
    let mut seen: Vec<&str> = jobs.clone();
    seen.dedup();
    assert_eq!(seen, ["KK", "KNK", "KRK", "KRKN"], "{jobs:?}");
    for (job, phase, steps, done, statuses) in &ph {
        match phase.as_str() {
            // a step per chunk of the index: all of them are reported
            "start" => assert!(*steps > 0 && done == steps, "{job} {phase}: {done}/{steps}"),
            // a step per level, each named; unknown in advance
            "retrograde levels" => {
                assert_eq!(*steps, 0);
                assert!(*done >= 1 && *done == statuses.len() as u64, "{job}");
                for (k, s) in statuses.iter().enumerate() {
                    assert_eq!(*s, format!("level {k}"));
                }
            }
            "repetition rules" => {
                assert_eq!(job, "KRKN", "only a material where both sides attack");
                assert!(*done >= 1 && statuses[0] == "round 1", "{statuses:?}");
            }
            "distance to mate" => assert!(*done >= 1, "{job}"),
            other => panic!("unknown phase {other}"),
        }
    }
    let of = |job: &str| -> Vec<&str> {
        ph.iter()
            .filter(|p| p.0 == job)
            .map(|p| p.1.as_str())
            .collect()
    };
    assert_eq!(of("KRK"), ["start", "retrograde levels"]);
    assert_eq!(
        of("KRKN")[..3],
        ["start", "retrograde levels", "repetition rules"]
    );
}

/// Without a reporter (the default), nothing is reported and the tables are the same.
#[test]
fn the_reporter_does_not_change_the_tables() {
    let m: Material = "KRKN".parse().unwrap();
    let quiet = generate_closure(&[m], GenOptions::default()).unwrap();
    let log = Log::default();
    let reported = generate_closure(
        &[m],
        GenOptions {
            progress: &log,
            ..GenOptions::default()
        },
    )
    .unwrap();
    let name = xqdb::tablebase::table::table_material(m).0;
    let (a, b) = (quiet.get(&name).unwrap(), reported.get(&name).unwrap());
    assert!(a.values == b.values && a.verdicts == b.verdicts);
}

/// Reading game records is one `reading` phase with a step per byte of input.
#[test]
fn reading_reports_every_byte() {
    let dir = tempfile::tempdir().unwrap();
    let mut total = 0;
    let mut paths = Vec::new();
    for (k, text) in [
        xqdb::book::DEFAULT_OPENINGS,
        "[Result \"*\"]\n\n1. h2e2 *\n",
    ]
    .iter()
    .enumerate()
    {
        let p = dir.path().join(format!("{k}.pgn"));
        std::fs::write(&p, text).unwrap();
        total += text.len() as u64;
        paths.push(p);
    }
    let log = Log::default();
    let st = xqdb::records::export::read_reporting(&paths, |_, _| {}, &log).unwrap();
    assert_eq!(st.bytes, total);
    let ph = phases(&log.0.into_inner().unwrap());
    assert_eq!(ph.len(), 1);
    let (job, phase, steps, done, _) = &ph[0];
    assert_eq!((job.as_str(), phase.as_str()), ("", "reading"));
    assert_eq!((*steps, *done), (total, total));
    // a book built from the same files reports the same phase
    let log = Log::default();
    let out = dir.path().join("b.xqb");
    let b = xqdb::book::build_files(&paths, &out, &Default::default(), &log).unwrap();
    assert!(b.summary.positions > 0 && b.bytes == std::fs::metadata(&out).unwrap().len());
    let ph = phases(&log.0.into_inner().unwrap());
    assert_eq!((ph.len(), ph[0].2, ph[0].3), (1, total, total));
    // and refuses to overwrite one of them
    let e = xqdb::book::build_files(
        &paths,
        &paths[0],
        &Default::default(),
        &xqdb::progress::Silent,
    )
    .unwrap_err();
    assert!(e.to_string().contains("the output is also an input"), "{e}");
}
