//! One remote's link: a tonic `Channel` over one `ssh … bridge` child, shared by every call
//! forwarded to that remote, with its state for `ListMachines`.
//!
//! ```text
//!  Idle ──first use──▶ Connecting ──ok──▶ Connected ──dropped──▶ Reconnecting ──(after backoff,
//!                           │                  ▲                      │          by itself) dial
//!                           └──error──▶ Failed │◀────────ok───────────┘
//!                                 (next use after next_try dials again)
//! ```
//!
//! One task per link dials and, once the link was up, keeps it up: each drop or failed redial
//! waits 1 s × 2ⁿ (at most 30 s, jittered to half of it or more) before the next dial. A link
//! that never came up is not redialled in the background (a configured but dead remote costs
//! nothing): the next call after its `next_try` dials it again. A call never waits for a redial:
//! while the link is down it fails at once with the reason.

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime};

use signaltty_link::{HANDSHAKE_TIMEOUT, LinkError, Remote, SshIo};
use signaltty_proto::v1 as pb;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;
use tonic::transport::{Channel, Endpoint, Uri};

/// The first wait before a redial; doubled after each failure.
const BACKOFF_START: Duration = Duration::from_secs(1);
/// The longest wait between dials.
const BACKOFF_MAX: Duration = Duration::from_secs(30);

/// What `ListMachines` says of a link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkState {
    /// Never dialled.
    Idle,
    /// The first dial is under way.
    Connecting,
    /// Up.
    Connected {
        /// The remote server's version.
        version: String,
        /// Since when.
        since: SystemTime,
    },
    /// Was up, dropped; redialled by itself at `next_try`.
    Reconnecting(Down),
    /// Never came up (or came down while nobody used it); dialled again on use after
    /// `next_try`.
    Failed(Down),
}

/// Why a link is down and when it is dialled next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Down {
    /// A stable reason: the dial's (`REMOTE_UNREACHABLE`, `BRIDGE_VERSION`, …) or
    /// `REMOTE_LINK_LOST`.
    pub reason: &'static str,
    /// What happened, with what to do.
    pub message: String,
    /// When the next dial is due.
    pub next_try: SystemTime,
    /// The remote server's version when last up (empty if never).
    pub version: String,
}

/// A shared handle on one remote's link.
#[derive(Clone, Debug)]
pub struct Link {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    remote: Remote,
    slot: watch::Sender<Slot>,
    closed: CancellationToken,
}

#[derive(Clone, Debug)]
struct Slot {
    state: LinkState,
    /// The connection while `Connected`.
    channel: Option<Channel>,
    /// Dials failed (or drops) in a row: the backoff's exponent.
    failures: u32,
    /// When the next dial is due (`Failed`, `Reconnecting`).
    due: Option<Instant>,
}

impl Link {
    /// An idle link to `remote`.
    pub fn new(remote: Remote) -> Link {
        let slot = Slot {
            state: LinkState::Idle,
            channel: None,
            failures: 0,
            due: None,
        };
        Link {
            inner: Arc::new(Inner {
                remote,
                slot: watch::Sender::new(slot),
                closed: CancellationToken::new(),
            }),
        }
    }

    /// Where it leads.
    pub fn remote(&self) -> &Remote {
        &self.inner.remote
    }

    /// Its state now.
    pub fn state(&self) -> LinkState {
        self.inner.slot.borrow().state.clone()
    }

    /// Stops the link for good (the remote was removed from the config file): its task ends,
    /// its ssh child is killed once the calls on it are done.
    pub fn close(&self) {
        self.inner.closed.cancel();
        self.inner.slot.send_modify(|s| s.channel = None);
    }

    /// Starts a dial when the link is idle, or failed and its next try is due.
    pub fn dial_if_due(&self) {
        let now = Instant::now();
        let start = self.inner.slot.send_if_modified(|s| {
            let due = match s.state {
                LinkState::Idle => true,
                LinkState::Failed(_) => s.due.is_none_or(|due| due <= now),
                _ => false,
            };
            if due {
                s.state = LinkState::Connecting;
            }
            due
        });
        if start && !self.inner.closed.is_cancelled() {
            tokio::spawn(supervise(self.clone()));
        }
    }

