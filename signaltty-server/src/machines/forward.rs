//! The layer in front of every service that sends a call to another machine: a request with
//! `signaltty-machine: NAME` goes, as it is (path, metadata, body frames; the one header
//! removed), to NAME's server over its [`Link`](super::Link), and the response comes back as
//! it is, streams included. Generic over the method: no code per RPC.
//!
//! Its own errors, each with a stable ErrorInfo reason (the remote server's errors pass through
//! unchanged):
//! - NOT_FOUND `UNKNOWN_MACHINE`: NAME is not a remote of the config file;
//! - PERMISSION_DENIED `DENIED_IN_PANE`: the caller runs inside a pane, and everything on
//!   another machine is beyond its workspace (allowed by
//!   `policy.pane_clients_may_control_other_workspaces`, as for this machine's);
//! - INVALID_ARGUMENT `BAD_MACHINE`: the value is not text;
//! - UNAVAILABLE with the dial's reason (`REMOTE_UNREACHABLE`, `REMOTE_BINARY_MISSING`,
//!   `BRIDGE_VERSION`, …) or `REMOTE_LINK_LOST` (the link dropped before or during the call;
//!   a stream cut by a drop ends with this status rather than a reset).
//!
//! A local request (no metadata, or `local`) is served here, with the machine table in its
//! extensions for `ListMachines`.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::SystemTime;

use http_body::Frame;
use tonic::body::Body;
use tonic::codegen::http::{HeaderMap, Request, Response};
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use super::{LOCAL, Machines};
use crate::peer::{Origin, Peer};

/// The request metadata naming the machine a call is for.
pub const MACHINE_HEADER: &str = "signaltty-machine";

/// Puts [`Forward`] in front of the routes.
#[derive(Clone, Debug)]
pub struct MachinesLayer {
    machines: Machines,
}

impl MachinesLayer {
    /// A layer over `machines`.
    pub fn new(machines: Machines) -> MachinesLayer {
        MachinesLayer { machines }
    }
}

impl<S> tower::Layer<S> for MachinesLayer {
    type Service = Forward<S>;

    fn layer(&self, inner: S) -> Forward<S> {
        Forward {
            inner,
            machines: self.machines.clone(),
        }
    }
}

/// See the module docs.
#[derive(Clone, Debug)]
pub struct Forward<S> {
    inner: S,
    machines: Machines,
}

type BoxFuture<E> = Pin<Box<dyn Future<Output = Result<Response<Body>, E>> + Send>>;

impl<S> tower::Service<Request<Body>> for Forward<S>
where
    S: tower::Service<Request<Body>, Response = Response<Body>> + Send,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<Body>) -> Self::Future {
        let name = match req.headers_mut().remove(MACHINE_HEADER) {
            None => None,
            Some(value) => match value.to_str() {
                Ok(name) if name.is_empty() || name == LOCAL => None,
                Ok(name) => Some(name.to_owned()),
                Err(_) => {
                    let bad = status(
                        Code::InvalidArgument,
                        "BAD_MACHINE",
                        "",
                        format!("the {MACHINE_HEADER} metadata must be a machine's name (text)"),
                    );
                    return Box::pin(std::future::ready(Ok(bad.into_http())));
                }
            },
        };
        match name {
            None => {
                req.extensions_mut().insert(self.machines.clone());
                Box::pin(self.inner.call(req))
            }
            Some(name) => {
                let origin = req
                    .extensions()
                    .get::<Peer>()
                    .map_or(Origin::Outside, |p| p.origin.clone());
                if let Err(denied) = may_forward(&origin, self.machines.pane_clients_may_reach()) {
                    return Box::pin(std::future::ready(Ok(denied.into_http())));
                }
                let machines = self.machines.clone();
                Box::pin(async move {
                    Ok(forward(&machines, &name, req)
                        .await
                        .unwrap_or_else(Status::into_http))
                })
            }
        }
    }
}

