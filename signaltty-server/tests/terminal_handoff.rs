//! The terminal hand-off (`<socket>.tty`, `signaltty_tty::protocol`): a client gives the server
//! its terminal's descriptors and the server shows the pane on it. Driven here at the protocol
//! level with a real pseudo-terminal standing in for the person's terminal (its master side is
//! what the person sees and types into), so that refusals, the exit and read-only are checked
//! one by one; `signaltty-cli/tests/attach*.rs` drive the same path through the real CLI.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use std::io::Write;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::time::Instant;

use common::{TestServer, WAIT, spawn};
use signaltty_proto::v1 as pb;
use signaltty_tty::modes::RESET_MODES;
use signaltty_tty::protocol::{self, Conn, End, HandOff, Message, Reply, Request};
use tokio::sync::mpsc;

/// The person's terminal: the pty's master, read on a thread.
struct Terminal {
    slave: OwnedFd,
    keyboard: std::fs::File,
    seen: Vec<u8>,
    chunks: mpsc::UnboundedReceiver<Vec<u8>>,
}

impl Terminal {
    fn new() -> Terminal {
        // Raw, as the CLI leaves it before `go`: the line discipline neither echoes nor edits.
        let pty = common::raw_pty(80, 24);
        Terminal {
            slave: pty.slave,
            keyboard: pty.keyboard,
            seen: Vec::new(),
            chunks: pty.chunks,
        }
    }

    fn fds(&self) -> [BorrowedFd<'_>; 2] {
        [self.slave.as_fd(), self.slave.as_fd()]
    }

    fn type_keys(&mut self, keys: &[u8]) {
        self.keyboard.write_all(keys).expect("type");
    }

    /// Waits until the terminal has shown `needle` `times` times.
    async fn until(&mut self, needle: &[u8], times: usize) {
        let deadline = Instant::now() + WAIT;
        while self
            .seen
            .windows(needle.len())
            .filter(|w| *w == needle)
            .count()
            < times
        {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.chunks.recv()).await {
                Ok(Some(chunk)) => self.seen.extend_from_slice(&chunk),
                _ => panic!(
                    "timed out waiting for {:?} x{times}; the terminal got {:?}",
                    String::from_utf8_lossy(needle),
                    String::from_utf8_lossy(&self.seen)
                ),
            }
        }
    }
}

fn request(pane: &str) -> HandOff {
    HandOff {
        pane: pane.to_owned(),
        read_only: false,
        mark_seen: true,
        detach_key: 0x1c,
    }
}

fn line(request: HandOff) -> Vec<u8> {
    Request::HandOff(request).encode()
}

/// Sends `line` with `fds`; the server's first reply.
async fn offer(srv: &TestServer, line: &[u8], fds: &[BorrowedFd<'_>]) -> (Conn, Reply) {
    let mut conn = Conn::connect(&protocol::socket_path(srv.socket()))
        .await
        .expect("connect to the side socket");
    conn.send_bytes(line, fds).await.expect("send");
    let reply = tokio::time::timeout(WAIT, conn.recv::<Reply>())
        .await
        .expect("a reply in time")
        .expect("a known reply")
        .expect("a line");
    (conn, reply)
}

async fn end_of(conn: &mut Conn) -> End {
    match tokio::time::timeout(WAIT, conn.recv::<Reply>())
        .await
        .expect("the end in time")
    {
        Ok(Some(Reply::End(end))) => end,
        other => panic!("expected an end, got {other:?}"),
    }
}

async fn send(conn: &Conn, request: Request) {
    conn.send(&request, &[]).await.expect("send");
}

#[tokio::test]
async fn the_hand_off_socket_is_private_beside_the_socket() {
    let srv = TestServer::start().await;
    let path = protocol::socket_path(srv.socket());
    assert_eq!(path.parent(), srv.socket().parent());
    let mode = std::fs::metadata(&path)
        .expect("exists")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
}

#[tokio::test]
async fn bad_offers_are_refused_and_change_nothing() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("handoff").await;
    let pane = spawn(&srv, &ws.id, &["cat"]).await;
    let before = srv.pane(&pane.id).await;
    let term = Terminal::new();
    let (read_end, _write_end) = nix::unistd::pipe().expect("pipe");
    let cases: Vec<(Vec<u8>, Vec<BorrowedFd<'_>>, &str)> = vec![
        (line(request("pane_nope")), term.fds().to_vec(), "pane_nope"),
        (
            line(request("no spaces allowed")),
            term.fds().to_vec(),
            "not a pane id",
        ),
        (b"hello there\n".to_vec(), term.fds().to_vec(), "attach"),
        (line(request(&pane.id)), vec![term.slave.as_fd()], "two"),
        (
            line(request(&pane.id)),
            vec![read_end.as_fd(), read_end.as_fd()],
            "cannot open the terminal",
        ),
    ];
    for (line, fds, says) in cases {
        let (_conn, reply) = offer(&srv, &line, &fds).await;
        match reply {
            Reply::Refused(why) => assert!(why.contains(says), "{why:?} should say {says:?}"),
            other => panic!(
                "{:?} was not refused: {other:?}",
                String::from_utf8_lossy(&line)
            ),
        }
    }
    let after = srv.pane(&pane.id).await;
    assert_eq!((after.cols, after.rows), (before.cols, before.rows));
    assert_eq!(after.status, before.status);
}

