//! Descriptor exhaustion (issue 14 §3), with the real server binary started under a low
//! RLIMIT_NOFILE: while `accept` fails with EMFILE the server backs off and logs rate-limited
//! (it logged on every retry: 766k lines in 3 s), and it serves again once descriptors free up.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod server_process;

use std::time::Duration;

use server_process::Root;
use signaltty_proto::v1 as pb;

fn accept_failures(log: &str) -> usize {
    log.lines().filter(|l| l.contains("accept failed")).count()
}

#[tokio::test]
async fn accept_backs_off_and_logs_rate_limited_when_descriptors_run_out() {
    let root = Root::new();
    let srv = root.start_with_fd_limit(48).await;
    let status = srv.status().await;
    assert_eq!(status.fd_limit, 48, "the hard limit caps the raise");
    assert_eq!(
        status.panes_that_fit, 0,
        "48 descriptors leave no room for panes"
    );

    // Far more connections than descriptors: the server accepts until EMFILE, the rest wait in
    // the listen backlog and every accept retry fails.
    let held: Vec<_> = (0..80)
        .map(|_| std::os::unix::net::UnixStream::connect(root.socket()).unwrap())
        .collect();
    // The measurement window: how much the server logs while it cannot accept.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let log = std::fs::read_to_string(root.log()).unwrap();
    let failures = accept_failures(&log);
    assert!(failures >= 1, "the exhaustion is logged: {log}");
    assert!(failures <= 2, "{failures} lines in 3 s: not rate-limited");
    eprintln!("accept-failure log lines in 3 s of EMFILE: {failures}");

    // Descriptors come back: the server accepts and answers again.
    drop(held);
    let channel = clients::wait_for_server(&root.socket(), server_process::WAIT).await;
    pb::server_service_client::ServerServiceClient::new(channel)
        .get_status(pb::GetStatusRequest {})
        .await
        .expect("serving again");
    srv.kill();
}
