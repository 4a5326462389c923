//! `xqdb serve`: the JSON API against a server on a loopback port (api.rs), its limits and
//! shutdown (limits.rs), and the page in headless Chromium over WebDriver (browser.rs).
//!
//! Tables (KRKN with every table its captures lead to) and the default book are made once
//! per run under target/tmp.

mod api;
#[cfg(unix)]
mod browser;
#[cfg(unix)]
mod limits;

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use xqdb::board::Position;
use xqdb::book::build_default;
use xqdb::index::Material;
use xqdb::serve::{Limits, Running, ServeConfig, Server};
use xqdb::tablebase::pipeline::{closure, generate_in_order_with, Existing};

pub struct Fixture {
    pub tables: PathBuf,
    pub book: PathBuf,
}

/// KRKN and its sub-tables, and the default book, made once per run.
pub fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve");
        let _ = std::fs::remove_dir_all(&dir);
        let tables = dir.join("tables");
        std::fs::create_dir_all(&tables).unwrap();
        let targets: Vec<Material> = vec!["KRKN".parse().unwrap()];
        // with the DTC files: the API gives DTC too
        generate_in_order_with(
            &closure(&targets),
            &tables,
            xqdb::tablebase::generate::GenOptions::default(),
            true,
            Existing::Keep,
            |_| {},
        )
        .expect("generation of KRKN and its sub-tables");
        let book = dir.join("default.xqb");
        build_default(&book).expect("default book");
        Fixture { tables, book }
    })
}

/// A server on a free loopback port, serving the fixture with `limits`.
pub fn server(limits: Limits) -> Running {
    let f = fixture();
    let config = ServeConfig {
        tables: Some(f.tables.clone()),
        book: Some(f.book.clone()),
        bind: "127.0.0.1:0".parse().unwrap(),
        limits,
    };
    Server::bind(&config).expect("bind a loopback port").spawn()
}

/// Short analysis limits for tests.
pub fn test_limits() -> Limits {
    Limits {
        max_movetime: std::time::Duration::from_millis(400),
        default_movetime: std::time::Duration::from_millis(200),
        ..Limits::default()
    }
}

/// An answer.
pub struct Reply {
    pub status: u16,
    pub headers: hyper::HeaderMap,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// The `{"error"}` of an error answer (checks its shape and content type).
    pub fn error(&self) -> String {
        assert_eq!(
            self.header("content-type"),
            "application/json",
            "{}",
            self.body
        );
        let v = self.json();
        let obj = v.as_object().expect("an error is a JSON object");
        assert_eq!(obj.len(), 1, "an error has only the 'error' field: {v}");
        obj["error"]
            .as_str()
            .expect("error is a string")
            .to_string()
    }
}

/// One request over its own HTTP/1.1 connection.
pub fn request(addr: SocketAddr, method: &str, target: &str) -> Reply {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        tokio::spawn(conn);
        let req = hyper::Request::builder()
            .method(method)
            .uri(target)
            .header("host", addr.to_string())
            .body(Empty::<Bytes>::new())
            .unwrap();
        let res = sender.send_request(req).await.unwrap();
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let body = res.into_body().collect().await.unwrap().to_bytes();
        Reply {
            status,
            headers,
            body: String::from_utf8(body.to_vec()).expect("UTF-8 body"),
        }
    })
}

pub fn get(addr: SocketAddr, target: &str) -> Reply {
    request(addr, "GET", target)
}

/// Percent-encoding of a query value.
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `/api/NAME?fen=...` for a position.
pub fn api_target(name: &str, fen: &str) -> String {
    format!("/api/{name}?fen={}", enc(fen))
}

/// Random legal positions of KRKN: the rook and the knight on either side, either side to
/// move.
pub fn krkn_positions(n: usize, seed: u64) -> Vec<Position> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut grid = [None::<char>; 90];
        let red_rook = rng.gen_bool(0.5);
        let pieces = [
            ('K', rng.gen_range(3..6) + 9 * rng.gen_range(0..3)),
            ('k', rng.gen_range(3..6) + 9 * rng.gen_range(7..10)),
            (if red_rook { 'R' } else { 'r' }, rng.gen_range(0..90)),
            (if red_rook { 'n' } else { 'N' }, rng.gen_range(0..90)),
        ];
        if pieces.iter().any(|&(c, sq)| {
            let clash = grid[sq].is_some();
            grid[sq] = Some(c);
            clash
        }) {
            continue;
        }
        let mut fen = String::new();
        for rank in (0..10).rev() {
            let mut empty = 0;
            for file in 0..9 {
                match grid[rank * 9 + file] {
                    Some(c) => {
                        if empty > 0 {
                            fen.push_str(&empty.to_string());
                            empty = 0;
                        }
                        fen.push(c);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                fen.push_str(&empty.to_string());
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        fen.push_str(if rng.gen_bool(0.5) { " w" } else { " b" });
        if let Ok(p) = Position::from_fen(&fen) {
            if p.has_legal_move() {
                out.push(p);
            }
        }
    }
    out
}
