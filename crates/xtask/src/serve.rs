//! A static server for the page: an explicit allow-list of paths (the page,
//! `www/`, the frozen PDF), bound to 127.0.0.1, with the page's
//! Content-Security-Policy as a header. Nothing else in the repository is
//! reachable.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;

use axum::http::{header, HeaderValue};
use axum::Router;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::Result;

/// The same policy as the page's meta tag.
pub const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
                       object-src 'none'; base-uri 'none'";

pub fn router(root: &Path) -> Router {
    let index = ServeFile::new(root.join("index.html"));
    Router::new()
        .route_service("/", index.clone())
        .route_service("/index.html", index)
        .route_service(
            "/benchmark-baseline.pdf",
            ServeFile::new(root.join("benchmark-baseline.pdf")),
        )
        .nest_service("/www", ServeDir::new(root.join("www")))
        .layer(SetResponseHeaderLayer::overriding(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ))
        // Rebuilt files must show on reload.
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-cache"),
        ))
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?)
}

/// `cargo xtask serve`: serves until Ctrl-C.
pub fn serve_forever(root: &Path, port: u16) -> Result<()> {
    let app = router(root);
    runtime()?.block_on(async move {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e} (try --port)"))?;
        println!("Serving the exemplar page at http://{addr}/ (Ctrl-C stops)");
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        Ok(())
    })
}

/// A server on a free port for the browser tests; it lives as long as the
/// returned handle.
pub struct Background {
    pub url: String,
    _runtime: tokio::runtime::Runtime,
}

pub fn spawn_background(root: &Path) -> Result<Background> {
    let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let app = router(root);
    let runtime = runtime()?;
    let listener = {
        let _guard = runtime.enter();
        tokio::net::TcpListener::from_std(listener)?
    };
    runtime.spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("xtask: test server stopped: {e}");
        }
    });
    Ok(Background {
        url: format!("http://{addr}"),
        _runtime: runtime,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_matches_the_page_meta_tag() {
        let root = crate::workspace_root();
        let page = std::fs::read_to_string(root.join("index.html")).unwrap();
        let normalized = CSP.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            page.contains(&format!("content=\"{normalized}\"")),
            "index.html's CSP meta tag differs from the served header"
        );
    }
}