    /// Waits (at most `max`) until no dial is under way for the first time.
    pub async fn settled(&self, max: Duration) {
        let mut rx = self.inner.slot.subscribe();
        let _ = tokio::time::timeout(
            max,
            rx.wait_for(|s| !matches!(s.state, LinkState::Connecting)),
        )
        .await;
    }

    /// The connection to forward a call on: dials when due and waits for that dial; fails at
    /// once when the link is down.
    pub async fn channel(&self) -> Result<Channel, Down> {
        self.dial_if_due();
        self.settled(HANDSHAKE_TIMEOUT + Duration::from_secs(5))
            .await;
        let slot = self.inner.slot.borrow().clone();
        match (slot.state, slot.channel) {
            (LinkState::Connected { .. }, Some(channel)) => Ok(channel),
            (LinkState::Reconnecting(down) | LinkState::Failed(down), _) => Err(down),
            (state, _) => Err(Down {
                reason: "REMOTE_UNREACHABLE",
                message: format!(
                    "the link to {} is not up ({state:?})",
                    self.inner.remote.name
                ),
                next_try: SystemTime::now(),
                version: String::new(),
            }),
        }
    }

    /// Records a failed dial or a drop; returns how long to wait before the next dial.
    fn down(&self, reason: &'static str, message: String, reconnecting: bool) -> Duration {
        let mut delay = BACKOFF_START;
        self.inner.slot.send_modify(|s| {
            s.failures = s.failures.saturating_add(1);
            delay = backoff(s.failures);
            s.due = Some(Instant::now() + delay);
            s.channel = None;
            let version = match &s.state {
                LinkState::Connected { version, .. } => version.clone(),
                LinkState::Reconnecting(d) | LinkState::Failed(d) => d.version.clone(),
                _ => String::new(),
            };
            let down = Down {
                reason,
                message,
                next_try: SystemTime::now() + delay,
                version,
            };
            s.state = if reconnecting {
                LinkState::Reconnecting(down)
            } else {
                LinkState::Failed(down)
            };
        });
        delay
    }
}

/// 1 s × 2ⁿ⁻¹, at most 30 s, then a random point in its upper half (links dropped together
/// do not redial together).
fn backoff(failures: u32) -> Duration {
    use std::hash::{BuildHasher, Hasher};
    let full = BACKOFF_START
        .saturating_mul(1 << failures.saturating_sub(1).min(6))
        .min(BACKOFF_MAX);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(failures);
    let fraction = (hasher.finish() % 1000) as u32;
    full / 2 + full / 2 * fraction / 1000
}

/// Dials `link`, and once it was up keeps it up until it is closed.
async fn supervise(link: Link) {
    let name = link.inner.remote.name.clone();
    let closed = link.inner.closed.clone();
    let mut was_up = false;
    loop {
        let dialled = tokio::select! {
            () = closed.cancelled() => return,
            dialled = dial(&link.inner.remote) => dialled,
        };
        let delay = match dialled {
            Ok(up) => {
                was_up = true;
                tracing::info!(machine = %name, version = %up.version, "link up");
                link.inner.slot.send_modify(|s| {
                    s.failures = 0;
                    s.due = None;
                    s.channel = Some(up.channel);
                    s.state = LinkState::Connected {
                        version: up.version,
                        since: SystemTime::now(),
                    };
                });
                tokio::select! {
                    () = closed.cancelled() => return,
                    _ = up.dropped => {}
                }
                tracing::warn!(machine = %name, "link dropped; dialling again");
                link.down(
                    "REMOTE_LINK_LOST",
                    format!(
                        "the link to {name} dropped (ssh ended); the server dials it again by itself"
                    ),
                    true,
                )
            }
            Err(e) => {
                tracing::warn!(machine = %name, reason = e.reason, "dial failed: {}", e.message);
                link.down(e.reason, e.message, was_up)
            }
        };
        if !was_up {
            return;
        }
        tokio::select! {
            () = closed.cancelled() => return,
            () = tokio::time::sleep(delay) => {}
        }
    }
}

