//! The side socket's dispatcher (`terminal/dispatch.rs`): a line that does not parse, or a
//! request that does not belong where it comes — as a connection's first line, in a hand-off,
//! in a paint grant — is answered `refused <why>`, and the connection ends. A real server and
//! a real pseudo-terminal for the descriptors.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use std::os::fd::AsFd;

use common::{TestServer, WAIT};
use signaltty_tty::protocol::{self, Conn, HandOff, Rect, Reply, Request};

async fn connect(srv: &TestServer) -> Conn {
    Conn::connect(&protocol::socket_path(srv.socket()))
        .await
        .expect("connect to the side socket")
}

async fn reply(conn: &mut Conn) -> Option<Reply> {
    tokio::time::timeout(WAIT, conn.recv::<Reply>())
        .await
        .expect("a reply in time")
        .expect("a known reply")
}

/// The next reply is a refusal saying `says`, and then the server hangs up.
async fn refused_saying(conn: &mut Conn, says: &str) {
    match reply(conn).await {
        Some(Reply::Refused(why)) => assert!(why.contains(says), "{why:?} should say {says:?}"),
        other => panic!("expected a refusal saying {says:?}, got {other:?}"),
    }
    assert_eq!(reply(conn).await, None, "then closed");
}

#[tokio::test]
async fn an_opening_line_that_does_not_parse_or_open_is_refused() {
    let srv = TestServer::start().await;
    let cases: [(&[u8], &str); 6] = [
        (b"go\n", "does not belong"),
        (b"lend\n", "does not belong"),
        (b"hello there\n", "`attach`, `input` or `paint`"),
        (b"input 1\n", "missing pane"),
        (b"paint 1 p 0 0 0 1\n", "1×1"),
        (b"\xff\xfe\n", "UTF-8"),
    ];
    for (line, says) in cases {
        let mut conn = connect(&srv).await;
        conn.send_bytes(line, &[]).await.expect("send");
        refused_saying(&mut conn, says).await;
    }
}

#[tokio::test]
async fn a_hand_off_refuses_what_is_not_go_resize_or_stop() {
    let srv = TestServer::start().await;
    let pane = common::raw_cat(&srv, "refusals", 80, 24).await;
    let term = common::raw_pty(80, 24);
    let open = Request::HandOff(HandOff {
        pane: pane.id.clone(),
        read_only: false,
        mark_seen: false,
        detach_key: 0x1c,
    });
    let fds = [term.slave.as_fd(), term.slave.as_fd()];

    // Before `go`.
    let mut conn = connect(&srv).await;
    conn.ask(&open, &fds, WAIT).await.expect("ready");
    conn.send(&Request::Resume, &[]).await.expect("send");
    refused_saying(&mut conn, "expected `go`").await;

    // After `go`: the terminal is given back, then the refusal instead of `end`.
    let mut conn = connect(&srv).await;
    conn.ask(&open, &fds, WAIT).await.expect("ready");
    conn.send(&Request::Go, &[]).await.expect("go");
    conn.send_bytes(b"resize now\n", &[]).await.expect("send");
    refused_saying(&mut conn, "takes nothing after it").await;
    let mut conn = connect(&srv).await;
    conn.ask(&open, &fds, WAIT).await.expect("ready");
    conn.send(&Request::Go, &[]).await.expect("go");
    conn.send(&Request::Release, &[]).await.expect("send");
    refused_saying(&mut conn, "`resize` or `stop`").await;
}

#[tokio::test]
async fn a_paint_grant_refuses_what_does_not_belong_to_it() {
    let srv = TestServer::start().await;
    let pane = common::raw_cat(&srv, "refusals", 20, 6).await;
    let term = common::raw_pty(80, 24);
    let open = Request::Paint {
        pane: pane.id.clone(),
        rect: Rect {
            col: 0,
            row: 1,
            cols: 20,
            rows: 6,
        },
    };
    for (line, says) in [
        (&b"go\n"[..], "does not belong"),
        (b"lend zz\n", "not hex"),
        (b"stop please\n", "takes nothing after it"),
    ] {
        let mut conn = connect(&srv).await;
        conn.ask(&open, &[term.slave.as_fd()], WAIT)
            .await
            .expect("granted");
        conn.send_bytes(line, &[]).await.expect("send");
        refused_saying(&mut conn, says).await;
    }
}
