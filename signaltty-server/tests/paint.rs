//! Server paint (`paint 1 …` on `<socket>.tty`, `signaltty_tty::protocol`): a client that shows a
//! pane inside its own screen hands the server its terminal and the pane's rectangle on it; the
//! server writes each echo there itself. A real server and real panes; a real pseudo-terminal
//! stands in for the client's terminal (what is read from its master is what the person sees).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::{Duration, Instant};

use common::{TestServer, WAIT, spawn_sized, until_screen};
use signaltty_proto::v1 as pb;
use signaltty_term::Screen;
use signaltty_tty::protocol::{self, Conn, Message, Notice, Rect, Reply, Request};
use tokio::net::UnixStream;
use tokio::sync::mpsc;

/// The pane's size, and where the client draws it.
const COLS: u16 = 20;
const ROWS: u16 = 6;
const RECT: Rect = Rect {
    col: 7,
    row: 3,
    cols: COLS,
    rows: ROWS,
};
/// The client's whole terminal.
const OUTER: (u16, u16) = (80, 24);

/// The client's terminal: a raw pty whose master is read on a thread.
struct Terminal {
    slave: OwnedFd,
    chunks: mpsc::UnboundedReceiver<Vec<u8>>,
}

impl Terminal {
    fn new() -> Terminal {
        let pty = common::raw_pty(OUTER.0, OUTER.1);
        Terminal {
            slave: pty.slave,
            chunks: pty.chunks,
        }
    }

    /// Reads until a whole paint (`ESC 7 … ESC 8`) arrived; returns everything read.
    async fn paint(&mut self) -> Vec<u8> {
        self.paint_within(WAIT)
            .await
            .expect("a paint on the terminal in time")
    }

    async fn paint_within(&mut self, wait: Duration) -> Option<Vec<u8>> {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        while !seen.ends_with(b"\x1b8") {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.chunks.recv()).await {
                Ok(Some(chunk)) => seen.extend_from_slice(&chunk),
                _ if seen.is_empty() => return None,
                _ => panic!("a paint cut short: {:?}", String::from_utf8_lossy(&seen)),
            }
        }
        Some(seen)
    }

    /// Nothing was written to the terminal (what is written lands before the model shows it:
    /// the server paints under the model's lock; the reader thread gets a moment to catch up).
    async fn nothing_written(&mut self) {
        tokio::time::sleep(Duration::from_millis(300)).await;
        if let Ok(chunk) = self.chunks.try_recv() {
            panic!(
                "the terminal was written: {:?}",
                String::from_utf8_lossy(&chunk)
            );
        }
    }
}

async fn cat_pane(srv: &TestServer) -> pb::Pane {
    common::raw_cat(srv, "paint", COLS, ROWS).await
}

async fn type_into(srv: &TestServer, pane: &str, bytes: &[u8]) {
    srv.write_input(pane, bytes).await.expect("WriteInput");
}

/// A grant for `pane` at `rect` on `term`.
async fn grant(srv: &TestServer, pane: &str, rect: Rect, term: &Terminal) -> Conn {
    grant_on(srv, pane, rect, term.slave.as_fd()).await
}

async fn grant_on(srv: &TestServer, pane: &str, rect: Rect, tty: BorrowedFd<'_>) -> Conn {
    let mut conn = Conn::connect(&protocol::socket_path(srv.socket()))
        .await
        .expect("connect to the side socket");
    let request = Request::Paint {
        pane: pane.to_owned(),
        rect,
    };
    conn.ask(&request, &[tty], WAIT).await.expect("granted");
    conn
}

async fn next_reply(conn: &mut Conn) -> Option<Reply> {
    tokio::time::timeout(WAIT, conn.recv::<Reply>())
        .await
        .expect("a line in time")
        .expect("a known reply")
}

async fn notice(conn: &mut Conn) -> Notice {
    match next_reply(conn).await {
        Some(Reply::Notice(notice)) => notice,
        other => panic!("expected a notice, got {other:?}"),
    }
}

async fn send(conn: &Conn, request: Request) {
    conn.send(&request, &[]).await.expect("send");
}

fn paint_line(pane: &str, rect: Rect) -> Vec<u8> {
    Request::Paint {
        pane: pane.to_owned(),
        rect,
    }
    .encode()
}

/// `paint` fed to a blank terminal of the client's size.
fn shown(paint: &[u8]) -> Screen {
    let mut outer = Screen::new(OUTER.0, OUTER.1);
    outer.feed(paint);
    outer
}

