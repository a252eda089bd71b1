//! Test harness: a real in-process server on a temp-dir Unix socket, reached through real gRPC
//! clients over that socket.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use signaltty_proto::v1 as pb;
use signaltty_proto::v1::{
    event_service_client::EventServiceClient, pane_service_client::PaneServiceClient,
    server_service_client::ServerServiceClient, tab_service_client::TabServiceClient,
    workspace_service_client::WorkspaceServiceClient,
};
use signaltty_server::config::Config;
use signaltty_server::daemon::Daemon;
use tonic::transport::Channel;

/// Upper bound for any single wait in tests: generous, because CI machines are shared and slow.
pub const WAIT: Duration = Duration::from_secs(20);

pub struct TestServer {
    pub dir: tempfile::TempDir,
    pub daemon: Daemon,
    pub channel: Channel,
}

impl TestServer {
    pub async fn start() -> TestServer {
        Self::start_with(|_| {}).await
    }

    pub async fn start_with(tune: impl FnOnce(&mut Config)) -> TestServer {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut config = Config::new(dir.path().join("run/s.sock"), dir.path().join("state"));
        tune(&mut config);
        let daemon = Daemon::start(config).await.expect("daemon starts");
        let channel = signaltty_proto::connect(daemon.socket())
            .await
            .expect("connect");
        TestServer {
            dir,
            daemon,
            channel,
        }
    }

    pub fn socket(&self) -> &Path {
        self.daemon.socket()
    }

    pub fn server(&self) -> ServerServiceClient<Channel> {
        ServerServiceClient::new(self.channel.clone())
    }
    pub fn workspaces(&self) -> WorkspaceServiceClient<Channel> {
        WorkspaceServiceClient::new(self.channel.clone())
    }
    pub fn tabs(&self) -> TabServiceClient<Channel> {
        TabServiceClient::new(self.channel.clone())
    }
    pub fn panes(&self) -> PaneServiceClient<Channel> {
        PaneServiceClient::new(self.channel.clone())
    }
    pub fn events(&self) -> EventServiceClient<Channel> {
        EventServiceClient::new(self.channel.clone())
    }

    /// A workspace on a fresh temp directory.
    pub async fn workspace(&self, name: &str) -> pb::Workspace {
        let cwd = self.dir.path().join(format!("ws-{}", uuid_like()));
        std::fs::create_dir_all(&cwd).unwrap();
        self.workspaces()
            .create_workspace(pb::CreateWorkspaceRequest {
                name: name.into(),
                cwd: cwd.display().to_string(),
                settings: None,
            })
            .await
            .expect("create workspace")
            .into_inner()
            .workspace
            .expect("workspace")
    }

    pub fn dir_path(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// Asserts a failed call has this code and ErrorInfo reason.
pub fn assert_error<T: std::fmt::Debug>(
    result: Result<T, tonic::Status>,
    code: tonic::Code,
    reason: &str,
) {
    let status = result.expect_err("call should fail");
    assert_eq!(status.code(), code, "status: {status:?}");
    assert_eq!(
        signaltty_proto::error_reason(&status).as_deref(),
        Some(reason),
        "status: {status:?}"
    );
    assert!(!status.message().is_empty());
}

/// Next message of a stream, failing the test after [`WAIT`].
pub async fn next<T>(stream: &mut tonic::Streaming<T>) -> T {
    tokio::time::timeout(WAIT, stream.message())
        .await
        .expect("stream message in time")
        .expect("stream ok")
        .expect("stream not ended")
}
