//! `exemplar mcp`: the registry's tools with the rules they share (the server's
//! `instructions`), the frozen dataset, the methods text, the tools' output schemas and the
//! common prompt over the Model Context Protocol, with the official Rust SDK (rmcp), on stdio
//! or Streamable HTTP.
//!
//! It is a way to reach the tools, not a benchmark condition. On stdio, stdout carries only
//! the protocol; every log line goes to stderr.

mod check;
mod gate;
mod handler;
mod held;
mod http;
mod server;
mod sessions;
mod stdio;

pub use http::{AllowedOrigin, LoopbackAddr, DEFAULT_ADDR};

use gate::CallGate;
use handler::ExemplarServer;
use rmcp::ServiceExt;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Serves one client on stdin/stdout until it disconnects.
pub fn serve_stdio() -> Result<(), String> {
    run(serve_lines(
        tokio::io::BufReader::new(tokio::io::stdin()),
        tokio::io::stdout(),
        Arc::new(CallGate::default()),
    ))
}

/// Serves one client reading `input` line by line and writing to `output`, until the input
/// ends; the answers of calls still running are written first.
async fn serve_lines<R, W>(input: R, output: W, gate: Arc<CallGate>) -> Result<(), String>
where
    R: tokio::io::AsyncBufRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (transport, reader) = stdio::transport(input, output, check::MAX_MESSAGE_BYTES);
    // One session: its own store's bounds (32 MiB) are within the server's budget.
    let running = ExemplarServer::new(gate, Arc::default())
        .serve(transport)
        .await
        .map_err(|e| format!("the MCP session did not start: {e}"))?;
    running
        .waiting()
        .await
        .map_err(|e| format!("the MCP session ended abnormally: {e}"))?;
    // The reader has written its own last answers by the time the input ends.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), reader).await;
    Ok(())
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
        let stop = CancellationToken::new();
        let server = server::serve(
            listener,
            http::allowed_hosts(bound),
            http::allowed_origins(bound, extra_origins),
            server::HttpLimits::default(),
            Arc::new(CallGate::default()),
            stop.clone(),
        );
        eprintln!(
            "exemplar mcp: Streamable HTTP at http://{bound}{} (Ctrl-C stops)",
            http::PATH
        );
        tokio::select! {
            () = server => {}
            // Without a signal handler there is nothing to wait for: serve until killed.
            Ok(()) = tokio::signal::ctrl_c() => stop.cancel(),
        }
        Ok(())
    })
}

/// Runs `task` on a fresh runtime, with rmcp's warnings (a refused Host or Origin, a
/// malformed message) logged to stderr.
fn run(task: impl std::future::Future<Output = Result<(), String>>) -> Result<(), String> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing_subscriber::filter::LevelFilter::WARN)
        .try_init();
    // glibc gives each thread that allocates at once an arena of its own, up to 8 per core,
    // and keeps what each one freed: 8 calls on 100,000 records peaked at 1.6 GB with the
    // default and 0.9 GB with two arenas.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only tunes the allocator; it is called before any other thread starts.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let outcome = runtime.block_on(task);
    // Tokio reads stdin on a blocking thread that a finished session may leave waiting.
    runtime.shutdown_background();
    outcome
}
