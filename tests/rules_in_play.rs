//! The match runner and the engine's search rule a perpetual-check cycle as the tables do.
//!
//! The position: KRKN, Black to move, `4k4/9/9/9/9/9/2n6/9/9/R2K5 b`. Every Black move that
//! does not give check loses outright (mate in at most 12 plies, rule set 0 agrees); the two
//! checks keep the game going, and the horse can check for ever: c3b1+ Kd0-d1, b1c3+ Kd1-d0.
//! Under rule set 1 that perpetual check loses, and the tables say so: the position is a
//! ruling, lost for Black by perpetual check.

mod common;

use common::temp_dir;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use xqdb::arena::process::EngineSpec;
use xqdb::arena::{run_match, MatchConfig, Openings, TimeControl};
use xqdb::board::rules::{judge_cycle, CycleVerdict, Violation};
use xqdb::board::{Color, Move, Position};
use xqdb::engine::score::{MATE_BOUND, TB_WIN};
use xqdb::engine::tt::Tt;
use xqdb::engine::{Limits, Searcher};
use xqdb::records::GameResult;
use xqdb::tablebase::generate::GenOptions;
use xqdb::tablebase::pipeline::{generate_set, Existing};
use xqdb::tablebase::values::{Ruling, Wdl};
use xqdb::tablebase::Tablebases;

const START: &str = "4k4/9/9/9/9/9/2n6/9/9/R2K5 b - - 0 1";
const CYCLE: [&str; 4] = ["c3b1", "d0d1", "b1c3", "d1d0"];

fn cycle() -> Vec<Move> {
    CYCLE.iter().map(|m| m.parse().expect("move")).collect()
}

/// KRKN (and what it captures into) under rule set 1, as files in `dir`.
fn tables(dir: &Path) -> Tablebases {
    generate_set(
        &["KRKN".parse().expect("material")],
        dir,
        GenOptions::default(),
        Existing::Keep,
        |_| {},
    )
    .expect("generation");
    Tablebases::open(dir)
}

/// A UCI engine that answers every `go` with the move of `cycle` the game is at (the
/// number of moves since the start, modulo 4): both sides follow the cycle for ever.
fn cycler(dir: &Path, cycle: &[&str; 4]) -> EngineSpec {
    let path = dir.join("cycler.sh");
    let script = format!(
        "#!/bin/bash\ncycle=({})\nn=0\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo 'id name cycler'; echo uciok;;\n    isready) echo readyok;;\n    position*) n=0; seen=0; for w in $line; do [ $seen = 1 ] && n=$((n+1)); [ \"$w\" = moves ] && seen=1; done;;\n    go*) echo \"bestmove ${{cycle[$((n % 4))]}}\";;\n    quit) exit 0;;\n  esac\ndone\n",
        cycle.join(" ")
    );
    std::fs::write(&path, script).expect("script written");
    EngineSpec {
        cmd: "bash".into(),
        args: vec![path.display().to_string()],
        options: Vec::new(),
        protocol: None,
    }
}

#[test]
fn the_tables_rule_the_perpetual_checker_lost() {
    let dir = temp_dir("rules-play-tb");
    let tb = tables(dir.path());
    let start = Position::from_fen(START).expect("FEN");
    let v = tb.probe_verdict(&start).expect("probe");
    assert_eq!(v.wdl, Wdl::Loss);
    assert_eq!(v.ruling, Some(Ruling::PerpetualCheck));
    assert_eq!(
        tb.rule_behind(&start).expect("probe"),
        Some((Color::Black, Ruling::PerpetualCheck))
    );
    // round the cycle: Black to move is lost by the ruling, Red to move wins
    let mut p = start.clone();
    for m in cycle() {
        p.play(m);
        let w = tb.probe_wdl(&p).expect("probe");
        let want = if p.turn() == Color::Red {
            Wdl::Win
        } else {
            Wdl::Loss
        };
        assert_eq!(w, want, "{}", p.to_fen());
    }
    assert_eq!(p.key(), start.key());
    // the project's one cycle judge says the same
    assert_eq!(
        judge_cycle(&p, &cycle()),
        CycleVerdict::Loss {
            loser: Color::Black,
            violation: Violation::PerpetualCheck
        }
    );
}

/// A match of two games from `fen` between engines that play `cycle` round and round.
fn cycle_match(dir: &Path, fen: &str, cycle: &[&str; 4]) -> MatchConfig {
    let engine = cycler(dir, cycle);
    MatchConfig {
        engines: [engine.clone(), engine],
        tc: TimeControl::Nodes(100),
        games: 2,
        openings: Openings::Fens(vec![fen.into()]),
        concurrency: 1,
        seed: 1,
        tables: None,
        max_plies: 200,
        natural_limit: xqdb::arena::NATURAL_LIMIT,
    }
}

