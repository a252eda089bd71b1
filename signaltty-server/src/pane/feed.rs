//! One attached client's feed of a pane's output: the session core shared by the gRPC `Attach`
//! (`rpc/attach.rs`) and the hand-off (`terminal/session.rs`), so both follow one offset rule
//! and one policy for a client that falls behind.
//!
//! - **Offsets.** A client starts from a subscription's screen (its snapshot, at its offset)
//!   and then gets the chunks after it, joined up to a bound ([`Feed::next`]), each piece
//!   contiguous with the last. When the pane's broadcast lagged behind this client (chunks it
//!   will never see), or the client says it cannot keep up ([`Feed::fall_behind`]), the
//!   subscription is let go: whatever came before the gap is still delivered whole, and nothing
//!   after it is.
//! - **A fresh screen, at most one a frame.** Once behind, a fresh subscription — a new screen
//!   at a new offset — is taken only after [`FRESH_PAUSE`] and once the client has taken what it
//!   was given ([`Feed::fresh`]): without the pause a flood cycles skip → repaint → skip as fast
//!   as the client drains, each repaint taken under the pane's lock; with it a client that
//!   cannot keep up gets one fresh screen a frame, as with tmux. Typing never waits on it.

use std::time::Duration;

use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::time::Instant;

use super::actor::{PaneHandle, Subscribed};

/// After falling behind, how long before a fresh screen is taken (one 60 Hz frame).
pub const FRESH_PAUSE: Duration = Duration::from_millis(16);

/// Until `at`, or never without one.
pub async fn until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Something that hands out subscriptions to a pane's output (the pane; a fake in tests).
pub trait Subscribe {
    /// The current screen and the chunks after it.
    fn subscribe(&self) -> Subscribed;
}

impl Subscribe for PaneHandle {
    fn subscribe(&self) -> Subscribed {
        PaneHandle::subscribe(self)
    }
}

/// What [`Feed::next`] brings.
#[derive(Debug, PartialEq, Eq)]
pub enum Fed {
    /// Output contiguous with what the client has, ending at `end_offset`. The feed may have
    /// fallen behind right after it ([`Feed::behind`]).
    Output {
        /// The bytes.
        data: Vec<u8>,
        /// The offset after them.
        end_offset: u64,
    },
    /// The feed fell behind: nothing more until a fresh screen ([`Feed::fresh`]).
    Behind,
    /// The pane's output is over.
    Closed,
}

/// A client's subscription to a pane's output, let go and taken again by the rules above.
pub struct Feed {
    sub: Option<Subscribed>,
    /// Most bytes joined into one piece.
    max_bytes: usize,
    /// Set when the feed fell behind: no fresh screen before then.
    fresh_at: Option<Instant>,
    /// False once the pane's output ended (until a fresh subscription).
    open: bool,
}

impl Feed {
    /// A feed from `pane`'s current screen ([`Feed::current`]), joining at most `max_bytes`.
    pub fn new(pane: &impl Subscribe, max_bytes: usize) -> Feed {
        Feed {
            sub: Some(pane.subscribe()),
            max_bytes,
            fresh_at: None,
            open: true,
        }
    }

    /// The subscription the client is following, if any (its snapshot is the screen to show).
    pub fn current(&self) -> Option<&Subscribed> {
        self.sub.as_ref()
    }

    /// Whether the feed is behind (no subscription).
    pub fn behind(&self) -> bool {
        self.sub.is_none()
    }

    /// Whether every chunk received so far was delivered.
    pub fn drained(&self) -> bool {
        !self.open || self.sub.as_ref().is_some_and(|s| s.chunks.is_empty())
    }

    /// The next piece of output (cancel-safe; pending while behind or closed).
    pub async fn next(&mut self) -> Fed {
        let Some(sub) = self.sub.as_mut().filter(|_| self.open) else {
            return std::future::pending().await;
        };
        let first = match sub.chunks.recv().await {
            Ok(chunk) => chunk,
            Err(RecvError::Lagged(_)) => {
                self.fall_behind();
                return Fed::Behind;
            }
            Err(RecvError::Closed) => {
                self.open = false;
                return Fed::Closed;
            }
        };
        let mut data = first.data.to_vec();
        let mut end_offset = first.end_offset;
        while data.len() < self.max_bytes {
            match sub.chunks.try_recv() {
                Ok(chunk) => {
                    data.extend_from_slice(&chunk.data);
                    end_offset = chunk.end_offset;
                }
                // What came before the gap goes out whole; nothing after it.
                Err(TryRecvError::Lagged(_)) => {
                    self.fall_behind();
                    break;
                }
                Err(TryRecvError::Empty | TryRecvError::Closed) => break,
            }
        }
        Fed::Output { data, end_offset }
    }

    /// Lets the subscription go (the client cannot keep up); a fresh screen comes after
    /// [`FRESH_PAUSE`] ([`Feed::fresh`]).
    pub fn fall_behind(&mut self) {
        self.sub = None;
        self.fresh_at = Some(Instant::now() + FRESH_PAUSE);
    }

