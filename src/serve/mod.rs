//! `xqdb serve`: a web explorer and JSON API for the tablebases, the opening book and the
//! engine.
//!
//! * [`api`]: the JSON answers, computed from the library (no HTTP in it).
//! * [`analyse`]: engine analysis streamed as server-sent events, bounded in time and in the
//!   number of analyses running at once.
//! * [`routes`]: the HTTP routes, JSON errors with status codes, response headers.
//! * [`http`]: the accept loop: HTTP/1 connections with limits on the request head, its read
//!   time and the number of connections; graceful shutdown.
//! * [`assets`]: the page (HTML, CSS, JavaScript, icon), embedded in the binary.
//!
//! No path from a request reaches the file system: the tables and the book are opened from
//! the paths given at start; a request only names a position (a FEN), and the only tables a
//! request can open are those of the folder's own listing made at start.

pub mod analyse;
pub mod api;
pub mod assets;
pub mod http;
pub mod routes;

use crate::book::Book;
use crate::index::Material;
use crate::tablebase::file::{table_path, Metric};
use crate::tablebase::table::table_material;
use crate::tablebase::Tablebases;
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Bounds that keep the server safe to expose.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Longest analysis a request may ask for (longer requests are cut to this).
    pub max_movetime: Duration,
    /// Analysis time when the request names none.
    pub default_movetime: Duration,
    /// Analyses running at once; a request beyond this gets 503.
    pub max_analyses: usize,
    /// Transposition table of one analysis, in MiB.
    pub analysis_hash_mb: usize,
    /// Open connections at once (further connections wait to be accepted).
    pub max_connections: usize,
    /// Time allowed to send a request head.
    pub header_timeout: Duration,
    /// Largest request head (request line and headers) in bytes.
    pub max_request_head: usize,
    /// Longest FEN accepted, in bytes.
    pub max_fen_len: usize,
    /// Time given to open connections to finish after a shutdown signal.
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_movetime: Duration::from_secs(10),
            default_movetime: Duration::from_secs(3),
            max_analyses: 2,
            analysis_hash_mb: 16,
            max_connections: 256,
            header_timeout: Duration::from_secs(10),
            max_request_head: 16 * 1024,
            max_fen_len: 128,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// What to serve and where.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Table folder (None: no tablebases).
    pub tables: Option<PathBuf>,
    /// Opening book file (None: no book).
    pub book: Option<PathBuf>,
    /// Address to listen on.
    pub bind: SocketAddr,
    /// Limits.
    pub limits: Limits,
}

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The book could not be opened.
    #[error("book: {0}")]
    Book(#[from] crate::book::BookError),
    /// The table folder could not be listed.
    #[error("table folder {path}: {source}")]
    Tables {
        /// The folder.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// Binding the address.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// Address.
        addr: SocketAddr,
        /// Cause.
        source: std::io::Error,
    },
    /// Starting the runtime or serving.
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
}

/// The tables of a folder, listed once at start.
pub struct Catalogue {
    /// The probing handle.
    pub tb: Tablebases,
    /// Materials (table names) whose WDL and DTM files are both in the folder.
    pub materials: BTreeSet<Material>,
}

impl Catalogue {
    /// List the tables of `dir` (a missing folder is an empty catalogue).
    pub fn open(dir: &Path) -> Result<Catalogue, ServeError> {
        let mut materials = BTreeSet::new();
        if dir.is_dir() {
            let err = |source| ServeError::Tables {
                path: dir.display().to_string(),
                source,
            };
            for entry in std::fs::read_dir(dir).map_err(err)? {
                let name = entry.map_err(err)?.file_name();
                let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".xqw")) else {
                    continue;
                };
                if let Ok(m) = stem.parse::<Material>() {
                    let (t, _) = table_material(m);
                    if t.to_string() == stem && table_path(dir, &t, Metric::Dtm).is_file() {
                        materials.insert(t);
                    }
                }
            }
        }
        Ok(Catalogue {
            tb: Tablebases::open(dir),
            materials,
        })
    }

    /// True when the table of `m` (any colour order) was listed.
    pub fn covers(&self, m: Material) -> bool {
        self.materials.contains(&table_material(m).0)
    }
}