#[test]
fn the_match_runner_rules_the_perpetual_check_as_the_tables_do() {
    let dir = temp_dir("rules-play-match");
    let cfg = cycle_match(dir.path(), START, &CYCLE);
    let games = run_match(&cfg, |_, _| {}).expect("match");
    assert_eq!(games.len(), 2);
    for g in &games {
        // the position after c3b1 is the first to stand a third time (after plies 1, 5, 9)
        assert_eq!(g.termination, "perpetual check", "{:?}", g.moves);
        assert_eq!(g.result, Some(GameResult::RedWins));
        assert_eq!(g.moves.len(), 9);
        assert!(g
            .moves
            .iter()
            .zip(cycle().iter().cycle())
            .all(|(a, b)| a == b));
    }
    // with the tables to adjudicate, the game ends at once with the same result
    let tb_dir = dir.path().join("tables");
    tables(&tb_dir);
    let cfg = MatchConfig {
        tables: Some(tb_dir),
        ..cfg
    };
    for g in run_match(&cfg, |_, _| {}).expect("match") {
        assert_eq!(g.termination, "tablebase");
        assert_eq!(g.result, Some(GameResult::RedWins));
        assert!(g.moves.is_empty());
    }
}

/// Both sides check with every move (KCNKCN, see `mutual_perpetual_check_is_a_draw` in
/// tests/rules_named.rs): the runner draws the game by repetition.
#[test]
fn the_match_runner_draws_a_mutual_perpetual_check() {
    let dir = temp_dir("rules-play-mutual");
    let fen = "9/9/3k5/9/9/2n6/9/c1N1K4/9/3C5 w - - 0 1";
    let cfg = cycle_match(dir.path(), fen, &["c2d4", "c4d2", "d4c2", "d2c4"]);
    for g in run_match(&cfg, |_, _| {}).expect("match") {
        assert_eq!(g.termination, "repetition", "{:?}", g.moves);
        assert_eq!(g.result, Some(GameResult::Draw));
        assert_eq!(g.moves.len(), 9);
    }
}

/// Search `pos` reached through `history` (keys and moves, oldest first) with every root
/// move but `only` banned (when given): the score and best move.
fn search(pos: &Position, history: &[(u64, Move)], only: Option<Move>) -> (i32, Option<Move>) {
    let tt = Tt::new(16);
    let stop = AtomicBool::new(false);
    let limits = Limits {
        depth: Some(10),
        ..Limits::default()
    };
    let banned = match only {
        Some(m) => pos.legal_moves().into_iter().filter(|&x| x != m).collect(),
        None => Vec::new(),
    };
    let mut s = Searcher::new(pos, history, &tt, None, &stop, limits, banned);
    let (best, info) = s.run(|_| {});
    (info.expect("a completed iteration").score.0, best)
}

#[test]
fn the_search_scores_the_perpetual_check_as_a_loss_for_the_checker() {
    let start = Position::from_fen(START).expect("FEN");
    // the cycle has been played once: the start position stands for the second time
    let mut history = Vec::new();
    let mut p = start.clone();
    for m in cycle() {
        history.push((p.key(), m));
        p.play(m);
    }
    let lost = -(TB_WIN - 1000);
    // Black checking again: Red answers Kd0-d1 and the position repeats with Black to move,
    // a perpetual check by Black, lost for Black
    let (score, _) = search(&p, &history, Some(cycle()[0]));
    assert!(score < lost, "the perpetual check scored {score} for Black");
    // left to itself, Black's search avoids the perpetual: it plays a move that gives no
    // check (lost too, say the tables, but slower than its horizon), unless it sees that
    // everything loses
    let (score, best) = search(&p, &history, None);
    let best = best.expect("a legal move");
    assert!(
        !p.after(best).in_check() || score < lost,
        "Black scores {score} with the check {best}"
    );
    // Red, checked once more, sees the win: going on with the cycle makes Black the
    // perpetual checker (or it mates sooner)
    history.push((p.key(), cycle()[0]));
    p.play(cycle()[0]);
    let (score, best) = search(&p, &history, None);
    assert!(score > TB_WIN - 1000, "Red scores {score} with {best:?}");
    if score < MATE_BOUND {
        // a win by the rule, not a mate it has seen: by going round the cycle
        assert_eq!(best, Some(cycle()[1]), "Red scores {score}");
    }
}
