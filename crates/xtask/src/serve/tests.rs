//! The server as a client sees it: raw HTTP/1.1 over std's TCP, so that a
//! test can send what no HTTP client library would (half a request, a
//! foreign `Host`, a 10,000-byte path).

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::*;

/// A throwaway repository root: the page, one file of each served kind
/// under `www/`, and a file outside the allow-list.
struct Root(PathBuf);

impl Root {
    fn new() -> Root {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "xtask-serve-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(dir.join("www/pkg")).unwrap();
        for (path, content) in [
            ("index.html", "<!doctype html><title>page</title>"),
            ("benchmark-baseline.pdf", "%PDF-1.7"),
            ("Cargo.toml", "[workspace]"),
            ("www/app.js", "export {};"),
            ("www/pkg/engine_bg.wasm", "\0asm\x01\0\0\0"),
        ] {
            std::fs::write(dir.join(path), content).unwrap();
        }
        Root(dir)
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn start(root: &Root, limits: Limits, allowed: &[&str]) -> Background {
    let allowed: Vec<AllowedHost> = allowed.iter().map(|h| h.parse().unwrap()).collect();
    spawn_background_with(&root.0, limits, &allowed).unwrap()
}

fn start_default(root: &Root) -> Background {
    start(root, Limits::default(), &[])
}

#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

/// Reads a whole response from a connection the server closes after it.
fn read_reply(stream: &mut TcpStream) -> Reply {
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .expect("a response, then close");
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no response head in {:?}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8(raw[..end].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .map(|line| {
            let (name, value) = line.split_once(':').unwrap();
            (name.to_string(), value.trim().to_string())
        })
        .collect();
    Reply {
        status,
        headers,
        body: raw[end + 4..].to_vec(),
    }
}

/// Sends `head` (request line and headers, without the blank line) and
/// `Connection: close`, and reads the response.
fn exchange(addr: SocketAddr, head: &[u8]) -> Reply {
    let mut stream = connect(addr);
    stream.write_all(head).unwrap();
    stream.write_all(b"\r\nConnection: close\r\n\r\n").unwrap();
    read_reply(&mut stream)
}

/// `GET path` with `Host: host`.
fn get(addr: SocketAddr, path: &str, host: &str) -> Reply {
    exchange(
        addr,
        format!("GET {path} HTTP/1.1\r\nHost: {host}").as_bytes(),
    )
}

fn loopback(server: &Background) -> String {
    format!("127.0.0.1:{}", server.addr.port())
}

#[test]
fn policy_matches_the_page_meta_tag() {
    let root = crate::workspace_root();
    let page = std::fs::read_to_string(root.join("index.html")).unwrap();
    let normalized = PAGE_CSP.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        page.contains(&format!("content=\"{normalized}\"")),
        "index.html's CSP meta tag differs from the served header"
    );
    assert_eq!(CSP, format!("{PAGE_CSP}; frame-ancestors 'none'"));
}

#[test]
fn half_sent_headers_are_closed_within_the_timeout() {
    let root = Root::new();
    let timeout = Duration::from_millis(300);
    let limits = Limits {
        header_read_timeout: timeout,
        ..Limits::default()
    };
    let server = start(&root, limits, &[]);
    let started = Instant::now();
    let mut clients: Vec<TcpStream> = (0..20)
        .map(|i| {
            let mut stream = connect(server.addr);
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            // Half of them send part of a request, half send nothing.
            if i % 2 == 0 {
                stream
                    .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                    .unwrap();
            }
            stream
        })
        .collect();
    for stream in &mut clients {
        let mut rest = Vec::new();
        match stream.read_to_end(&mut rest) {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
            Err(e) => panic!("connection still open after {:?}: {e}", started.elapsed()),
        }
    }
    let elapsed = started.elapsed();
    assert!(
        elapsed < Duration::from_secs(3),
        "half-sent requests held for {elapsed:?} (timeout {timeout:?})"
    );
    // The server is not worn out by them.
    assert_eq!(get(server.addr, "/", &loopback(&server)).status, 200);
}

#[test]
fn unknown_paths_of_any_length_or_bytes_are_404() {
    let root = Root::new();
    let server = start_default(&root);
    let host = loopback(&server);
    let long = "a".repeat(256);
    let longer = "b".repeat(10_000);
    for path in [
        format!("/www/{long}"),
        format!("/www/{longer}"),
        format!("/www/{long}/x.js"),
        format!("/www/pkg/{long}.wasm"),
        format!("/{long}"),
        format!("/{longer}"),
        "/www/app.js/x".into(),
        "/www/%00".into(),
        "/www/%FF%FE".into(),
        "/www/a%2Fb".into(),
        "/www/..%2F..%2FCargo.toml".into(),
        "/www/nothing.js".into(),
        "/nothing".into(),
    ] {
        let reply = get(server.addr, &path, &host);
        assert_eq!(reply.status, 404, "{}…", &path[..path.len().min(40)]);
    }
    // Bytes that are not a URI at all: a client error, never a server error.
    let reply = exchange(
        server.addr,
        b"GET /www/\xff\xfe HTTP/1.1\r\nHost: 127.0.0.1",
    );
    assert!((400..500).contains(&reply.status), "{}", reply.status);
}

#[test]
fn the_allow_list_of_paths_still_holds() {
    let root = Root::new();
    let server = start_default(&root);
    let host = loopback(&server);
    let wasm = get(server.addr, "/www/pkg/engine_bg.wasm", &host);
    assert_eq!(wasm.status, 200);
    assert_eq!(wasm.header("content-type"), Some("application/wasm"));
    assert_eq!(wasm.body, b"\0asm\x01\0\0\0");
    let page = get(server.addr, "/", &host);
    assert_eq!(page.status, 200);
    assert_eq!(page.header("content-type"), Some("text/html"));
    assert_eq!(get(server.addr, "/index.html", &host).status, 200);
    assert_eq!(get(server.addr, "/www/app.js", &host).status, 200);
    let pdf = get(server.addr, "/benchmark-baseline.pdf", &host);
    assert_eq!(pdf.header("content-type"), Some("application/pdf"));
    for outside in [
        "/Cargo.toml",
        "/www/../Cargo.toml",
        "/www/%2e%2e/Cargo.toml",
    ] {
        assert_eq!(get(server.addr, outside, &host).status, 404, "{outside}");
    }
}

#[test]
fn only_loopback_hosts_are_served() {
    let root = Root::new();
    let server = start_default(&root);
    let port = server.addr.port();
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        "127.0.0.1".into(),
        "localhost".into(),
        "LOCALHOST".into(),
    ] {
        assert_eq!(get(server.addr, "/", &host).status, 200, "{host}");
    }
    for host in [
        "evil.example".to_string(),
        format!("evil.example:{port}"),
        format!("localhost:{}", port.wrapping_add(1)),
        format!("127.0.0.1.evil.example:{port}"),
        "".into(),
    ] {
        let reply = get(server.addr, "/", &host);
        assert_eq!(reply.status, 403, "{host:?}");
        assert_eq!(
            reply.header("content-type"),
            Some("text/plain; charset=utf-8")
        );
        let reason = String::from_utf8(reply.body).unwrap();
        assert!(reason.contains("--allow-host"), "{reason}");
    }
    // An absolute-form target names the host too.
    let absolute = format!("GET http://evil.example:{port}/ HTTP/1.1\r\nHost: 127.0.0.1:{port}");
    assert_eq!(exchange(server.addr, absolute.as_bytes()).status, 403);
    let absolute = format!("GET http://localhost:{port}/ HTTP/1.1\r\nHost: localhost:{port}");
    assert_eq!(exchange(server.addr, absolute.as_bytes()).status, 200);
    // No Host, or two.
    assert_eq!(exchange(server.addr, b"GET / HTTP/1.0").status, 400);
    let two = format!("GET / HTTP/1.1\r\nHost: localhost:{port}\r\nHost: evil.example");
    assert_eq!(exchange(server.addr, two.as_bytes()).status, 400);
}

#[test]
fn allow_host_adds_names() {
    let root = Root::new();
    let server = start(&root, Limits::default(), &["exemplar.test", "[fd00::7]"]);
    let port = server.addr.port();
    for host in [
        format!("exemplar.test:{port}"),
        "Exemplar.Test".into(),
        format!("[fd00::7]:{port}"),
        format!("localhost:{port}"),
    ] {
        assert_eq!(get(server.addr, "/", &host).status, 200, "{host}");
    }
    assert_eq!(get(server.addr, "/", "evil.example").status, 403);
}

#[test]
fn every_response_forbids_framing_and_sniffing() {
    let root = Root::new();
    let server = start_default(&root);
    let host = loopback(&server);
    for (path, host, status) in [
        ("/", host.as_str(), 200),
        ("/www/pkg/engine_bg.wasm", host.as_str(), 200),
        ("/Cargo.toml", host.as_str(), 404),
        (&*format!("/www/{}", "a".repeat(256)), host.as_str(), 404),
        ("/", "evil.example", 403),
    ] {
        let reply = get(server.addr, path, host);
        assert_eq!(reply.status, status, "{path}");
        let csp = reply.header("content-security-policy").unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert!(csp.starts_with("default-src 'self'"), "{csp}");
        assert_eq!(reply.header("x-frame-options"), Some("DENY"));
        assert_eq!(reply.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(reply.header("origin-agent-cluster"), Some("?1"));
        assert_eq!(reply.header("referrer-policy"), Some("no-referrer"));
    }
}

/// Whether the server has closed `stream` (it reads the end, or a reset).
fn closed(stream: &TcpStream) -> bool {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut byte = [0; 1];
    match stream.peek(&mut byte) {
        Ok(0) => true,
        Err(e) if e.kind() == ErrorKind::ConnectionReset => true,
        other => panic!("expected a closed connection: {other:?}"),
    }
}

/// Whether `stream` is still open (nothing to read, no end).
fn still_open(stream: &TcpStream) -> bool {
    stream.set_nonblocking(true).unwrap();
    let mut byte = [0; 1];
    let open = matches!(stream.peek(&mut byte), Err(e) if e.kind() == ErrorKind::WouldBlock);
    stream.set_nonblocking(false).unwrap();
    open
}

#[test]
fn the_connection_cap_holds_and_the_longest_idle_gives_way() {
    let root = Root::new();
    let limits = Limits {
        header_read_timeout: Duration::from_secs(60),
        max_connections: 2,
    };
    let server = start(&root, limits, &[]);
    let request = format!(
        "GET / HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        loopback(&server)
    );
    // Two connections that send nothing take both places.
    let first = connect(server.addr);
    std::thread::sleep(Duration::from_millis(50));
    let second = connect(server.addr);
    std::thread::sleep(Duration::from_millis(50));
    // A third is served: the first, idle longest, is closed for it.
    let mut third = connect(server.addr);
    third.write_all(request.as_bytes()).unwrap();
    assert_eq!(read_reply(&mut third).status, 200);
    assert!(closed(&first));
    assert!(still_open(&second));
    for _ in 0..3 {
        assert_eq!(get(server.addr, "/", &loopback(&server)).status, 200);
    }
}

/// Issue 41 item 14: 193 connections that never sent a header kept a new visitor out for
/// about 30 s (each waited its header timeout in turn for one of the 64 places). Idle
/// connections now give their place to a new one, the longest idle first: with 200 open
/// and a header timeout far longer than the test, a visitor's GET is still answered.
#[test]
fn idle_connections_do_not_keep_a_visitor_out() {
    let root = Root::new();
    let limits = Limits {
        header_read_timeout: Duration::from_secs(600),
        ..Limits::default()
    };
    let server = start(&root, limits, &[]);
    let idle: Vec<TcpStream> = (0..200)
        .map(|_| TcpStream::connect_timeout(&server.addr, Duration::from_secs(20)).unwrap())
        .collect();
    let mut visitor = TcpStream::connect_timeout(&server.addr, Duration::from_secs(20)).unwrap();
    visitor
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let request = format!(
        "GET / HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        loopback(&server)
    );
    visitor.write_all(request.as_bytes()).unwrap();
    assert_eq!(read_reply(&mut visitor).status, 200);
    // The longest idle gave way; the cap still holds: no more than 64 stay open once the
    // server has accepted the rest of the 200 (those still in the kernel's accept queue
    // count as open from this side until then, so the count is read until it settles).
    let cap = Limits::default().max_connections;
    let until = std::time::Instant::now() + Duration::from_secs(60);
    let mut open = idle.iter().filter(|stream| still_open(stream)).count();
    while open > cap && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
        open = idle.iter().filter(|stream| still_open(stream)).count();
    }
    assert!(open <= cap, "{open} idle connections open");
}
