//! Which `Host` a request may name. A page on another site can point its own
//! host name at 127.0.0.1 (DNS rebinding) and then read this server as if it
//! were same-origin; the browser still sends that name in `Host`, so the
//! server answers only to loopback names (and to names the user allowed with
//! `--allow-host`), on the port it serves or with no port.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::uri::Authority;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The names every server answers to.
const LOOPBACK: [&str; 3] = ["127.0.0.1", "localhost", "[::1]"];

/// A host name or IP address given to `--allow-host`, without a port
/// (an IPv6 address in brackets, as in a URL). Stored in lower case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowedHost(String);

/// Why an `--allow-host` value was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum AllowHostError {
    /// Not a host as a URL would write it (empty, spaces, `/`, `@`, an IPv6
    /// address without brackets…).
    NotAHost(String),
    /// It carries a port: the served port is always the one allowed.
    HasPort(String),
}

impl fmt::Display for AllowHostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllowHostError::NotAHost(value) => write!(
                f,
                "'{value}' is not a host name or IP address \
                 (write e.g. exemplar.test, 192.0.2.7 or [fd00::7])"
            ),
            AllowHostError::HasPort(value) => write!(
                f,
                "'{value}' has a port; give the host alone (the served port is the one allowed)"
            ),
        }
    }
}

impl std::error::Error for AllowHostError {}

impl FromStr for AllowedHost {
    type Err = AllowHostError;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let (host, port) =
            split_host(value).ok_or_else(|| AllowHostError::NotAHost(value.into()))?;
        if port.is_some() {
            return Err(AllowHostError::HasPort(value.into()));
        }
        Ok(AllowedHost(host))
    }
}

/// `host[:port]` as a `Host` header or a URL writes it: the host in lower
/// case and the port, or `None` when it is not one (userinfo, a path, an
/// empty host, an unbracketed IPv6 address).
fn split_host(value: &str) -> Option<(String, Option<u16>)> {
    if value.contains('@') {
        return None;
    }
    let authority = Authority::from_str(value).ok()?;
    let host = authority.host();
    if host.is_empty() || authority.as_str().ends_with(':') {
        return None;
    }
    // `Authority` takes "::1" as host ":" and port ":1"; insist on brackets.
    if host.contains(':') && !host.starts_with('[') {
        return None;
    }
    Some((host.to_ascii_lowercase(), authority.port_u16()))
}

/// The hosts one server answers to: loopback names and the user's, on
/// `port` or without a port.
#[derive(Clone, Debug)]
pub struct HostAllowList {
    hosts: Vec<String>,
    port: u16,
}

impl HostAllowList {
    pub fn new(port: u16, extra: &[AllowedHost]) -> Self {
        let hosts = LOOPBACK
            .iter()
            .map(|h| h.to_string())
            .chain(extra.iter().map(|h| h.0.clone()))
            .collect();
        HostAllowList { hosts, port }
    }

    fn allows(&self, value: &str) -> bool {
        match split_host(value) {
            Some((host, port)) => self.hosts.contains(&host) && port.is_none_or(|p| p == self.port),
            None => false,
        }
    }

    /// The verdict on one request: `Ok` to serve it, or the refusal.
    fn check(&self, request: &Request) -> Result<(), Refusal> {
        let mut hosts = request.headers().get_all(header::HOST).iter();
        let host = match (hosts.next(), hosts.next()) {
            (Some(host), None) => host,
            (None, _) => return Err(Refusal::NoHost),
            (Some(_), Some(_)) => return Err(Refusal::ManyHosts),
        };
        let host_allowed = host.to_str().is_ok_and(|h| self.allows(h));
        // An absolute-form target (`GET http://name/ HTTP/1.1`) names the
        // host too, and RFC 9112 lets it override `Host`: both must pass.
        let target_allowed = request
            .uri()
            .authority()
            .is_none_or(|a| self.allows(a.as_str()));
        if host_allowed && target_allowed {
            Ok(())
        } else {
            Err(Refusal::NotAllowed)
        }
    }
}

enum Refusal {
    NoHost,
    ManyHosts,
    NotAllowed,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let (status, reason) = match self {
            Refusal::NoHost => (StatusCode::BAD_REQUEST, "The request has no Host header.\n"),
            Refusal::ManyHosts => (
                StatusCode::BAD_REQUEST,
                "The request has more than one Host header.\n",
            ),
            Refusal::NotAllowed => (
                StatusCode::FORBIDDEN,
                "This server answers only to 127.0.0.1, localhost and [::1] \
                 (start it with --allow-host NAME to add a name).\n",
            ),
        };
        let mut response = (status, reason).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        response
    }
}

/// Middleware: refuses a request whose `Host` the list does not allow.
pub async fn check_host(
    State(allowed): State<Arc<HostAllowList>>,
    request: Request,
    next: Next,
) -> Response {
    match allowed.check(&request) {
        Ok(()) => next.run(request).await,
        Err(refusal) => refusal.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_host_takes_a_bare_host() {
        for (value, host) in [
            ("exemplar.test", "exemplar.test"),
            ("Exemplar.TEST", "exemplar.test"),
            ("192.0.2.7", "192.0.2.7"),
            ("[fd00::7]", "[fd00::7]"),
        ] {
            assert_eq!(value.parse(), Ok(AllowedHost(host.into())), "{value}");
        }
    }

    #[test]
    fn allow_host_refuses_ports_and_non_hosts() {
        assert_eq!(
            "exemplar.test:8000".parse::<AllowedHost>(),
            Err(AllowHostError::HasPort("exemplar.test:8000".into()))
        );
        for value in [
            "",
            " ",
            "a b",
            "a/b",
            "user@host",
            "::1",
            "host:",
            "http://a",
        ] {
            assert_eq!(
                value.parse::<AllowedHost>(),
                Err(AllowHostError::NotAHost(value.into())),
                "{value:?}"
            );
        }
    }

    #[test]
    fn loopback_names_on_the_served_port_or_none() {
        let list = HostAllowList::new(8000, &[]);
        for ok in [
            "127.0.0.1",
            "127.0.0.1:8000",
            "localhost",
            "LocalHost:8000",
            "[::1]",
            "[::1]:8000",
        ] {
            assert!(list.allows(ok), "{ok} refused");
        }
        for refused in [
            "evil.example",
            "evil.example:8000",
            "localhost:8001",
            "127.0.0.2",
            "localhost.",
            "user@localhost",
            "",
        ] {
            assert!(!list.allows(refused), "{refused} allowed");
        }
    }

    #[test]
    fn allowed_hosts_add_to_loopback() {
        let list = HostAllowList::new(80, &["exemplar.test".parse().unwrap()]);
        assert!(list.allows("exemplar.test:80"));
        assert!(list.allows("localhost"));
        assert!(!list.allows("exemplar.test:81"));
    }
}
