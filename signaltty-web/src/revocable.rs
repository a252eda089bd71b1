//! Long answers end when their token is revoked. The guard checks a token once per request,
//! but `Subscribe` and `Attach` answer for as long as the page stays open; [`Revocable`] wraps
//! such an answer's body and checks the token again every [`RECHECK`], ending the body (the
//! page sees the stream break) once the token is gone.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame};

use crate::token::TokenStore;

/// How often a streaming answer's token is checked again.
pub const RECHECK: Duration = Duration::from_secs(1);

/// A body that ends once `secret` no longer checks.
pub struct Revocable<B> {
    inner: B,
    store: TokenStore,
    secret: String,
    tick: tokio::time::Interval,
    revoked: bool,
}

impl<B> Revocable<B> {
    /// Wraps `inner`.
    pub fn new(inner: B, store: TokenStore, secret: String) -> Self {
        let mut tick = tokio::time::interval(RECHECK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Revocable {
            inner,
            store,
            secret,
            tick,
            revoked: false,
        }
    }
}

impl<B> Body for Revocable<B>
where
    B: Body<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = self.get_mut();
        if this.revoked {
            return Poll::Ready(None);
        }
        while this.tick.poll_tick(cx).is_ready() {
            if !matches!(this.store.check(&this.secret), Ok(Some(_))) {
                this.revoked = true;
                return Poll::Ready(None);
            }
        }
        Pin::new(&mut this.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.revoked || self.inner.is_end_stream()
    }
}
