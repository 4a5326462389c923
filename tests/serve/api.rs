//! The JSON API against the library's own answers.

use super::{api_target, enc, fixture, get, krkn_positions, request, server, test_limits};
use serde_json::Value;
use std::collections::BTreeSet;
use xqdb::board::notation::to_chinese;
use xqdb::board::{Move, Position};
use xqdb::book::Book;
use xqdb::tablebase::values::{Ruling, Verdict};
use xqdb::tablebase::{Tablebases, Wdl};

fn category(v: Verdict) -> &'static str {
    match (v.wdl, v.order > 0) {
        (Wdl::Win, false) => "win",
        (Wdl::Win, true) => "win-by-rule",
        (Wdl::Loss, false) => "loss",
        (Wdl::Loss, true) => "loss-by-rule",
        (Wdl::Draw, _) => "draw",
    }
}

fn signed_dtm(tb: &Tablebases, p: &Position) -> Value {
    match tb.probe_dtm(p).unwrap() {
        (Wdl::Win, Some(d)) => Value::from(d as i64),
        (Wdl::Loss, Some(d)) => Value::from(-(d as i64)),
        _ => Value::Null,
    }
}

/// The signed DTC the API should give: the fixture has DTC files, so every decided position
/// has one.
fn signed_dtc(tb: &Tablebases, p: &Position) -> Value {
    match (tb.probe_wdl(p).unwrap(), tb.probe_dtc(p).unwrap()) {
        (Wdl::Win, Some(d)) => Value::from(d as i64),
        (Wdl::Loss, Some(d)) => Value::from(-(d as i64)),
        _ => Value::Null,
    }
}

fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object().unwrap().keys().map(|k| k.as_str()).collect()
}

/// How good a move is for its mover, from the after-position's category and dtm (opponent's
/// view): smaller is better. Fastest wins, then draws, then the slowest losses.
fn goodness(m: &Value) -> (i64, i64) {
    let dtm = m["dtm"].as_i64();
    match m["category"].as_str().unwrap() {
        "loss" | "loss-by-rule" => (0, dtm.unwrap().abs()),
        "draw" => (1, 0),
        _ => (2, -dtm.unwrap().abs()),
    }
}

