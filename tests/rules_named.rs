//! Xiangqi's repetition rules (rule set 1, ../shared/reference/rules.md), one test per rule,
//! each on a real position whose table value shows it. The positions were found by
//! searching the generated tables; each comment says why the position shows its rule. The
//! tables are checked through the probing API (files written to a temporary folder), the
//! cycles against the project's cycle judge (`board::rules::judge_cycle`).

mod common;

use common::temp_dir;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use tempfile::TempDir;
use xqdb::board::rules::{judge_cycle, new_attacks, CycleVerdict, RuleSet, Violation};
use xqdb::board::{Color, Move, Position, Role, Square};
use xqdb::tablebase::generate::GenOptions;
use xqdb::tablebase::pipeline::{generate_set, Existing};
use xqdb::tablebase::values::{Ruling, Verdict, Wdl};
use xqdb::tablebase::Tablebases;

/// Table files in a temporary folder (removed with it) and their prober.
type Set = (TempDir, Tablebases);
type Tables = Arc<Set>;
/// The sets alive now, by material name and rule set.
type Cache = Mutex<HashMap<(String, RuleSet), Weak<Set>>>;

/// The tables of `material` (and what it captures into) under `rules`, generated once for the
/// tests that hold them at the same time. The cache keeps only a weak reference: a static is
/// never dropped, so a strong one would leave the folder behind after the run; when the last
/// test holding the tables ends, the folder goes with them.
fn tables(material: &str, rules: RuleSet) -> Tables {
    static SETS: OnceLock<Cache> = OnceLock::new();
    let mut sets = SETS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let key = (material.to_string(), rules);
    if let Some(t) = sets.get(&key).and_then(Weak::upgrade) {
        return t;
    }
    let dir = temp_dir("rules-named");
    let opts = GenOptions {
        rules,
        ..GenOptions::default()
    };
    let m = material.parse().expect("material name");
    generate_set(&[m], dir.path(), opts, Existing::Keep, |_| {}).expect("generation");
    let tb = Tablebases::open(dir.path());
    let t = Arc::new((dir, tb));
    sets.insert(key, Arc::downgrade(&t));
    t
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).expect("test FEN")
}

fn moves(list: &[&str]) -> Vec<Move> {
    list.iter().map(|m| m.parse().expect("test move")).collect()
}

/// Play `cycle` from `start` (it must come back to `start`) and rule it; every position on
/// the way is handed to `each`.
fn round(start: &Position, cycle: &[Move], mut each: impl FnMut(&Position)) -> CycleVerdict {
    let mut p = start.clone();
    for &m in cycle {
        assert!(p.is_legal(m), "{m} in {}", p.to_fen());
        assert!(p.piece_at(m.to()).is_none(), "{m} captures");
        p.play(m);
        each(&p);
    }
    assert_eq!(p.key(), start.key(), "the cycle does not come back");
    judge_cycle(&p, cycle)
}

fn verdict(tb: &Tablebases, p: &Position) -> Verdict {
    tb.probe_verdict(p).expect("probe")
}

