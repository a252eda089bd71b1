//! Direct input (`input 1 <pane>` on `<socket>.tty`, `signaltty_tty::protocol`): a client that
//! may type into a live pane is given the pane's PTY master and types into it without the
//! server; everyone else is refused with the reason. A real server, real panes, and for the
//! placement rule a real process inside a pane asking.
//!
//! The placement case runs `/usr/bin/python3` in a pane (as `terminal_handoff.rs` does for
//! another uid): it speaks the one-line protocol over the socket.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{TestServer, WAIT, attach, spawn};
use signaltty_proto::v1 as pb;
use signaltty_tty::output::TtyOutput;
use signaltty_tty::protocol::{self, Conn, Reply, Request};

async fn connect(srv: &TestServer) -> Conn {
    Conn::connect(&protocol::socket_path(srv.socket()))
        .await
        .expect("connect to the side socket")
}

/// Asks `srv` for `pane`'s input.
async fn ask(srv: &TestServer, pane: &str) -> Result<TtyOutput, String> {
    let request = Request::Input {
        pane: pane.to_owned(),
    };
    let fds = connect(srv).await.ask(&request, &[], WAIT).await?;
    let [fd]: [_; 1] = fds
        .try_into()
        .map_err(|_| "not one descriptor".to_string())?;
    TtyOutput::shared_nonblocking(fd).map_err(|e| e.to_string())
}

/// Sends a raw request line; the server's reply.
async fn reply_to(srv: &TestServer, line: &[u8]) -> Reply {
    let mut conn = connect(srv).await;
    conn.send_bytes(line, &[]).await.expect("send");
    tokio::time::timeout(WAIT, conn.recv::<Reply>())
        .await
        .expect("a reply in time")
        .expect("a known reply")
        .expect("a line")
}

fn refused_saying(reply: Result<TtyOutput, String>, says: &str) {
    match reply {
        Err(why) => assert!(why.contains(says), "{why:?} should say {says:?}"),
        Ok(_) => panic!("not refused (expected {says:?})"),
    }
}

#[tokio::test]
async fn typed_bytes_written_to_the_descriptor_reach_the_program() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("direct").await;
    let pane = spawn(&srv, &ws.id, &["cat"]).await;
    // The output still comes over gRPC, as in the TUI.
    let (mut attached, _) = attach(&srv, &pane.id, 80, 24, false).await;
    let mut input = ask(&srv, &pane.id).await.expect("the pane's input");
    input.push(b"typed-directly\r").expect("write");
    assert_eq!(input.pending(), 0, "a keystroke goes straight through");
    // The terminal's echo, then cat's copy.
    attached
        .until_output("typed-directly\r\ntyped-directly")
        .await;
    // Typing over gRPC after it stays in order behind it.
    attached.input(b"then-over-grpc\r").await;
    attached
        .until_output("then-over-grpc\r\nthen-over-grpc")
        .await;
    let screen = srv
        .read(&pane.id, pb::ReadMode::Screen, 0, false)
        .await
        .join("\n");
    let first = screen.find("typed-directly").expect("on the screen");
    let second = screen.find("then-over-grpc").expect("on the screen");
    assert!(first < second, "{screen}");
}

#[tokio::test]
async fn the_descriptor_is_a_close_on_exec_non_blocking_terminal() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("direct").await;
    let pane = spawn(&srv, &ws.id, &["cat"]).await;
    let mut conn = connect(&srv).await;
    let request = Request::Input {
        pane: pane.id.clone(),
    };
    conn.send(&request, &[]).await.expect("send");
    let (reply, fds) = tokio::time::timeout(WAIT, conn.recv_with_fds::<Reply>())
        .await
        .expect("in time")
        .expect("recv")
        .expect("a reply");
    assert_eq!(reply, Reply::Ready);
    assert_eq!(fds.len(), 1);
    let fd = fds[0].as_raw_fd();
    let fd_flags = nix::fcntl::fcntl(&fds[0], nix::fcntl::FcntlArg::F_GETFD).expect("getfd");
    assert_ne!(fd_flags & libc::FD_CLOEXEC, 0, "fd {fd} is close-on-exec");
    let fl = nix::fcntl::fcntl(&fds[0], nix::fcntl::FcntlArg::F_GETFL).expect("getfl");
    assert_ne!(
        fl & libc::O_NONBLOCK,
        0,
        "the server's description is non-blocking"
    );
    assert!(nix::unistd::isatty(&fds[0]).expect("isatty"), "a terminal");
}