#[tokio::test]
async fn an_echo_is_painted_at_its_cell_in_the_rectangle_and_nothing_else() {
    let srv = TestServer::start().await;
    let pane = cat_pane(&srv).await;
    let mut term = Terminal::new();
    let _conn = grant(&srv, &pane.id, RECT, &term).await;
    type_into(&srv, &pane.id, b"x").await;
    let paint = term.paint().await;
    // "ready" fills columns 0–4 of row 0: the x is at (0, 5) of the pane.
    assert_eq!(
        paint,
        b"\x1b7\x1b[4;13H\x1b[0mx\x1b[m\x1b8",
        "{:?}",
        String::from_utf8_lossy(&paint)
    );
    let outer = shown(&paint);
    assert_eq!(outer.view().cell_text(RECT.row, RECT.col + 5), "x");
    assert_eq!(
        outer.view().cursor(),
        (0, 0),
        "the client's cursor is restored"
    );
    until_screen(&srv, &pane.id, |s| s.starts_with("readyx")).await;

    // Colours and a second row, each a span of its own.
    type_into(&srv, &pane.id, b"\x1b[1;32mg\x1b[m\r\nh").await;
    // One paint, or two if cat's output came in two reads.
    let mut paints = term.paint().await;
    while shown(&paints).view().cell_text(RECT.row + 1, RECT.col) != "h" {
        paints.extend(term.paint().await);
    }
    let outer = shown(&paints);
    let green = outer.view().cell(RECT.row, RECT.col + 6).expect("cell");
    assert_eq!(green.ch(), 'g');
    assert!(green.style().has(signaltty_term::vt::Attr::Bold));
    assert_eq!(outer.view().cell_text(RECT.row + 1, RECT.col), "h");
    assert_eq!(
        outer.view().cell_text(RECT.row, RECT.col),
        " ",
        "cells that did not change are not written"
    );
}

#[tokio::test]
async fn many_changed_rows_are_skipped_until_the_client_resumes() {
    let srv = TestServer::start().await;
    let pane = cat_pane(&srv).await;
    type_into(&srv, &pane.id, b"\r\nb\r\nc\r\nd\r\ne\r\nf").await;
    until_screen(&srv, &pane.id, |s| s.ends_with('f')).await;
    let mut term = Terminal::new();
    let mut conn = grant(&srv, &pane.id, RECT, &term).await;
    // A clear changes all six rows: not painted, the client is told.
    type_into(&srv, &pane.id, b"\x1b[H\x1b[2J").await;
    assert_eq!(notice(&mut conn).await, Notice::Skipped);
    // Paused: an echo is not painted either.
    type_into(&srv, &pane.id, b"y").await;
    until_screen(&srv, &pane.id, |s| s.starts_with('y')).await;
    term.nothing_written().await;

    send(&conn, Request::Resume).await;
    // `resume` has no answer: type until a letter is painted (the first may race it).
    let mut painted = None;
    for letter in b'k'..=b'z' {
        type_into(&srv, &pane.id, &[letter]).await;
        if let Some(paint) = term.paint_within(Duration::from_secs(1)).await {
            painted = Some((letter, paint));
            break;
        }
    }
    let (letter, paint) = painted.expect("painting resumed");
    let screen = until_screen(&srv, &pane.id, |s| s.contains(char::from(letter))).await;
    let col = screen.find(char::from(letter)).expect("on the screen");
    let outer = shown(&paint);
    assert_eq!(
        outer.view().cell_text(RECT.row, RECT.col + col as u16),
        char::from(letter).to_string()
    );
}

#[tokio::test]
async fn stop_and_hanging_up_end_the_grant() {
    let srv = TestServer::start().await;
    let pane = cat_pane(&srv).await;
    let mut term = Terminal::new();
    let mut conn = grant(&srv, &pane.id, RECT, &term).await;
    type_into(&srv, &pane.id, b"1").await;
    term.paint().await;
    send(&conn, Request::Stop).await;
    assert_eq!(notice(&mut conn).await, Notice::Stopped);
    assert_eq!(next_reply(&mut conn).await, None, "then closed");
    type_into(&srv, &pane.id, b"2").await;
    until_screen(&srv, &pane.id, |s| s.contains("12")).await;
    term.nothing_written().await;

    // Hanging up (our write side shut): the server ends the grant and closes.
    let conn = grant(&srv, &pane.id, RECT, &term).await;
    type_into(&srv, &pane.id, b"3").await;
    term.paint().await;
    let std_stream = conn.into_stream().into_std().expect("std");
    std_stream
        .shutdown(std::net::Shutdown::Write)
        .expect("shutdown");
    let mut conn = Conn::new(UnixStream::from_std(std_stream).expect("tokio"));
    assert_eq!(next_reply(&mut conn).await, None, "closed");
    type_into(&srv, &pane.id, b"4").await;
    until_screen(&srv, &pane.id, |s| s.contains("1234")).await;
    term.nothing_written().await;
}