/// KRKN, Black to move: `4k4/9/9/9/9/9/2n6/9/9/R2K5 b`. The horse can check for ever
/// (c3b1+ Kd0-d1 b1c3+ Kd1-d0); every Black move that gives no check loses outright (the
/// rook mates or wins the horse), so under rule set 0 the checks are Black's only drawing
/// resource and the position is a draw. Under rule set 1 that perpetual check loses: the
/// position is a ruling, lost for Black, and those checks are the moves the rules forbid
/// (the other check, c3e2, loses under either rule set).
#[test]
fn a_defender_whose_only_drawing_resource_is_perpetual_check_loses() {
    let p = pos("4k4/9/9/9/9/9/2n6/9/9/R2K5 b");
    let t0 = tables("KRKN", RuleSet::CyclesDraw);
    let t1 = tables("KRKN", RuleSet::CheckChase);
    let (tb0, tb1) = (&t0.1, &t1.1);
    assert_eq!(tb0.probe_wdl(&p).expect("probe"), Wdl::Draw);
    for m in p.legal_moves() {
        let c = p.after(m);
        let w0 = tb0.probe_wdl(&c).expect("probe");
        // without a check Black loses whatever the rules (Red wins the child)
        assert!(c.in_check() || w0 == Wdl::Win, "{m}: {w0:?}");
        // and every drawing move of rule set 0 is a check
        assert!(w0 != Wdl::Draw || c.in_check(), "{m}");
    }
    let v = verdict(tb1, &p);
    assert_eq!(
        (v.wdl, v.ruling, v.order),
        (Wdl::Loss, Some(Ruling::PerpetualCheck), 1)
    );
    assert_eq!(
        tb1.rule_behind(&p).expect("probe"),
        Some((Color::Black, Ruling::PerpetualCheck))
    );
    for o in tb1.best_moves(&p).expect("probe") {
        assert_eq!(o.wdl, Wdl::Loss, "{}", o.mv);
        // the rules forbid exactly the checks that kept the draw under rule set 0
        let w0 = tb0.probe_wdl(&p.after(o.mv)).expect("probe");
        assert_eq!(o.forbidden.is_some(), w0 == Wdl::Draw, "{}", o.mv);
    }
    let cycle = moves(&["c3b1", "d0d1", "b1c3", "d1d0"]);
    let verdict_of_cycle = round(&p, &cycle, |q| {
        let w = tb1.probe_wdl(q).expect("probe");
        // Red to move wins, Black to move is lost by the ruling
        let want = if q.turn() == Color::Red {
            Wdl::Win
        } else {
            Wdl::Loss
        };
        assert_eq!(w, want, "{}", q.to_fen());
    });
    assert_eq!(
        verdict_of_cycle,
        CycleVerdict::Loss {
            loser: Color::Black,
            violation: Violation::PerpetualCheck
        }
    );
}

/// The enemy pieces (not kings) the piece on `from` could legally capture in `pos`, whoever
/// is to move, each with whether its side could take back on its point.
fn attacked_by(pos: &Position, from: Square) -> Vec<(Square, bool)> {
    let mut p = pos.clone();
    let Some(piece) = p.piece_at(from) else {
        return Vec::new();
    };
    if p.turn() != piece.color {
        p.play_null();
    }
    p.capture_moves()
        .into_iter()
        .filter(|c| c.from() == from && p.piece_at(c.to()).is_some_and(|t| t.role != Role::King))
        .map(|c| {
            let after = p.after(c);
            let protected = after.capture_moves().iter().any(|r| r.to() == c.to());
            (c.to(), protected)
        })
        .collect()
}

/// KRKNP, Red to move: `3k5/9/9/9/9/9/3p5/6n2/3K5/4R4 w`. The black pawn on d3 and the horse
/// threaten the red king, and Red's one move that does not lose outright is Re0-e2, which
/// attacks the horse on g2 along the second rank; the horse escapes (g2f0), the rook
/// follows (e2e0, attacking f0 along the back rank), the horse goes back (f0g2): every Red
/// move attacks the unprotected horse anew after it escaped, a perpetual chase, and the
/// position is a ruling lost for Red (rule set 0 would call it a draw). The smallest
/// tables with a ruling for chasing a horse are of this size (none up to two pieces besides
/// the kings, nor with an advisor or elephant), so the table part is a deep check; the
/// cycle itself is judged in every run.
const KRKNP_CHASE: &str = "3k5/9/9/9/9/9/3p5/6n2/3K5/4R4 w";
const KRKNP_CYCLE: [&str; 4] = ["e0e2", "g2f0", "e2e0", "f0g2"];

/// Round the KRKNP cycle, checking that every rook move attacks the unprotected horse
/// (and handing each position to `each`); the judge's verdict.
fn krknp_cycle(mut each: impl FnMut(&Position)) -> CycleVerdict {
    let mut attacked = 0;
    let ruled = round(&pos(KRKNP_CHASE), &moves(&KRKNP_CYCLE), |q| {
        if q.turn() == Color::Black {
            let rook = q.pieces(Color::Red, Role::Rook).first().expect("rook");
            let horse = q.pieces(Color::Black, Role::Horse).first().expect("horse");
            assert_eq!(attacked_by(q, rook), vec![(horse, false)], "{}", q.to_fen());
            attacked += 1;
        }
        each(q);
    });
    assert_eq!(attacked, 2);
    ruled
}

