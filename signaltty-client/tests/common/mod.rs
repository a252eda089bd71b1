//! Harness for the client crate's integration tests: the real `signaltty-server` binary on a
//! socket in a private temp dir. Build the server first (`cargo build -p signaltty-server`) or
//! point `SIGNALTTY_SERVER_BIN` at one.

#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use signaltty_client::{AutoStart, Client, Target};
use signaltty_proto::v1 as pb;
use tempfile::TempDir;

/// Longest any single step may take on a loaded machine.
pub const STEP: Duration = Duration::from_secs(60);

/// The `signaltty-server` binary: `$SIGNALTTY_SERVER_BIN`, else the one in this target dir.
pub fn server_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("SIGNALTTY_SERVER_BIN").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    // This test runs as target/<profile>/deps/<name>-<hash>; the server is in target/<profile>.
    let exe = std::env::current_exe().expect("current exe");
    let candidate = exe
        .parent()
        .and_then(Path::parent)
        .map(|dir| dir.join("signaltty-server"))
        .expect("target dir");
    assert!(
        candidate.is_file(),
        "{} not found; build it first with `cargo build -p signaltty-server` or set \
         SIGNALTTY_SERVER_BIN",
        candidate.display()
    );
    candidate
}

/// A private directory (0700) with a socket path and a state dir in it. Dropping it kills a
/// server that a test started and did not stop.
pub struct World {
    pub dir: TempDir,
    pub target: Target,
    pid: std::sync::Mutex<Option<u32>>,
}

impl World {
    pub fn new() -> World {
        let dir = tempfile::Builder::new()
            .prefix("sttyc")
            .tempdir()
            .expect("tempdir");
        chmod(dir.path(), 0o700);
        let target = Target {
            state_dir: Some(dir.path().join("state")),
            server_bin: Some(server_bin()),
            ..Target::new(dir.path().join("s.sock"))
        };
        World {
            dir,
            target,
            pid: std::sync::Mutex::new(None),
        }
    }

    /// Connects, starting the server; remembers its pid for the cleanup.
    pub async fn start(&self) -> Client {
        let client = step(signaltty_client::connect(&self.target, AutoStart::Yes))
            .await
            .expect("connect with auto-start");
        let status = step(client.status()).await.expect("status");
        *self.pid.lock().expect("pid lock") = Some(status.pid);
        client
    }

    /// Where the pid of the server to clean up is kept.
    pub fn pid_slot(&self) -> std::sync::MutexGuard<'_, Option<u32>> {
        self.pid.lock().expect("pid lock")
    }

    /// A workspace named `name` on the world's temp dir, and a pane running `cat` in it (a
    /// program that echoes what it is typed and ends on Ctrl-D).
    pub async fn cat_pane(&self, client: &Client, name: &str) -> pb::Pane {
        let ws = step(
            client
                .workspaces()
                .create_workspace(pb::CreateWorkspaceRequest {
                    name: name.into(),
                    cwd: self.dir.path().to_str().expect("UTF-8").into(),
                    ..Default::default()
                }),
        )
        .await
        .expect("workspace")
        .into_inner()
        .workspace
        .expect("a workspace");
        step(client.panes().spawn_pane(pb::SpawnPaneRequest {
            workspace_id: ws.id,
            argv: vec!["cat".into()],
            cols: 80,
            rows: 24,
            ..Default::default()
        }))
        .await
        .expect("spawn")
        .into_inner()
        .pane
        .expect("a pane")
    }

    /// Stops the server through the API.
    pub async fn stop(&self, client: &Client) {
        step(
            client
                .server()
                .shutdown(pb::ShutdownRequest { force: true }),
        )
        .await
        .expect("shutdown");
        assert!(
            signaltty_client::connect::wait_until_gone(&self.target.socket, STEP).await,
            "the server still answers after Shutdown"
        );
        *self.pid.lock().expect("pid lock") = None;
    }
}

impl Drop for World {
    fn drop(&mut self) {
        if let Some(pid) = self.pid.lock().ok().and_then(|p| *p) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

/// `chmod MODE path`.
pub fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Awaits `future` for at most [`STEP`].
pub async fn step<F: std::future::Future>(future: F) -> F::Output {
    tokio::time::timeout(STEP, future)
        .await
        .expect("a step took longer than a minute")
}
