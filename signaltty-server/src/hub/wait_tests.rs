use std::time::SystemTime;

use tokio_util::sync::CancellationToken;

use super::*;
use crate::config::Config;
use crate::model::lifecycle::ChangeSource;

use crate::model::state::fixtures::{new_tab, record, state_with_ws};
use crate::store::Store;

/// A hub over a state with two live pane records (no processes), whose live event window holds
/// only `live` events.
fn hub_with_two_panes(live: usize) -> (Hub, PaneId, PaneId, tempfile::TempDir) {
    let (mut state, ws) = state_with_ws();
    let mut add = || {
        let placement = new_tab("");
        let ((pane, _), _) = state
            .add_pane(record(&ws), placement, SystemTime::now())
            .expect("add pane");
        pane.id
    };
    let (watched, other) = (add(), add());
    let dir = tempfile::tempdir().expect("temp dir");
    let config = Config::new(dir.path().join("sock"), dir.path().join("state"));
    let hub = Hub::new(
        Store::new(state, 10_000, live),
        config,
        CancellationToken::new(),
    );
    (hub, watched, other, dir)
}

/// Starts a WaitPane for `Unread` on `pane` and lets it subscribe. On the single-threaded
/// runtime of these tests the waiter then runs again only when the test yields.
async fn start_waiting_for_unread(
    hub: &Hub,
    pane: &PaneId,
) -> tokio::task::JoinHandle<Result<(Pane, u64)>> {
    let (hub, pane) = (hub.clone(), pane.clone());
    let target = WaitTarget {
        lifecycles: Vec::new(),
        attentions: vec![Attention::Unread],
    };
    let waiter = tokio::spawn(async move {
        hub.wait_pane(&pane, &target, 0, Duration::from_secs(2))
            .await
    });
    tokio::task::yield_now().await;
    waiter
}

#[tokio::test(flavor = "current_thread")]
async fn a_waiter_that_lags_the_live_bus_still_sees_a_transient_transition() {
    let (hub, watched, other, _dir) = hub_with_two_panes(4);
    let waiter = start_waiting_for_unread(&hub, &watched).await;
    let store = hub.store();
    // The wanted state comes and goes again, then 20 unrelated events overflow the waiter's
    // 4-slot live window before it runs again.
    let bell_seq = {
        store
            .apply(|s, now| s.ring_bell(&watched, now))
            .expect("bell");
        store.head()
    };
    store
        .apply(|s, now| s.mark_seen(&watched, ChangeSource::Api, now))
        .expect("seen");
    for _ in 0..10 {
        store
            .apply(|s, now| s.ring_bell(&other, now))
            .expect("bell");
        store
            .apply(|s, now| s.mark_seen(&other, ChangeSource::Api, now))
            .expect("seen");
    }
    let (pane, seq) = waiter
        .await
        .expect("waiter task")
        .expect("the transition counts");
    assert_eq!(pane.id, watched);
    assert_eq!(seq, bell_seq, "ended by the bell's AttentionChanged");
}

#[tokio::test(flavor = "current_thread")]
async fn a_waiter_without_lag_ends_on_the_transition() {
    let (hub, watched, _other, _dir) = hub_with_two_panes(1024);
    let waiter = start_waiting_for_unread(&hub, &watched).await;
    hub.store()
        .apply(|s, now| s.ring_bell(&watched, now))
        .expect("bell");
    let bell_seq = hub.store().head();
    let (_, seq) = waiter.await.expect("waiter task").expect("ends");
    assert_eq!(seq, bell_seq);
}
