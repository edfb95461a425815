//! A static server for the page: an explicit allow-list of paths (the page,
//! `www/`, the frozen PDF), bound to 127.0.0.1, answering only to loopback
//! `Host` names, with the page's security headers. Nothing else in the
//! repository is reachable, and a client cannot hold the server: headers must
//! arrive within a time limit, and connections are capped, a new one taking
//! the place of the one idle longest ([`connections`]).
//!
//! A static host that serves the page instead (any other web server) must
//! send the headers of [`security_headers`] itself: `frame-ancestors` and
//! `X-Frame-Options` work only as HTTP headers, never in the page's
//! `<meta>` CSP, so without them the page boots inside another site's frame.

mod connections;
mod host;
#[cfg(test)]
mod tests;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::Request;
use axum::handler::HandlerWithoutStateExt;
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

use connections::{Admission, Connections};
pub use host::AllowedHost;
use host::HostAllowList;

use crate::Result;

macro_rules! page_csp {
    () => {
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
         object-src 'none'; base-uri 'none'"
    };
}

/// The same policy as the page's meta tag (a test holds them equal).
#[cfg(test)]
const PAGE_CSP: &str = page_csp!();

/// The page's policy plus what only a header can say: no site may frame the
/// page (clickjacking: the tools act on the user's data).
const CSP: &str = concat!(page_csp!(), "; frame-ancestors 'none'");

/// How long a client may take to send a request's headers (also the longest
/// a kept-alive connection stays idle), and how many connections are open at
/// once. A browser opens about six connections to one server; past the cap a
/// new connection takes the place of the one idle longest ([`connections`]).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub header_read_timeout: Duration,
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            // Loopback only: a request's headers take microseconds.
            header_read_timeout: Duration::from_secs(5),
            max_connections: 64,
        }
    }
}

/// The headers on every response, refusals included.
fn security_headers() -> [(HeaderName, HeaderValue); 6] {
    [
        (
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        ),
        // `frame-ancestors` for browsers that predate it.
        (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
        // Its own agent cluster: no synchronous access from other same-site pages.
        (
            HeaderName::from_static("origin-agent-cluster"),
            HeaderValue::from_static("?1"),
        ),
        (
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ),
        // Rebuilt files must show on reload.
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
    ]
}

fn router(root: &Path, hosts: HostAllowList) -> Router {
    let index = ServeFile::new(root.join("index.html"));
    let www = ServeDir::new(root.join("www"));
    let www = move |request: Request| {
        let mut www = www.clone();
        async move {
            match www.try_call(request).await {
                Ok(response) => response.map(Body::new),
                Err(err) => file_error_response(&err),
            }
        }
    };
    let mut router = Router::new()
        .route_service("/", index.clone())
        .route_service("/index.html", index)
        .route_service(
            "/benchmark-baseline.pdf",
            ServeFile::new(root.join("benchmark-baseline.pdf")),
        )
        .nest_service("/www", www.into_service())
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(hosts),
            host::check_host,
        ));
    // Added after the Host check, so they wrap its refusals too.
    for (name, value) in security_headers() {
        router = router.layer(SetResponseHeaderLayer::overriding(name, value));
    }
    router
}

