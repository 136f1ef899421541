//! Which requests the server answers: only those addressed to it by its own address, and only
//! WebSockets opened by its own pages.
//!
//! A web page a player has open elsewhere can make their browser connect here, but the browser
//! then sends that page's `Origin`, which is refused. A page that rebinds its own host name to
//! this machine's address passes the origin test (it is same-origin with itself), so the
//! `Host` a request names must be an IP address, `localhost`, or a name the GM listed with
//! `--name`. A request with no `Origin` is not from a web page (a browser always sends one on a
//! WebSocket) and needs only the right `Host`.

use axum::http::{header, HeaderMap};

/// Whether the `Host` names this server in a way no foreign page can borrow.
fn host_allowed(host: &str, names: &[String]) -> bool {
    let name = match host.strip_prefix('[') {
        // An IPv6 literal: [::1]:port
        Some(rest) => return rest.split_once(']').is_some_and(|(ip, _)| ip.parse::<std::net::Ipv6Addr>().is_ok()),
        None => {
            host.rsplit_once(':').map_or(host, |(name, port)| if port.parse::<u16>().is_ok() { name } else { host })
        }
    };
    name.parse::<std::net::Ipv4Addr>().is_ok()
        || name.eq_ignore_ascii_case("localhost")
        || names.iter().any(|n| n.eq_ignore_ascii_case(name))
}

/// A request the server does not answer, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error(
        "this table answers only to its own address (an IP address, localhost, or a name the GM allows with \
         --name), not to '{0}'"
    )]
    Address(String),
    #[error("a page from {origin} may not use this table; open http://{host}/ instead")]
    ForeignPage { origin: String, host: String },
}

/// Accepts a request addressed to this server from its own pages, or says why not.
pub fn check(headers: &HeaderMap, names: &[String]) -> Result<(), Refused> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("").trim();
    if !host_allowed(host, names) {
        return Err(Refused::Address(host.to_string()));
    }
    match headers.get(header::ORIGIN).map(|o| o.to_str().unwrap_or("?")) {
        None => Ok(()),
        Some(origin) if origin.eq_ignore_ascii_case(&format!("http://{host}")) => Ok(()),
        Some(origin) => Err(Refused::ForeignPage { origin: origin.to_string(), host: host.to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(host: &str, origin: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        h
    }

    #[test]
    fn own_pages_pass_and_foreign_ones_do_not() {
        let none: Vec<String> = vec![];
        assert!(check(&headers("127.0.0.1:4000", Some("http://127.0.0.1:4000")), &none).is_ok());
        assert!(check(&headers("192.168.1.5:4000", Some("http://192.168.1.5:4000")), &none).is_ok());
        assert!(check(&headers("[::1]:4000", Some("http://[::1]:4000")), &none).is_ok());
        assert!(check(&headers("localhost:4000", None), &none).is_ok(), "a program that is not a web page");
        let e = check(&headers("127.0.0.1:4000", Some("http://evil.example")), &none).unwrap_err();
        assert!(e.to_string().contains("evil.example"), "{e}");
        assert!(
            check(&headers("127.0.0.1:4000", Some("http://127.0.0.1:4001")), &none).is_err(),
            "another port is another origin"
        );
        assert!(check(&headers("127.0.0.1:4000", Some("null")), &none).is_err(), "a sandboxed frame");
        let e = check(&headers("evil.example:4000", Some("http://evil.example:4000")), &none).unwrap_err();
        assert!(e.to_string().contains("only to its own address"), "a rebound name is refused: {e}");
        let named = vec!["gm-laptop.local".to_string()];
        assert!(check(&headers("gm-laptop.local:4000", Some("http://gm-laptop.local:4000")), &named).is_ok());
        assert!(check(&headers("", None), &none).is_err(), "no Host, no answer");
    }
}
