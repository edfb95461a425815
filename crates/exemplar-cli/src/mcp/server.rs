//! The Streamable HTTP server's connections and requests, in front of rmcp's service.
//!
//! A client cannot hold the server: at most [`HttpLimits::max_connections`] connections are
//! served at once (the others wait in the kernel's listen queue, costing the server nothing);
//! a connection whose request headers take longer than the header timeout is closed (an idle
//! keep-alive connection too), and a request whose body takes longer than the body timeout is
//! answered 408 and closed. Bodies being read share a byte budget, so many large bodies at once
//! wait for each other instead of all being held. Sessions are capped ([`BoundedSessions`]).
//!
//! Before rmcp sees a request: every `Host` value (and an absolute request target's
//! authority) must be a loopback name without user info, every `Origin` value an allowed
//! origin, and the body one message that [`check::check`] passes.

use super::check::{self, RefusedArguments, Verdict};
use super::gate::{CallGate, ClientGone, MessageBytes};
use super::handler::ExemplarServer;
use super::held::{HeldData, HELD_BUDGET};
use super::sessions::BoundedSessions;
use axum::http::{header, HeaderMap, HeaderValue, Method, Request, Response, StatusCode, Uri};
use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::Value;
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

/// How much the server lets its clients take.
#[derive(Debug, Clone)]
pub struct HttpLimits {
    /// A request's headers must arrive within this (an idle keep-alive connection too).
    pub header_read_timeout: Duration,
    /// A request's body must arrive within this, counted from the end of its headers.
    pub body_read_timeout: Duration,
    /// Connections served at once.
    pub max_connections: usize,
    /// The largest body (one JSON-RPC message).
    pub max_body_bytes: usize,
    /// Bytes of request bodies held at once, over all connections.
    pub body_bytes_budget: usize,
    /// Live sessions; a new one closes the least recently used.
    pub max_sessions: usize,
    /// A session without a request for this long is closed.
    pub session_idle: Duration,
    /// Bytes of records all sessions' data handles hold together (`held.rs`).
    pub held_bytes: usize,
    /// Event streams (`GET /mcp`) open at once, over all sessions: each holds a connection,
    /// so they are kept well under `max_connections`, leaving room for new sessions.
    pub max_streams: usize,
    /// Event streams one session holds open at once.
    pub max_streams_per_session: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(10),
            max_connections: 512,
            max_body_bytes: check::MAX_MESSAGE_BYTES,
            body_bytes_budget: 2 * check::MAX_MESSAGE_BYTES,
            max_sessions: 1000,
            session_idle: Duration::from_secs(300),
            held_bytes: HELD_BUDGET,
            max_streams: 128,
            max_streams_per_session: 2,
        }
    }
}

type Body = BoxBody<Bytes, Infallible>;

struct State {
    service: StreamableHttpService<ExemplarServer, BoundedSessions>,
    hosts: Vec<String>,
    origins: Vec<String>,
    limits: HttpLimits,
    body_budget: Arc<Semaphore>,
    sessions: Arc<BoundedSessions>,
    /// Event streams open: how many, by session id.
    streams: Arc<Mutex<Streams>>,
    /// The sessions' data handles, bounded together (the factory holds it; tests read it).
    #[cfg(test)]
    held: Arc<HeldData>,
}

/// Serves `listener` until `stop` is cancelled.
pub async fn serve(
    listener: tokio::net::TcpListener,
    hosts: Vec<String>,
    origins: Vec<String>,
    limits: HttpLimits,
    gate: Arc<CallGate>,
    stop: CancellationToken,
) {
    let state = Arc::new(state(hosts, origins, limits, gate, stop.clone()));
    tokio::select! {
        () = accept_loop(listener, state.clone()) => {}
        () = give_back_freed_memory(&state.sessions) => {}
        () = stop.cancelled() => {}
    }
}

/// glibc keeps the memory freed by closed sessions in its arenas (3,000 expired sessions:
/// 180 MB before, 16 MB after `malloc_trim`); every 10 s, if a session has closed, it is
/// given back to the system.
async fn give_back_freed_memory(sessions: &BoundedSessions) {
    let mut every = tokio::time::interval(Duration::from_secs(10));
    loop {
        every.tick().await;
        if sessions.take_closed() {
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            // SAFETY: malloc_trim only returns free memory of the allocator to the system.
            unsafe {
                libc::malloc_trim(0);
            }
        }
    }
}

fn state(
    hosts: Vec<String>,
    origins: Vec<String>,
    limits: HttpLimits,
    gate: Arc<CallGate>,
    stop: CancellationToken,
) -> State {
    // rmcp checks the first Host and Origin too, and never refuses a body this server read.
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts.clone())
        .with_allowed_origins(origins.clone())
        .enforce_origin_validation()
        .with_max_request_body_bytes(limits.max_body_bytes)
        .with_cancellation_token(stop);
    let sessions = Arc::new(BoundedSessions::new(
        limits.max_sessions,
        limits.session_idle,
    ));
    let held = Arc::new(HeldData::new(limits.held_bytes));
    let service = StreamableHttpService::new(
        {
            let held = held.clone();
            move || Ok(ExemplarServer::new(gate.clone(), held.clone()))
        },
        sessions.clone(),
        config,
    );
    State {
        service,
        hosts,
        origins,
        body_budget: Arc::new(Semaphore::new(limits.body_bytes_budget)),
        limits,
        sessions,
        streams: Arc::default(),
        #[cfg(test)]
        held,
    }
}

