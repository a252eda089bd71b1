//! Each event is converted to its wire form once, however many clients subscribe (issue 14 §6):
//! 20 subscribers (one never reading) receive every event of a burst, and the server's conversion
//! count grows by the number of events, not by events × subscribers. Its own test binary: the
//! count is process-wide.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use common::{TestServer, next};
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::subscribe_response::Kind;
use signaltty_server::rpc::event::conversions;

const SUBSCRIBERS: usize = 20;
const EVENTS: u64 = 50;

#[tokio::test]
async fn twenty_subscribers_cost_one_conversion_per_event() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let mut streams = Vec::new();
    for _ in 0..SUBSCRIBERS {
        let mut s = srv
            .events()
            .subscribe(pb::SubscribeRequest {
                from_seq: None,
                kinds: vec![],
            })
            .await
            .unwrap()
            .into_inner();
        assert!(matches!(next(&mut s).await.kind, Some(Kind::Synced(_))));
        streams.push(s);
    }
    let _stalled = streams.pop();
    let before = conversions();
    for n in 0..EVENTS {
        srv.workspaces()
            .rename_workspace(pb::RenameWorkspaceRequest {
                workspace_id: ws.id.clone(),
                name: format!("name {n}"),
            })
            .await
            .unwrap();
    }
    for s in &mut streams {
        for _ in 0..EVENTS {
            assert!(matches!(next(s).await.kind, Some(Kind::Event(_))));
        }
    }
    let converted = conversions() - before;
    assert_eq!(
        converted,
        EVENTS,
        "{converted} conversions for {EVENTS} events and {} reading subscribers",
        SUBSCRIBERS - 1
    );
}
