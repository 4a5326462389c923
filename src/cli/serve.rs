//! The serve command.

use std::path::PathBuf;

/// Arguments of `xqdb serve`.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// Table folder (default: $XQDB_TABLES, else $XQDB_HOME/tables, else ./tables).
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Opening book (default: books/default.xqb under $XQDB_HOME when it exists).
    #[arg(long, value_name = "PATH")]
    book: Option<PathBuf>,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    bind: std::net::SocketAddr,
    /// Longest analysis a request may ask for, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    max_movetime: u64,
    /// Analyses running at once.
    #[arg(long, value_name = "N", default_value_t = 2)]
    analyses: usize,
}

/// `xqdb serve`: the address it listens on and what it serves, until SIGINT or SIGTERM.
pub fn serve(a: ServeArgs) -> Result<(), String> {
    let default_book = xqdb::paths::books_dir().join("default.xqb");
    let config = xqdb::serve::ServeConfig {
        tables: Some(a.tables.unwrap_or_else(xqdb::paths::tables_dir)),
        book: a
            .book
            .or_else(|| default_book.is_file().then_some(default_book)),
        bind: a.bind,
        limits: xqdb::serve::Limits {
            max_movetime: std::time::Duration::from_millis(a.max_movetime.max(1)),
            max_analyses: a.analyses,
            ..Default::default()
        },
    };
    let server = xqdb::serve::Server::bind(&config).map_err(|e| e.to_string())?;
    println!(
        "xqdb serve: listening on http://{} ({})",
        server.local_addr(),
        server.summary()
    );
    server.run_until_signal().map_err(|e| e.to_string())?;
    println!("xqdb serve: stopped");
    Ok(())
}
