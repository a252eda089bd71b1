//! The HTTP listener: the token exchange, the page, and gRPC-web calls, each behind
//! [`crate::guard`].
//!
//! Routes: `GET /?token=…` (checks the token, sets the cookie, redirects to `/` so the token
//! leaves the address bar and history), `GET /` (the page), `GET /app.js|app.css`,
//! `GET /session` (the token's access, for the page to show or hide what it may not do), and
//! `POST /signaltty.v1.<Service>/<Method>` (gRPC-web, [`crate::proxy`]). Every answer carries
//! `Cache-Control: no-store`, a strict CSP, `X-Frame-Options: DENY` and
//! `Referrer-Policy: no-referrer`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Body as AxumBody;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::header::{CACHE_CONTROL, CONTENT_TYPE, LOCATION, SET_COOKIE};
use http::{HeaderMap, Request, StatusCode};
use tonic::transport::Channel;
use tower::{Layer as _, ServiceExt as _};

use crate::guard::{self, Hosts, Refused};
use crate::page::{self, Asset};
use crate::proxy::Forward;
use crate::revocable::Revocable;
use crate::token::TokenStore;

/// What the listener needs.
#[derive(Debug, Clone)]
pub struct Site {
    /// Names requests may be sent to.
    pub hosts: Hosts,
    /// The tokens.
    pub store: TokenStore,
    /// The connection to the server.
    pub channel: Channel,
}

/// The router for `site`.
pub fn router(site: Site) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/session", get(session))
        .route("/{asset}", get(static_file))
        .fallback(grpc)
        .with_state(Arc::new(site))
        .layer(axum::middleware::map_response(harden))
}

/// Serves on `listener` until the future is dropped or the listener fails.
pub async fn serve(listener: tokio::net::TcpListener, site: Site) -> std::io::Result<()> {
    axum::serve(listener, router(site)).await
}

/// The URL that opens the page with `secret` (for a loopback or named address as bound).
pub fn url(addr: SocketAddr, secret: &str) -> String {
    format!("http://{addr}/?token={secret}")
}

async fn index(
    State(site): State<Arc<Site>>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    if let Some(secret) = query.get("token") {
        if let Err(refused) = guard::check_site(&headers, &site.hosts) {
            return refusal(&refused);
        }
        return match site.store.check(secret) {
            Ok(Some(_)) => (
                StatusCode::SEE_OTHER,
                [
                    (LOCATION, "/".to_string()),
                    (SET_COOKIE, guard::set_cookie(secret)),
                ],
            )
                .into_response(),
            Ok(None) => refusal(&Refused::NoToken),
            Err(e) => refusal(&Refused::Store(e.to_string())),
        };
    }
    match guard::check(&headers, &site.hosts, &site.store) {
        Ok(_) => file(page::INDEX),
        Err(refused) => refusal(&refused),
    }
}

async fn session(State(site): State<Arc<Site>>, headers: HeaderMap) -> Response {
    match guard::check(&headers, &site.hosts, &site.store) {
        Ok(record) => (
            [(CONTENT_TYPE, "application/json")],
            serde_json::json!({ "access": record.access.name(), "token_id": record.id })
                .to_string(),
        )
            .into_response(),
        Err(refused) => refusal(&refused),
    }
}

async fn static_file(
    State(site): State<Arc<Site>>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    if let Err(refused) = guard::check(&headers, &site.hosts, &site.store) {
        return refusal(&refused);
    }
    match page::asset(&name) {
        Some(asset) => file(asset),
        None => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}

async fn grpc(State(site): State<Arc<Site>>, mut req: Request<AxumBody>) -> Response {
    let record = match guard::check(req.headers(), &site.hosts, &site.store) {
        Ok(record) => record,
        Err(refused) => return refusal(&refused),
    };
    req.extensions_mut().insert(record.access);
    let secret = guard::cookie(req.headers()).unwrap_or_default();
    let service = tonic_web::GrpcWebLayer::new().layer(Forward::new(site.channel.clone()));
    match service.oneshot(req).await {
        Ok(response) => {
            response.map(|body| AxumBody::new(Revocable::new(body, site.store.clone(), secret)))
        }
        Err(never) => match never {},
    }
}

fn file(asset: Asset) -> Response {
    ([(CONTENT_TYPE, asset.content_type)], asset.bytes).into_response()
}

fn refusal(refused: &Refused) -> Response {
    (
        refused.status(),
        [(CONTENT_TYPE, "text/plain; charset=utf-8")],
        refused.message(),
    )
        .into_response()
}

async fn harden(mut response: Response) -> Response {
    let headers = response.headers_mut();
    let set = [
        (CACHE_CONTROL, "no-store"),
        (http::header::X_FRAME_OPTIONS, "DENY"),
        (http::header::REFERRER_POLICY, "no-referrer"),
        (http::header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (
            http::header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
        ),
    ];
    for (name, value) in set {
        headers.insert(name, http::HeaderValue::from_static(value));
    }
    response
}