/// Sends `req` to `name`'s server and returns its answer.
async fn forward(
    machines: &Machines,
    name: &str,
    req: Request<Body>,
) -> Result<Response<Body>, Status> {
    let link = machines.link(name).ok_or_else(|| unknown(machines, name))?;
    let mut channel = link.channel().await.map_err(|down| {
        let next = down
            .next_try
            .duration_since(SystemTime::now())
            .map_or(0, |d| d.as_secs());
        status(
            Code::Unavailable,
            down.reason,
            name,
            format!("{} (next try in {next} s)", down.message),
        )
    })?;
    let (parts, body) = req.into_parts();
    // A new request: only the method, path and metadata go on (not this connection's
    // extensions, such as the caller's peer).
    let mut out = Request::new(body);
    *out.method_mut() = parts.method;
    *out.uri_mut() = parts.uri;
    *out.headers_mut() = parts.headers;
    std::future::poll_fn(|cx| tower::Service::poll_ready(&mut channel, cx))
        .await
        .map_err(|e| lost(name, &e))?;
    let response = tower::Service::call(&mut channel, out)
        .await
        .map_err(|e| lost(name, &e))?;
    let name = name.to_owned();
    Ok(response.map(|body| {
        Body::new(EndsWithStatus {
            body,
            name: Some(name),
        })
    }))
}

/// A forwarded response's body whose transport error (the link dropped mid-stream) becomes
/// trailers with UNAVAILABLE `REMOTE_LINK_LOST`, so the caller reads a status, not a reset.
struct EndsWithStatus {
    body: Body,
    /// Set until an error was turned into trailers.
    name: Option<String>,
}

impl http_body::Body for EndsWithStatus {
    type Data = bytes::Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let Some(name) = self.name.clone() else {
            return Poll::Ready(None);
        };
        match Pin::new(&mut self.body).poll_frame(cx) {
            Poll::Ready(Some(Err(e))) => {
                self.name = None;
                let mut trailers = HeaderMap::new();
                if lost(&name, &e).add_header(&mut trailers).is_err() {
                    tracing::debug!("could not encode a lost link's status");
                }
                Poll::Ready(Some(Ok(Frame::trailers(trailers))))
            }
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.name.is_none() || self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// Whether a caller from `origin` may reach another machine: outside panes always; from inside
/// a pane only when the policy lets pane clients act beyond their workspace.
fn may_forward(origin: &Origin, pane_clients_may_reach: bool) -> Result<(), Status> {
    if *origin == Origin::Outside || pane_clients_may_reach {
        return Ok(());
    }
    Err(status(
        Code::PermissionDenied,
        "DENIED_IN_PANE",
        "",
        "a program inside a pane may not reach other machines through the server: everything \
         there is beyond its workspace (set policy.pane_clients_may_control_other_workspaces = \
         true in the config file to allow it)"
            .to_owned(),
    ))
}

fn status(code: Code, reason: &str, machine: &str, message: String) -> Status {
    let mut meta = HashMap::new();
    if !machine.is_empty() {
        meta.insert("machine".to_owned(), machine.to_owned());
    }
    let details = ErrorDetails::with_error_info(reason, signaltty_proto::ERROR_DOMAIN, meta);
    Status::with_error_details(code, message, details)
}

fn unknown(machines: &Machines, name: &str) -> Status {
    let file = machines
        .config_file()
        .map_or_else(|| "the config file".to_owned(), |p| p.display().to_string());
    status(
        Code::NotFound,
        "UNKNOWN_MACHINE",
        name,
        format!(
            "no machine named {name:?}: not a remote in {file}; see `signaltty remote list`, or \
             add it with `signaltty remote add {name} [user@]host`"
        ),
    )
}

fn lost(name: &str, err: &dyn std::fmt::Display) -> Status {
    status(
        Code::Unavailable,
        "REMOTE_LINK_LOST",
        name,
        format!("the link to {name} dropped during the call ({err}); the server dials it again"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pane_clients_reach_other_machines_only_when_the_policy_says_so() {
        assert!(may_forward(&Origin::Outside, false).is_ok());
        let pane = Origin::Escaped;
        let denied = may_forward(&pane, false).expect_err("inside a pane");
        assert_eq!(denied.code(), Code::PermissionDenied);
        assert!(
            denied
                .message()
                .contains("pane_clients_may_control_other_workspaces")
        );
        assert!(may_forward(&pane, true).is_ok());
    }

    /// Every reason this layer and the links give is in docs/api.md's table.
    #[test]
    fn its_reasons_are_documented() {
        let doc = include_str!("../../../docs/api.md");
        for reason in [
            "UNKNOWN_MACHINE",
            "BAD_MACHINE",
            "DENIED_IN_PANE",
            "REMOTE_LINK_LOST",
            "REMOTE_UNREACHABLE",
            "REMOTE_BINARY_MISSING",
            "REMOTE_TIMEOUT",
            "BRIDGE_VERSION",
            "BRIDGE_HANDSHAKE",
            "SSH_NOT_FOUND",
        ] {
            assert!(doc.contains(&format!("| `{reason}` |")), "{reason}");
        }
    }
}