/// Every field of /api/tablebase checked against direct probes of the library.
fn check_tablebase(addr: std::net::SocketAddr, tb: &Tablebases, pos: &Position) {
    let fen = pos.to_fen();
    let r = get(addr, &api_target("tablebase", &fen));
    assert_eq!(r.status, 200, "{fen}: {}", r.body);
    assert_eq!(r.header("content-type"), "application/json");
    let v = r.json();
    assert_eq!(
        keys(&v),
        BTreeSet::from([
            "category",
            "dtm",
            "dtc",
            "rule",
            "rules",
            "checkmate",
            "stalemate",
            "moves"
        ])
    );
    let verdict = tb.probe_verdict(pos).unwrap();
    assert_eq!(v["category"], category(verdict), "{fen}");
    assert_eq!(v["dtm"], signed_dtm(tb, pos), "{fen}");
    assert_eq!(v["dtc"], signed_dtc(tb, pos), "{fen}");
    assert_eq!(v["rules"], "check-chase");
    // the rule: the library's answer where it has one, else some rule for a rule verdict
    let want = |rule: Ruling| match rule {
        Ruling::PerpetualCheck => "perpetual-check",
        Ruling::PerpetualChase => "perpetual-chase",
    };
    match tb.rule_behind(pos).unwrap() {
        Some((c, rule)) => {
            assert_eq!(v["rule"]["violator"], c.name().to_lowercase(), "{fen}");
            assert_eq!(v["rule"]["violation"], want(rule), "{fen}");
        }
        None if verdict.rests_on_rule() => {
            let r = &v["rule"];
            assert!(
                ["red", "black"].contains(&r["violator"].as_str().unwrap_or("")),
                "{fen}: {r}"
            );
            assert!(
                ["perpetual-check", "perpetual-chase"]
                    .contains(&r["violation"].as_str().unwrap_or("")),
                "{fen}: {r}"
            );
        }
        None => assert_eq!(v["rule"], Value::Null, "{fen}"),
    }
    let moves = v["moves"].as_array().unwrap();
    let legal: BTreeSet<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    let listed: BTreeSet<String> = moves
        .iter()
        .map(|m| m["uci"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed, legal, "{fen}: every legal move, once");
    assert_eq!(listed.len(), moves.len());
    for m in moves {
        assert_eq!(
            keys(m),
            BTreeSet::from([
                "uci",
                "iccs",
                "chinese",
                "category",
                "dtm",
                "dtc",
                "forbidden",
                "capture",
                "check",
                "checkmate",
                "stalemate"
            ])
        );
        let mv: Move = m["uci"].as_str().unwrap().parse().unwrap();
        let after = pos.after(mv);
        assert_eq!(m["category"], category(tb.probe_verdict(&after).unwrap()));
        assert_eq!(m["dtm"], signed_dtm(tb, &after), "{fen} {mv}");
        assert_eq!(m["dtc"], signed_dtc(tb, &after), "{fen} {mv}");
        assert_eq!(m["chinese"], to_chinese(pos, mv).unwrap());
        let iccs = m["iccs"].as_str().unwrap();
        assert_eq!(iccs.replace('-', "").to_lowercase(), mv.to_string());
        assert_eq!(m["capture"], pos.piece_at(mv.to()).is_some());
        assert_eq!(m["check"], after.in_check());
    }
    // best first for the mover (moves the rules forbid come last)
    let order: Vec<(bool, (i64, i64))> = moves
        .iter()
        .map(|m| (!m["forbidden"].is_null(), goodness(m)))
        .collect();
    assert!(order.windows(2).all(|w| w[0] <= w[1]), "{fen}: {order:?}");
    // the position's distance is one more than its best move's
    if let (Some(d), Some(best)) = (v["dtm"].as_i64(), moves.first()) {
        if d != 0 && best["forbidden"].is_null() && d > 0 {
            assert_eq!(best["dtm"].as_i64().unwrap().abs() + 1, d, "{fen}");
        }
    }
}

#[test]
fn tablebase_answers_agree_with_the_library_on_random_krkn_positions() {
    let f = fixture();
    let tb = Tablebases::open(&f.tables);
    let s = server(test_limits());
    let positions = krkn_positions(60, 23);
    let mut seen = BTreeSet::new();
    for p in &positions {
        check_tablebase(s.addr, &tb, p);
        seen.insert(category(tb.probe_verdict(p).unwrap()));
    }
    // the sample covers wins and losses for the side to move
    assert!(
        seen.contains("win") && seen.contains("loss"),
        "categories seen: {seen:?}"
    );
}

#[test]
fn a_verdict_that_rests_on_the_repetition_rules_is_marked_with_its_rule() {
    let f = fixture();
    let tb = Tablebases::open(&f.tables);
    // search KRKN for positions whose result exists only because of rule set 1
    let found: Vec<Position> = krkn_positions(40_000, 7)
        .into_iter()
        .filter(|p| tb.probe_verdict(p).unwrap().rests_on_rule())
        .take(3)
        .collect();
    assert!(
        !found.is_empty(),
        "no KRKN position in the sample rests on the repetition rules"
    );
    let s = server(test_limits());
    for p in &found {
        if tb.rule_behind(p).unwrap().is_none() {
            eprintln!(
                "note: rule_behind finds no ruling along the optimal line of {}",
                p.to_fen()
            );
        }
        check_tablebase(s.addr, &tb, p);
        let v = get(s.addr, &api_target("tablebase", &p.to_fen())).json();
        assert!(v["category"].as_str().unwrap().ends_with("-by-rule"), "{v}");
        assert!(v["rule"].is_object(), "{v}");
    }
}

#[test]
fn a_mated_side_has_a_loss_in_zero_and_no_moves() {
    let tb = Tablebases::open(&fixture().tables);
    let s = server(test_limits());
    // Black king d9 checked by the rook on the d-file, e9 is on the Red king's open file
    let fen = "3k5/9/9/9/3R5/9/9/9/9/n3K4 b";
    let pos = Position::from_fen(fen).unwrap();
    assert!(pos.in_check() && !pos.has_legal_move(), "{fen} is mate");
    check_tablebase(s.addr, &tb, &pos);
    let v = get(s.addr, &api_target("tablebase", fen)).json();
    assert_eq!(v["category"], "loss");
    assert_eq!(v["dtm"], 0);
    assert_eq!(v["checkmate"], true);
    assert_eq!(v["moves"].as_array().unwrap().len(), 0);
}

#[test]
fn position_lists_the_legal_moves_with_their_names_and_resulting_fens() {
    let s = server(test_limits());
    let pos = Position::startpos();
    let v = get(s.addr, "/api/position?fen=startpos").json();
    assert_eq!(v["fen"], pos.to_fen());
    assert_eq!(v["turn"], "red");
    assert_eq!(v["check"], false);
    assert_eq!(v["tablebase"], false);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), pos.legal_moves().len());
    for m in moves {
        let mv: Move = m["uci"].as_str().unwrap().parse().unwrap();
        assert_eq!(m["fen"], pos.after(mv).to_fen());
        assert_eq!(m["chinese"], to_chinese(&pos, mv).unwrap());
    }
    let krkn = &krkn_positions(1, 3)[0];
    let v = get(s.addr, &api_target("position", &krkn.to_fen())).json();
    assert_eq!(v["tablebase"], true);
    assert_eq!(v["material"].as_str().unwrap().len(), 4);
}