    /// When a fresh screen may be taken, while the feed is behind and pausing: wait
    /// [`until`] then, then call [`Feed::paused`].
    pub fn pause_ends(&self) -> Option<Instant> {
        self.fresh_at
    }

    /// The pause after falling behind is over.
    pub fn paused(&mut self) {
        self.fresh_at = None;
    }

    /// A fresh subscription from `pane`, when the feed is behind, the pause is over and the
    /// client `caught_up` (took everything it was given): its screen is the one to show next.
    pub fn fresh(&mut self, pane: &impl Subscribe, caught_up: bool) -> Option<&Subscribed> {
        if self.sub.is_some() || self.fresh_at.is_some() || !caught_up {
            return None;
        }
        Some(self.resubscribe(pane))
    }

    /// A fresh subscription from `pane` now, whatever the pause (the client shows the pane's
    /// screen some other way meanwhile and only needs its changes).
    pub fn resubscribe(&mut self, pane: &impl Subscribe) -> &Subscribed {
        self.fresh_at = None;
        self.open = true;
        self.sub.insert(pane.subscribe())
    }
}

#[cfg(test)]
mod tests {
    use crate::term::ScreenSnapshot;
    use bytes::Bytes;
    use tokio::sync::broadcast;

    use super::*;
    use crate::pane::actor::Chunk;

    /// A pane whose output is sent by hand; each subscription's screen says how many came
    /// before it.
    struct Pane {
        tx: broadcast::Sender<Chunk>,
        offset: std::cell::Cell<u64>,
        subscriptions: std::cell::Cell<u16>,
    }

    impl Pane {
        fn new(capacity: usize) -> Pane {
            Pane {
                tx: broadcast::channel(capacity).0,
                offset: 0.into(),
                subscriptions: 0.into(),
            }
        }

        fn output(&self, bytes: &[u8]) {
            self.offset.set(self.offset.get() + bytes.len() as u64);
            let _ = self.tx.send(Chunk {
                data: Bytes::copy_from_slice(bytes),
                end_offset: self.offset.get(),
            });
        }
    }

    impl Subscribe for Pane {
        fn subscribe(&self) -> Subscribed {
            self.subscriptions.set(self.subscriptions.get() + 1);
            Subscribed {
                snapshot: ScreenSnapshot {
                    repaint: Vec::new(),
                    cursor_row: 0,
                    cursor_col: 0,
                    cursor_visible: true,
                    cols: self.subscriptions.get(),
                    rows: 1,
                },
                offset: self.offset.get(),
                chunks: self.tx.subscribe(),
            }
        }
    }

    fn output(data: &[u8], end_offset: u64) -> Fed {
        Fed::Output {
            data: data.to_vec(),
            end_offset,
        }
    }

    #[tokio::test]
    async fn output_is_joined_up_to_the_bound_with_contiguous_offsets() {
        let pane = Pane::new(16);
        let mut feed = Feed::new(&pane, 4);
        assert_eq!(feed.current().map(|s| s.offset), Some(0));
        for piece in [&b"ab"[..], b"cd", b"ef"] {
            pane.output(piece);
        }
        assert_eq!(feed.next().await, output(b"abcd", 4));
        assert!(!feed.drained());
        assert_eq!(feed.next().await, output(b"ef", 6));
        assert!(feed.drained());
        drop(pane);
        assert_eq!(feed.next().await, Fed::Closed);
        assert!(!feed.open && feed.drained());
    }

    #[tokio::test]
    async fn a_lag_delivers_what_came_before_then_one_fresh_screen_after_the_pause() {
        let pane = Pane::new(2);
        let mut feed = Feed::new(&pane, 1024);
        pane.output(b"a");
        pane.output(b"b");
        pane.output(b"c");
        // The oldest chunk was lost: behind at once.
        assert_eq!(feed.next().await, Fed::Behind);
        assert!(feed.behind());
        assert!(feed.fresh(&pane, true).is_none(), "not before the pause");
        let before = Instant::now();
        until(feed.pause_ends()).await;
        feed.paused();
        assert!(Instant::now() - before >= FRESH_PAUSE);
        assert!(
            feed.fresh(&pane, false).is_none(),
            "not before the client caught up"
        );
        let fresh = feed.fresh(&pane, true).expect("a fresh screen");
        assert_eq!((fresh.offset, fresh.snapshot.cols), (3, 2));
        assert!(feed.fresh(&pane, true).is_none(), "one at a time");
        pane.output(b"d");
        assert_eq!(feed.next().await, output(b"d", 4));
    }

    #[tokio::test]
    async fn a_client_that_cannot_keep_up_falls_behind_and_can_resubscribe_at_once() {
        let pane = Pane::new(16);
        let mut feed = Feed::new(&pane, 1024);
        pane.output(b"x");
        assert_eq!(feed.next().await, output(b"x", 1));
        feed.fall_behind();
        assert!(feed.behind());
        pane.output(b"y");
        let again = feed.resubscribe(&pane);
        assert_eq!(again.offset, 2);
        assert!(!feed.behind());
        assert_eq!(feed.pause_ends(), None, "the pause no longer applies");
    }
}