#[test]
fn perpetual_chase_of_an_unprotected_horse_loses() {
    assert_eq!(
        krknp_cycle(|_| {}),
        CycleVerdict::Loss {
            loser: Color::Red,
            violation: Violation::PerpetualChase
        }
    );
}

#[test]
#[ignore = "generates KRKNP (32.7 million positions a side): about 40 s of CPU"]
fn perpetual_chase_of_an_unprotected_horse_loses_in_the_tables() {
    let p = pos(KRKNP_CHASE);
    let t = tables("KRKNP", RuleSet::CheckChase);
    let tb = &t.1;
    let v = verdict(tb, &p);
    assert_eq!(
        (v.wdl, v.ruling, v.order),
        (Wdl::Loss, Some(Ruling::PerpetualChase), 1)
    );
    assert_eq!(
        tb.rule_behind(&p).expect("probe"),
        Some((Color::Red, Ruling::PerpetualChase))
    );
    for o in tb.best_moves(&p).expect("probe") {
        assert_eq!(o.wdl, Wdl::Loss, "{}", o.mv);
        if o.forbidden.is_some() {
            // the one move that kept the draw: the rook's attack on the horse
            assert_eq!(o.mv.to_string(), KRKNP_CYCLE[0]);
            assert!(o.after.rests_on_rule());
        } else {
            // every other move loses under either rule set (decided in round 0)
            assert_eq!(o.after.order, 0, "{}", o.mv);
        }
    }
    let ruled = krknp_cycle(|q| {
        let v = verdict(tb, q);
        // Black to move wins (by the rule), Red to move is lost
        let want = if q.turn() == Color::Black {
            Wdl::Win
        } else {
            Wdl::Loss
        };
        assert_eq!(v.wdl, want, "{}", q.to_fen());
        assert!(v.rests_on_rule(), "{}", q.to_fen());
    });
    assert_eq!(
        ruled,
        CycleVerdict::Loss {
            loser: Color::Red,
            violation: Violation::PerpetualChase
        }
    );
}

/// Kings: KPAKP (Red: king, advisor, pawn; Black: king, pawn), Black to move:
/// `9/5P3/4k4/9/9/9/9/9/4p4/3K1A3 b`. Black's only moves that do not lose are attacks by
/// its king on the red pawn (which has crossed the river and is unprotected) and by its
/// pawn on the unprotected advisor: Ke7-f7 attacks the pawn on f8, it steps aside to e8,
/// Kf7-e7 attacks it again, it steps back to f8.
/// Were a king to chase, Black would be the perpetual chaser and lose; kings never chase,
/// so the table calls the position a draw and the cycle is drawn.
///
/// Pawns: no table up to three pieces besides the kings has a position whose only drawing
/// resource is a pawn's attacks (searched: every two-sided ending with pawns and an
/// advisor or elephant, KNKPP, KRKNP), so the pawn is shown on a hand-made cycle:
/// `3k5/9/9/9/9/9/9/4K4/5p3/5R3 w`, the red rook steps f0-g0-f0 and the black pawn follows
/// it along the first rank, attacking it with every move (f1 takes f0, g1 takes g0); the
/// cycle judge rules it a draw.
#[test]
fn pawns_and_kings_never_chase() {
    let p = pos("9/5P3/4k4/9/9/9/9/9/4p4/3K1A3 b");
    let t = tables("KPAKP", RuleSet::CheckChase);
    let tb = &t.1;
    assert_eq!(verdict(tb, &p), Verdict::plain(Wdl::Draw));
    let mut drawing = 0;
    for m in p.legal_moves() {
        let c = p.after(m);
        if tb.probe_wdl(&c).expect("probe") == Wdl::Win {
            continue;
        }
        // every move that does not lose is a king or pawn move that attacks an unprotected
        // piece: the king's attack the red pawn, the pawn's the advisor on f0
        drawing += 1;
        let role = p.piece_at(m.from()).map(|x| x.role);
        assert!(matches!(role, Some(Role::King | Role::Pawn)), "{m}");
        let target = if role == Some(Role::King) {
            Role::Pawn
        } else {
            Role::Advisor
        };
        let hits = attacked_by(&c, m.to());
        let unprotected =
            |&(s, prot): &(Square, bool)| !prot && c.piece_at(s).is_some_and(|x| x.role == target);
        assert!(hits.iter().any(unprotected), "{m}: {hits:?}");
        // none of which the rules count as a chase
        assert!(new_attacks(&p, m).is_empty(), "{m}");
    }
    assert!(drawing > 0);
    let cycle = moves(&["e7f7", "f8e8", "f7e7", "e8f8"]);
    let ruled = round(&p, &cycle, |q| {
        assert_eq!(verdict(tb, q), Verdict::plain(Wdl::Draw), "{}", q.to_fen());
    });
    assert_eq!(ruled, CycleVerdict::Draw);

    let q = pos("3k5/9/9/9/9/9/9/4K4/5p3/5R3 w");
    let cycle = moves(&["f0g0", "f1g1", "g0f0", "g1f1"]);
    let mut attacks = 0;
    let ruled = round(&q, &cycle, |r| {
        if r.turn() == Color::Red {
            // after each pawn move the pawn attacks the unprotected rook
            let pawn = r.pieces(Color::Black, Role::Pawn).first().expect("pawn");
            let hits = attacked_by(r, pawn);
            assert!(hits
                .iter()
                .any(|&(s, prot)| !prot && r.piece_at(s).is_some_and(|x| x.role == Role::Rook)));
            attacks += 1;
        }
    });
    assert_eq!(attacks, 2);
    assert_eq!(ruled, CycleVerdict::Draw);
}