#[tokio::test]
async fn the_pane_exiting_closes_the_grant() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("paint").await;
    let pane = spawn_sized(
        &srv,
        &ws.id,
        &["sh", "-c", "printf ready; read x; exit 0"],
        COLS.into(),
        ROWS.into(),
    )
    .await;
    until_screen(&srv, &pane.id, |s| s.contains("ready")).await;
    let term = Terminal::new();
    let mut conn = grant(&srv, &pane.id, RECT, &term).await;
    type_into(&srv, &pane.id, b"\r").await;
    // Skips may come first (the newline scrolls nothing here, but a shell may redraw).
    loop {
        match next_reply(&mut conn).await {
            None => break,
            Some(reply) => assert_eq!(reply, Reply::Notice(Notice::Skipped)),
        }
    }
}

/// Sends `line` with `fds`; the reply.
async fn reply_to(srv: &TestServer, line: &[u8], fds: &[BorrowedFd<'_>]) -> Reply {
    let mut conn = Conn::connect(&protocol::socket_path(srv.socket()))
        .await
        .expect("connect");
    conn.send_bytes(line, fds).await.expect("send");
    next_reply(&mut conn).await.expect("a reply")
}

#[tokio::test]
async fn bad_requests_are_refused_with_the_reason() {
    let srv = TestServer::start().await;
    let pane = cat_pane(&srv).await;
    let mut term = Terminal::new();
    let tty = term.slave.as_fd();
    let (pipe_read, _pipe_write) = nix::unistd::pipe().expect("pipe");
    let request = paint_line;
    let cases: Vec<(Vec<u8>, Vec<BorrowedFd<'_>>, &str)> = vec![
        (request("pane_nope", RECT), vec![tty], "pane_nope"),
        (request("not-a-pane", RECT), vec![tty], "not a pane id"),
        (b"paint 1 x 1 2\n".to_vec(), vec![tty], "expected"),
        (request(&pane.id, RECT), vec![], "descriptor"),
        (request(&pane.id, RECT), vec![tty, tty, tty], "descriptor"),
        (
            request(&pane.id, RECT),
            vec![pipe_read.as_fd()],
            "not a terminal",
        ),
        (
            request(&pane.id, RECT),
            vec![tty, pipe_read.as_fd()],
            "not a terminal",
        ),
        (
            request(&pane.id, Rect { cols: 0, ..RECT }),
            vec![tty],
            "1×1",
        ),
    ];
    for (line, fds, says) in cases {
        match reply_to(&srv, &line, &fds).await {
            Reply::Refused(why) => assert!(why.contains(says), "{why:?} should say {says:?}"),
            other => panic!(
                "{:?} was not refused: {other:?}",
                String::from_utf8_lossy(&line)
            ),
        }
    }
    // Nothing was painted by a refused request.
    type_into(&srv, &pane.id, b"z").await;
    until_screen(&srv, &pane.id, |s| s.contains("readyz")).await;
    term.nothing_written().await;

    let id = pane.id.clone();
    let srv = srv.restart().await;
    let deadline = Instant::now() + WAIT;
    while srv.pane(&id).await.status != pb::PaneStatus::Restored as i32 {
        assert!(Instant::now() < deadline, "never restored");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    match reply_to(&srv, &request(&id, RECT), &[term.slave.as_fd()]).await {
        Reply::Refused(_) => {}
        other => panic!("a restored pane was granted: {other:?}"),
    }
}

#[tokio::test]
async fn a_grant_counts_against_max_connections() {
    let srv = TestServer::start_with(|c| c.max_connections = 2).await;
    let pane = cat_pane(&srv).await;
    let term = Terminal::new();
    // The harness's channel is one connection; the grant is the second.
    let mut conn = grant(&srv, &pane.id, RECT, &term).await;
    let tty = term.slave.as_fd();
    match reply_to(&srv, &paint_line(&pane.id, RECT), &[tty]).await {
        Reply::Refused(why) => assert!(why.contains("TOO_MANY_CONNECTIONS"), "{why}"),
        other => panic!("a grant past the cap was not refused: {other:?}"),
    }
    send(&conn, Request::Stop).await;
    assert_eq!(notice(&mut conn).await, Notice::Stopped);
    // Once it ended its slot is free again (released just after the connection closes).
    let deadline = Instant::now() + WAIT;
    loop {
        match reply_to(&srv, &paint_line(&pane.id, RECT), &[tty]).await {
            Reply::Ready => break,
            other => assert!(Instant::now() < deadline, "never granted again: {other:?}"),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_terminal_that_takes_part_of_a_paint_ends_the_grant_damaged() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("paint").await;
    let wide = Rect { cols: 200, ..RECT };
    let pane = spawn_sized(
        &srv,
        &ws.id,
        &["sh", "-c", "stty raw -echo; printf ready; exec cat"],
        200,
        ROWS.into(),
    )
    .await;
    until_screen(&srv, &pane.id, |s| s.contains("ready")).await;
    // A terminal nobody reads: its buffer fills, and a paint finally fits only in part. Raw,
    // as a TUI's terminal is: with output processing on, Linux takes a write whole or not at
    // all (`EAGAIN`, a skip), without it the last write is cut.
    let pty = nix::pty::openpty(None, None).expect("openpty");
    let mut t = nix::sys::termios::tcgetattr(&pty.slave).expect("tcgetattr");
    nix::sys::termios::cfmakeraw(&mut t);
    nix::sys::termios::tcsetattr(&pty.slave, nix::sys::termios::SetArg::TCSANOW, &t).expect("raw");
    let mut conn = grant_on(&srv, &pane.id, wide, pty.slave.as_fd()).await;
    let deadline = Instant::now() + WAIT;
    for letter in (b'a'..=b'z').cycle() {
        assert!(
            Instant::now() < deadline,
            "the paints never filled the terminal"
        );
        // Four rows of 200 letters each time: every paint is ~800 bytes.
        let row = vec![letter; 200];
        let screen = [
            &b"\x1b[H"[..],
            &row,
            b"\r\n",
            &row,
            b"\r\n",
            &row,
            b"\r\n",
            &row,
        ]
        .concat();
        type_into(&srv, &pane.id, &screen).await;
        match tokio::time::timeout(Duration::from_millis(50), conn.recv::<Reply>()).await {
            Err(_elapsed) => {}
            Ok(reply) => match reply.expect("a known reply") {
                // A paint that found the terminal full (nothing written): resume and go on.
                Some(Reply::Notice(Notice::Skipped)) => send(&conn, Request::Resume).await,
                Some(Reply::Notice(Notice::Damaged)) => break,
                other => panic!("unexpected {other:?}"),
            },
        }
    }
    assert_eq!(next_reply(&mut conn).await, None, "then closed");
    drop(pty);
}

/// While the pane is painted, an attach stream carries its output late (the screen shows it
/// already) but whole and in order, and what is held goes out at once when the painting ends
/// or pauses — not when the delay runs out (an hour here).
#[tokio::test]
async fn output_held_while_painted_goes_out_whole_when_painting_ends_or_pauses() {
    let srv = TestServer::start_with(|c| c.painted_output_delay = Duration::from_secs(3600)).await;
    let pane = cat_pane(&srv).await;
    let (mut attached, _) = common::attach(&srv, &pane.id, COLS.into(), ROWS.into(), false).await;
    let mut term = Terminal::new();
    let mut conn = grant(&srv, &pane.id, RECT, &term).await;
    type_into(&srv, &pane.id, b"a").await;
    term.paint().await;
    type_into(&srv, &pane.id, b"b").await;
    term.paint().await;
    let early = tokio::time::timeout(Duration::from_millis(300), attached.rx.message()).await;
    assert!(early.is_err(), "held while painted, got {early:?}");
    send(&conn, Request::Stop).await;
    assert_eq!(notice(&mut conn).await, Notice::Stopped);
    attached.until_output("ab").await;

    // A change too big to paint pauses the grant: held output goes too.
    let mut conn = grant(&srv, &pane.id, RECT, &term).await;
    type_into(&srv, &pane.id, b"c").await;
    term.paint().await;
    type_into(&srv, &pane.id, b"\r\nd\r\ne\r\nf\r\ng\r\nh").await;
    assert_eq!(notice(&mut conn).await, Notice::Skipped);
    attached.until_output("c\r\nd\r\ne\r\nf\r\ng\r\nh").await;
}
