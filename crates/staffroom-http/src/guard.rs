//! What stands between a web page in the user's browser and the API. A browser lets any page
//! send requests to `127.0.0.1`: with DNS rebinding even under a name of the attacker's (the
//! `Host` header), and with "simple" requests (a `text/plain` body, no preflight) from any
//! origin. So every route but the signature-checked webhook receiver requires: a `Host` the
//! service answers to, an allowed `Origin` (when a browser sends one) on state-changing requests,
//! and a JSON body whenever there is a body.

use std::net::IpAddr;

use axum::extract::{Request, State};
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE, HOST, ORIGIN, TRANSFER_ENCODING};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::ApiError;
use staffroom_core::error::{Error, ErrorCode};

/// The host names (without ports) the service answers to.
#[derive(Debug, Clone)]
pub struct AllowedHosts(Vec<String>);

impl AllowedHosts {
    /// `localhost`, the loopback addresses, the address the service is bound to, and the names
    /// given with `--public-name` (the name a reverse proxy or TLS certificate serves).
    pub fn new(bound: IpAddr, public_names: &[String]) -> Self {
        let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
        if !bound.is_unspecified() {
            hosts.push(bound.to_string());
        }
        hosts.extend(public_names.iter().map(|n| n.trim().trim_end_matches('.').to_ascii_lowercase()));
        AllowedHosts(hosts)
    }

    fn allows(&self, host: &str) -> bool {
        self.0.iter().any(|h| h == host)
    }
}

/// The host part of a `Host` header value or an origin's authority (no port, no brackets).
fn host_part(authority: &str) -> String {
    let authority = authority.trim().to_ascii_lowercase();
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default().to_string();
    }
    authority.rsplit_once(':').map(|(host, _)| host.to_string()).unwrap_or(authority).trim_end_matches('.').to_string()
}

fn is_json(content_type: &str) -> bool {
    let mime = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
}

/// The middleware: refuses before any handler (and any password hashing) runs.
pub async fn browser_guard(State(hosts): State<AllowedHosts>, request: Request, next: Next) -> Response {
    match check(&hosts, &request) {
        Ok(()) => next.run(request).await,
        Err(error) => ApiError(error).into_response(),
    }
}

fn check(hosts: &AllowedHosts, request: &Request) -> Result<(), Error> {
    let headers = request.headers();
    let header = |name| headers.get(name).and_then(|v| v.to_str().ok());
    // HTTP/2 carries the host in the URI's authority rather than a Host header.
    let host = header(HOST).map(str::to_string).or_else(|| request.uri().authority().map(|a| a.to_string()));
    match host {
        Some(host) if hosts.allows(&host_part(&host)) => {}
        Some(host) => {
            return Err(Error::new(
                ErrorCode::MisdirectedRequest,
                format!("This service does not answer to the host {host:?}; use its own address, or start it with --public-name"),
            ))
        }
        None => return Err(Error::new(ErrorCode::MisdirectedRequest, "The request names no host")),
    }
    let changes_state = !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if changes_state {
        if let Some(origin) = header(ORIGIN) {
            let allowed = url::Url::parse(origin)
                .ok()
                .and_then(|u| u.host_str().map(host_part))
                .is_some_and(|h| hosts.allows(&h));
            if !allowed {
                return Err(Error::new(ErrorCode::Forbidden, "Requests from other web sites are refused"));
            }
        }
    }
    let has_body = header(TRANSFER_ENCODING).is_some() || header(CONTENT_LENGTH).is_some_and(|l| l.trim() != "0");
    if has_body && !header(CONTENT_TYPE).is_some_and(is_json) {
        return Err(Error::new(ErrorCode::UnsupportedMediaType, "Request bodies must be application/json"));
    }
    Ok(())
}

/// The client's address for throttling: the connection's peer, or, when the peer is a trusted
/// reverse proxy, the last address in `X-Forwarded-For` that is not one (what a client writes
/// before the proxies' own entries cannot choose it).
pub fn client_address(peer: Option<IpAddr>, forwarded: Option<&str>, trusted: &[ipnet::IpNet]) -> String {
    let Some(peer) = peer else { return "unknown".into() };
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return peer.to_string();
    }
    let mut client = peer;
    for entry in forwarded.unwrap_or_default().rsplit(',') {
        let entry = entry.trim();
        let Some(ip) = parse_forwarded(entry) else { break };
        client = ip;
        if !is_trusted(&ip) {
            break;
        }
    }
    client.to_string()
}

fn parse_forwarded(entry: &str) -> Option<IpAddr> {
    entry
        .parse()
        .ok()
        .or_else(|| entry.parse::<std::net::SocketAddr>().ok().map(|s| s.ip()))
        .or_else(|| entry.trim_start_matches('[').split(']').next()?.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins() {
        let hosts = AllowedHosts::new("127.0.0.1".parse().unwrap(), &["staff.example.com".into()]);
        for ok in ["localhost:8787", "127.0.0.1:8787", "[::1]:8787", "STAFF.example.com", "staff.example.com:443"] {
            assert!(hosts.allows(&host_part(ok)), "{ok}");
        }
        for bad in ["rebind.attacker.example", "127.0.0.1.attacker.example:8787", "example.com"] {
            assert!(!hosts.allows(&host_part(bad)), "{bad}");
        }
        assert!(is_json("application/json; charset=utf-8") && is_json("application/vnd.api+json"));
        assert!(!is_json("text/plain") && !is_json("application/x-www-form-urlencoded"));
    }

    #[test]
    fn the_client_is_the_last_untrusted_address() {
        let trusted: Vec<ipnet::IpNet> = vec!["127.0.0.1/32".parse().unwrap(), "10.0.0.0/8".parse().unwrap()];
        let peer = Some("127.0.0.1".parse().unwrap());
        assert_eq!(client_address(peer, Some("203.0.113.7"), &trusted), "203.0.113.7");
        assert_eq!(client_address(peer, Some("6.6.6.6, 203.0.113.7, 10.1.2.3"), &trusted), "203.0.113.7");
        assert_eq!(client_address(peer, None, &trusted), "127.0.0.1");
        // An untrusted peer's header is not believed.
        assert_eq!(client_address(Some("198.51.100.1".parse().unwrap()), Some("1.2.3.4"), &trusted), "198.51.100.1");
    }
}
