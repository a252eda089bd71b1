//! The HTTP edge in front of every service: what tonic decides before a handler runs, said in
//! our terms.
//!
//! - A connection accepted past the connection cap (`listen::incoming`) gets every call refused
//!   with RESOURCE_EXHAUSTED `TOO_MANY_CONNECTIONS`.
//! - A request tonic cannot decode (garbage bytes, a string that is not UTF-8) is the caller's
//!   mistake: tonic answers INTERNAL, we answer INVALID_ARGUMENT `BAD_ENCODING`.
//! - A request over the decoding limit is answered OUT_OF_RANGE by tonic before our handler can
//!   see it; we answer RESOURCE_EXHAUSTED — `INPUT_TOO_LARGE` for `WriteInput`, whose documented
//!   limit must hold for any size, `REQUEST_TOO_LARGE` elsewhere.
//!
//! The rewrite looks only at the headers of a trailers-only response (the form every error
//! before a handler takes); errors inside a streaming call's body are the handler's (see
//! [`inbound_error`]).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tonic::codegen::http;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::error::{MAX_INPUT_BYTES_HINT, clip_message};
use crate::peer::Peer;

/// Applies [`Edge`] to the routes.
#[derive(Clone, Copy, Debug, Default)]
pub struct EdgeLayer;

impl<S> tower::Layer<S> for EdgeLayer {
    type Service = Edge<S>;

    fn layer(&self, inner: S) -> Edge<S> {
        Edge { inner }
    }
}

/// See the module docs.
#[derive(Clone, Debug)]
pub struct Edge<S> {
    inner: S,
}

fn status(code: Code, reason: &str, message: String) -> Status {
    let details =
        ErrorDetails::with_error_info(reason, signaltty_proto::ERROR_DOMAIN, HashMap::new());
    Status::with_error_details(code, clip_message(message), details)
}

/// Our answer for an error tonic raised while decoding a request on `method` (its path's last
/// segment), or `None` to keep tonic's.
fn translate(method: &str, code: Code, message: &str) -> Option<Status> {
    match code {
        Code::Internal if message.starts_with("failed to decode Protobuf message") => Some(status(
            Code::InvalidArgument,
            "BAD_ENCODING",
            format!(
                "the {method} request is not a valid protobuf message ({}); send a message encoded from signaltty/v1 (strings must be UTF-8)",
                message.trim_start_matches("failed to decode Protobuf message: ")
            ),
        )),
        Code::OutOfRange if message.contains("message length too large") => {
            let (reason, what) = if method == "WriteInput" || method == "Attach" {
                ("INPUT_TOO_LARGE", MAX_INPUT_BYTES_HINT)
            } else {
                ("REQUEST_TOO_LARGE", "send a smaller request")
            };
            Some(status(
                Code::ResourceExhausted,
                reason,
                format!("the {method} request is too large ({message}); {what}; nothing was done"),
            ))
        }
        _ => None,
    }
}

/// The status a streaming handler passes on when reading the client's next message failed.
pub fn inbound_error(status: Status) -> Status {
    translate("Attach", status.code(), status.message()).unwrap_or(status)
}

fn method_of(path: &str) -> String {
    path.rsplit('/').next().unwrap_or_default().to_owned()
}

/// Rewrites a trailers-only error response in place.
fn rewrite<B>(method: &str, response: &mut http::Response<B>) {
    let Some(old) = Status::from_header_map(response.headers()) else {
        return;
    };
    let Some(new) = translate(method, old.code(), old.message()) else {
        return;
    };
    let headers = response.headers_mut();
    for name in ["grpc-status", "grpc-message", "grpc-status-details-bin"] {
        headers.remove(name);
    }
    if new.add_header(headers).is_err() {
        tracing::debug!("could not rewrite an error's headers");
    }
}

impl<S, B, RB> tower::Service<http::Request<B>> for Edge<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<RB>> + Send,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    RB: Default + Send + 'static,
{
    type Response = http::Response<RB>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        if let Some(cap) = req.extensions().get::<Peer>().and_then(|p| p.over_cap) {
            let refused = status(
                Code::ResourceExhausted,
                "TOO_MANY_CONNECTIONS",
                crate::listen::over_cap_message(cap),
            );
            return Box::pin(std::future::ready(Ok(refused.into_http())));
        }
        let method = method_of(req.uri().path());
        let answer = self.inner.call(req);
        Box::pin(async move {
            let mut response = answer.await?;
            rewrite(&method, &mut response);
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_and_size_errors_become_ours() {
        let s = translate(
            "Notify",
            Code::Internal,
            "failed to decode Protobuf message: invalid string",
        )
        .expect("translated");
        assert_eq!(s.code(), Code::InvalidArgument);
        let s = translate(
            "WriteInput",
            Code::OutOfRange,
            "Error, decoded message length too large: found 5 bytes",
        )
        .expect("translated");
        assert_eq!(s.code(), Code::ResourceExhausted);
        assert_eq!(
            s.get_error_details().error_info().map(|i| i.reason.clone()),
            Some("INPUT_TOO_LARGE".to_owned())
        );
        assert!(translate("Notify", Code::Internal, "something else").is_none());
    }
}
