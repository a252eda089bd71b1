//! The checks every request passes before anything else: the `Host` it was sent to, the
//! `Origin` it came from, and the token in its cookie.
//!
//! - **Host** (DNS rebinding): a page on another site can make a browser resolve its own name to
//!   127.0.0.1 and send requests here; those carry that name as `Host`. Only the names the
//!   listener was started for pass ([`Hosts`]).
//! - **Origin** (CSRF): a browser adds `Origin` to every cross-site request and to same-origin
//!   POSTs; when present it must be this very origin (`http://` + an allowed host).
//!   `Sec-Fetch-Site: cross-site` is refused as well.
//! - **Cookie**: `signaltty_token`, HttpOnly and SameSite=Strict, set once in exchange for the
//!   URL's token ([`crate::serve`]); checked against the token file on every request, so a
//!   revoked token stops at once.

use http::HeaderMap;
use http::header::{COOKIE, HOST, ORIGIN};

use crate::token::{TokenRecord, TokenStore};

/// The cookie's name.
pub const COOKIE_NAME: &str = "signaltty_token";

/// The `Host` values a request may carry (`name:port`, lower case).
#[derive(Debug, Clone)]
pub struct Hosts(Vec<String>);

impl Hosts {
    /// The listener's own address, plus `localhost:port` for a loopback one, plus `extra`
    /// (`--allow-host`: a Tailscale name, the local end of an `ssh -L`).
    pub fn new(bound: std::net::SocketAddr, extra: &[String]) -> Self {
        let port = bound.port();
        let mut hosts = vec![bound.to_string()];
        if bound.ip().is_loopback() {
            hosts.push(format!("localhost:{port}"));
        }
        for host in extra {
            let host = host.to_ascii_lowercase();
            if host.contains(':') && !host.ends_with(']') {
                hosts.push(host);
            } else {
                hosts.push(format!("{host}:{port}"));
            }
        }
        Hosts(hosts)
    }

    fn allows(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        self.0.contains(&host)
    }
}

/// Why a request is refused, before any call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// `Host` missing or not ours: 421 Misdirected Request.
    WrongHost(String),
    /// Cross-site: 403.
    CrossOrigin(String),
    /// No cookie, or its token is unknown or revoked: 401.
    NoToken,
    /// The token file could not be read: 500.
    Store(String),
}

impl Refused {
    /// The HTTP status it is answered with.
    pub fn status(&self) -> http::StatusCode {
        match self {
            Refused::WrongHost(_) => http::StatusCode::MISDIRECTED_REQUEST,
            Refused::CrossOrigin(_) => http::StatusCode::FORBIDDEN,
            Refused::NoToken => http::StatusCode::UNAUTHORIZED,
            Refused::Store(_) => http::StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The plain-text body: what happened and what to do. Never echoes a token.
    pub fn message(&self) -> String {
        match self {
            Refused::WrongHost(host) => format!(
                "refused: this signaltty web server does not answer to host {host:?}; open the \
                 URL `signaltty web` printed, or start it with --allow-host for this name"
            ),
            Refused::CrossOrigin(origin) => {
                format!("refused: requests from another site ({origin}) are not accepted")
            }
            Refused::NoToken => "refused: no valid web token; open the URL that `signaltty web` \
                 printed (a revoked token needs a new one: `signaltty web token new`)"
                .to_string(),
            Refused::Store(why) => format!("refused: {why}"),
        }
    }
}

/// Host and Origin only (the token exchange, which brings its token in the URL).
pub fn check_site(headers: &HeaderMap, hosts: &Hosts) -> Result<(), Refused> {
    let host = headers
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !hosts.allows(host) {
        return Err(Refused::WrongHost(host.to_string()));
    }
    if let Some(origin) = headers.get(ORIGIN) {
        let origin = origin.to_str().unwrap_or("?");
        if !origin.eq_ignore_ascii_case(&format!("http://{host}")) {
            return Err(Refused::CrossOrigin(origin.to_string()));
        }
    }
    if headers
        .get("sec-fetch-site")
        .is_some_and(|s| s.as_bytes() == b"cross-site")
    {
        return Err(Refused::CrossOrigin(
            "sec-fetch-site: cross-site".to_string(),
        ));
    }
    Ok(())
}

/// The whole guard: site checks, then the cookie's token.
pub fn check(
    headers: &HeaderMap,
    hosts: &Hosts,
    store: &TokenStore,
) -> Result<TokenRecord, Refused> {
    check_site(headers, hosts)?;
    let secret = cookie(headers).ok_or(Refused::NoToken)?;
    match store.check(&secret) {
        Ok(Some(record)) => Ok(record),
        Ok(None) => Err(Refused::NoToken),
        Err(e) => Err(Refused::Store(e.to_string())),
    }
}

/// Our cookie's value, if the request carries it.
pub fn cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE_NAME)
        .map(|(_, value)| value.to_string())
}

/// The `Set-Cookie` value for a token.
pub fn set_cookie(secret: &str) -> String {
    format!("{COOKIE_NAME}={secret}; HttpOnly; SameSite=Strict; Path=/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.append(*k, v.parse().expect("header value"));
        }
        map
    }

    #[test]
    fn host_and_origin_must_be_ours() {
        let hosts = Hosts::new(
            "127.0.0.1:8080".parse().expect("addr"),
            &["box.tail".into()],
        );
        assert!(check_site(&headers(&[("host", "127.0.0.1:8080")]), &hosts).is_ok());
        assert!(check_site(&headers(&[("host", "localhost:8080")]), &hosts).is_ok());
        assert!(check_site(&headers(&[("host", "box.tail:8080")]), &hosts).is_ok());
        assert!(matches!(
            check_site(&headers(&[("host", "evil.example:8080")]), &hosts),
            Err(Refused::WrongHost(_))
        ));
        let cross = headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://evil.example"),
        ]);
        assert!(matches!(
            check_site(&cross, &hosts),
            Err(Refused::CrossOrigin(_))
        ));
        let same = headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "http://127.0.0.1:8080"),
        ]);
        assert!(check_site(&same, &hosts).is_ok());
    }

    #[test]
    fn the_cookie_is_found_among_others() {
        let h = headers(&[("cookie", "a=1; signaltty_token=abc; b=2")]);
        assert_eq!(cookie(&h).as_deref(), Some("abc"));
        assert_eq!(cookie(&headers(&[("cookie", "a=1")])), None);
    }
}
