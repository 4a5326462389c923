//! Lazy SMP: the shared transposition table under concurrent use, and searches on several
//! threads, through the library and through the engine's protocol.

mod common;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use xqdb::board::{Move, Position};
use xqdb::engine::score::MATE;
use xqdb::engine::smp::{self, Job};
use xqdb::engine::tt::{Bound, Tt};
use xqdb::engine::Limits;

/// Black's king on d9, boxed in by the rook on b8 and the facing kings: a0a9 and a0d0 mate,
/// and a0b0 (like any quiet rook move that keeps b8 and the open e-file) leaves Black without
/// a legal move, which loses in Xiangqi just the same: every such move wins at once.
const MATE_IN_ONE: &str = "3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1";

#[test]
fn threads_find_the_mate_in_one() {
    let pos = Position::from_fen(MATE_IN_ONE).unwrap();
    let mates = |m: Move| {
        let mut p = pos.clone();
        p.play(m);
        p.legal_moves().is_empty()
    };
    for threads in [1, 2, 4] {
        let tt = Tt::new(4);
        let stop = AtomicBool::new(false);
        let job = Job {
            pos: &pos,
            history: &[],
            tt: &tt,
            tb: None,
            stop: &stop,
            limits: Limits {
                depth: Some(5),
                ..Limits::default()
            },
            banned: Vec::new(),
            memory: None,
        };
        let out = smp::search(job, threads, |_| {});
        let best = out.best.expect("a move");
        assert!(mates(best), "{threads} threads: {best}");
        let info = out.info.expect("a finished iteration");
        assert_eq!(info.score.0, MATE - 1, "{threads} threads");
        assert!(out.nodes >= info.nodes, "{threads} threads");
    }
}

/// Four threads write and read the same few slots at once; every entry read back must be
/// one some thread wrote for that key (a torn slot must read as a miss, never as another
/// key's data).
#[test]
fn concurrent_writers_never_give_another_keys_entry() {
    let tt = Tt::new(1);
    tt.new_search();
    let moves: Vec<Move> = [
        "a0a1", "b0c2", "h2e2", "e3e4", "c0e2", "d0e1", "i0i1", "g3g4",
    ]
    .iter()
    .map(|m| m.parse().unwrap())
    .collect();
    // the entry a key must carry: its move, score and depth follow from the key
    let entry = |key: u64| {
        (
            moves[(key % 8) as usize],
            (key % 1000) as i32 - 500,
            (key % 60) as i32,
        )
    };
    // keys that collide on purpose: a 1 MiB table has 65,536 slots, picked by the top bits
    let keys: Vec<u64> = (0..64u64)
        .map(|i| (i % 4) << 60 | i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 8)
        .collect();
    std::thread::scope(|s| {
        for t in 0..4usize {
            let (tt, keys, entry) = (&tt, &keys, &entry);
            s.spawn(move || {
                let mut hits = 0u32;
                for round in 0..20_000usize {
                    let key = keys[(round * 7 + t * 13) % keys.len()];
                    let (mv, score, depth) = entry(key);
                    tt.store(key, 0, Some(mv), score, depth, Bound::Exact);
                    let probe = keys[(round * 5 + t) % keys.len()];
                    if let Some(h) = tt.probe(probe, 0) {
                        hits += 1;
                        let (mv, score, depth) = entry(probe);
                        assert_eq!((h.mv, h.score, h.depth), (Some(mv), score, depth));
                    }
                }
                assert!(hits > 0, "thread {t} never found an entry");
            });
        }
    });
}

#[test]
fn the_threads_option_searches_on_two_threads() {
    let dir = common::temp_dir("smp");
    let mut child = Command::new(common::bin())
        .arg("engine")
        .env("XQDB_HOME", dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        "uci\nsetoption name Threads value 2\nsetoption name UseBook value false\n\
         setoption name UseTablebase value false\n\
         position fen {MATE_IN_ONE}\ngo depth 5"
    )
    .unwrap();
    // `quit` only once the search has answered: a quit during the search ends it unanswered
    let mut lines = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok)
    {
        let done = line.starts_with("bestmove");
        lines.push(line);
        if done {
            break;
        }
    }
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert!(
        lines
            .iter()
            .any(|l| l == "option name Threads type spin default 1 min 1 max 64"),
        "{lines:?}"
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("info string")),
        "{lines:?}"
    );
    // any move after which Black has no legal move wins at once (mate or no move at all)
    let pos = Position::from_fen(MATE_IN_ONE).unwrap();
    let wins: Vec<String> = pos
        .legal_moves()
        .iter()
        .filter(|&&m| {
            let mut p = pos.clone();
            p.play(m);
            p.legal_moves().is_empty()
        })
        .map(|m| format!("bestmove {m}"))
        .collect();
    assert!(wins.len() >= 3, "{wins:?}");
    assert!(lines.iter().any(|l| wins.contains(l)), "{lines:?}");
}