/// Accepts a connection only once one of the connection permits is free.
async fn accept_loop(mut listener: tokio::net::TcpListener, state: Arc<State>) {
    use axum::serve::Listener;

    let permits = Arc::new(Semaphore::new(state.limits.max_connections));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(state.limits.header_read_timeout);
    loop {
        let Ok(permit) = permits.clone().acquire_owned().await else {
            return; // The semaphore is never closed.
        };
        // Retries and backs off on accept errors (e.g. too many open files).
        let (stream, _peer) = Listener::accept(&mut listener).await;
        let state = state.clone();
        let service = hyper::service::service_fn(move |request| {
            let state = state.clone();
            async move { Ok::<_, Infallible>(answer(&state, request).await) }
        });
        let connection = http.serve_connection(TokioIo::new(stream), service);
        tokio::spawn(async move {
            // A reset, a timeout or a malformed request ends this connection only.
            let _ = connection.await;
            drop(permit);
        });
    }
}

async fn answer(state: &State, request: Request<Incoming>) -> Response<Body> {
    if request.uri().path() != super::http::PATH {
        return plain(StatusCode::NOT_FOUND, "Not Found: the MCP endpoint is /mcp");
    }
    if let Err(refusal) = check_host(request.uri(), request.headers(), &state.hosts) {
        return refusal;
    }
    if let Err(refusal) = check_origin(request.headers(), &state.origins) {
        return refusal;
    }
    if request.method() == Method::GET {
        return open_stream(state, request).await;
    }
    if request.method() != Method::POST {
        return state.service.handle(request).await;
    }
    let (mut parts, body) = request.into_parts();
    let (bytes, _budget) = match read_body(state, &parts.headers, body).await {
        Ok(read) => read,
        Err(refusal) => return refusal,
    };
    let (refused, set_aside) = match check::check(&bytes) {
        Verdict::Answer(error) => return json_error(StatusCode::BAD_REQUEST, &error),
        Verdict::Pass {
            mut message,
            refused,
        } => {
            // Arguments the registry refused are not needed; others go to the handler as
            // parsed here, and rmcp reads the rest of the body.
            let set_aside = match refused {
                None => check::set_aside_arguments(&bytes, &mut message),
                Some(_) => None,
            };
            match check::mcp_envelope(message) {
                Err(error) => return json_error(StatusCode::BAD_REQUEST, &error),
                // Never answered (JSON-RPC), as on stdio.
                Ok(false) => return accepted(),
                Ok(true) => (refused, set_aside),
            }
        }
    };
    let message_bytes = bytes.len();
    let bytes = match set_aside {
        Some((arguments, rest)) => {
            parts
                .extensions
                .insert(check::ParsedArguments(Arc::new(Mutex::new(Some(
                    arguments,
                )))));
            Bytes::from(rest)
        }
        None => bytes,
    };
    if let Some(refusal) = refused {
        parts.extensions.insert(RefusedArguments(refusal));
    }
    parts.extensions.insert(MessageBytes(message_bytes));
    // The call's client has gone when its answer's stream is dropped before its end (hyper
    // drops it when the connection closes).
    let gone = tokio_util::sync::CancellationToken::new();
    parts.extensions.insert(ClientGone(gone.clone()));
    let guard = gone.drop_guard();
    let start = bytes.len() - check::without_bom(&bytes).len();
    let response = state
        .service
        .handle(Request::from_parts(parts, Full::new(bytes.slice(start..))))
        .await;
    response.map(|body| {
        body.map_frame(move |frame| {
            let _ = &guard;
            frame
        })
        .boxed()
    })
}

/// Event streams open, by session.
#[derive(Debug, Default)]
struct Streams {
    open: usize,
    by_session: HashMap<String, usize>,
}

/// A stream's place among the open ones, given back when its response is dropped.
struct StreamPlace {
    streams: Arc<Mutex<Streams>>,
    session: String,
}

impl Drop for StreamPlace {
    fn drop(&mut self) {
        let mut streams = self.streams.lock().unwrap();
        streams.open -= 1;
        if let Some(count) = streams.by_session.get_mut(&self.session) {
            *count -= 1;
            if *count == 0 {
                streams.by_session.remove(&self.session);
            }
        }
    }
}

/// A `GET /mcp` event stream, within the bounds per session and over all; each one holds a
/// connection until it ends, so a stream past either bound is refused at once (and its
/// connection closed) instead of taking a connection new sessions need.
async fn open_stream(state: &State, request: Request<Incoming>) -> Response<Body> {
    let Some(session) = request
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
    else {
        // rmcp refuses it at once.
        return state.service.handle(request).await;
    };
    let place = {
        let mut streams = state.streams.lock().unwrap();
        let limits = &state.limits;
        let held = streams.by_session.get(&session).copied().unwrap_or(0);
        let refusal = if held >= limits.max_streams_per_session {
            Some((
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "Too Many Requests: this session already holds {held} event streams (GET \
/mcp), the most one session may; close one first"
                ),
            ))
        } else if streams.open >= limits.max_streams {
            Some((
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "Service Unavailable: the server holds {} event streams (GET /mcp), the most \
it keeps open at once; requests (POST) are answered as before",
                    streams.open
                ),
            ))
        } else {
            None
        };
        if let Some((status, text)) = refusal {
            let mut response = plain(status, &text);
            close(&mut response);
            return response;
        }
        streams.open += 1;
        *streams.by_session.entry(session.clone()).or_default() += 1;
        StreamPlace {
            streams: state.streams.clone(),
            session,
        }
    };
    let response = state.service.handle(request).await;
    if response.status() != StatusCode::OK {
        return response;
    }
    response.map(|body| {
        body.map_frame(move |frame| {
            let _ = &place;
            frame
        })
        .boxed()
    })
}