/// A file under `www/` that could not be opened. tower-http answers 404 only
/// for some of the ways a path names no file (not, e.g., for a segment longer
/// than the file system allows, which it answers with 500); every such way is
/// a 404 here. Only a real failure to read a file that is there is a 500.
fn file_error_response(err: &std::io::Error) -> Response {
    use std::io::ErrorKind::*;
    match err.kind() {
        NotFound | PermissionDenied | NotADirectory | IsADirectory | InvalidFilename
        | InvalidInput => StatusCode::NOT_FOUND.into_response(),
        _ => {
            eprintln!("xtask serve: cannot read a file under www/: {err}");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?)
}

/// Accepts connections until the task is dropped, never waiting for a place:
/// at the cap the connection idle longest (no request being answered) is
/// closed to make room, or, when every connection is answering a request, the
/// new one is refused with a 503 that names the cap ([`connections`]). hyper
/// closes a connection whose request headers take longer than
/// `limits.header_read_timeout` (an idle keep-alive connection included).
async fn accept_loop(listener: tokio::net::TcpListener, app: Router, limits: Limits) {
    use axum::serve::Listener;

    let mut listener = listener;
    let open = Arc::new(Mutex::new(Connections::new(limits.max_connections)));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    loop {
        // Retries and backs off on accept errors (e.g. too many open files).
        let (stream, _peer) = Listener::accept(&mut listener).await;
        let admitted = lock(&open).admit(Instant::now());
        let Admission::Admitted { id, evict } = admitted else {
            tokio::spawn(refuse(stream, limits.max_connections));
            continue;
        };
        let service = TowerToHyperService::new(app.clone());
        let tracked = {
            let open = open.clone();
            hyper::service::service_fn(move |request| {
                let answering = Answering::start(&open, id);
                let response = hyper::service::Service::call(&service, request);
                async move {
                    let response = response.await;
                    drop(answering);
                    response
                }
            })
        };
        let connection = http.serve_connection(TokioIo::new(stream), tracked);
        let open = open.clone();
        tokio::spawn(async move {
            // A reset, a header timeout or a malformed request ends this
            // connection only; there is no one to tell. Eviction drops it,
            // which closes it.
            tokio::select! {
                _ = connection => {}
                () = evict.notified() => {}
            }
            lock(&open).close(id);
        });
    }
}

/// The registry of open connections, poisoning aside: its state stays whole
/// whatever a panicking holder did (each method leaves it consistent).
fn lock(open: &Mutex<Connections>) -> std::sync::MutexGuard<'_, Connections> {
    open.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A request being answered on connection `id`, for as long as it lives.
struct Answering {
    open: Arc<Mutex<Connections>>,
    id: u64,
}

impl Answering {
    fn start(open: &Arc<Mutex<Connections>>, id: u64) -> Answering {
        lock(open).request_started(id, Instant::now());
        Answering {
            open: open.clone(),
            id,
        }
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        lock(&self.open).request_ended(self.id, Instant::now());
    }
}

/// Answers a connection past the cap with 503 and closes it.
async fn refuse(mut stream: tokio::net::TcpStream, cap: usize) {
    use tokio::io::AsyncWriteExt;
    let body = format!(
        "The server has {cap} connections open, its limit, each answering a request; \
         try again in a moment.\n"
    );
    let mut head = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\nRetry-After: 1\r\n",
        body.len()
    );
    for (name, value) in security_headers() {
        let value = value.to_str().expect("the security headers are ASCII");
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(format!("{head}{body}").as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// `cargo xtask serve`: serves until Ctrl-C.
pub fn serve_forever(root: &Path, port: u16, allowed: &[AllowedHost]) -> Result<()> {
    runtime()?.block_on(async move {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e} (try --port)"))?;
        let addr = listener.local_addr()?;
        let app = router(root, HostAllowList::new(addr.port(), allowed));
        println!("Serving the exemplar page at http://{addr}/ (Ctrl-C stops)");
        tokio::select! {
            () = accept_loop(listener, app, Limits::default()) => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        Ok(())
    })
}

/// A server on a free port for the browser tests; it lives as long as the
/// returned handle.
pub struct Background {
    pub addr: SocketAddr,
    _runtime: tokio::runtime::Runtime,
}

impl Background {
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

pub fn spawn_background(root: &Path) -> Result<Background> {
    spawn_background_with(root, Limits::default(), &[])
}

pub fn spawn_background_with(
    root: &Path,
    limits: Limits,
    allowed: &[AllowedHost],
) -> Result<Background> {
    let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let app = router(root, HostAllowList::new(addr.port(), allowed));
    let runtime = runtime()?;
    let listener = {
        let _guard = runtime.enter();
        tokio::net::TcpListener::from_std(listener)?
    };
    runtime.spawn(accept_loop(listener, app, limits));
    Ok(Background {
        addr,
        _runtime: runtime,
    })
}
