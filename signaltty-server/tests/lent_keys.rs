//! Lent keys within a paint grant (`lend` … `back`, `signaltty_tty::protocol`): the server
//! reads the client's terminal, writes plain keys to the pane, and hands everything else back
//! in order. A real server and a real `cat` pane; a real raw pseudo-terminal stands in for the
//! client's terminal (typing is writing to its master; the client reading its own keys again
//! is reading its slave).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use std::io::Write;
use std::os::fd::{AsFd, AsRawFd};
use std::path::PathBuf;

use common::{RawPty, TestServer, WAIT, until_screen};
use signaltty_proto::v1 as pb;
use signaltty_tty::input::TtyInput;
use signaltty_tty::protocol::{self, Conn, Notice, Rect, Reply, Request};

const RECT: Rect = Rect {
    col: 0,
    row: 1,
    cols: 20,
    rows: 6,
};

async fn cat_pane(srv: &TestServer) -> pb::Pane {
    common::raw_cat(srv, "keys", RECT.cols, RECT.rows).await
}

/// A grant for `pane` on `term`, with its input when `with_input`.
async fn grant(srv: &TestServer, pane: &str, term: &RawPty, with_input: bool) -> Client {
    let mut conn = Conn::connect(&protocol::socket_path(srv.socket()))
        .await
        .expect("connect to the side socket");
    let mut fds = vec![term.slave.as_fd()];
    if with_input {
        fds.push(term.slave.as_fd());
    }
    let request = Request::Paint {
        pane: pane.to_owned(),
        rect: RECT,
    };
    conn.ask(&request, &fds, WAIT).await.expect("granted");
    Client { conn }
}

struct Client {
    conn: Conn,
}

impl Client {
    async fn send(&self, request: Request) {
        self.conn.send(&request, &[]).await.expect("send");
    }

    async fn lend(&self, excluded: &str) {
        self.send(Request::Lend {
            excluded: excluded.to_owned(),
        })
        .await;
    }

    /// The next reply that is not `skipped`.
    async fn reply(&mut self) -> Option<Reply> {
        loop {
            let reply = tokio::time::timeout(WAIT, self.conn.recv::<Reply>())
                .await
                .expect("a reply in time")
                .expect("read");
            if reply != Some(Reply::Notice(Notice::Skipped)) {
                return reply;
            }
        }
    }

    /// The next `back`'s bytes.
    async fn back(&mut self) -> Vec<u8> {
        match self.reply().await {
            Some(Reply::Back(bytes)) => bytes,
            other => panic!("expected `back`, got {other:?}"),
        }
    }
}

/// Types `bytes` on the client's keyboard.
fn type_keys(term: &mut RawPty, bytes: &[u8]) {
    term.keyboard.write_all(bytes).expect("type");
}

/// Reads the client's terminal as the client would once its keys are back: what it gets.
async fn read_own_keys(term: &RawPty, want: usize) -> Vec<u8> {
    let path = PathBuf::from(format!("/proc/self/fd/{}", term.slave.as_raw_fd()));
    let mut input = TtyInput::reopen(&path).expect("reopen");
    let mut got = Vec::new();
    while got.len() < want {
        let read = tokio::time::timeout(WAIT, input.read())
            .await
            .expect("keys in time")
            .expect("read");
        got.extend_from_slice(read);
    }
    got
}

#[tokio::test]
async fn plain_keys_go_to_the_pane_and_the_rest_comes_back_in_order() {
    let srv = TestServer::start().await;
    let pane = cat_pane(&srv).await;
    let mut term = common::raw_pty(80, 24);
    let mut client = grant(&srv, &pane.id, &term, true).await;
    client.lend("\x01").await;
    // Letters and a whole UTF-8 character.
    type_keys(&mut term, "aμb".as_bytes());
    until_screen(&srv, &pane.id, |s| s.contains("readyaμb")).await;
    // The server painted the echo into the client's terminal too.
    let mut painted = Vec::new();
    while !String::from_utf8_lossy(&painted).contains('b') {
        let chunk = tokio::time::timeout(WAIT, term.chunks.recv()).await;
        painted.extend(chunk.expect("a paint").expect("open"));
    }

    // An escape sequence: the plain key before it goes to the pane, the rest comes back.
    type_keys(&mut term, b"c\x1b[Ad");
    assert_eq!(client.back().await, b"\x1b[Ad");
    until_screen(&srv, &pane.id, |s| s.contains("readyaμbc")).await;
    // The server no longer reads: the next key is the client's.
    type_keys(&mut term, b"e");
    assert_eq!(read_own_keys(&term, 1).await, b"e");

    // A listed byte (the client's leader) comes back with everything after it.
    client.lend("\x01").await;
    type_keys(&mut term, b"x\x01y");
    assert_eq!(client.back().await, b"\x01y");
    let screen = until_screen(&srv, &pane.id, |s| s.contains("readyaμbcx")).await;
    assert!(!screen.contains("xy"), "{screen:?}");
}

#[tokio::test]
async fn release_and_stop_give_the_keys_back_and_nothing_more_is_read() {
    let srv = TestServer::start().await;
    let pane = cat_pane(&srv).await;
    let mut term = common::raw_pty(80, 24);
    let mut client = grant(&srv, &pane.id, &term, true).await;
    client.lend("").await;
    type_keys(&mut term, b"1");
    until_screen(&srv, &pane.id, |s| s.contains("ready1")).await;
    client.send(Request::Release).await;
    assert_eq!(client.back().await, b"");
    type_keys(&mut term, b"2");
    assert_eq!(read_own_keys(&term, 1).await, b"2");
    // A release with nothing lent has no answer; the grant goes on.
    client.send(Request::Release).await;

    // `stop` while reading: `back` first, then `stopped`.
    client.lend("").await;
    type_keys(&mut term, b"3");
    until_screen(&srv, &pane.id, |s| s.contains("ready13")).await;
    client.send(Request::Stop).await;
    assert_eq!(client.back().await, b"");
    assert_eq!(client.reply().await, Some(Reply::Notice(Notice::Stopped)));
    type_keys(&mut term, b"4");
    assert_eq!(read_own_keys(&term, 1).await, b"4");
}

#[tokio::test]
async fn keys_are_refused_without_the_terminal_s_input_and_kept_from_a_pane_that_wants_escapes() {
    let srv = TestServer::start().await;
    let pane = cat_pane(&srv).await;
    let mut term = common::raw_pty(80, 24);
    // No input descriptor: an empty `back` at once.
    let mut client = grant(&srv, &pane.id, &term, false).await;
    client.lend("").await;
    assert_eq!(client.back().await, b"");
    drop(client);

    // The program asks for every key as an escape code (cat prints the request, then the
    // marker: once the marker shows, the model has the flags): a plain key is handed back.
    srv.write_input(&pane.id, b"\x1b[>8u!").await.expect("push");
    until_screen(&srv, &pane.id, |s| s.contains("ready!")).await;
    let mut client = grant(&srv, &pane.id, &term, true).await;
    client.lend("").await;
    type_keys(&mut term, b"k");
    assert_eq!(client.back().await, b"k");
    srv.write_input(&pane.id, b".").await.expect("marker");
    let screen = until_screen(&srv, &pane.id, |s| s.contains("ready!.")).await;
    assert!(!screen.contains('k'), "{screen:?}");
}
