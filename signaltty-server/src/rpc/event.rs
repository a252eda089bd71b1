//! `EventService.Subscribe`: replay from a cursor, then live events, as one ordered stream.
//!
//! The response stream is pulled by tonic only as fast as the client reads (HTTP/2 flow
//! control), and live events come from a bounded broadcast receiver. A client that stops reading
//! therefore never blocks a publisher: its receiver falls behind, and the next time the stream is
//! polled it yields `Lagged` and ends.

use std::collections::HashSet;
use std::pin::Pin;
use std::sync::Arc;

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
}

impl EventService {
    /// A service over the hub.
    pub fn new(hub: Hub) -> Self {
        EventService { hub }
    }
}

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::SubscribeResponse, Status>> + Send>>;

fn message(kind: pb::subscribe_response::Kind) -> Result<pb::SubscribeResponse, Status> {
    Ok(pb::SubscribeResponse { kind: Some(kind) })
}

struct Live {
    hub: Hub,
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
                        let hub = self.hub.clone();
                        let msg = event_to_pb(&e, &|p| pane_pb(&hub, p));
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
                let msg = event_to_pb(e, &|p| pane_pb(&self.hub, p));
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
            rx: sub.live,
            kinds,
            last_seen,
            done: false,
        };
        let stream = stream::iter(prelude).chain(stream::unfold(live, Live::next));
        Ok(Response::new(Box::pin(stream)))
    }
}
