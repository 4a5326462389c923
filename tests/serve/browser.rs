//! The page in a real browser: headless Chromium driven over WebDriver (chromedriver, started
//! here). Skipped with a notice only when Chromium or chromedriver is not installed
//! (`.ci/run` installs Debian's `chromium` and `chromium-driver`).

use super::{fixture, get, krkn_positions, server};
use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use xqdb::board::{Move, Position};
use xqdb::book::Book;
use xqdb::serve::Limits;
use xqdb::tablebase::values::Verdict;
use xqdb::tablebase::{Tablebases, Wdl};

/// Chromium's flags that work in containers without a display, GPU or network.
const FLAGS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1000",
];

fn find(env: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path).chain([PathBuf::from("/usr/bin")]) {
        for n in names {
            let p = dir.join(n);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// chromedriver on a free loopback port, ended when dropped.
struct Driver {
    child: Child,
    url: String,
    chromium: PathBuf,
    profile: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // chromedriver and the browsers it started share its process group: end them all, so
        // that a failed test leaves no browser behind
        // SAFETY: kill(2) on the group of our own child, not yet waited for.
        unsafe {
            libc::kill(-(self.child.id() as i32), libc::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Start chromedriver, or None with a notice when Chromium is not installed.
fn driver() -> Option<Driver> {
    let (Some(chromium), Some(chromedriver)) = (
        find("CHROMIUM", &["chromium", "chromium-browser"]),
        find("CHROMEDRIVER", &["chromedriver"]),
    ) else {
        eprintln!(
            "notice: chromium or chromedriver is not installed (Debian: apt-get install chromium \
             chromium-driver): the browser test is skipped"
        );
        return None;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(&chromedriver)
        .arg(format!("--port={port}"))
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{} cannot start: {e}", chromedriver.display()));
    let profile = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("serve-chromium-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    let d = Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
        chromium,
        profile,
    };
    let addr = format!("127.0.0.1:{port}").parse().unwrap();
    let start = Instant::now();
    while std::net::TcpStream::connect(addr).is_err() || get(addr, "/status").status != 200 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "chromedriver did not answer on port {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Some(d)
}

async fn session(d: &Driver) -> Client {
    let mut args: Vec<String> = FLAGS.iter().map(|s| s.to_string()).collect();
    args.push(format!("--user-data-dir={}", d.profile.display()));
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({ "binary": d.chromium, "args": args }),
    );
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&d.url)
        .await
        .expect("a Chromium session")
}

/// Run `script` until it returns something other than null or false (30 s at most).
async fn wait_for(c: &Client, script: &str, what: &str) -> Value {
    let start = Instant::now();
    loop {
        let v = c.execute(script, vec![]).await.unwrap();
        if !v.is_null() && v != Value::Bool(false) {
            return v;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "waited 30 s for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Wait until the page has shown every panel of `fen`.
async fn wait_loaded(c: &Client, fen: &str) {
    let script = format!("return document.body.dataset.loaded === {fen:?} || null;");
    wait_for(c, &script, &format!("the page to show {fen}")).await;
}

async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.unwrap()
}

fn category(v: Verdict) -> &'static str {
    match (v.wdl, v.order > 0) {
        (Wdl::Win, false) => "win",
        (Wdl::Win, true) => "win-by-rule",
        (Wdl::Loss, false) => "loss",
        (Wdl::Loss, true) => "loss-by-rule",
        (Wdl::Draw, _) => "draw",
    }
}

/// Check the tablebase panel of `pos` against the library.
async fn check_tablebase_panel(c: &Client, tb: &Tablebases, pos: &Position) {
    let verdict = tb.probe_verdict(pos).unwrap();
    let shown = js(
        c,
        "return document.getElementById('tb-verdict').dataset.category;",
    )
    .await;
    assert_eq!(shown, category(verdict), "{}", pos.to_fen());
    let rows = js(
        c,
        "return [...document.querySelectorAll('#tb-moves tbody tr')].map(r => r.dataset.uci);",
    )
    .await;
    let rows: Vec<String> = serde_json::from_value(rows).unwrap();
    let best = tb.best_moves(pos).unwrap();
    let want: Vec<String> = best.iter().map(|o| o.mv.to_string()).collect();
    assert_eq!(rows.len(), want.len(), "one row per legal move");
    // same order as the library's best-first list, up to moves of equal value
    let key = |m: &str| {
        let o = best.iter().find(|o| o.mv.to_string() == m).unwrap();
        (o.forbidden.is_some(), o.wdl, o.dtm)
    };
    for (r, w) in rows.iter().zip(&want) {
        assert_eq!(key(r), key(w), "{rows:?} vs {want:?}");
    }
}

/// Centre of an element in viewport pixels.
async fn centre(c: &Client, selector: &str) -> (f64, f64) {
    let v = js(
        c,
        &format!(
            "const r = document.querySelector({selector:?}).getBoundingClientRect(); \
             return [r.x + r.width / 2, r.y + r.height / 2];"
        ),
    )
    .await;
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

#[test]
fn the_page_shows_verdicts_plays_moves_by_click_and_drag_and_streams_analysis() {
    let Some(d) = driver() else { return };
    let f = fixture();
    let tb = Tablebases::open(&f.tables);
    let book = Book::open(&f.book).unwrap();
    let s = server(Limits {
        max_movetime: Duration::from_millis(1000),
        default_movetime: Duration::from_millis(1000),
        ..Limits::default()
    });
    let base = s.url();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = session(&d).await;

        // the start position, with the book's moves
        c.goto(&format!("{base}/")).await.unwrap();
        let start = Position::startpos();
        wait_loaded(&c, &start.to_fen()).await;
        let rows = js(
            &c,
            "return [...document.querySelectorAll('#book-moves tbody tr')].map(r => r.dataset.uci);",
        )
        .await;
        let want: Vec<String> = book.moves(&start).iter().map(|b| b.mv.to_string()).collect();
        assert_eq!(rows, json!(want));
        let pieces = js(&c, "return document.querySelectorAll('#board .piece').length;").await;
        assert_eq!(pieces, 32);

        // a KRKN position typed into the FEN field: Red to move and winning
        let pos = krkn_positions(400, 11)
            .into_iter()
            .find(|p| {
                p.turn() == xqdb::board::Color::Red
                    && tb.probe_verdict(p).unwrap() == Verdict::plain(Wdl::Win)
                    && tb.probe_dtm(p).unwrap().1 >= Some(5)
            })
            .expect("a won KRKN position with Red to move");
        let fen = pos.to_fen();
        let field = c.find(Locator::Id("fen")).await.unwrap();
        field.clear().await.unwrap();
        field.send_keys(&fen).await.unwrap();
        c.find(Locator::Id("fen-set")).await.unwrap().click().await.unwrap();
        wait_loaded(&c, &fen).await;
        check_tablebase_panel(&c, &tb, &pos).await;
        let dtm = js(&c, "return document.getElementById('tb-verdict').dataset.dtm;").await;
        assert_eq!(dtm, tb.probe_dtm(&pos).unwrap().1.unwrap().to_string());

        // click the best move on the board: the piece, then its destination
        let best: Move = tb.best_moves(&pos).unwrap()[0].mv;
        c.find(Locator::Css(&format!(".piece[data-sq='{}']", best.from())))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        c.find(Locator::Css(&format!(".dest[data-sq='{}']", best.to())))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let after = pos.after(best);
        wait_loaded(&c, &after.to_fen()).await;
        check_tablebase_panel(&c, &tb, &after).await;
        let field_now = js(&c, "return document.getElementById('fen').value;").await;
        assert_eq!(field_now, after.to_fen());

        // drag Black's reply from its point to the destination
        let reply: Move = tb.best_moves(&after).unwrap()[0].mv;
        let (x0, y0) = centre(&c, &format!(".piece[data-sq='{}']", reply.from())).await;
        let scale = js(
            &c,
            "const b = document.getElementById('board'); \
             return b.getBoundingClientRect().width / b.viewBox.baseVal.width;",
        )
        .await
        .as_f64()
        .unwrap();
        let dx = (reply.to().file() as f64 - reply.from().file() as f64) * 60.0 * scale;
        let dy = -(reply.to().rank() as f64 - reply.from().rank() as f64) * 60.0 * scale;
        let mouse = MouseActions::new("mouse".into())
            .then(PointerAction::MoveTo {
                duration: None,
                x: x0,
                y: y0,
            })
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            })
            .then(PointerAction::MoveBy {
                duration: Some(Duration::from_millis(100)),
                x: dx / 2.0,
                y: dy / 2.0,
            })
            .then(PointerAction::MoveBy {
                duration: Some(Duration::from_millis(100)),
                x: dx / 2.0,
                y: dy / 2.0,
            })
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            });
        c.perform_actions(mouse).await.unwrap();
        c.release_actions().await.unwrap();
        let after2 = after.after(reply);
        wait_loaded(&c, &after2.to_fen()).await;
        check_tablebase_panel(&c, &tb, &after2).await;
        let played = js(&c, "return document.querySelectorAll('#history li').length;").await;
        assert_eq!(played, 3, "start and two moves");

        // back twice to the typed position, forward once
        c.find(Locator::Id("back")).await.unwrap().click().await.unwrap();
        wait_loaded(&c, &after.to_fen()).await;
        c.find(Locator::Id("back")).await.unwrap().click().await.unwrap();
        wait_loaded(&c, &fen).await;
        check_tablebase_panel(&c, &tb, &pos).await;
        c.find(Locator::Id("forward")).await.unwrap().click().await.unwrap();
        wait_loaded(&c, &after.to_fen()).await;

        // flip: Red's king goes from the bottom half to the top half
        let red_king = format!(".piece[data-sq='{}']", after.king(xqdb::board::Color::Red));
        let (_, y_before) = centre(&c, &red_king).await;
        c.find(Locator::Id("flip")).await.unwrap().click().await.unwrap();
        let (_, y_after) = centre(&c, &red_king).await;
        assert!(y_before > y_after, "{y_before} -> {y_after}");

        // analysis streamed into the engine panel
        c.find(Locator::Id("analyse")).await.unwrap().click().await.unwrap();
        let best = wait_for(
            &c,
            "return document.getElementById('engine-status').dataset.best || null;",
            "the analysis's best move",
        )
        .await;
        let m: Move = best.as_str().unwrap().parse().unwrap();
        assert!(after.is_legal(m));
        let lines = js(&c, "return document.querySelectorAll('#engine-lines tbody tr').length;").await;
        assert!(lines.as_u64().unwrap() >= 1);

        // a bad FEN: the reason is shown, the position stays
        let field = c.find(Locator::Id("fen")).await.unwrap();
        field.clear().await.unwrap();
        field.send_keys("9/9/9 w").await.unwrap();
        c.find(Locator::Id("fen-set")).await.unwrap().click().await.unwrap();
        let err = wait_for(
            &c,
            "return document.getElementById('fen-error').textContent || null;",
            "the FEN error",
        )
        .await;
        assert!(err.as_str().unwrap().contains("bad FEN"), "{err}");
        assert_eq!(
            js(&c, "return document.body.dataset.loaded;").await,
            after.to_fen()
        );

        c.close().await.unwrap();
    });
}