fn accepted() -> Response<Body> {
    Response::builder()
        .status(StatusCode::ACCEPTED)
        .body(Full::new(Bytes::new()).boxed())
        .expect("a valid response")
}

/// The body, within the size limit, the time limit and the shared byte budget, with the
/// budget it holds (given back when the request has been handed over).
async fn read_body(
    state: &State,
    headers: &HeaderMap,
    body: Incoming,
) -> Result<(Bytes, Option<OwnedSemaphorePermit>), Response<Body>> {
    let limits = &state.limits;
    let too_large = |size| {
        let mut response = json_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            &check::too_large(Value::Null, size),
        );
        close(&mut response);
        response
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse::<usize>().ok());
    let deadline = tokio::time::Instant::now() + limits.body_read_timeout;
    let mut body = body;
    if let Some(size) = declared.filter(|size| *size > limits.max_body_bytes) {
        drain(&mut body, deadline).await;
        return Err(too_large(Some(size)));
    }
    let mut collected = Vec::new();
    let mut held: Option<OwnedSemaphorePermit> = None;
    loop {
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => {
                let mut response = json_error(
                    StatusCode::REQUEST_TIMEOUT,
                    &check::error(
                        Value::Null,
                        check::INVALID_REQUEST,
                        format!(
                            "Invalid Request: the body did not arrive within {} s ({} of its \
bytes did)",
                            limits.body_read_timeout.as_secs_f64(),
                            collected.len()
                        ),
                    ),
                );
                close(&mut response);
                return Err(response);
            }
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                return Err(plain(
                    StatusCode::BAD_REQUEST,
                    &format!("Bad Request: the body could not be read: {e}"),
                ))
            }
            Ok(Some(Ok(frame))) => frame,
        };
        let Ok(data) = frame.into_data() else {
            continue; // Trailers.
        };
        if collected.len() + data.len() > limits.max_body_bytes {
            let read = collected.len() + data.len();
            drop(collected);
            let size = drain(&mut body, deadline).await.map(|rest| read + rest);
            return Err(too_large(size));
        }
        let wanted = u32::try_from(data.len()).expect("a frame is smaller than the body limit");
        let permit = tokio::time::timeout_at(
            deadline,
            state.body_budget.clone().acquire_many_owned(wanted),
        )
        .await;
        let Ok(Ok(permit)) = permit else {
            let mut response = plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "Service Unavailable: too many large requests at once; try again",
            );
            close(&mut response);
            return Err(response);
        };
        match &mut held {
            Some(held) => held.merge(permit),
            None => held = Some(permit),
        }
        collected.extend_from_slice(&data);
    }
    Ok((Bytes::from(collected), held))
}

/// Reads and drops the rest of a body refused for its size, so that a client still sending it
/// reads the answer (one whose upload is cut off sees only a reset), until the deadline. The
/// bytes read, when the body ended.
async fn drain(body: &mut Incoming, deadline: tokio::time::Instant) -> Option<usize> {
    let mut bytes = 0;
    loop {
        match tokio::time::timeout_at(deadline, body.frame()).await {
            Ok(Some(Ok(frame))) => bytes += frame.data_ref().map_or(0, Bytes::len),
            Ok(None) => return Some(bytes),
            Ok(Some(Err(_))) | Err(_) => return None,
        }
    }
}

/// Every `Host` value (and the request target's authority, when it has one) must name a
/// loopback host, without user info.
#[allow(clippy::result_large_err)]
fn check_host(uri: &Uri, headers: &HeaderMap, allowed: &[String]) -> Result<(), Response<Body>> {
    let target = uri.authority().map(|authority| authority.as_str());
    let values = headers
        .get_all(header::HOST)
        .iter()
        .map(HeaderValue::to_str);
    for value in values.chain(target.map(Ok)) {
        let allowed = value.is_ok_and(|text| {
            !text.contains('@')
                && text
                    .parse::<axum::http::uri::Authority>()
                    .is_ok_and(|authority| {
                        let host = authority.host().trim_matches(['[', ']']);
                        allowed.iter().any(|name| name.eq_ignore_ascii_case(host))
                    })
        });
        if !allowed {
            return Err(plain(
                StatusCode::FORBIDDEN,
                "Forbidden: Host header is not allowed (each Host must be a loopback name \
without user info)",
            ));
        }
    }
    Ok(())
}

/// Every `Origin` value, when there is one, must be an allowed origin exactly.
#[allow(clippy::result_large_err)]
fn check_origin(headers: &HeaderMap, allowed: &[String]) -> Result<(), Response<Body>> {
    for value in headers.get_all(header::ORIGIN) {
        let origin = value.to_str().ok().and_then(|text| {
            let uri = text.parse::<Uri>().ok()?;
            let (scheme, authority) = (uri.scheme_str()?, uri.authority()?);
            if authority.as_str().contains('@') || !matches!(uri.path(), "" | "/") {
                return None;
            }
            let port = authority.port_u16().or(match scheme {
                "http" => Some(80),
                "https" => Some(443),
                _ => None,
            })?;
            Some(format!(
                "{}://{}:{port}",
                scheme.to_ascii_lowercase(),
                authority.host().to_ascii_lowercase()
            ))
        });
        if !origin.is_some_and(|origin| allowed.contains(&origin)) {
            return Err(plain(
                StatusCode::FORBIDDEN,
                "Forbidden: Origin header is not allowed",
            ));
        }
    }
    Ok(())
}

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Full::new(Bytes::from(text.to_owned())).boxed())
        .expect("a valid response")
}

