//! The accept loop: HTTP/1.1 connections served by hyper with the limits of
//! [`super::Limits`] (request head size and read time, open connections), and graceful
//! shutdown (stop accepting, stop analyses, let open requests end within the grace time).

use super::{routes, State};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// Completes on SIGTERM or SIGINT (Ctrl-C).
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(e) => {
                eprintln!("xqdb serve: cannot watch SIGTERM ({e}); stop with Ctrl-C");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Serve `listener` until `shutdown` completes, then shut down gracefully.
pub async fn serve(
    listener: TcpListener,
    state: Arc<State>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = state.limits.clone();
    let app = routes::router(state.clone());
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(limits.max_request_head.max(8192))
        .max_headers(64)
        .keep_alive(true);
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            s = slots.clone().acquire_owned() => s.expect("the connection semaphore is never closed"),
            _ = &mut shutdown => break,
        };
        let stream = tokio::select! {
            r = listener.accept() => match r {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // out of file descriptors and the like: wait a little, keep serving
                    eprintln!("xqdb serve: accept: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let conn = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            // a client that goes away mid-request is not the server's error
            let _ = conn.await;
            drop(slot);
        });
    }
    drop(listener);
    let _ = state.shutdown.send(true);
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(limits.shutdown_grace) => {
            eprintln!(
                "xqdb serve: connections still open after {} s of grace: closing them",
                limits.shutdown_grace.as_secs()
            );
        }
    }
    Ok(())
}
