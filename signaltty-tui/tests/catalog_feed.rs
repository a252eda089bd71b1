//! The catalog feed against a real in-process server: a load, live events, then a server
//! restart on the same socket that the feed survives (reconnect, then resume or reload).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use signaltty_proto::v1 as pb;
use signaltty_proto::v1::pane_service_client::PaneServiceClient;
use signaltty_proto::v1::server_service_client::ServerServiceClient;
use signaltty_proto::v1::workspace_service_client::WorkspaceServiceClient;
use signaltty_server::config::Config;
use signaltty_server::daemon::Daemon;
use signaltty_tui::catalog::{Catalog, FeedMsg, run_feed};
use tokio::sync::mpsc;

const WAIT: Duration = Duration::from_secs(30);

async fn start(dir: &Path) -> Daemon {
    let mut config = Config::new(dir.join("run/s.sock"), dir.join("state"));
    config.hook_home = Some(dir.join("home"));
    Daemon::start(config).await.expect("daemon starts")
}

/// Applies feed messages to `catalog` until `done` holds.
async fn until(
    rx: &mut mpsc::UnboundedReceiver<FeedMsg>,
    catalog: &mut Catalog,
    seen: &mut Vec<&'static str>,
    done: impl Fn(&Catalog) -> bool,
) {
    tokio::time::timeout(WAIT, async {
        while !done(catalog) {
            match rx.recv().await.expect("feed alive") {
                FeedMsg::Loaded(c) => {
                    seen.push("loaded");
                    *catalog = *c;
                }
                FeedMsg::Event(e) => {
                    catalog.apply(&e);
                }
                FeedMsg::Live => seen.push("live"),
                FeedMsg::Disconnected { .. } => seen.push("disconnected"),
            }
        }
    })
    .await
    .expect("condition reached in time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_feed_mirrors_the_server_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = start(dir.path()).await;
    let socket: PathBuf = daemon.socket().to_path_buf();
    let channel = signaltty_proto::connect(&socket).await.unwrap();

    let (tx, mut rx) = mpsc::unbounded_channel();
    let feed_socket = socket.clone();
    let feed = tokio::spawn(run_feed(
        move || {
            let s = feed_socket.clone();
            async move { signaltty_proto::connect(&s).await }
        },
        tx,
    ));
    let mut catalog = Catalog::default();
    let mut seen = Vec::new();
    until(&mut rx, &mut catalog, &mut seen, |_| true).await;

    // Live changes arrive as events.
    let cwd = dir.path().join("proj");
    std::fs::create_dir_all(&cwd).unwrap();
    let ws = WorkspaceServiceClient::new(channel.clone())
        .create_workspace(pb::CreateWorkspaceRequest {
            name: "proj".into(),
            cwd: cwd.display().to_string(),
            settings: None,
        })
        .await
        .unwrap()
        .into_inner()
        .workspace
        .unwrap();
    let pane = PaneServiceClient::new(channel.clone())
        .spawn_pane(pb::SpawnPaneRequest {
            workspace_id: ws.id.clone(),
            argv: vec!["sh".into()],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .pane
        .unwrap();
    let pane_id = pane.id.clone();
    until(&mut rx, &mut catalog, &mut seen, |c| {
        c.panes.contains_key(&pane_id)
            && c.tabs.values().any(|t| {
                t.pane_ids.contains(&pane_id) && signaltty_client::layout_tree::held(t).is_some()
            })
            && c.workspaces
                .iter()
                .any(|w| w.id == ws.id && !w.active_tab_id.is_empty())
    })
    .await;
    // The mirror equals a fresh load.
    let fresh = Catalog::load(channel.clone()).await.unwrap();
    assert_eq!(catalog.workspaces, fresh.workspaces);
    assert_eq!(catalog.tabs, fresh.tabs);
    assert_eq!(
        catalog
            .panes
            .keys()
            .collect::<std::collections::BTreeSet<_>>(),
        fresh.panes.keys().collect()
    );

    // Restart the server on the same socket: the feed reconnects and catches up.
    ServerServiceClient::new(channel)
        .shutdown(pb::ShutdownRequest { force: true })
        .await
        .unwrap();
    daemon.wait().await;
    drop(daemon);
    let daemon = start(dir.path()).await;
    let channel = signaltty_proto::connect(&socket).await.unwrap();
    let restored = Catalog::load(channel.clone()).await.unwrap();
    let restored_status = restored.panes[&pane.id].status;
    until(&mut rx, &mut catalog, &mut seen, |c| {
        seen_after_disconnect(c, &pane.id, restored_status)
    })
    .await;
    assert!(seen.contains(&"disconnected"), "{seen:?}");
    assert_eq!(catalog.workspaces, restored.workspaces);
    assert_eq!(catalog.tabs, restored.tabs);
    feed.abort();
    drop(daemon);
}

fn seen_after_disconnect(c: &Catalog, pane: &str, status: i32) -> bool {
    c.panes.get(pane).is_some_and(|p| p.status == status) && status != pb::PaneStatus::Live as i32
}
