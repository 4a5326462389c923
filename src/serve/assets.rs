//! The page, embedded in the binary: no build step, no download at run time.

use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};

/// The page.
pub const INDEX_HTML: &str = include_str!("assets/index.html");
/// Its script (board, moves, panels, analysis stream).
pub const APP_JS: &str = include_str!("assets/app.js");
/// Its style sheet.
pub const STYLE_CSS: &str = include_str!("assets/style.css");
/// Its icon.
pub const FAVICON_SVG: &[u8] = include_bytes!("assets/favicon.svg");

fn asset(body: impl IntoResponse, content_type: &'static str) -> Response {
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    // the assets change only with the binary: revalidate rather than cache for long
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

/// `GET /`.
pub async fn index() -> Response {
    asset(INDEX_HTML, "text/html; charset=utf-8")
}

/// `GET /app.js`.
pub async fn script() -> Response {
    asset(APP_JS, "text/javascript; charset=utf-8")
}

/// `GET /style.css`.
pub async fn style() -> Response {
    asset(STYLE_CSS, "text/css; charset=utf-8")
}

/// `GET /favicon.svg`.
pub async fn icon() -> Response {
    asset(FAVICON_SVG, "image/svg+xml")
}
