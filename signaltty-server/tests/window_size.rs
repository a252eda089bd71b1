//! Several clients on one pane (`[server] window_size`, `pane::sizing`): under `latest` (the
//! default) the pane takes the size of the client that attached or typed last (an empty Input
//! is an activity ping); under `largest` / `smallest` each dimension is the largest / smallest
//! among the sizing clients; a detach recomputes. Real server, real PTY, real attach streams;
//! the child's own `stty size` is the proof.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use common::*;
use signaltty_config::WindowSize;
use signaltty_proto::v1 as pb;

/// Waits for a Resized to `cols`×`rows` on `client`'s stream.
async fn until_resized(client: &mut Attached, cols: u32, rows: u32) {
    client
        .until(|k| match k {
            pb::attach_response::Kind::Resized(r) if (r.cols, r.rows) == (cols, rows) => Some(()),
            _ => None,
        })
        .await;
}

async fn server(rule: WindowSize) -> (TestServer, pb::Pane) {
    let srv = TestServer::start_with(|c| c.window_size = rule).await;
    let ws = srv.workspace("w").await;
    let pane = spawn_sized(&srv, &ws.id, &["sh"], 100, 30).await;
    (srv, pane)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latest_follows_the_client_that_attached_or_typed_last_and_a_detach_recomputes() {
    let (srv, pane) = server(WindowSize::default()).await;
    let (mut big, _) = attach(&srv, &pane.id, 160, 48, false).await;
    assert_eq!(
        stty_size(&srv, &pane.id, "a").await,
        "48 160",
        "attaching is activity"
    );
    let (mut small, _) = attach(&srv, &pane.id, 90, 26, false).await;
    until_resized(&mut big, 90, 26).await;
    assert_eq!(stty_size(&srv, &pane.id, "b").await, "26 90");

    // The big client types: the pane is its size again, and both are told.
    big.input(b":\n").await;
    until_resized(&mut small, 160, 48).await;
    assert_eq!(stty_size(&srv, &pane.id, "c").await, "48 160");
    assert_eq!(srv.pane(&pane.id).await.cols, 160, "the model records it");

    // An empty Input is an activity ping: the small one takes the pane without typing.
    small.input(b"").await;
    until_resized(&mut big, 90, 26).await;
    // A resize of the client that is not the latest changes nothing; of the latest, at once.
    big.resize(150, 40).await;
    small.resize(100, 28).await;
    until_resized(&mut big, 100, 28).await;
    assert_eq!(stty_size(&srv, &pane.id, "d").await, "28 100");

    // The latest leaves: the other one (active before it) sizes the pane.
    drop(small);
    until_resized(&mut big, 150, 40).await;
    assert_eq!(stty_size(&srv, &pane.id, "e").await, "40 150");
    drop(big);
    // With no client the last size stays.
    assert_eq!(stty_size(&srv, &pane.id, "f").await, "40 150");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn largest_takes_each_dimension_from_any_client_whoever_types() {
    let (srv, pane) = server(WindowSize::Largest).await;
    let (mut wide, _) = attach(&srv, &pane.id, 160, 30, false).await;
    let (tall, _) = attach(&srv, &pane.id, 90, 45, false).await;
    until_resized(&mut wide, 160, 45).await;
    wide.input(b":\n").await;
    tall.input(b":\n").await;
    assert_eq!(stty_size(&srv, &pane.id, "a").await, "45 160");
    drop(tall);
    until_resized(&mut wide, 160, 30).await;
    assert_eq!(stty_size(&srv, &pane.id, "b").await, "30 160");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smallest_takes_each_dimension_from_any_client_and_read_only_ones_never_count() {
    let (srv, pane) = server(WindowSize::Smallest).await;
    let (mut wide, _) = attach(&srv, &pane.id, 160, 30, false).await;
    let (tall, _) = attach(&srv, &pane.id, 90, 45, false).await;
    until_resized(&mut wide, 90, 30).await;
    let (_watcher, _) = attach(&srv, &pane.id, 20, 5, true).await;
    tall.input(b":\n").await;
    wide.input(b":\n").await;
    assert_eq!(stty_size(&srv, &pane.id, "a").await, "30 90");
    drop(tall);
    until_resized(&mut wide, 160, 30).await;
    assert_eq!(stty_size(&srv, &pane.id, "b").await, "30 160");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_client_may_not_ping() {
    let (srv, pane) = server(WindowSize::default()).await;
    let (mut sizer, _) = attach(&srv, &pane.id, 120, 40, false).await;
    let (mut watcher, _) = attach(&srv, &pane.id, 80, 24, true).await;
    watcher.input(b"").await;
    // Refused like any input from a read-only client, and the size is untouched.
    let end = tokio::time::timeout(WAIT, watcher.rx.message())
        .await
        .expect("answered");
    assert!(
        end.is_err(),
        "a read-only client's input is refused: {end:?}"
    );
    sizer.resize(121, 40).await;
    until_resized(&mut sizer, 121, 40).await;
    assert_eq!(stty_size(&srv, &pane.id, "a").await, "40 121");
}