#[tokio::test]
async fn a_handed_over_terminal_types_into_the_pane_and_detaches_with_modes_reset() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("handoff").await;
    // 100×30, so that joining with an 80×24 terminal visibly resizes it.
    let pane = common::spawn_sized(&srv, &ws.id, &["cat"], 100, 30).await;
    let mut term = Terminal::new();
    let (mut conn, reply) = offer(&srv, &line(request(&pane.id)), &term.fds()).await;
    assert_eq!(reply, Reply::Ready);
    send(&conn, Request::Go).await;
    term.type_keys(b"hello\r");
    // cat's terminal echoes, then cat prints the line again.
    term.until(b"hello", 2).await;
    let joined = srv.pane(&pane.id).await;
    assert_eq!(
        (joined.cols, joined.rows),
        (80, 24),
        "the terminal's size counts"
    );
    // Output switching the alternate screen on, then the detach key (what follows it is
    // never sent).
    term.type_keys(b"\x1b[?1049h\r");
    // (The pane's own echo shows ESC as `^[`; cat's copy is the real sequence.)
    term.until(b"\x1b[?1049h", 1).await;
    term.type_keys(b"\x1cnot-sent\r");
    assert_eq!(end_of(&mut conn).await, End::Detached);
    term.until(RESET_MODES, 1).await;
    term.until(b"\x1b[?1049l", 1).await;
    let text = srv
        .read(&pane.id, pb::ReadMode::Screen, 0, false)
        .await
        .join("\n");
    assert!(!text.contains("not-sent"), "{text}");
    let pane_now = srv.pane(&pane.id).await;
    assert_eq!(
        pane_now.status, joined.status,
        "detaching never stops the process"
    );
}

#[tokio::test]
async fn the_pane_exiting_ends_the_attach_after_its_last_output() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("handoff").await;
    let pane = spawn(
        &srv,
        &ws.id,
        &["sh", "-c", "read x; echo last-words; exit 7"],
    )
    .await;
    let mut term = Terminal::new();
    let (mut conn, reply) = offer(&srv, &line(request(&pane.id)), &term.fds()).await;
    assert_eq!(reply, Reply::Ready);
    send(&conn, Request::Go).await;
    term.type_keys(b"\r");
    assert_eq!(end_of(&mut conn).await, End::Exited(7));
    term.until(b"last-words", 1).await;
}

