//! HTTP routes: the page's assets and the JSON API, errors as `{"error": ...}` with status
//! codes, security and caching headers on every answer.

use super::api::{self, ApiError};
use super::{analyse, assets, State};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State as Shared};
use axum::http::{header, HeaderValue, Request, StatusCode};
use axum::response::sse::{KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use std::sync::Arc;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = (
            self.status,
            Json(serde_json::json!({ "error": self.message })),
        )
            .into_response();
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("2"));
        }
        r
    }
}

/// The query parameters the API reads (others are ignored).
#[derive(Deserialize, Debug, Default)]
pub struct Params {
    /// A FEN (or `startpos`).
    pub fen: Option<String>,
    /// Analysis time in milliseconds.
    pub movetime: Option<String>,
}

type Q = Result<Query<Params>, QueryRejection>;

fn params(q: Q) -> Result<Params, ApiError> {
    q.map(|Query(p)| p)
        .map_err(|e| ApiError::bad_request(format!("bad query: {}", e.body_text())))
}

/// Run blocking work (table and book reads) off the async workers.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::internal(format!("the request's task failed: {e}")))?
}

async fn info(Shared(state): Shared<Arc<State>>) -> Response {
    Json(api::info(&state)).into_response()
}

async fn position(Shared(state): Shared<Arc<State>>, q: Q) -> Result<Response, ApiError> {
    let p = params(q)?;
    let pos = api::parse_fen(p.fen.as_deref(), state.limits.max_fen_len)?;
    let s = state.clone();
    let reply = blocking(move || Ok(api::position(&s, &pos))).await?;
    Ok(Json(reply).into_response())
}

async fn tablebase(Shared(state): Shared<Arc<State>>, q: Q) -> Result<Response, ApiError> {
    let p = params(q)?;
    let pos = api::parse_fen(p.fen.as_deref(), state.limits.max_fen_len)?;
    if state.tables.is_none() {
        return Err(ApiError::not_found("this server has no tablebases"));
    }
    let s = state.clone();
    let reply = blocking(move || {
        let tables = s
            .tables
            .as_ref()
            .expect("checked above: the server has tables");
        api::tablebase(tables, &pos)
    })
    .await?;
    Ok(Json(reply).into_response())
}

async fn book(Shared(state): Shared<Arc<State>>, q: Q) -> Result<Response, ApiError> {
    let p = params(q)?;
    let pos = api::parse_fen(p.fen.as_deref(), state.limits.max_fen_len)?;
    if state.book.is_none() {
        return Err(ApiError::not_found("this server has no opening book"));
    }
    let s = state.clone();
    let reply = blocking(move || {
        let b = s
            .book
            .as_ref()
            .expect("checked above: the server has a book");
        Ok(api::book(b, &pos))
    })
    .await?;
    Ok(Json(reply).into_response())
}

async fn analysis(Shared(state): Shared<Arc<State>>, q: Q) -> Result<Response, ApiError> {
    let p = params(q)?;
    let pos = api::parse_fen(p.fen.as_deref(), state.limits.max_fen_len)?;
    let movetime = analyse::movetime(p.movetime.as_deref(), &state)?;
    let stream = analyse::start(state, pos, movetime)?;
    // a comment every second: a client that went away is noticed at the next write, and its
    // search stopped, even while a deep iteration runs
    let keep_alive = KeepAlive::new().interval(std::time::Duration::from_secs(1));
    Ok(Sse::new(stream).keep_alive(keep_alive).into_response())
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such page or API route")
}

async fn method_not_allowed() -> ApiError {
    ApiError {
        status: StatusCode::METHOD_NOT_ALLOWED,
        message: "only GET is served".into(),
    }
}

/// Headers on every answer: no sniffing, no framing, no referrer; the page may load only its
/// own assets and talk only to its own server; the API may be read from any origin.
async fn headers(req: Request<axum::body::Body>, next: axum::middleware::Next) -> Response {
    let api = req.uri().path().starts_with("/api/");
    let mut r = next.run(req).await;
    let h = r.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    if api {
        h.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
        h.entry(header::CACHE_CONTROL)
            .or_insert(HeaderValue::from_static("no-store"));
    } else {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                 connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            ),
        );
    }
    r
}

/// The application: assets, API, fallbacks, headers.
pub fn router(state: Arc<State>) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/app.js", get(assets::script))
        .route("/style.css", get(assets::style))
        .route("/favicon.svg", get(assets::icon))
        .route("/api/info", get(info))
        .route("/api/position", get(position))
        .route("/api/tablebase", get(tablebase))
        .route("/api/book", get(book))
        .route("/api/analyse", get(analysis))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn(headers))
        .with_state(state)
}
