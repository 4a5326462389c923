//! Analysis streams and the limits that make the server safe to expose: time cap,
//! concurrent analyses, request head size and read time, connections, graceful shutdown.

use super::{api_target, fixture, get, server, test_limits};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::Duration;
use xqdb::board::{Move, Position};
use xqdb::serve::Limits;

/// The events of a server-sent event stream: (name, JSON data).
fn events(body: &str) -> Vec<(String, Value)> {
    body.split("\n\n")
        .filter_map(|block| {
            let mut name = None;
            let mut data = String::new();
            for line in block.lines() {
                if let Some(n) = line.strip_prefix("event:") {
                    name = Some(n.trim().to_string());
                } else if let Some(d) = line.strip_prefix("data:") {
                    data.push_str(d.trim());
                }
            }
            Some((
                name?,
                serde_json::from_str(&data).expect("event data is JSON"),
            ))
        })
        .collect()
}

/// Decode a chunked HTTP/1.1 body.
fn dechunk(mut raw: &[u8]) -> String {
    let mut out = Vec::new();
    while let Some(eol) = raw.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&raw[..eol]).unwrap().trim();
        let n = usize::from_str_radix(size, 16).expect("chunk size");
        if n == 0 {
            break;
        }
        out.extend_from_slice(&raw[eol + 2..eol + 2 + n]);
        raw = &raw[eol + 2 + n + 2..];
    }
    String::from_utf8(out).unwrap()
}

/// Send a GET over a raw connection and read up to the end of the response head.
fn open(addr: SocketAddr, target: &str) -> (TcpStream, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if s.read(&mut b).unwrap() == 0 {
            break;
        }
        head.push(b[0]);
    }
    (s, String::from_utf8(head).unwrap())
}

/// The rest of a chunked response, to the end of the connection.
fn rest(mut s: TcpStream) -> String {
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    dechunk(&raw)
}

#[test]
fn analysis_streams_lines_and_a_best_move_within_the_time_cap() {
    let s = server(test_limits());
    let pos = Position::startpos();
    let r = get(s.addr, "/api/analyse?fen=startpos&movetime=999999");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), "text/event-stream");
    let ev = events(&r.body);
    assert_eq!(ev[0].0, "start");
    assert_eq!(
        ev[0].1["movetime"], 400,
        "the time asked for is cut to the cap"
    );
    let infos: Vec<&Value> = ev
        .iter()
        .filter(|(n, _)| n == "info")
        .map(|(_, d)| d)
        .collect();
    assert!(!infos.is_empty(), "{}", r.body);
    let depths: Vec<i64> = infos.iter().map(|i| i["depth"].as_i64().unwrap()).collect();
    assert!(depths.windows(2).all(|w| w[0] < w[1]), "{depths:?}");
    for i in &infos {
        // every line is a legal sequence, named in all three notations
        let mut p = pos.clone();
        let pv = i["pv"].as_array().unwrap();
        assert_eq!(pv.len(), i["pv_iccs"].as_array().unwrap().len());
        assert!(
            i["score"]["cp"].is_i64() || i["score"]["mate"].is_i64(),
            "{i}"
        );
        for m in pv {
            let m: Move = m.as_str().unwrap().parse().unwrap();
            assert!(p.is_legal(m), "{i}");
            p.play(m);
        }
    }
    let (name, best) = ev.last().unwrap();
    assert_eq!(name, "bestmove");
    let m: Move = best["uci"].as_str().unwrap().parse().unwrap();
    assert!(pos.is_legal(m));
    assert_eq!(infos.last().unwrap()["pv"][0], best["uci"]);
    // a position without a legal move: a null best move
    let r = get(
        s.addr,
        &api_target("analyse", "3k5/9/9/9/3R5/9/9/9/9/n3K4 b"),
    );
    let ev = events(&r.body);
    assert_eq!(ev.last().unwrap().0, "bestmove");
    assert_eq!(ev.last().unwrap().1["uci"], Value::Null);
}