#[tokio::test]
async fn bad_requests_unknown_restored_and_exited_panes_are_refused() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("direct").await;
    let live = spawn(&srv, &ws.id, &["cat"]).await;
    let done = spawn(&srv, &ws.id, &["sh", "-c", "exit 3"]).await;
    let mut events = srv
        .events()
        .subscribe(pb::SubscribeRequest {
            from_seq: Some(0),
            kinds: vec![pb::EventKind::Pane as i32],
        })
        .await
        .expect("Subscribe")
        .into_inner();
    assert_eq!(common::until_exited(&mut events, &done.id).await, 3);

    refused_saying(ask(&srv, "pane_nope").await, "pane_nope");
    refused_saying(ask(&srv, "not-a-pane").await, "not a pane id");
    refused_saying(ask(&srv, &done.id).await, "exited");
    match reply_to(&srv, format!("input 2 {}\n", live.id).as_bytes()).await {
        Reply::Refused(why) => assert!(why.contains("version"), "{why}"),
        other => panic!("a bad version was not refused: {other:?}"),
    }

    // The snapshot is loaded before the restarted server answers: the pane is restored now.
    let srv = srv.restart().await;
    assert_eq!(
        srv.pane(&live.id).await.status,
        pb::PaneStatus::Restored as i32,
        "a live pane comes back restored after a restart"
    );
    let refused = ask(&srv, &live.id).await;
    assert!(
        refused.is_err(),
        "a restored pane has no terminal to type into"
    );
    assert_eq!(
        srv.pane(&live.id).await.status,
        pb::PaneStatus::Restored as i32,
        "asking changed nothing"
    );
}

/// What a process inside a pane is told when it asks for `target`'s input (the reply line).
fn asking_script(socket: &Path, target: &str, result: &Path) -> String {
    format!(
        "/usr/bin/python3 -c '\
import socket
s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(\"{sock}\")
s.sendall(b\"input 1 {target}\\n\")
msg, anc, flags, addr = s.recvmsg(4096, 64)
open(\"{out}.tmp\", \"w\").write(msg.decode() + \"fds=%d\\n\" % len(anc))
' ; mv {out}.tmp {out}; exec sleep 600",
        sock = protocol::socket_path(socket).display(),
        out = result.display(),
    )
}

async fn file_when_written(path: &Path) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Ok(text) = std::fs::read_to_string(path) {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "{} never written",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_program_in_a_pane_gets_the_input_of_its_own_workspace_only() {
    if !Path::new("/usr/bin/python3").exists() {
        eprintln!("skipped: needs /usr/bin/python3 to speak the protocol from inside a pane");
        return;
    }
    let srv = TestServer::start().await;
    let mine = srv.workspace("mine").await;
    let other = srv.workspace("other").await;
    let neighbour = spawn(&srv, &mine.id, &["sh", "-c", "exec sleep 600"]).await;
    let stranger = spawn(&srv, &other.id, &["sh", "-c", "exec sleep 600"]).await;
    let dir = srv.dir_path();
    let to_stranger = dir.join("to-stranger");
    let to_neighbour = dir.join("to-neighbour");
    for (target, result) in [(&stranger.id, &to_stranger), (&neighbour.id, &to_neighbour)] {
        let script = asking_script(srv.socket(), target, result);
        spawn(&srv, &mine.id, &["sh", "-c", &script]).await;
    }
    let refused = file_when_written(&to_stranger).await;
    assert!(
        refused.starts_with("refused ") && refused.contains("another workspace"),
        "{refused}"
    );
    assert!(
        refused.contains("fds=0"),
        "no descriptor with a refusal: {refused}"
    );
    let granted = file_when_written(&to_neighbour).await;
    assert!(
        granted.starts_with("ready\n") && granted.contains("fds=1"),
        "{granted}"
    );
}