/// The README's screenshot: `XQDB_SCREENSHOT=docs/serve.png` (and optionally
/// `XQDB_SCREENSHOT_TABLES`, `XQDB_SCREENSHOT_BOOK`, `XQDB_SCREENSHOT_FEN`, and the moves to
/// play in `XQDB_SCREENSHOT_MOVES`), `cargo test --release --test serve screenshot --
/// --ignored`.
#[test]
#[ignore]
fn screenshot() {
    let Some(out) = std::env::var_os("XQDB_SCREENSHOT") else {
        eprintln!("notice: set XQDB_SCREENSHOT=PATH.png");
        return;
    };
    let Some(d) = driver() else { return };
    let f = fixture();
    let var = |k: &str| std::env::var_os(k).map(PathBuf::from);
    let config = xqdb::serve::ServeConfig {
        tables: Some(var("XQDB_SCREENSHOT_TABLES").unwrap_or(f.tables.clone())),
        book: Some(var("XQDB_SCREENSHOT_BOOK").unwrap_or(f.book.clone())),
        bind: "127.0.0.1:0".parse().unwrap(),
        limits: Limits {
            default_movetime: Duration::from_millis(3000),
            ..Limits::default()
        },
    };
    let s = xqdb::serve::Server::bind(&config).unwrap().spawn();
    let fen = std::env::var("XQDB_SCREENSHOT_FEN").unwrap_or("startpos".into());
    let start = Position::from_fen(&fen).unwrap();
    let moves = std::env::var("XQDB_SCREENSHOT_MOVES").unwrap_or_default();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = session(&d).await;
        c.goto(&format!("{}/?fen={}", s.url(), super::enc(&start.to_fen())))
            .await
            .unwrap();
        let mut p = start.clone();
        wait_loaded(&c, &p.to_fen()).await;
        for m in moves.split_whitespace() {
            let m: Move = m.parse().unwrap();
            let row = format!("#tb-moves tr[data-uci='{m}'], #book-moves tr[data-uci='{m}']");
            c.find(Locator::Css(&row))
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
            p.play(m);
            wait_loaded(&c, &p.to_fen()).await;
        }
        c.find(Locator::Id("analyse"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_for(
            &c,
            "return document.getElementById('engine-status').dataset.best || null;",
            "the analysis",
        )
        .await;
        // the whole page: the window grown to the page's height (headless Chromium's window
        // is taller than its viewport by the difference measured here)
        let inner = js(&c, "return window.innerHeight;").await.as_u64().unwrap();
        let (_, outer) = c.get_window_size().await.unwrap();
        let page = js(&c, "return document.documentElement.scrollHeight;")
            .await
            .as_u64()
            .unwrap();
        c.set_window_size(1280, (page + outer - inner) as u32)
            .await
            .unwrap();
        let png = c.screenshot().await.unwrap();
        std::fs::write(&out, png).unwrap();
        c.close().await.unwrap();
    });
}