#[test]
fn book_answers_agree_with_the_book_file() {
    let f = fixture();
    let book = Book::open(&f.book).unwrap();
    let s = server(test_limits());
    let pos = Position::startpos();
    let v = get(s.addr, &api_target("book", &pos.to_fen())).json();
    let want = book.moves(&pos);
    assert!(!want.is_empty(), "the default book has the start position");
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), want.len());
    for (m, b) in moves.iter().zip(&want) {
        assert_eq!(m["uci"], b.mv.to_string());
        assert_eq!(m["chinese"], to_chinese(&pos, b.mv).unwrap());
        assert_eq!(m["games"], b.games);
        assert_eq!(m["wins"], b.wins);
        assert_eq!(m["draws"], b.draws);
        assert_eq!(m["losses"], b.losses);
        assert_eq!(m["weight"], b.weight);
        match b.score_percent() {
            None => assert_eq!(m["score"], Value::Null),
            Some(p) => assert!((m["score"].as_f64().unwrap() - p).abs() <= 0.05),
        }
    }
    let total: u64 = want.iter().map(|b| b.games as u64).sum();
    assert_eq!(v["games"], total);
    // a position not in the book: no moves, not an error
    let v = get(
        s.addr,
        &api_target("book", &krkn_positions(1, 5)[0].to_fen()),
    )
    .json();
    assert_eq!(v["moves"].as_array().unwrap().len(), 0);
    assert_eq!(v["games"], 0);
}

#[test]
fn bad_input_is_a_json_error_with_the_right_status() {
    let s = server(test_limits());
    let a = s.addr;
    let r = get(a, "/api/tablebase?fen=3k5/9/9");
    assert_eq!(r.status, 400);
    let e = r.error();
    assert!(e.starts_with("bad FEN") && e.contains("ranks"), "{e}");
    // kings facing: readable but illegal
    let r = get(a, &api_target("tablebase", "4k4/9/9/9/9/9/9/9/9/4K4 w"));
    assert_eq!(r.status, 400);
    assert!(r.error().contains("illegal"), "{}", r.body);
    let r = get(a, "/api/tablebase");
    assert_eq!(r.status, 400);
    assert!(r.error().contains("'fen'"));
    let r = get(a, &format!("/api/book?fen={}", "9%2F".repeat(80)));
    assert_eq!(r.status, 400);
    assert!(r.error().contains("at most"), "{}", r.body);
    let r = get(a, "/api/tablebase?fen=%FF%FE");
    assert_eq!(r.status, 400, "{}", r.body);
    r.error();
    // a legal position without a table
    let r = get(a, "/api/tablebase?fen=startpos");
    assert_eq!(r.status, 404);
    assert!(r.error().starts_with("no table for"), "{}", r.body);
    // bad analysis times
    for t in ["abc", "0", "-5", "1e3"] {
        let r = get(a, &format!("/api/analyse?fen=startpos&movetime={}", enc(t)));
        assert_eq!(r.status, 400, "movetime {t}: {}", r.body);
        assert!(r.error().contains("movetime"));
    }
    // routes and methods
    let r = get(a, "/api/nothing");
    assert_eq!(r.status, 404);
    r.error();
    let r = request(a, "POST", "/api/tablebase?fen=startpos");
    assert_eq!(r.status, 405);
    r.error();
}

#[test]
fn no_request_path_reaches_the_file_system() {
    let s = server(test_limits());
    for target in [
        "/../Cargo.toml",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/tables/KRKN.xqw",
        "/api/../../Cargo.toml",
        "/app.js/../../../etc/passwd",
        "/KRKN.xqw",
    ] {
        let r = get(s.addr, target);
        assert_eq!(r.status, 404, "{target}: {}", r.body);
        assert_eq!(r.error(), "no such page or API route", "{target}");
    }
}

#[test]
fn the_page_and_its_assets_are_served_from_the_binary_with_safe_headers() {
    let s = server(test_limits());
    let r = get(s.addr, "/");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), "text/html; charset=utf-8");
    assert!(r.body.contains("<svg id=\"board\""));
    let csp = r.header("content-security-policy");
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert_eq!(r.header("x-content-type-options"), "nosniff");
    for (path, ct) in [
        ("/app.js", "text/javascript; charset=utf-8"),
        ("/style.css", "text/css; charset=utf-8"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let r = get(s.addr, path);
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("content-type"), ct);
        assert!(!r.body.is_empty());
    }
    // the page loads nothing from elsewhere
    let page = get(s.addr, "/").body + &get(s.addr, "/app.js").body;
    assert!(!page.contains("https://"), "no external resource");
    let v = get(s.addr, "/api/info").json();
    assert!(v["tables"].as_array().unwrap().iter().any(|t| t == "KRKN"));
    assert_eq!(v["analysis"]["max_movetime"], 400);
    assert_eq!(
        get(s.addr, "/api/info").header("access-control-allow-origin"),
        "*"
    );
}
