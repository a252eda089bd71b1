//! `EventService.Subscribe`: replay from a cursor, then live events, as one ordered stream.
//!
//! The response stream is pulled by tonic only as fast as the client reads (HTTP/2 flow
//! control), and live events come from a bounded broadcast receiver. A client that stops reading
//! therefore never blocks a publisher: its receiver falls behind, and the next time the stream is
//! polled it yields `Lagged` and ends.

use std::collections::{HashSet, VecDeque};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::Stream;
use futures_util::stream::{self, StreamExt};
use signaltty_proto::v1 as pb;
use tokio::sync::broadcast::{self, error::RecvError};
use tonic::{Request, Response, Status};

use super::convert::{event_kind_from_pb, event_to_pb, pane_pb};
use crate::hub::Hub;
use crate::model::event::{EventKind, Stamped};

/// Serves `signaltty.v1.EventService`.
#[derive(Debug)]
pub struct EventService {
    hub: Hub,
    renders: Arc<Renders>,
}

impl EventService {
    /// A service over the hub.
    pub fn new(hub: Hub) -> Self {
        EventService {
            hub,
            renders: Arc::default(),
        }
    }
}

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::SubscribeResponse, Status>> + Send>>;

fn message(kind: pb::subscribe_response::Kind) -> Result<pb::SubscribeResponse, Status> {
    Ok(pb::SubscribeResponse { kind: Some(kind) })
}

/// Events converted to their wire form so far (see [`Renders`]).
static CONVERSIONS: AtomicU64 = AtomicU64::new(0);

/// How many events this process has converted for subscribers (tests check it is one per
/// event, not one per event and subscriber).
pub fn conversions() -> u64 {
    CONVERSIONS.load(Ordering::Relaxed)
}

/// How many of the newest events keep their wire form for other subscribers. Subscribers that
/// keep up read within a few events of each other, so a short window serves them all; one that
/// reads further back (a replay, a slow reader) converts for itself, which costs CPU, never
/// memory that stays.
const RECENT_RENDERS: usize = 64;

/// The wire forms of the newest events, shared by every subscription of the server, so that an
/// event is converted once however many clients watch. Kept here, in a short window, and not on
/// the event itself: the bus's replay ring holds 10,000 events, and a wire form is a deep copy
/// (a `WorkspaceUpdated` lists every tab as a string), so caching it on every retained event
/// made the ring's memory grow with the square of a workspace's tabs (issue 18).
#[derive(Debug, Default)]
pub struct Renders {
    recent: Mutex<VecDeque<(u64, pb::Event)>>,
}

impl Renders {
    /// The wire form of `e`: from the window, else converted (and kept when it is the newest).
    /// Converting under the lock keeps "once per event" exact when subscribers race.
    fn render(&self, hub: &Hub, e: &Stamped) -> pb::Event {
        let mut recent = self
            .recent
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Ok(i) = recent.binary_search_by_key(&e.seq, |(seq, _)| *seq) {
            return recent[i].1.clone();
        }
        CONVERSIONS.fetch_add(1, Ordering::Relaxed);
        let msg = event_to_pb(e, &|p| pane_pb(hub, p));
        if recent.back().is_none_or(|(seq, _)| *seq < e.seq) {
            if recent.len() == RECENT_RENDERS {
                recent.pop_front();
            }
            recent.push_back((e.seq, msg.clone()));
        }
        msg
    }
}

struct Live {
    hub: Hub,
    renders: Arc<Renders>,
    rx: broadcast::Receiver<Arc<Stamped>>,
    kinds: HashSet<EventKind>,
    last_seen: u64,
    done: bool,
}

impl Live {
    fn wanted(&self, e: &Stamped) -> bool {
        self.kinds.is_empty() || self.kinds.contains(&e.event.kind())
    }

    async fn next(mut self) -> Option<(Result<pb::SubscribeResponse, Status>, Live)> {
        if self.done {
            return None;
        }
        loop {
            let received = tokio::select! {
                r = self.rx.recv() => r,
                () = self.hub.shutdown_token().cancelled() => return None,
            };
            match received {
                Ok(e) => {
                    self.last_seen = e.seq;
                    if self.wanted(&e) {
                        let msg = self.renders.render(&self.hub, &e);
                        return Some((message(pb::subscribe_response::Kind::Event(msg)), self));
                    }
                }
                Err(RecvError::Lagged(_)) => {
                    self.done = true;
                    let lagged = pb::Lagged {
                        last_delivered_seq: self.last_seen,
                    };
                    return Some((message(pb::subscribe_response::Kind::Lagged(lagged)), self));
                }
                Err(RecvError::Closed) => return None,
            }
        }
    }
}

#[tonic::async_trait]
impl pb::event_service_server::EventService for EventService {
    type SubscribeStream = EventStream;

    async fn subscribe(
        &self,
        req: Request<pb::SubscribeRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let req = req.into_inner();
        let kinds: HashSet<EventKind> = req
            .kinds
            .iter()
            .filter_map(|k| event_kind_from_pb(*k))
            .collect();
        let sub = self.hub.store().subscribe(req.from_seq);
        let mut prelude = Vec::new();
        let mut last_seen = sub.head;
        if let Some(lost) = sub.lost {
            prelude.push(message(pb::subscribe_response::Kind::HistoryLost(
                pb::HistoryLost {
                    requested_seq: lost.requested,
                    oldest_seq: lost.oldest,
                    head_seq: lost.head,
                },
            )));
        }
        for e in &sub.replay {
            if kinds.is_empty() || kinds.contains(&e.event.kind()) {
                let msg = self.renders.render(&self.hub, e);
                prelude.push(message(pb::subscribe_response::Kind::Event(msg)));
            }
        }
        if let Some(last) = sub.replay.last() {
            last_seen = last.seq;
        }
        prelude.push(message(pb::subscribe_response::Kind::Synced(pb::Synced {
            head_seq: last_seen,
        })));
        let live = Live {
            hub: self.hub.clone(),
            renders: Arc::clone(&self.renders),
            rx: sub.live,
            kinds,
            last_seen,
            done: false,
        };
        let stream = stream::iter(prelude).chain(stream::unfold(live, Live::next));
        Ok(Response::new(Box::pin(stream)))
    }
}
