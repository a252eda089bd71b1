//! The socket's security and single-server rules, with the real server binary where a second
//! process is needed.

mod clients;
mod common;

use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

use common::TestServer;
use signaltty_proto::v1 as pb;

fn server_bin() -> &'static str {
    env!("CARGO_BIN_EXE_signaltty-server")
}

#[tokio::test]
async fn socket_dir_is_0700_and_socket_0600() {
    let srv = TestServer::start().await;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(srv.socket().parent().unwrap()), 0o700);
    assert_eq!(mode(srv.socket()), 0o600);
    assert_eq!(mode(&srv.dir_path().join("state")), 0o700);
}

#[tokio::test]
async fn a_second_server_on_the_same_socket_exits_non_zero_with_a_clear_message() {
    let srv = TestServer::start().await;
    let out = Command::new(server_bin())
        .arg("--socket")
        .arg(srv.socket())
        .arg("--state-dir")
        .arg(srv.dir_path().join("state2"))
        .arg("--log-file")
        .arg(srv.dir_path().join("second.log"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("already running"), "{stderr}");
    // The first server still answers.
    srv.server()
        .get_status(pb::GetStatusRequest {})
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_socket_file_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).unwrap();
    let socket = run.join("s.sock");
    // A socket file nobody listens on, as a crashed server leaves behind.
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    assert!(socket.exists());
    let mut child = Command::new(server_bin())
        .arg("--socket")
        .arg(&socket)
        .arg("--state-dir")
        .arg(dir.path().join("state"))
        .arg("--log-file")
        .arg(dir.path().join("log"))
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let channel = clients::wait_for_server(&socket, common::WAIT).await;
    signaltty_proto::v1::server_service_client::ServerServiceClient::new(channel)
        .shutdown(pb::ShutdownRequest { force: true })
        .await
        .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success());
    assert!(!socket.exists());
}

#[tokio::test]
async fn an_existing_shared_directory_is_refused_not_chmodded() {
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = Command::new(server_bin())
        .arg("--socket")
        .arg(shared.join("s.sock"))
        .arg("--state-dir")
        .arg(dir.path().join("state"))
        .arg("--log-file")
        .arg(dir.path().join("log"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("must be private"));
    assert_eq!(
        std::fs::metadata(&shared).unwrap().permissions().mode() & 0o777,
        0o777
    );
}

/// A peer of another uid is refused even when the permissions were loosened by hand. Needs root
/// to run the peer as `nobody`; elsewhere it checks nothing and says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_with_another_uid_is_refused() {
    if !nix::unistd::getuid().is_root() {
        eprintln!("skipped: needs root to connect as another uid");
        return;
    }
    let srv = TestServer::start().await;
    let dir = srv.socket().parent().unwrap();
    for p in [srv.dir.path(), dir, srv.socket()] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    // Connects, sends the HTTP/2 preface, and prints how many bytes the server answered with.
    let script = r#"
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(10)
try:
    s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0,0,0,4,0,0,0,0,0]))
    print(len(s.recv(100)))
except (ConnectionResetError, BrokenPipeError):
    print(0)
"#;
    use std::os::unix::process::CommandExt;
    let out = Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(script)
        .arg(srv.socket())
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "0",
        "the server answered a foreign uid"
    );
    // Our own uid still gets answers.
    srv.server()
        .get_status(pb::GetStatusRequest {})
        .await
        .unwrap();
}
