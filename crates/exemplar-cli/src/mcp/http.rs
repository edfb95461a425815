//! `exemplar mcp --http`: Streamable HTTP at `/mcp`, on loopback only.
//!
//! The DNS-rebinding defence: the server binds a loopback address, accepts only loopback
//! `Host` values, and refuses with 403 a request whose `Origin` is neither its own nor one
//! given with `--allow-origin`. A request without `Origin` (not from a browser) passes.

use axum::http::uri::{Scheme, Uri};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::str::FromStr;

/// The address `--http` binds when given none.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8787";
/// Where the MCP endpoint is.
pub const PATH: &str = "/mcp";
/// The loopback `Host` names accepted (any port).
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// A loopback socket address (`127.0.0.1:8787`, `[::1]:0`, `localhost:9000`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopbackAddr(pub SocketAddr);

impl FromStr for LoopbackAddr {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let addr = match text.strip_prefix("localhost:") {
            Some(port) => port
                .parse::<u16>()
                .map(|port| SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
                .map_err(|_| format!("{text:?} has no valid port (0-65535)")),
            None => text.parse::<SocketAddr>().map_err(|_| {
                format!("{text:?} is not an address with a port, e.g. {DEFAULT_ADDR} or [::1]:8787")
            }),
        }?;
        if !addr.ip().is_loopback() {
            return Err(format!(
                "{} is not a loopback address: the server answers only loopback Host names, so \
bind 127.0.0.1 or [::1] (a remote client reaches it through a tunnel)",
                addr.ip()
            ));
        }
        Ok(LoopbackAddr(addr))
    }
}

/// A browser origin allowed besides the server's own: `scheme://host[:port]`, kept with
/// its port explicit (the scheme's default when none is given), so it matches exactly one
/// origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedOrigin(String);

impl FromStr for AllowedOrigin {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let shape = || {
            format!("{text:?} is not an origin: write scheme://host[:port], e.g. https://app.example or http://localhost:3000")
        };
        let uri: Uri = text.parse().map_err(|_| shape())?;
        let (Some(scheme), Some(authority)) = (uri.scheme(), uri.authority()) else {
            return Err(shape());
        };
        if !matches!(uri.path(), "" | "/") || uri.query().is_some() || text.ends_with('/') {
            return Err(format!(
                "{text:?} has a path or query; an origin is only scheme://host[:port]"
            ));
        }
        if authority.as_str().contains('@') {
            return Err(format!(
                "{text:?} has a user name; an origin is only scheme://host[:port]"
            ));
        }
        let port = match (authority.port_u16(), scheme) {
            (Some(port), _) => port,
            (None, s) if *s == Scheme::HTTP => 80,
            (None, s) if *s == Scheme::HTTPS => 443,
            (None, _) => {
                return Err(format!(
                    "{text:?} has no port and its scheme has no default; add one"
                ))
            }
        };
        Ok(AllowedOrigin(format!(
            "{}://{}:{port}",
            scheme.as_str().to_ascii_lowercase(),
            authority.host().to_ascii_lowercase()
        )))
    }
}

/// The `Host` names the server answers to: the loopback names, and the address it bound
/// when that is another loopback address (e.g. 127.0.0.2).
pub fn allowed_hosts(bound: SocketAddr) -> Vec<String> {
    let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect();
    let ip = bound.ip().to_string();
    if !hosts.contains(&ip) {
        hosts.push(ip);
    }
    hosts
}

/// The server's own origins (a page it served itself could call it) and the extra ones.
pub fn allowed_origins(bound: SocketAddr, extra: &[AllowedOrigin]) -> Vec<String> {
    let port = bound.port();
    let mut origins = vec![
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        format!("http://[::1]:{port}"),
    ];
    let own = match bound.ip() {
        IpAddr::V4(ip) => format!("http://{ip}:{port}"),
        IpAddr::V6(ip) => format!("http://[{ip}]:{port}"),
    };
    for origin in std::iter::once(own).chain(extra.iter().map(|o| o.0.clone())) {
        if !origins.contains(&origin) {
            origins.push(origin);
        }
    }
    origins
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_addresses_are_bound() {
        assert_eq!(
            "127.0.0.1:8787".parse::<LoopbackAddr>().unwrap().0,
            SocketAddr::from((Ipv4Addr::LOCALHOST, 8787))
        );
        assert!("[::1]:0".parse::<LoopbackAddr>().is_ok());
        assert_eq!(
            "localhost:9000".parse::<LoopbackAddr>().unwrap().0.port(),
            9000
        );
        let wide = "0.0.0.0:8787".parse::<LoopbackAddr>().unwrap_err();
        assert!(wide.contains("not a loopback address"), "{wide}");
        assert!("192.168.1.5:80".parse::<LoopbackAddr>().is_err());
        let portless = "127.0.0.1".parse::<LoopbackAddr>().unwrap_err();
        assert!(portless.contains("with a port"), "{portless}");
        assert!("localhost:99999".parse::<LoopbackAddr>().is_err());
    }

    #[test]
    fn origins_are_normalized_with_an_explicit_port() {
        let parse = |s: &str| s.parse::<AllowedOrigin>().map(|o| o.0);
        assert_eq!(
            parse("https://App.Example").unwrap(),
            "https://app.example:443"
        );
        assert_eq!(
            parse("http://localhost:3000").unwrap(),
            "http://localhost:3000"
        );
        assert_eq!(parse("http://[::1]").unwrap(), "http://[::1]:80");
        for bad in [
            "app.example",
            "https://app.example/path",
            "https://app.example/",
            "https://app.example?x=1",
            "https://user@app.example",
            "ftp://files.example",
            "",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn the_server_allows_its_own_origins_and_the_extra_ones() {
        let bound = SocketAddr::from((Ipv4Addr::LOCALHOST, 8787));
        let extra = ["https://app.example".parse().unwrap()];
        assert_eq!(
            allowed_origins(bound, &extra),
            [
                "http://127.0.0.1:8787",
                "http://localhost:8787",
                "http://[::1]:8787",
                "https://app.example:443"
            ]
        );
        let other = SocketAddr::from((Ipv4Addr::new(127, 0, 0, 2), 1));
        assert!(allowed_origins(other, &[]).contains(&"http://127.0.0.2:1".to_string()));
        assert_eq!(allowed_hosts(other).last().unwrap(), "127.0.0.2");
        assert_eq!(allowed_hosts(bound), LOOPBACK_HOSTS);
    }
}
