//! The API for browsers: the server's own gRPC services, reached through `tonic-web`.
//!
//! [`GrpcWebLayer`](tonic_web::GrpcWebLayer) turns a browser's gRPC-web request into a gRPC one;
//! [`Forward`] checks it against [`crate::policy`] and sends it over the one trusted connection
//! to the server's Unix socket (a tonic `Channel` from `signaltty-client`, whose peer checks
//! ran when it was made). There is no second API: the page is generated from the same `.proto`
//! and every call is the server's.
//!
//! Two things are adjusted on the way:
//! - only gRPC's own headers go on (`content-type`, `te`, `grpc-*`): never the browser's
//!   cookie, so the token never reaches the server or its log;
//! - `Attach` is a bidirectional stream, and a browser can only send a whole request body
//!   before reading the answer. The page sends its Start message as the body; the server ends
//!   an attach when the client's half closes, so the forwarded body is kept open after the
//!   Start until the browser goes away (the response dropped). Typing goes through
//!   `WriteInput`. A read-only token's Start must say `read_only`.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::StreamExt as _;
use http::{Request, Response};
use http_body_util::BodyExt as _;
use prost::Message as _;
use signaltty_proto::v1 as pb;
use tonic::body::Body;
use tonic::transport::Channel;
use tonic_types::{ErrorDetails, StatusExt as _};
use tower::Service;

use crate::policy::{self, Refusal};
use crate::token::Access;

/// The inner service behind `GrpcWebLayer`. The request's [`Access`] rides in its extensions
/// (put there by [`crate::serve`] after the guard).
#[derive(Debug, Clone)]
pub struct Forward {
    channel: Channel,
}

impl Forward {
    /// Forwards over `channel`.
    pub fn new(channel: Channel) -> Self {
        Forward { channel }
    }
}

type BoxFuture = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

impl Service<Request<Body>> for Forward {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // The channel is buffered; readiness is awaited per call below.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<Body>) -> Self::Future {
        let channel = self.channel.clone();
        Box::pin(async move {
            Ok(forward(channel, req)
                .await
                .unwrap_or_else(|s| s.into_http()))
        })
    }
}

async fn forward(
    mut channel: Channel,
    req: Request<Body>,
) -> Result<Response<Body>, tonic::Status> {
    let path = req.uri().path().to_string();
    let access = req
        .extensions()
        .get::<Access>()
        .copied()
        .ok_or_else(|| tonic::Status::internal("no access on the request"))?;
    policy::check(&path, access).map_err(|r| refused(r, &path))?;
    let (parts, body) = req.into_parts();
    let body = if path == policy::ATTACH {
        held_open_attach(body, access, &path).await?
    } else {
        body
    };
    let mut out = Request::builder().method(parts.method).uri(parts.uri);
    for (name, value) in &parts.headers {
        let n = name.as_str();
        if n == "content-type" || n == "te" || n.starts_with("grpc-") {
            out = out.header(name, value);
        }
    }
    let out = out
        .body(body)
        .map_err(|e| tonic::Status::internal(e.to_string()))?;
    std::future::poll_fn(|cx| channel.poll_ready(cx))
        .await
        .map_err(|e| unavailable(&e))?;
    channel.call(out).await.map_err(|e| unavailable(&e))
}

/// Reads the page's Start (the whole body), checks it, and returns a body that sends it and
/// then stays open.
async fn held_open_attach(body: Body, access: Access, path: &str) -> Result<Body, tonic::Status> {
    let bytes = body
        .collect()
        .await
        .map_err(|e| tonic::Status::invalid_argument(format!("cannot read the request: {e}")))?
        .to_bytes();
    if access == Access::ReadOnly {
        let typing = first_message(&bytes)
            .and_then(|m| pb::AttachRequest::decode(m).ok())
            .is_none_or(|req| match req.kind {
                Some(pb::attach_request::Kind::Start(start)) => !start.read_only,
                _ => true,
            });
        if typing {
            return Err(refused(Refusal::ReadOnly, path));
        }
    }
    let stream =
        futures_util::stream::once(
            async move { Ok::<_, tonic::Status>(http_body::Frame::data(bytes)) },
        )
        .chain(futures_util::stream::pending());
    Ok(Body::new(http_body_util::StreamBody::new(stream)))
}

/// The first gRPC message of a body (5-byte frame header: flag, big-endian length).
fn first_message(bytes: &Bytes) -> Option<Bytes> {
    let len = u32::from_be_bytes(bytes.get(1..5)?.try_into().ok()?) as usize;
    (bytes.first() == Some(&0)).then_some(())?;
    bytes.get(5..5 + len).map(|m| bytes.slice_ref(m))
}

fn refused(refusal: Refusal, path: &str) -> tonic::Status {
    tonic::Status::with_error_details(
        tonic::Code::PermissionDenied,
        refusal.message(path),
        ErrorDetails::with_error_info(refusal.reason(), "signaltty", []),
    )
}

fn unavailable(err: &dyn std::fmt::Display) -> tonic::Status {
    tonic::Status::unavailable(format!(
        "the signaltty server did not answer ({err}); is it still running? `signaltty server status`"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_frame_is_cut_from_a_body() {
        let msg = pb::AttachRequest {
            kind: Some(pb::attach_request::Kind::Start(pb::attach_request::Start {
                pane_id: "pane_1".into(),
                read_only: true,
                ..Default::default()
            })),
        }
        .encode_to_vec();
        let mut body = vec![0u8];
        body.extend_from_slice(&(msg.len() as u32).to_be_bytes());
        body.extend_from_slice(&msg);
        let got = first_message(&Bytes::from(body)).expect("a frame");
        assert_eq!(&got[..], &msg[..]);
        assert!(first_message(&Bytes::from_static(&[0, 0, 0])).is_none());
    }
}
