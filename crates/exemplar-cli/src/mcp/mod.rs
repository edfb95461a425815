//! `exemplar mcp`: the registry's tools, the frozen dataset, the methods text and the common
//! prompt over the Model Context Protocol, with the official Rust SDK (rmcp), on stdio or
//! Streamable HTTP.
//!
//! It is a way to reach the tools, not a benchmark condition. On stdio, stdout carries only
//! the protocol; every log line goes to stderr.

mod handler;
mod http;

pub use http::{AllowedOrigin, LoopbackAddr, DEFAULT_ADDR};

use handler::ExemplarServer;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServiceExt;
use std::net::SocketAddr;
use std::sync::Arc;

/// Serves one client on stdin/stdout until it disconnects.
pub fn serve_stdio() -> Result<(), String> {
    run(async {
        let running = ExemplarServer
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("the MCP session did not start: {e}"))?;
        running
            .waiting()
            .await
            .map_err(|e| format!("the MCP session ended abnormally: {e}"))?;
        Ok(())
    })
}

/// Serves Streamable HTTP at `http://addr/mcp` until Ctrl-C.
pub fn serve_http(addr: SocketAddr, extra_origins: &[AllowedOrigin]) -> Result<(), String> {
    run(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let bound = listener
            .local_addr()
            .map_err(|e| format!("cannot read the bound address: {e}"))?;
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(http::allowed_hosts(bound))
            .with_allowed_origins(http::allowed_origins(bound, extra_origins))
            .enforce_origin_validation();
        let stop = config.cancellation_token.clone();
        let service = StreamableHttpService::new(
            || Ok(ExemplarServer),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let app = axum::Router::new().nest_service(http::PATH, service);
        eprintln!(
            "exemplar mcp: Streamable HTTP at http://{bound}{} (Ctrl-C stops)",
            http::PATH
        );
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                // Without a signal handler there is nothing to wait for: serve until killed.
                if tokio::signal::ctrl_c().await.is_err() {
                    std::future::pending::<()>().await;
                }
                stop.cancel();
            })
            .await
            .map_err(|e| format!("the HTTP server stopped: {e}"))
    })
}

/// Runs `task` on a fresh runtime, with rmcp's warnings (a refused Host or Origin, a
/// malformed message) logged to stderr.
fn run(task: impl std::future::Future<Output = Result<(), String>>) -> Result<(), String> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing_subscriber::filter::LevelFilter::WARN)
        .try_init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let outcome = runtime.block_on(task);
    // Tokio reads stdin on a blocking thread that a finished session may leave waiting.
    runtime.shutdown_background();
    outcome
}
