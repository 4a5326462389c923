//! Load measurement of `xqdb serve`'s `/api/tablebase`: N concurrent clients on loopback, each
//! with its own keep-alive HTTP/1.1 connection, asking for random KRKN positions for a fixed
//! time. Prints requests per second and latency percentiles. Bounded: loopback only, a fixed
//! number of seconds, then it stops.
//!
//! `cargo bench --bench serve_load` (environment: `XQDB_LOAD_CLIENTS` (32),
//! `XQDB_LOAD_SECS` (10), `XQDB_LOAD_TABLES` (a folder with KRKN; else KRKN is generated
//! under target/tmp)).

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use xqdb::board::Position;
use xqdb::serve::{Limits, ServeConfig, Server};

fn env_or<T: std::str::FromStr>(k: &str, d: T) -> T {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}

fn tables() -> PathBuf {
    if let Some(d) = std::env::var_os("XQDB_LOAD_TABLES") {
        return PathBuf::from(d);
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-load");
    let m: xqdb::index::Material = "KRKN".parse().unwrap();
    xqdb::tablebase::pipeline::generate_set(
        &[m],
        &dir,
        xqdb::tablebase::generate::GenOptions::default(),
        xqdb::tablebase::pipeline::Existing::Keep,
        |_| {},
    )
    .expect("KRKN tables");
    dir
}

/// Request targets for random legal KRKN positions.
fn targets(n: usize) -> Vec<String> {
    let mut rng = StdRng::seed_from_u64(1);
    let mut out = Vec::new();
    while out.len() < n {
        let mut grid = [' '; 90];
        let red_rook = rng.gen_bool(0.5);
        let pieces = [
            ('K', rng.gen_range(3..6) + 9 * rng.gen_range(0..3)),
            ('k', rng.gen_range(3..6) + 9 * rng.gen_range(7..10)),
            (if red_rook { 'R' } else { 'r' }, rng.gen_range(0..90)),
            (if red_rook { 'n' } else { 'N' }, rng.gen_range(0..90)),
        ];
        let mut clash = false;
        for (c, sq) in pieces {
            clash |= grid[sq] != ' ';
            grid[sq] = c;
        }
        if clash {
            continue;
        }
        let ranks: Vec<String> = (0..10)
            .rev()
            .map(|r| {
                let mut s = String::new();
                let mut empty = 0;
                for f in 0..9 {
                    match grid[r * 9 + f] {
                        ' ' => empty += 1,
                        c => {
                            if empty > 0 {
                                s.push_str(&empty.to_string());
                                empty = 0;
                            }
                            s.push(c);
                        }
                    }
                }
                if empty > 0 {
                    s.push_str(&empty.to_string());
                }
                s
            })
            .collect();
        let fen = format!(
            "{} {}",
            ranks.join("/"),
            if rng.gen_bool(0.5) { "w" } else { "b" }
        );
        if Position::from_fen(&fen).is_ok() {
            out.push(format!(
                "/api/tablebase?fen={}",
                fen.replace('/', "%2F").replace(' ', "%20")
            ));
        }
    }
    out
}

struct Tally {
    latencies_us: Vec<u64>,
    errors: u64,
}

async fn client(
    addr: SocketAddr,
    targets: std::sync::Arc<Vec<String>>,
    first: usize,
    warm_until: Instant,
    end: Instant,
) -> Tally {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(conn);
    let mut t = Tally {
        latencies_us: Vec::new(),
        errors: 0,
    };
    let mut i = first;
    loop {
        let now = Instant::now();
        if now >= end {
            break;
        }
        let req = hyper::Request::get(&targets[i % targets.len()])
            .header("host", addr.to_string())
            .body(Empty::<Bytes>::new())
            .unwrap();
        i += 1;
        let ok = match sender.send_request(req).await {
            Ok(res) => {
                let status = res.status();
                res.into_body().collect().await.is_ok() && status == 200
            }
            Err(_) => false,
        };
        if now >= warm_until {
            if ok {
                t.latencies_us.push(now.elapsed().as_micros() as u64);
            } else {
                t.errors += 1;
            }
        }
        if !ok && sender.ready().await.is_err() {
            break;
        }
    }
    t
}

fn measure(addr: SocketAddr, targets: &std::sync::Arc<Vec<String>>, clients: usize, secs: u64) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let warm = Duration::from_secs(2);
    let (all, errors) = rt.block_on(async {
        let start = Instant::now();
        let warm_until = start + warm;
        let end = warm_until + Duration::from_secs(secs);
        let tasks: Vec<_> = (0..clients)
            .map(|c| tokio::spawn(client(addr, targets.clone(), c * 997, warm_until, end)))
            .collect();
        let mut all = Vec::new();
        let mut errors = 0;
        for t in tasks {
            let t = t.await.unwrap();
            all.extend(t.latencies_us);
            errors += t.errors;
        }
        (all, errors)
    });
    let mut all = all;
    all.sort_unstable();
    let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)] as f64 / 1000.0;
    println!(
        "{clients:>3} clients, {secs} s: {} requests, {errors} errors, {:.0} requests/s, \
         latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        all.len(),
        all.len() as f64 / secs as f64,
        pct(0.50),
        pct(0.90),
        pct(0.99),
        *all.last().unwrap() as f64 / 1000.0
    );
}

fn main() {
    // `cargo test --benches` runs benches with --bench absent: do nothing then
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let clients: usize = env_or("XQDB_LOAD_CLIENTS", 32);
    let secs: u64 = env_or("XQDB_LOAD_SECS", 10);
    let config = ServeConfig {
        tables: Some(tables()),
        book: None,
        bind: "127.0.0.1:0".parse().unwrap(),
        limits: Limits::default(),
    };
    let server = Server::bind(&config).unwrap();
    println!("serve_load: {}", server.summary());
    let running = server.spawn();
    let targets = std::sync::Arc::new(targets(2000));
    measure(running.addr, &targets, 1, secs.min(5));
    measure(running.addr, &targets, clients, secs);
    running.shutdown().unwrap();
}
