//! The event bus: stamps each event with the next seq, keeps the newest ones in a bounded replay
//! ring, and broadcasts them live. It lives inside the store's lock, so events are stamped and
//! published in exactly the order the state changed, and a subscription taken under the same
//! lock gets replay and live events with no gap and no duplicate.
//!
//! Live delivery uses a bounded `tokio::sync::broadcast`: publishing never waits for anyone. A
//! subscriber that falls more than the channel's capacity behind finds out on its next receive
//! (`Lagged`) and is closed with an explicit message; it is never silently skipped.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::SystemTime;

use tokio::sync::{broadcast, watch};

use crate::model::event::{Event, Stamped};

/// How many events the replay ring keeps by default.
pub const DEFAULT_RING_CAPACITY: usize = 10_000;
/// How far a live subscriber may fall behind before it is closed. The channel's slots are
/// allocated up front (~40 B each), and a closed subscriber loses nothing: it resubscribes
/// with `from_seq` and replays from the ring, so the live window need not be large.
pub const DEFAULT_LIVE_CAPACITY: usize = 1_024;

/// The bus. Not `Clone`: it is owned by the store's locked state.
#[derive(Debug)]
pub struct Bus {
    ring: VecDeque<Arc<Stamped>>,
    ring_capacity: usize,
    head: u64,
    live: broadcast::Sender<Arc<Stamped>>,
    head_watch: watch::Sender<u64>,
}

/// What a new subscriber starts with.
#[derive(Debug)]
pub struct Subscription {
    /// Events to replay before live ones (empty without a cursor).
    pub replay: Vec<Arc<Stamped>>,
    /// Set when the cursor could not be honoured.
    pub lost: Option<HistoryLost>,
    /// Live events after the replay.
    pub live: broadcast::Receiver<Arc<Stamped>>,
    /// The head seq at subscription time.
    pub head: u64,
}

/// A cursor outside the retained ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryLost {
    /// The cursor asked for.
    pub requested: u64,
    /// Oldest retained seq (0 when none).
    pub oldest: u64,
    /// Head seq.
    pub head: u64,
}

impl Bus {
    /// A bus with the given ring and live capacities (each at least 1).
    pub fn new(ring_capacity: usize, live_capacity: usize) -> Self {
        let (live, _) = broadcast::channel(live_capacity.max(1));
        let (head_watch, _) = watch::channel(0);
        Bus {
            ring: VecDeque::with_capacity(ring_capacity.clamp(1, 1024)),
            ring_capacity: ring_capacity.max(1),
            head: 0,
            live,
            head_watch,
        }
    }

    /// Stamps and publishes one event.
    pub fn publish(&mut self, event: Event, at: SystemTime) -> Arc<Stamped> {
        self.head += 1;
        let stamped = Arc::new(Stamped {
            seq: self.head,
            at,
            event,
        });
        if self.ring.len() == self.ring_capacity {
            self.ring.pop_front();
        }
        self.ring.push_back(Arc::clone(&stamped));
        // No receivers is fine: nobody is listening live right now.
        let _ = self.live.send(Arc::clone(&stamped));
        self.head_watch.send_replace(self.head);
        stamped
    }

    /// The newest seq (0 before any event).
    pub fn head(&self) -> u64 {
        self.head
    }

    /// A watch on the head seq, for waiters that only need "something changed".
    pub fn watch_head(&self) -> watch::Receiver<u64> {
        self.head_watch.subscribe()
    }

    /// Subscribes. `from_seq` is the last seq the client saw: events after it are replayed.
    pub fn subscribe(&self, from_seq: Option<u64>) -> Subscription {
        let live = self.live.subscribe();
        let oldest = self.ring.front().map_or(0, |e| e.seq);
        let (replay, lost) = match from_seq {
            None => (Vec::new(), None),
            Some(from) if from > self.head => (Vec::new(), Some(self.lost(from, oldest))),
            // Everything after `from` is still in the ring when the ring starts at or before
            // from + 1 (or nothing was ever dropped).
            Some(from) if from + 1 >= oldest || oldest == 0 => (
                self.ring.iter().filter(|e| e.seq > from).cloned().collect(),
                None,
            ),
            Some(from) => (Vec::new(), Some(self.lost(from, oldest))),
        };
        Subscription {
            replay,
            lost,
            live,
            head: self.head,
        }
    }

    fn lost(&self, requested: u64, oldest: u64) -> HistoryLost {
        HistoryLost {
            requested,
            oldest,
            head: self.head,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(n: u64) -> Event {
        Event::ServerShuttingDown {
            reason: n.to_string(),
        }
    }

    #[test]
    fn seqs_increase_and_replay_resumes_after_the_cursor() {
        let mut bus = Bus::new(100, 10);
        for n in 0..5 {
            bus.publish(ev(n), SystemTime::now());
        }
        let sub = bus.subscribe(Some(2));
        assert!(sub.lost.is_none());
        let seqs: Vec<u64> = sub.replay.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, vec![3, 4, 5]);
        assert_eq!(sub.head, 5);
    }

    #[test]
    fn a_cursor_older_than_the_ring_or_ahead_of_head_is_history_lost() {
        let mut bus = Bus::new(3, 10);
        for n in 0..10 {
            bus.publish(ev(n), SystemTime::now());
        }
        let old = bus.subscribe(Some(2));
        assert_eq!(
            old.lost,
            Some(HistoryLost {
                requested: 2,
                oldest: 8,
                head: 10
            })
        );
        assert!(old.replay.is_empty());
        // from 7 needs 8, 9, 10: all retained.
        assert_eq!(bus.subscribe(Some(7)).replay.len(), 3);
        assert!(bus.subscribe(Some(11)).lost.is_some());
        assert!(bus.subscribe(Some(10)).lost.is_none());
    }

    #[test]
    fn live_events_follow_the_replay_without_gap() {
        let mut bus = Bus::new(100, 10);
        bus.publish(ev(1), SystemTime::now());
        let mut sub = bus.subscribe(Some(0));
        bus.publish(ev(2), SystemTime::now());
        assert_eq!(sub.replay.len(), 1);
        assert_eq!(sub.live.try_recv().map(|e| e.seq).ok(), Some(2));
    }

    #[test]
    fn a_slow_live_subscriber_lags_instead_of_blocking_publish() {
        let mut bus = Bus::new(100, 4);
        let mut sub = bus.subscribe(None);
        for n in 0..50 {
            bus.publish(ev(n), SystemTime::now());
        }
        assert!(matches!(
            sub.live.try_recv(),
            Err(broadcast::error::TryRecvError::Lagged(_))
        ));
    }
}
