//! gRPC server reflection (v1, and v1alpha for grpcio-reflection), built on its first call.
//!
//! Building a reflection service decodes the whole descriptor set, comments included (the
//! `.proto` comments are the API reference, and reflection clients show them). Built at start,
//! twice (one per protocol version), that was over half of the server's CPU from `exec` to its
//! first answer (`perf record` of the release server, issue 18), for a service that few sessions
//! ever call. So the routes hold a [`Lazy`] instead: the first reflection call builds the real
//! service on the blocking pool (the async worker never decodes), later calls share it.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::future::BoxFuture;
use tokio::sync::OnceCell;
use tonic::Status;
use tonic::body::Body;
use tonic::codegen::http;
use tonic::server::NamedService;
use tower::{Service, ServiceExt};

use crate::error::Error;

/// How to build a reflection service (a `tonic_reflection` builder call).
type Build<S> = fn() -> Result<S, tonic_reflection::server::Error>;

/// A service built by its first call, under the name of the service it builds.
pub struct Lazy<S> {
    built: Arc<OnceCell<Result<S, String>>>,
    build: Build<S>,
}

impl<S> Lazy<S> {
    /// Nothing is built until the first call.
    pub fn new(build: Build<S>) -> Self {
        Lazy {
            built: Arc::new(OnceCell::new()),
            build,
        }
    }
}

impl<S> Clone for Lazy<S> {
    fn clone(&self) -> Self {
        Lazy {
            built: Arc::clone(&self.built),
            build: self.build,
        }
    }
}

impl<S: NamedService> NamedService for Lazy<S> {
    const NAME: &'static str = S::NAME;
}

impl<S: Clone + Send + Sync + 'static> Lazy<S> {
    /// The built service; the first caller builds it, concurrent first callers wait for it.
    async fn service(&self) -> Result<S, Status> {
        let build = self.build;
        let built = self
            .built
            .get_or_init(|| async move {
                let job = tokio::task::spawn_blocking(move || {
                    let built = build().map_err(|e| e.to_string());
                    // Decoding leaves freed memory behind that an idle server would keep.
                    crate::memory::release_free_heap();
                    built
                });
                match job.await {
                    Ok(built) => built,
                    Err(e) => Err(format!("the build stopped: {e}")),
                }
            })
            .await;
        built.clone().map_err(|why| {
            Status::from(Error::Internal(format!(
                "server reflection is unavailable ({why}); this is a bug in the server build, \
                 please report it"
            )))
        })
    }
}

impl<S> Service<http::Request<Body>> for Lazy<S>
where
    S: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<http::Response<Body>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // Readiness is the built service's, awaited in `call` (through `oneshot`).
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move {
            match this.service().await {
                Ok(service) => service.oneshot(req).await,
                Err(status) => Ok(status.into_http()),
            }
        })
    }
}