#[tokio::test]
async fn read_only_watches_without_typing_or_sizing_and_stop_ends_it() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("handoff").await;
    let pane = common::spawn_sized(&srv, &ws.id, &["cat"], 100, 30).await;
    let mut term = Terminal::new();
    let watch = HandOff {
        read_only: true,
        ..request(&pane.id)
    };
    let (mut conn, reply) = offer(&srv, &line(watch), &term.fds()).await;
    assert_eq!(reply, Reply::Ready);
    send(&conn, Request::Go).await;
    term.type_keys(b"typed-by-a-watcher\r");
    // Output from elsewhere still shows.
    let typist = common::attach(&srv, &pane.id, 100, 30, false).await.0;
    typist.input(b"from-the-typist\r").await;
    term.until(b"from-the-typist", 2).await;
    send(&conn, Request::Stop).await;
    assert_eq!(end_of(&mut conn).await, End::Detached);
    let text = srv
        .read(&pane.id, pb::ReadMode::Screen, 0, false)
        .await
        .join("\n");
    assert!(!text.contains("typed-by-a-watcher"), "{text}");
    let now = srv.pane(&pane.id).await;
    assert_eq!(
        (now.cols, now.rows),
        (100, 30),
        "a watcher's size does not count"
    );
    drop(typist);
}

// Multi-threaded: the test blocks on the child while the in-process server answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_with_another_uid_gets_no_answer() {
    if !nix::unistd::getuid().is_root() {
        eprintln!("skipped: needs root to connect as another uid");
        return;
    }
    let srv = TestServer::start().await;
    let path = protocol::socket_path(srv.socket());
    for p in [srv.dir.path(), srv.socket().parent().unwrap(), &path] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    // Connects, asks, and prints how many bytes the server answered with.
    let script = r#"
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(10)
try:
    s.sendall(b"attach 1 28 0 1 pane_x\n")
    print(len(s.recv(100)))
except (ConnectionResetError, BrokenPipeError):
    print(0)
"#;
    use std::os::unix::process::CommandExt;
    let out = std::process::Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(script)
        .arg(&path)
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0");
}

/// A gRPC call on a new connection: `Ok` within the cap, else the status it got.
async fn call_on_a_new_connection(srv: &TestServer) -> Result<(), tonic::Status> {
    let channel = signaltty_proto::connect(srv.socket())
        .await
        .expect("connect");
    pb::server_service_client::ServerServiceClient::new(channel)
        .get_status(pb::GetStatusRequest {})
        .await
        .map(|_| ())
}

#[tokio::test]
async fn a_handed_over_terminal_counts_against_max_connections() {
    use tonic_types::StatusExt as _;
    let srv = TestServer::start_with(|c| c.max_connections = 2).await;
    let ws = srv.workspace("handoff").await;
    let pane = spawn(&srv, &ws.id, &["cat"]).await;
    // The harness's channel is one connection; the hand-off is the second.
    let mut term = Terminal::new();
    let (mut conn, reply) = offer(&srv, &line(request(&pane.id)), &term.fds()).await;
    assert_eq!(reply, Reply::Ready);
    send(&conn, Request::Go).await;
    term.type_keys(b"counted\r");
    term.until(b"counted", 2).await;

    // A third connection, gRPC: past the cap, refused as always.
    let status = call_on_a_new_connection(&srv)
        .await
        .expect_err("the hand-off holds the second connection");
    assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status:?}");
    let reason = status
        .get_error_details()
        .error_info()
        .map(|i| i.reason.clone());
    assert_eq!(
        reason.as_deref(),
        Some("TOO_MANY_CONNECTIONS"),
        "{status:?}"
    );

    // A second hand-off is past the cap too: refused with the same reason, nothing shown.
    let other = Terminal::new();
    let (_other, reply) = offer(&srv, &line(request(&pane.id)), &other.fds()).await;
    match reply {
        Reply::Refused(why) => {
            assert!(why.contains("TOO_MANY_CONNECTIONS"), "{why}");
            assert!(why.contains("close idle clients"), "{why}");
        }
        other => panic!("a hand-off past the cap was not refused: {other:?}"),
    }

    // Once the hand-off ends its connection no longer counts (the refused ones close too).
    send(&conn, Request::Stop).await;
    assert_eq!(end_of(&mut conn).await, End::Detached);
    drop(conn);
    let deadline = Instant::now() + WAIT;
    loop {
        match call_on_a_new_connection(&srv).await {
            Ok(()) => break,
            Err(status) if Instant::now() < deadline => {
                assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status:?}");
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            Err(status) => panic!("no room after the hand-off ended: {status:?}"),
        }
    }
}