/// A link that came up: its connection, the remote server's version, and what resolves when
/// the ssh child's pipes are gone.
struct Up {
    channel: Channel,
    version: String,
    dropped: oneshot::Receiver<()>,
}

/// Runs `ssh … bridge`, speaks HTTP/2 over its pipes and asks the remote server its version.
async fn dial(remote: &Remote) -> Result<Up, LinkError> {
    let io = signaltty_link::open_link(remote).await?;
    let (gone, dropped) = oneshot::channel();
    let once = Arc::new(Mutex::new(Some(Watched {
        io,
        gone: Some(gone),
    })));
    let unreachable = |message: String| LinkError {
        remote: remote.name.clone(),
        reason: "REMOTE_UNREACHABLE",
        message,
    };
    // One connection per dial: tonic's own redial would run the connector again, which has
    // nothing left to give, so calls fail until `supervise` installs the next channel.
    let channel = Endpoint::from_static("http://signaltty.remote")
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let io = once.lock().unwrap_or_else(|p| p.into_inner()).take();
            async move {
                io.map(hyper_util::rt::TokioIo::new)
                    .ok_or_else(|| std::io::Error::other("the ssh link is gone"))
            }
        }))
        .await
        .map_err(|e| unreachable(format!("cannot speak to {}'s bridge: {e}", remote.name)))?;
    let mut server = pb::server_service_client::ServerServiceClient::new(channel.clone());
    let status = tokio::time::timeout(
        HANDSHAKE_TIMEOUT,
        server.get_status(pb::GetStatusRequest {}),
    )
    .await
    .map_err(|_| {
        unreachable(format!(
            "{}'s server did not answer within {} s",
            remote.name,
            HANDSHAKE_TIMEOUT.as_secs()
        ))
    })?
    .map_err(|s| unreachable(format!("{}'s server: {}", remote.name, s.message())))?;
    Ok(Up {
        channel,
        version: status.into_inner().version,
        dropped,
    })
}

/// The ssh child's pipes, saying when they are gone: at end of file, on an error, or when
/// hyper drops the connection.
struct Watched {
    io: SshIo,
    gone: Option<oneshot::Sender<()>>,
}

impl Watched {
    fn fire(&mut self) {
        if let Some(gone) = self.gone.take() {
            let _ = gone.send(());
        }
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        self.fire();
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let read = std::pin::Pin::new(&mut self.io).poll_read(cx, buf);
        match &read {
            Poll::Ready(Ok(())) if buf.filled().len() == before && buf.remaining() > 0 => {
                self.fire();
            }
            Poll::Ready(Err(_)) => self.fire(),
            _ => {}
        }
        read
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_thirty_seconds_within_its_upper_half() {
        for (failures, full) in [(1, 1), (2, 2), (3, 4), (6, 30), (40, 30)] {
            let full = Duration::from_secs(full);
            let d = backoff(failures);
            assert!(d >= full / 2 && d <= full, "{failures}: {d:?}");
        }
    }

    #[tokio::test]
    async fn a_link_that_cannot_start_ssh_fails_with_the_reason_and_a_next_try() {
        let link = Link::new(Remote {
            name: "nowhere".into(),
            host: "nowhere.invalid".into(),
            // ssh (when installed) fails at once without touching the network.
            ssh_options: vec!["-o".into(), "ProxyCommand=false".into()],
            command: "/nonexistent/signaltty".into(),
            control_dir: None,
        });
        assert_eq!(link.state(), LinkState::Idle);
        // `ssh` itself may or may not be installed here: either way the dial fails.
        let down = link.channel().await.expect_err("no such host");
        assert!(!down.message.is_empty());
        assert!(down.next_try > SystemTime::now() - Duration::from_secs(1));
        assert!(
            matches!(link.state(), LinkState::Failed(_)),
            "{:?}",
            link.state()
        );
        // Not due yet: a second call fails at once with the same error, no new dial.
        let again = link.channel().await.expect_err("still down");
        assert_eq!(again, down);
    }
}