/// Everything the handlers share.
pub struct State {
    /// Tables (None when serving without them).
    pub tables: Option<Catalogue>,
    /// Opening book.
    pub book: Option<Book>,
    /// Limits.
    pub limits: Limits,
    /// Permits of running analyses.
    pub analyses: Arc<tokio::sync::Semaphore>,
    /// Set to true when the server shuts down (running analyses stop).
    pub shutdown: tokio::sync::watch::Sender<bool>,
}

impl State {
    /// Open the tables and the book of `config`.
    pub fn load(config: &ServeConfig) -> Result<State, ServeError> {
        let tables = match &config.tables {
            Some(dir) => Some(Catalogue::open(dir)?),
            None => None,
        };
        let book = match &config.book {
            Some(p) => Some(Book::open(p)?),
            None => None,
        };
        Ok(State {
            tables,
            book,
            limits: config.limits.clone(),
            analyses: Arc::new(tokio::sync::Semaphore::new(config.limits.max_analyses)),
            shutdown: tokio::sync::watch::channel(false).0,
        })
    }

    /// One line on what is served: tables, book, limits.
    pub fn summary(&self) -> String {
        let tables = match &self.tables {
            Some(c) => format!("{} tables", c.materials.len()),
            None => "no tables".to_string(),
        };
        let book = match &self.book {
            Some(b) => format!("book of {} positions", b.positions()),
            None => "no book".to_string(),
        };
        format!(
            "{tables}, {book}; analyses up to {} ms, {} at once",
            self.limits.max_movetime.as_millis(),
            self.limits.max_analyses
        )
    }
}

/// A server bound to its address, not yet serving.
pub struct Server {
    rt: tokio::runtime::Runtime,
    listener: tokio::net::TcpListener,
    state: Arc<State>,
}

impl Server {
    /// Open the tables and the book, start the runtime and bind the address.
    pub fn bind(config: &ServeConfig) -> Result<Server, ServeError> {
        let state = Arc::new(State::load(config)?);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            // probes and book look-ups run on the blocking pool
            .max_blocking_threads(32)
            .thread_name("xqdb-serve")
            .build()?;
        let listener =
            std::net::TcpListener::bind(config.bind).map_err(|source| ServeError::Bind {
                addr: config.bind,
                source,
            })?;
        listener.set_nonblocking(true)?;
        let listener = {
            let _guard = rt.enter();
            tokio::net::TcpListener::from_std(listener)?
        };
        Ok(Server {
            rt,
            listener,
            state,
        })
    }

    /// The address bound (with the port chosen by the system for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has a local address")
    }

    /// What is served, in one line.
    pub fn summary(&self) -> String {
        self.state.summary()
    }

    /// Serve until SIGTERM or SIGINT, then shut down gracefully.
    pub fn run_until_signal(self) -> Result<(), ServeError> {
        self.run_until(http::shutdown_signal())
    }

    /// Serve until `shutdown` completes, then shut down gracefully: stop accepting, stop
    /// running analyses (they end with their best move so far), let open requests finish
    /// within the grace time.
    pub fn run_until(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let Server {
            rt,
            listener,
            state,
        } = self;
        rt.block_on(http::serve(listener, state, shutdown))?;
        // analyses threads have been told to stop; do not wait for idle blocking threads
        rt.shutdown_timeout(Duration::from_secs(1));
        Ok(())
    }

    /// Serve on a background thread (for tests and benchmarks).
    pub fn spawn(self) -> Running {
        let addr = self.local_addr();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("xqdb-serve-main".into())
            .spawn(move || {
                self.run_until(async {
                    let _ = rx.await;
                })
            })
            .expect("spawning a thread succeeds unless the system is out of resources");
        Running {
            addr,
            stop: Some(tx),
            thread: Some(thread),
        }
    }
}

/// A server serving on a background thread; shut down (gracefully) when dropped.
pub struct Running {
    /// The address it listens on.
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<(), ServeError>>>,
}

impl Running {
    /// Base URL, e.g. `http://127.0.0.1:8080`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Shut down gracefully and wait for the server to end.
    pub fn shutdown(mut self) -> Result<(), ServeError> {
        self.stop_and_join()
    }

    fn stop_and_join(&mut self) -> Result<(), ServeError> {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(ServeError::Io(std::io::Error::other(
                "the server thread panicked",
            ))),
            None => Ok(()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.stop_and_join();
    }
}
