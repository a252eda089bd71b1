//! The side socket (`<socket>.tty`) never keeps descriptors a peer attached: a request with
//! more descriptors than the receive path expects — or far more — leaves none open in the
//! server (issue: 5 descriptors per request leaked 4 each, until new panes failed with EMFILE).
//!
//! Its own test binary: it counts the descriptors of this process, where the server runs, so no
//! other test may open or close any meanwhile.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use std::os::fd::AsFd;

use common::{TestServer, WAIT};
use signaltty_tty::protocol::{self, Conn};
use tokio::io::AsyncReadExt;
use tokio::net::UnixStream;

fn open_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd")
        .count()
}

/// Sends `x\n` (no verb: refused) with `copies` duplicates of one descriptor, then waits until
/// the server hangs up.
async fn offer_many(srv: &TestServer, copies: usize) {
    let file = std::fs::File::open("/dev/null").expect("/dev/null");
    let fds = vec![file.as_fd(); copies];
    let stream = UnixStream::connect(protocol::socket_path(srv.socket()))
        .await
        .expect("connect to the side socket");
    let conn = Conn::new(stream);
    conn.send_bytes(b"x\n", &fds).await.expect("send");
    let mut stream = conn.into_stream();
    let mut sink = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut sink))
        .await
        .expect("the server answers and hangs up in time")
        .expect("read");
}

#[tokio::test]
async fn descriptors_beyond_what_a_request_takes_are_closed_not_kept() {
    let srv = TestServer::start().await;
    // One round first, so lazily opened descriptors (the runtime's, the log's) exist already.
    offer_many(&srv, 1).await;
    let before = open_descriptors();
    for copies in [5, 5, 5, 5, 5, 16, 64, 200, 253] {
        for _ in 0..10 {
            offer_many(&srv, copies).await;
        }
    }
    let after = open_descriptors();
    // Before the fix: 4 more after every request (360 here).
    assert!(
        after <= before + 4,
        "descriptors grew from {before} to {after} over 90 requests"
    );
}