/// No table up to three pieces besides the kings has a mutual perpetual check: a cycle of
/// checks needs each side to escape check with a move that gives check. Searched: every
/// position of KRKR, KCKC, KRKC, KNKN, KRKN, KCKN (cycles up to 8 plies), of the two-sided
/// endings with one advisor and of KRNKR (4 plies), 20 million random positions each of
/// KRCKR, KRCKC, KCNKC, KCCKC, KCNKN, KRCKN, KCCKR, KRNKC, KRNKN (4 plies), and the drawn
/// positions in check of KRNKR, KRKNP, KRKNN (any length): no such cycle. With two
/// attackers a side (KRCKRC, KCNKCN) there are, so the rule is shown on a position of
/// KCNKCN found by that search, with the cycle judge:
/// `9/9/3k5/9/9/2n6/9/c1N1K4/9/3C5 w`. Red is in check from the cannon on a2 (screen: the
/// horse on c2). Nc2-d4 breaks that screen and becomes the screen of the red cannon on d0
/// against the king on d7: check. Nc4-d2 puts a second piece on the d-file (no more check)
/// and becomes the a2 cannon's screen against e2: check. Nd4-c2 leaves the d-file to the
/// black horse, now the d0 cannon's screen against d7 (check), and doubles the screen on
/// rank 2. Nd2-c4 leaves both lines: the c2 horse screens a2 against e2 again (check), and
/// the start position is back. Each move escapes a check and gives one.
#[test]
fn mutual_perpetual_check_is_a_draw() {
    let p = pos("9/9/3k5/9/9/2n6/9/c1N1K4/9/3C5 w");
    assert!(p.in_check());
    let cycle = moves(&["c2d4", "c4d2", "d4c2", "d2c4"]);
    let mut checks = 0;
    let ruled = round(&p, &cycle, |q| {
        assert!(q.in_check(), "{}", q.to_fen());
        checks += 1;
    });
    assert_eq!(checks, 4);
    assert_eq!(ruled, CycleVerdict::Draw);
    // one side's checks alone would lose (see the first test): the same judge on the
    // KRKN cycle
    let krkn = pos("4k4/9/9/9/9/9/2n6/9/9/R2K5 b");
    let one_sided = round(&krkn, &moves(&["c3b1", "d0d1", "b1c3", "d1d0"]), |_| {});
    assert_eq!(
        one_sided,
        CycleVerdict::Loss {
            loser: Color::Black,
            violation: Violation::PerpetualCheck
        }
    );
}