#[test]
fn analyses_beyond_the_cap_get_503_and_a_client_that_leaves_frees_its_slot() {
    let s = server(Limits {
        max_analyses: 1,
        max_movetime: Duration::from_secs(120),
        ..test_limits()
    });
    let (first, head) = open(s.addr, "/api/analyse?fen=startpos&movetime=120000");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let r = get(s.addr, "/api/analyse?fen=startpos&movetime=100");
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(r.error().contains("analyses are running"));
    assert!(!r.header("retry-after").is_empty());
    // tablebase and book answers do not wait for analyses
    assert_eq!(get(s.addr, "/api/book?fen=startpos").status, 200);
    // the first client goes away: its search stops long before its two minutes
    drop(first);
    let mut status = 0;
    for _ in 0..100 {
        std::thread::sleep(Duration::from_millis(100));
        status = get(s.addr, "/api/analyse?fen=startpos&movetime=50").status;
        if status == 200 {
            break;
        }
    }
    assert_eq!(
        status, 200,
        "the slot of the client that left was not freed"
    );
}

#[test]
fn an_oversized_request_head_is_refused() {
    let s = server(test_limits());
    let mut c = TcpStream::connect(s.addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let long = "a".repeat(40 * 1024);
    // the server may close before reading all of it
    let _ = write!(c, "GET /api/book?fen={long} HTTP/1.1\r\nHost: x\r\n\r\n");
    let mut answer = Vec::new();
    let _ = c.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
}

#[test]
fn a_client_too_slow_to_send_its_request_head_is_cut_off() {
    let s = server(Limits {
        header_timeout: Duration::from_millis(300),
        ..test_limits()
    });
    let mut c = TcpStream::connect(s.addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(c, "GET /api/info HTTP/1.1\r\nHost: x\r\n").unwrap();
    let mut answer = Vec::new();
    // returns once the server closes the connection (a read timeout would be an error)
    c.read_to_end(&mut answer)
        .expect("the server closes the connection");
    let answer = String::from_utf8_lossy(&answer);
    assert!(!answer.contains("200 OK"), "{answer}");
}

#[test]
fn connections_beyond_the_cap_wait_for_a_free_slot() {
    let s = server(Limits {
        max_connections: 1,
        header_timeout: Duration::from_secs(60),
        ..test_limits()
    });
    let idle = TcpStream::connect(s.addr).unwrap();
    // make sure the idle connection holds the slot (a request through it is served)
    let mut idle = idle;
    write!(idle, "GET /api/info HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut b = [0u8; 12];
    idle.read_exact(&mut b).unwrap();
    assert_eq!(&b, b"HTTP/1.1 200");
    let addr = s.addr;
    let (tx, rx) = std::sync::mpsc::channel();
    let waiting = std::thread::spawn(move || {
        let r = get(addr, "/api/info");
        tx.send(r.status).unwrap();
    });
    assert!(
        rx.recv_timeout(Duration::from_millis(500)).is_err(),
        "a second connection was served while the only slot was taken"
    );
    drop(idle);
    assert_eq!(rx.recv_timeout(Duration::from_secs(30)).unwrap(), 200);
    waiting.join().unwrap();
}

#[test]
fn sigterm_stops_analyses_and_shuts_down_gracefully() {
    let f = fixture();
    let mut child = Command::new(env!("CARGO_BIN_EXE_xqdb"))
        .args(["serve", "--bind", "127.0.0.1:0", "--max-movetime", "120000"])
        .arg("--tables")
        .arg(&f.tables)
        .arg("--book")
        .arg(&f.book)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let addr: SocketAddr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in '{line}'"))
        .parse()
        .unwrap();
    assert_eq!(get(addr, "/api/info").status, 200);
    let (stream, head) = open(addr, "/api/analyse?fen=startpos&movetime=120000");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    // SAFETY: kill(2) on the child's own pid, which has not been waited for yet.
    let rc = unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert_eq!(rc, 0);
    // the analysis ends early with its best move, and the stream is closed
    let body = rest(stream);
    let ev = events(&body);
    assert_eq!(ev.last().map(|e| e.0.as_str()), Some("bestmove"), "{body}");
    let status = child.wait().unwrap();
    let mut tail = String::new();
    out.read_to_string(&mut tail).unwrap();
    assert!(status.success(), "{status}: {tail}");
    assert!(tail.contains("stopped"), "{tail}");
    assert!(TcpStream::connect(addr).is_err(), "still listening");
}