fn json_error(status: StatusCode, error: &Value) -> Response<Body> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(error.to_string())).boxed())
        .expect("a valid response")
}

/// The rest of the request was not read: the connection cannot carry another one.
fn close(response: &mut Response<Body>) {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::SocketAddr;
    use std::time::Instant;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    struct Running {
        addr: SocketAddr,
        state: Arc<State>,
        gate: Arc<CallGate>,
        stop: CancellationToken,
    }

    impl Drop for Running {
        fn drop(&mut self) {
            self.stop.cancel();
        }
    }

    async fn start(limits: HttpLimits) -> Running {
        start_with(limits, CallGate::default()).await
    }

    async fn start_with(limits: HttpLimits, gate: CallGate) -> Running {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = CancellationToken::new();
        let gate = Arc::new(gate);
        let state = Arc::new(state(
            super::super::http::allowed_hosts(addr),
            super::super::http::allowed_origins(addr, &[]),
            limits,
            gate.clone(),
            stop.clone(),
        ));
        tokio::spawn({
            let (state, stop) = (state.clone(), stop.clone());
            async move {
                tokio::select! {
                    () = accept_loop(listener, state) => {}
                    () = stop.cancelled() => {}
                }
            }
        });
        Running {
            addr,
            state,
            gate,
            stop,
        }
    }

    /// A response read to its end (every request here says `Connection: close`).
    struct Reply {
        status: u16,
        head: String,
        body: String,
    }

    impl Reply {
        fn header(&self, name: &str) -> Option<&str> {
            self.head.lines().find_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.eq_ignore_ascii_case(name).then(|| value.trim())
            })
        }

        /// The JSON-RPC message of a JSON body or of an event stream's `data:` line.
        fn message(&self) -> Value {
            let data = self
                .body
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim)
                .find(|data| !data.is_empty())
                .unwrap_or(&self.body);
            serde_json::from_str(data).unwrap_or_else(|e| panic!("{e}: {}", self.body))
        }
    }

    async fn send(addr: SocketAddr, raw: &[u8]) -> Reply {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(raw).await.unwrap();
        let mut bytes = Vec::new();
        tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut bytes))
            .await
            .expect("answered within 30 s")
            .unwrap();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status line: {text:?}"));
        Reply {
            status,
            head: head.to_owned(),
            body: body.to_owned(),
        }
    }

    fn post(addr: SocketAddr, extra: &str, body: &str) -> Vec<u8> {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
Accept: application/json, text/event-stream\r\nConnection: close\r\n{extra}\
Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    }

    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;

    /// A new session, initialized; its id.
    async fn session(addr: SocketAddr) -> String {
        let reply = send(addr, &post(addr, "", INITIALIZE)).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(reply.message()["result"]["serverInfo"]["name"], "exemplar");
        let id = reply
            .header("mcp-session-id")
            .expect("a session")
            .to_owned();
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let reply = send(addr, &post(addr, &session_headers(&id), initialized)).await;
        assert_eq!(reply.status, 202, "{}", reply.body);
        id
    }

    fn session_headers(id: &str) -> String {
        format!("Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n")
    }

    async fn call(addr: SocketAddr, session: &str, name: &str, arguments: &str) -> Reply {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
        );
        send(addr, &post(addr, &session_headers(session), &body)).await
    }

    fn fast() -> HttpLimits {
        HttpLimits {
            header_read_timeout: Duration::from_secs(3),
            body_read_timeout: Duration::from_secs(3),
            ..HttpLimits::default()
        }
    }

    /// Issue 25 item 2: slow clients (headers never finished, bodies at a byte a second, many
    /// of them) neither hold the server nor their connections.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn slow_clients_are_closed_and_a_good_client_is_answered_meanwhile() {
        let server = start(fast()).await;
        let addr = server.addr;
        let started = Instant::now();
        let mut slow = Vec::new();
        for i in 0..120 {
            let mut stream = TcpStream::connect(addr).await.unwrap();
            if i % 2 == 0 {
                // Headers that never end.
                stream
                    .write_all(format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ").as_bytes())
                    .await
                    .unwrap();
            } else {
                // A body promised and sent a byte at a time.
                stream
                    .write_all(&post(addr, "", INITIALIZE)[..INITIALIZE.len() / 2 + 200])
                    .await
                    .unwrap();
            }
            slow.push(stream);
        }
        let trickle = tokio::spawn(async move {
            for _ in 0..40 {
                tokio::time::sleep(Duration::from_millis(150)).await;
                for stream in slow.iter_mut().skip(1).step_by(2) {
                    let _ = stream.write_all(b" ").await;
                }
            }
            slow
        });
        // A well-behaved client, while all of them are open.
        let before = Instant::now();
        let session = session(addr).await;
        let fit = call(addr, &session, "fit_random_effects", "{}").await;
        assert_eq!(fit.message()["result"]["isError"], false);
        // Answered while every slow connection is still open (they are closed at 3 s).
        assert!(
            started.elapsed() < Duration::from_millis(2500),
            "a good client waited {:?}",
            before.elapsed()
        );
        // Every slow connection is closed soon after its timeout.
        let mut slow = trickle.await.unwrap();
        for stream in &mut slow {
            let mut rest = Vec::new();
            let read = tokio::time::timeout(Duration::from_secs(8), stream.read_to_end(&mut rest));
            assert!(
                read.await.is_ok(),
                "a slow connection still open at {:?}",
                started.elapsed()
            );
            if !rest.is_empty() {
                let text = String::from_utf8_lossy(&rest);
                assert!(text.starts_with("HTTP/1.1 408"), "{text}");
                assert!(text.contains("did not arrive within 3 s"), "{text}");
            }
        }
        assert!(started.elapsed() < Duration::from_secs(8));
        assert_eq!(session_count(&server), 1);
    }

    fn session_count(server: &Running) -> usize {
        server.state.sessions.live()
    }

    /// Connections beyond the cap wait in the listen queue and are served once a slow one
    /// has been closed.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn connections_beyond_the_cap_wait_for_a_free_one() {
        let server = start(HttpLimits {
            max_connections: 4,
            ..fast()
        })
        .await;
        let addr = server.addr;
        let mut slow = Vec::new();
        for _ in 0..4 {
            let mut stream = TcpStream::connect(addr).await.unwrap();
            stream.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
            slow.push(stream);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        let started = Instant::now();
        let reply = send(addr, &post(addr, "", INITIALIZE)).await;
        assert_eq!(reply.status, 200);
        let waited = started.elapsed();
        assert!(
            waited > Duration::from_millis(2500) && waited < Duration::from_secs(8),
            "served after {waited:?}, when the slow ones were closed"
        );
    }

    /// At most `max_sessions` live sessions: a new one closes the least recently used, whose
    /// client then gets 404; an idle session expires; both release their memory.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sessions_are_capped_and_expire() {
        let server = start(HttpLimits {
            max_sessions: 3,
            session_idle: Duration::from_secs(5),
            ..HttpLimits::default()
        })
        .await;
        let addr = server.addr;
        let first = session(addr).await;
        let mut others = Vec::new();
        for _ in 0..4 {
            others.push(session(addr).await);
            // The first one stays in use until the fourth session, so the second is evicted.
            if others.len() < 3 {
                let reply = call(addr, &first, "get_dataset", "{}").await;
                assert_eq!(reply.status, 200);
            }
        }
        assert_eq!(session_count(&server), 3);
        let evicted = call(addr, &others[0], "get_dataset", "{}").await;
        assert_eq!(evicted.status, 404, "{}", evicted.body);
        assert!(evicted.body.contains("Session not found"));
        let kept = call(addr, others.last().unwrap(), "get_dataset", "{}").await;
        assert_eq!(kept.status, 200);
        tokio::time::sleep(Duration::from_millis(6500)).await;
        assert_eq!(session_count(&server), 0, "idle sessions expired");
        assert_eq!(
            server.state.sessions.rmcp_live().await,
            0,
            "and rmcp dropped them"
        );
    }

    /// The data handles of all sessions are bounded together: a load past the budget drops
    /// the oldest handle of the server, in whichever session; a closed session's data no
    /// longer count.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn data_handles_of_all_sessions_are_bounded_together() {
        let records = |tag: &str| {
            Value::Array(
                (0..50)
                    .map(|i| serde_json::json!({"id": format!("{tag}{i:02}"), "yi": 0.5, "vi": 0.25}))
                    .collect(),
            )
        };
        let one = exemplar::canonical::to_string(&records("a")).len();
        let server = start(HttpLimits {
            max_sessions: 3,
            held_bytes: 2 * one + one / 2,
            ..HttpLimits::default()
        })
        .await;
        let addr = server.addr;
        let load = |session: String, tag: &'static str| async move {
            let arguments = serde_json::json!({"records": records(tag)}).to_string();
            let reply = call(addr, &session, "load_data", &arguments).await;
            let result = reply.message()["result"]["structuredContent"].clone();
            (result["data_id"].clone(), result["expired"].clone())
        };
        // The text of a fit by handle: a result, or the error.
        let fit = |session: String, id: &'static str| async move {
            let arguments = format!(r#"{{"data_id":"{id}"}}"#);
            let reply = call(addr, &session, "fit_random_effects", &arguments).await;
            let text = reply.message()["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned();
            // A result names the handle it read; the rest is the inline call's.
            match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(mut result) if result.is_object() => {
                    let named = result["dataset"].as_object_mut().unwrap().remove("data_id");
                    assert_eq!(named, Some(serde_json::json!(id)));
                    result.to_string()
                }
                _ => text,
            }
        };
        let (s1, s2, s3) = (
            session(addr).await,
            session(addr).await,
            session(addr).await,
        );
        let none = serde_json::json!([]);
        assert_eq!(load(s1.clone(), "a").await, ("d1".into(), none.clone()));
        assert_eq!(load(s2.clone(), "b").await, ("d1".into(), none.clone()));
        assert_eq!(server.state.held.bytes(), 2 * one);
        // The third load passes the budget: the first session's handle goes.
        assert_eq!(load(s3.clone(), "c").await, ("d1".into(), none.clone()));
        let expired = fit(s1.clone(), "d1").await;
        assert!(
            expired.starts_with("unknown_data: the data handle \"d1\" has expired")
                && expired.contains(&format!(
                    "all sessions of this server together {} bytes",
                    2 * one + one / 2
                )),
            "{expired}"
        );
        let inline = |tag| {
            exemplar::tools::call(
                "fit_random_effects",
                &serde_json::json!({"records": records(tag)}),
            )
            .unwrap()
            .to_string()
        };
        assert_eq!(fit(s3.clone(), "d1").await, inline("c"), "the newest works");
        // The second session is now the least recently used: a new one closes it, and its
        // data stop counting once its worker has ended.
        assert_eq!(fit(s1.clone(), "d1").await, expired);
        assert_eq!(fit(s3.clone(), "d1").await, inline("c"));
        let s4 = session(addr).await;
        let closed = call(addr, &s2, "get_dataset", "{}").await;
        assert_eq!(closed.status, 404, "{}", closed.body);
        let started = Instant::now();
        while server.state.held.bytes() > one {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the closed session's store was dropped"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // Had the closed session counted, this load would drop the third session's handle.
        assert_eq!(load(s4.clone(), "d").await, ("d1".into(), none.clone()));
        assert_eq!(fit(s3.clone(), "d1").await, inline("c"));
        assert_eq!(fit(s4.clone(), "d1").await, inline("d"));
    }

    /// Issue 25 item 4: arguments with a repeated key get the CLI's and the page's error.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn repeated_keys_are_refused_as_the_cli_refuses_them() {
        let server = start(HttpLimits::default()).await;
        let addr = server.addr;
        let session = session(addr).await;
        let arguments = r#"{"method":"REML","method":"DL"}"#;
        let reply = call(addr, &session, "fit_random_effects", arguments).await;
        let result = &reply.message()["result"];
        assert_eq!(result["isError"], true, "{result}");
        let expected = exemplar::tools::parse_args(arguments)
            .unwrap_err()
            .to_string();
        assert_eq!(result["content"][0]["text"], expected);
        assert!(expected.contains("duplicate key \"method\""), "{expected}");
        // Elsewhere in the message: an Invalid Request naming the key.
        let body = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","method":"ping"}"#;
        let reply = send(addr, &post(addr, &session_headers(&session), body)).await;
        assert_eq!(reply.status, 400);
        let error = reply.message();
        assert_eq!(error["id"], 3);
        assert_eq!(error["error"]["code"], check::INVALID_REQUEST);
        // Not JSON, or followed by other text: a Parse error.
        let reply = send(addr, &post(addr, &session_headers(&session), "{]")).await;
        assert_eq!(reply.message()["error"]["code"], check::PARSE_ERROR);
        assert!(reply.message().as_object().unwrap().contains_key("id"));
    }

    /// Issue 25 item 6: the 16 MiB the tools' descriptions promise can be sent; more is a
    /// JSON-RPC error.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_documented_argument_limit_is_reachable_and_more_is_a_json_rpc_error() {
        let server = start(HttpLimits::default()).await;
        let addr = server.addr;
        let session = session(addr).await;
        // White space inside the arguments' object counts toward their size.
        let padded = |size: usize| {
            let core = r#"{"exclude":["s04"]}"#;
            format!(r#"{{"exclude":["s04"]{}}}"#, " ".repeat(size - core.len()))
        };
        let max = exemplar::tools::MAX_ARGS_BYTES;
        let reply = call(addr, &session, "refit_excluding", &padded(max)).await;
        assert_eq!(reply.status, 200);
        assert_eq!(
            reply.message()["result"]["isError"],
            false,
            "16 MiB of arguments"
        );
        let reply = call(addr, &session, "refit_excluding", &padded(max + 1)).await;
        let text = reply.message()["result"]["content"][0]["text"].clone();
        assert_eq!(
            text,
            exemplar::tools::parse_args(&padded(max + 1))
                .unwrap_err()
                .to_string()
        );
        // Refused by its Content-Length, before the body is sent.
        let huge = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
Accept: application/json, text/event-stream\r\n{}Content-Length: {}\r\n\r\n",
            session_headers(&session),
            check::MAX_MESSAGE_BYTES + 1
        );
        let reply = send(addr, huge.as_bytes()).await;
        assert_eq!(reply.status, 413);
        let error = reply.message();
        assert_eq!(error["error"]["code"], check::INVALID_REQUEST);
        assert!(error["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("at most {} bytes", check::MAX_MESSAGE_BYTES)));
    }

    /// Issue 25 item 7: the waiting room counts each call's message, as the body arrived.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_too_large_for_the_waiting_room_is_busy() {
        // No call ever runs; 50 bytes of messages may wait (a call is about 90).
        let server = start_with(HttpLimits::default(), CallGate::new(0, 10, 50)).await;
        let session = session(server.addr).await;
        let reply = call(server.addr, &session, "egger_test", "{}").await;
        let result = &reply.message()["result"];
        assert_eq!(result["isError"], true);
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with("busy: "), "{text}");
    }

    /// Issue 25 item 10: every Host and Origin value is checked; user info is refused.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_host_and_origin_is_checked() {
        let server = start(HttpLimits::default()).await;
        let addr = server.addr;
        let own = format!("Origin: http://{addr}\r\n");
        let raw = |headers: &str| {
            format!(
                "POST /mcp HTTP/1.1\r\n{headers}Content-Type: application/json\r\n\
Accept: application/json, text/event-stream\r\nConnection: close\r\n\
Content-Length: {}\r\n\r\n{INITIALIZE}",
                INITIALIZE.len()
            )
            .into_bytes()
        };
        let host = format!("Host: {addr}\r\n");
        assert_eq!(send(addr, &raw(&host)).await.status, 200);
        assert_eq!(send(addr, &raw(&format!("{host}{own}"))).await.status, 200);
        for refused in [
            format!("{host}Host: evil.example\r\n"),
            format!("Host: evil.example\r\n{host}"),
            format!("Host: user@{addr}\r\n"),
            format!("Host: evil.example@{addr}\r\n"),
            format!("{host}{own}Origin: https://evil.example\r\n"),
            format!("{host}Origin: https://evil.example\r\n{own}"),
            format!("{host}Origin: http://user@{addr}\r\n"),
        ] {
            let reply = send(addr, &raw(&refused)).await;
            assert_eq!(reply.status, 403, "{refused:?}: {}", reply.body);
        }
        // An absolute request target names the host too.
        let absolute = format!(
            "POST http://evil.example/mcp HTTP/1.1\r\n{host}Content-Length: 0\r\nConnection: close\r\n\r\n"
        );
        assert_eq!(send(addr, absolute.as_bytes()).await.status, 403);
    }

    use super::super::gate::GateLimits;
    use super::super::handler::test_hook;

    async fn until(what: &str, mut done: impl FnMut() -> bool) {
        let started = Instant::now();
        while !done() {
            assert!(started.elapsed() < Duration::from_secs(20), "{what}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Issue 29 item 2: a session's long calls leave a turn to another session, whose cheap
    /// call is answered at once; when their client goes away (its connections closed), the
    /// calls still waiting leave the waiting room and never run.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_whose_client_has_gone_stops_and_other_sessions_are_answered_meanwhile() {
        let server = start(HttpLimits::default()).await;
        let addr = server.addr;
        let (greedy, other) = (session(addr).await, session(addr).await);
        let tag = "http-client-gone";
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"{}","arguments":{{"ms":4000,"tag":"{tag}"}}}}}}"#,
            test_hook::SLOW_TOOL
        );
        let mut clients = Vec::new();
        for _ in 0..5 {
            let mut stream = TcpStream::connect(addr).await.unwrap();
            let request = post(addr, &session_headers(&greedy), &body);
            stream.write_all(&request).await.unwrap();
            clients.push(stream);
        }
        until("two slow calls run, three wait", || {
            test_hook::started(tag) == 2 && server.gate.waiting().0 == 3
        })
        .await;
        let before = Instant::now();
        let reply = call(addr, &other, "get_dataset", "{}").await;
        assert_eq!(
            reply.message()["result"]["isError"],
            false,
            "{}",
            reply.body
        );
        assert!(
            before.elapsed() < Duration::from_secs(2),
            "another session's call waited {:?}",
            before.elapsed()
        );
        drop(clients);
        until(
            "the calls whose client went away left the waiting room",
            || server.gate.waiting().0 == 0,
        )
        .await;
        until("the running calls' threads ended", || {
            server.gate.running() == 0
        })
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(test_hook::started(tag), 2, "a call given up never ran");
    }

    /// Issue 29 item 2: a call is answered within the time limit, even if its work goes on.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_past_the_time_limit_is_answered_timed_out() {
        let gate = CallGate::with_limits(GateLimits {
            time_limit: Duration::from_secs(1),
            ..GateLimits::default()
        });
        let server = start_with(HttpLimits::default(), gate).await;
        let session = session(server.addr).await;
        let before = Instant::now();
        let arguments = r#"{"ms":4000,"tag":"http-time-limit"}"#;
        let reply = call(server.addr, &session, test_hook::SLOW_TOOL, arguments).await;
        let result = &reply.message()["result"];
        assert_eq!(result["isError"], true);
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("timed_out: the call of test_slow_call did not finish within 1 s"),
            "{text}"
        );
        assert!(
            before.elapsed() < Duration::from_secs(3),
            "{:?}",
            before.elapsed()
        );
    }

    /// `influence_diagnostics` on 10,000 records (its largest call): seconds of work here
    /// (unoptimised), and a refit per record, each past a checkpoint.
    fn long_engine_call() -> String {
        let records: Vec<Value> = (0..10_000)
            .map(|i| {
                let (yi, vi) = (
                    0.3 + f64::from(i % 97) / 200.0,
                    0.01 + f64::from(i % 31) / 300.0,
                );
                serde_json::json!({"id": format!("r{i}"), "yi": yi, "vi": vi})
            })
            .collect();
        serde_json::json!({ "records": records }).to_string()
    }

    /// Issue 41 item 1: a call answered `timed_out` gives its turn back (the engine stops at
    /// its next checkpoint), so another session's call runs, not `busy` behind work nobody
    /// will read; and the turn is not held until the engine would have finished.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_timed_out_call_gives_its_turn_back() {
        // One turn: the timed-out call holds the only one until its thread returns. A later
        // call waits at most the time limit for it before it is answered busy.
        let gate = CallGate::with_limits(GateLimits {
            running: 1,
            per_session: 1,
            time_limit: Duration::from_secs(1),
            ..GateLimits::default()
        });
        let server = start_with(HttpLimits::default(), gate).await;
        let (long, other) = (session(server.addr).await, session(server.addr).await);
        let reply = call(
            server.addr,
            &long,
            "influence_diagnostics",
            &long_engine_call(),
        )
        .await;
        let text = reply.message()["result"]["content"][0]["text"].clone();
        assert!(
            text.as_str().unwrap().starts_with(
                "timed_out: the call of influence_diagnostics did not finish within 1 s"
            ),
            "{text}"
        );
        let reply = call(server.addr, &other, "get_dataset", "{}").await;
        let result = &reply.message()["result"];
        assert_eq!(result["isError"], false, "{}", reply.body);
        until("no thread runs", || server.gate.running() == 0).await;
    }

    /// Issue 29 item 7: JSON that is not a JSON-RPC message of MCP gets a JSON-RPC error over
    /// HTTP (400, JSON), as on stdio, not 415 with plain text; a leading byte order mark is
    /// accepted on both. Item 12: a tools/call whose params are not its shape is invalid
    /// params naming tools/call, not an unknown method.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn malformed_messages_get_json_rpc_errors_over_http() {
        let server = start(HttpLimits::default()).await;
        let addr = server.addr;
        let session = session(addr).await;
        for (body, id) in [
            (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, Value::Null),
            ("[]", Value::Null),
            (r#"{"id":1,"method":"ping"}"#, Value::from(1)),
            (
                r#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#,
                Value::from(2),
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                Value::from(1.5),
            ),
            (
                r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
                Value::Null,
            ),
            (
                r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                Value::Null,
            ),
            (r#"{"jsonrpc":"2.0","id":"s","method":7}"#, Value::from("s")),
            ("42", Value::Null),
            (r#""ping""#, Value::Null),
        ] {
            let reply = send(addr, &post(addr, &session_headers(&session), body)).await;
            assert_eq!(reply.status, 400, "{body}: {}", reply.body);
            assert_eq!(
                reply.header("content-type"),
                Some("application/json"),
                "{body}"
            );
            let error = reply.message();
            assert_eq!(error["error"]["code"], check::INVALID_REQUEST, "{body}");
            assert_eq!(error["id"], id, "{body}");
            assert_eq!(error["jsonrpc"], "2.0");
        }
        let bom = "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}";
        let reply = send(addr, &post(addr, &session_headers(&session), bom)).await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        assert_eq!(reply.message()["id"], 5);
        assert!(reply.message()["result"]["tools"].is_array());
        // An unknown notification is accepted and never answered.
        let unknown = r#"{"jsonrpc":"2.0","method":"notifications/unknown"}"#;
        let reply = send(addr, &post(addr, &session_headers(&session), unknown)).await;
        assert_eq!(reply.status, 202, "{}", reply.body);
        for arguments in ["[]", r#""x""#] {
            let reply = call(addr, &session, "fit_random_effects", arguments).await;
            let error = &reply.message()["error"];
            assert_eq!(error["code"], -32602, "{arguments}: {}", reply.body);
            let message = error["message"].as_str().unwrap();
            assert!(
                message.contains("the params of tools/call must be"),
                "{message}"
            );
        }
        let null = r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":null}"#;
        let reply = send(addr, &post(addr, &session_headers(&session), null)).await;
        assert_eq!(reply.message()["error"]["code"], -32602, "{}", reply.body);
        assert_eq!(reply.message()["id"], 6);
    }

    /// A `GET /mcp` event stream held open: its status, and the connection.
    async fn open_stream(addr: SocketAddr, session: &str) -> (u16, TcpStream) {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request = format!(
            "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n{}\r\n",
            session_headers(session)
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut head = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(5), async {
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") {
                if stream.read(&mut byte).await.unwrap() == 0 {
                    break;
                }
                head.push(byte[0]);
            }
        })
        .await;
        if read.is_err() {
            return (0, stream); // Not answered.
        }
        let text = String::from_utf8_lossy(&head);
        let status = text.split(' ').nth(1).and_then(|code| code.parse().ok());
        (status.unwrap_or(0), stream)
    }

    /// Issue 29 item 3: event streams are bounded per session and in all, below the
    /// connection cap: sessions holding every stream they may leave room for a new client.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn event_streams_are_bounded_and_a_new_client_is_answered() {
        let server = start(HttpLimits {
            max_connections: 8,
            max_streams: 4,
            max_streams_per_session: 2,
            ..fast()
        })
        .await;
        let addr = server.addr;
        let mut sessions = Vec::new();
        for _ in 0..8 {
            sessions.push(session(addr).await);
        }
        let mut held = Vec::new();
        let mut statuses = Vec::new();
        // One session asks for three streams, then every other session for one.
        for session in std::iter::repeat_n(&sessions[0], 3).chain(&sessions[1..]) {
            let (status, stream) = open_stream(addr, session).await;
            statuses.push(status);
            if status == 200 {
                held.push(stream);
            }
        }
        assert_eq!(statuses, [200, 200, 429, 200, 200, 503, 503, 503, 503, 503]);
        // A new client is answered at once while they are held.
        let before = Instant::now();
        let newcomer = session(addr).await;
        let fit = call(addr, &newcomer, "fit_random_effects", "{}").await;
        assert_eq!(fit.message()["result"]["isError"], false);
        assert!(
            before.elapsed() < Duration::from_secs(2),
            "{:?}",
            before.elapsed()
        );
        // A closed stream gives its place back.
        held.truncate(3);
        let started = Instant::now();
        loop {
            let (status, stream) = open_stream(addr, &newcomer).await;
            if status == 200 {
                held.push(stream);
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "still {status}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