/// A horse's attack on a rook counts even when the rook is protected (a horse for a rook
/// is a gain). No table up to three pieces besides the kings has a position whose only
/// drawing resource is such a chase (the chase rulings of KRKNN are all against an
/// unprotected rook; KRAKN, KRBKN, KRPKN, KRKNP and KRNKR have none by a horse), so the rule
/// is shown with the cycle judge on a position of KRAKN found by searching for it:
/// `9/5k3/9/9/9/9/5n3/9/9/3KRA3 b`. The horse goes f3-g1 attacking the rook on e0
/// (protected by the king on d0), the rook steps to e1 (protected by the advisor), the
/// horse goes back to f3 attacking it again, the rook returns to e0: Black chases the
/// rook with every move and loses.
#[test]
fn a_rook_chased_by_a_horse_loses_it_even_when_protected() {
    let p = pos("9/5k3/9/9/9/9/5n3/9/9/3KRA3 b");
    let cycle = moves(&["f3g1", "e0e1", "g1f3", "e1e0"]);
    let mut attacked = 0;
    let ruled = round(&p, &cycle, |q| {
        if q.turn() == Color::Red {
            // after each horse move: it attacks the rook, which is protected
            let rook = q.pieces(Color::Red, Role::Rook).first().expect("rook");
            let horse = q.pieces(Color::Black, Role::Horse).first().expect("horse");
            assert_eq!(attacked_by(q, horse), vec![(rook, true)], "{}", q.to_fen());
            attacked += 1;
        }
    });
    assert_eq!(attacked, 2);
    assert_eq!(
        ruled,
        CycleVerdict::Loss {
            loser: Color::Black,
            violation: Violation::PerpetualChase
        }
    );
}

/// Attacking a protected horse is no chase. No table up to three pieces besides the kings
/// has a position whose only drawing resource is chasing a protected horse (searched:
/// KRKN, KCKN, KRKNA, KCKNA, KRKNB, KCKNB, KRKNP, KRNKR; in KRNKR, 1063 drawn positions have
/// only rook attacks on a protected horse as drawing moves, but in none of them does the
/// horse have to run and be attacked again), so the rule is shown with the cycle judge on
/// a hand-made pair. `5k3/9/9/9/2n4R1/2r6/9/9/9/3K5 b`: the horse on c5, attacked by the
/// rook on h5, goes to e4; the rook follows to h4 and attacks it along the fourth rank; the
/// horse goes back to c5, the rook back to h5. Every Red move attacks the horse anew after
/// it escaped, but on both points the black rook on c4 protects it: no chase, a draw.
/// Without that rook (`5k3/9/9/9/2n4R1/9/9/9/9/3K5 b`, the same moves) the horse is
/// unprotected and Red, the perpetual chaser, loses.
#[test]
fn chasing_a_protected_horse_is_allowed() {
    let cycle = moves(&["c5e4", "h5h4", "e4c5", "h4h5"]);
    for (fen, protected) in [
        ("5k3/9/9/9/2n4R1/2r6/9/9/9/3K5 b", true),
        ("5k3/9/9/9/2n4R1/9/9/9/9/3K5 b", false),
    ] {
        let p = pos(fen);
        let mut attacked = 0;
        let ruled = round(&p, &cycle, |q| {
            if q.turn() == Color::Black {
                // after each rook move: it attacks the horse
                let rook = q.pieces(Color::Red, Role::Rook).first().expect("rook");
                let horse = q.pieces(Color::Black, Role::Horse).first().expect("horse");
                let hits = attacked_by(q, rook);
                assert!(
                    hits.contains(&(horse, protected)),
                    "{}: {hits:?}",
                    q.to_fen()
                );
                attacked += 1;
            }
        });
        assert_eq!(attacked, 2);
        let want = if protected {
            CycleVerdict::Draw
        } else {
            CycleVerdict::Loss {
                loser: Color::Red,
                violation: Violation::PerpetualChase,
            }
        };
        assert_eq!(ruled, want, "{fen}");
    }
}
