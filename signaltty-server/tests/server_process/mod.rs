//! Test harness for persistence: the real server binary as a child process with its own temp
//! socket and state dir, which a test can SIGKILL and start again on the same state dir; and a
//! wait on a file's content driven by inotify (no sleeps).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsString;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify};
use signaltty_proto::v1 as pb;
use tonic::transport::Channel;

/// Upper bound for any single wait: generous, the machine is shared.
pub const WAIT: Duration = Duration::from_secs(30);

/// A temp root holding `run/s.sock`, `state/`, `bin/` (put first on the server's PATH) and logs.
pub struct Root {
    pub dir: tempfile::TempDir,
}

impl Root {
    pub fn new() -> Root {
        let dir = tempfile::tempdir().unwrap();
        eprintln!("test root: {}", dir.path().display());
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        std::fs::create_dir(dir.path().join("home")).unwrap();
        Root { dir }
    }
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
    pub fn socket(&self) -> PathBuf {
        self.path().join("run/s.sock")
    }
    pub fn state(&self) -> PathBuf {
        self.path().join("state")
    }
    pub fn snapshot(&self) -> PathBuf {
        self.state().join("snapshot.json")
    }
    pub fn tail(&self, pane: &str) -> PathBuf {
        self.state().join("history").join(format!("{pane}.tail"))
    }
    pub fn log(&self) -> PathBuf {
        self.path().join("server.log")
    }
    pub fn bin(&self) -> PathBuf {
        self.path().join("bin")
    }

    /// Installs an executable script in `bin/`.
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.bin().join(name);
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn command(&self) -> Command {
        let mut path = OsString::from(self.bin());
        path.push(":");
        path.push(std::env::var_os("PATH").unwrap_or_default());
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_signaltty-server"));
        cmd.arg("--socket")
            .arg(self.socket())
            .arg("--state-dir")
            .arg(self.state())
            .arg("--log-file")
            .arg(self.log())
            .env("PATH", path)
            .env("SHELL", "/bin/sh")
            // Agent hook installers write under the home: keep them in the temp root.
            .env("HOME", self.path().join("home"))
            .env("SIGNALTTY_HOOK_HOME", self.path().join("home"))
            .env("SIGNALTTY_LOG", "info,signaltty_server=debug")
            .stdin(Stdio::null());
        cmd
    }

    /// Starts a server and waits until it answers.
    pub async fn start(&self) -> RealServer {
        let child = self.command().stderr(Stdio::piped()).spawn().unwrap();
        let channel = wait_for_server(&self.socket()).await;
        RealServer { child, channel }
    }

    /// Starts a server with extra environment variables (e.g. shortened timings).
    pub async fn start_with_env(&self, env: &[(&str, &str)]) -> RealServer {
        let child = self
            .command()
            .envs(env.iter().copied())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let channel = wait_for_server(&self.socket()).await;
        RealServer { child, channel }
    }

    /// Starts a server whose descriptor limit (soft and hard) is `limit`, through `sh`'s ulimit.
    pub async fn start_with_fd_limit(&self, limit: u32) -> RealServer {
        let server = self.command();
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c")
            .arg(format!("ulimit -n {limit} && exec \"$0\" \"$@\""))
            .arg(server.get_program())
            .args(server.get_args())
            .envs(server.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
            .stdin(Stdio::null())
            .stderr(Stdio::piped());
        let child = cmd.spawn().unwrap();
        let channel = wait_for_server(&self.socket()).await;
        RealServer { child, channel }
    }

    /// Runs a server that is expected to refuse to start; returns its output.
    pub fn start_refused(&self) -> Output {
        let child = self
            .command()
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(child.wait_with_output().unwrap()));
        match rx.recv_timeout(WAIT) {
            Ok(out) => out,
            Err(_) => {
                let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
                panic!("the server did not refuse to start");
            }
        }
    }

    /// Every file under the state dir, recursively.
    pub fn state_files(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, out);
                } else {
                    out.push(path);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.state(), &mut out);
        out
    }
}

async fn wait_for_server(socket: &Path) -> Channel {
    crate::clients::wait_for_server(socket, WAIT).await
}

/// A running server process.
pub struct RealServer {
    pub child: Child,
    pub channel: Channel,
}

impl RealServer {
    crate::clients::client_accessors!();

    /// SIGKILL: no chance to save anything.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Sends a signal and waits for the exit; returns whether it exited successfully.
    pub fn signal_and_wait(mut self, signal: nix::sys::signal::Signal) -> bool {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).unwrap());
        nix::sys::signal::kill(pid, signal).unwrap();
        self.child.wait().unwrap().success()
    }

    /// Forced Shutdown over the API, then waits for the exit.
    pub async fn shutdown(mut self) -> bool {
        self.server()
            .shutdown(pb::ShutdownRequest { force: true })
            .await
            .unwrap();
        self.child.wait().unwrap().success()
    }

    pub async fn workspace(&self, name: &str, cwd: &Path) -> pb::Workspace {
        std::fs::create_dir_all(cwd).unwrap();
        self.create_workspace(name, cwd).await
    }

    pub async fn spawn(&self, ws: &str, tab: &str, argv: &[&str]) -> pb::Pane {
        self.spawn_with(pb::SpawnPaneRequest {
            workspace_id: ws.into(),
            tab_id: tab.into(),
            argv: argv.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        })
        .await
    }

    pub async fn pane(&self, id: &str) -> pb::Pane {
        self.panes()
            .get_pane(pb::GetPaneRequest { pane_id: id.into() })
            .await
            .unwrap()
            .into_inner()
            .pane
            .unwrap()
    }

    /// Scrollback (history + screen) as plain text.
    pub async fn scrollback(&self, id: &str) -> String {
        self.panes()
            .read_pane(pb::ReadPaneRequest {
                pane_id: id.into(),
                mode: pb::ReadMode::Scrollback.into(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner()
            .lines
            .join("\n")
    }

    /// Attaches read-only at 80×24; returns the stream and the first Snapshot.
    pub async fn attach(
        &self,
        id: &str,
    ) -> (
        tokio::sync::mpsc::Sender<pb::AttachRequest>,
        tonic::Streaming<pb::AttachResponse>,
        pb::attach_response::Snapshot,
    ) {
        self.attach_sized(id, (80, 24), true).await
    }

    /// Attaches at `size` (cols, rows), read-only or typing; returns the stream and the first
    /// Snapshot.
    pub async fn attach_sized(
        &self,
        id: &str,
        (cols, rows): (u32, u32),
        read_only: bool,
    ) -> (
        tokio::sync::mpsc::Sender<pb::AttachRequest>,
        tonic::Streaming<pb::AttachResponse>,
        pb::attach_response::Snapshot,
    ) {
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        tx.send(pb::AttachRequest {
            kind: Some(pb::attach_request::Kind::Start(pb::attach_request::Start {
                pane_id: id.into(),
                cols,
                rows,
                mark_seen: false,
                read_only,
            })),
        })
        .await
        .unwrap();
        let mut stream = self
            .panes()
            .attach(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await
            .unwrap()
            .into_inner();
        let first = next(&mut stream).await;
        let Some(pb::attach_response::Kind::Snapshot(snap)) = first.kind else {
            panic!("first attach message must be a Snapshot, got {first:?}")
        };
        (tx, stream, snap)
    }

    /// Waits until a live pane has printed `needle` (read-only attach: snapshot, then output).
    pub async fn until_output(&self, id: &str, needle: &str) {
        let (_tx, mut stream, snap) = self.attach(id).await;
        let mut seen = snap.screen;
        while !String::from_utf8_lossy(&seen).contains(needle) {
            match next(&mut stream).await.kind {
                Some(pb::attach_response::Kind::Output(o)) => seen.extend_from_slice(&o.data),
                Some(pb::attach_response::Kind::Snapshot(s)) => seen.extend_from_slice(&s.screen),
                _ => {}
            }
        }
    }

    /// Waits until the pane's record says `status`. Subscribed to live pane events *before*
    /// the first GetPane, so a change between the two is not missed. A child process's own
    /// output (or a file it writes) is no proof of this: a resume starts the process first and
    /// marks the record LIVE just after.
    pub async fn until_status(&self, id: &str, status: pb::PaneStatus) -> pb::Pane {
        let mut events = self
            .events()
            .subscribe(pb::SubscribeRequest {
                from_seq: None,
                kinds: vec![pb::EventKind::Pane as i32],
            })
            .await
            .unwrap()
            .into_inner();
        let pane = self.pane(id).await;
        if pane.status == status as i32 {
            return pane;
        }
        loop {
            if let Some(pb::subscribe_response::Kind::Event(pb::Event {
                kind: Some(pb::event::Kind::PaneUpdated(pb::PaneUpdated { pane: Some(pane) })),
                ..
            })) = next(&mut events).await.kind
                && pane.id == id
                && pane.status == status as i32
            {
                return pane;
            }
        }
    }

    pub async fn resume(&self, id: &str, mode: pb::ResumeMode) -> Result<pb::Pane, tonic::Status> {
        self.panes()
            .resume_pane(pb::ResumePaneRequest {
                pane_id: id.into(),
                mode: mode.into(),
            })
            .await
            .map(|r| r.into_inner().pane.unwrap())
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let log = std::fs::read_to_string(self.log()).unwrap_or_default();
            eprintln!("--- server log ---\n{log}");
        }
    }
}

impl Drop for RealServer {
    fn drop(&mut self) {
        // A failed test must not leave a server (and its panes) behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Next message of a stream, failing the test after [`WAIT`].
pub async fn next<T>(stream: &mut tonic::Streaming<T>) -> T {
    tokio::time::timeout(WAIT, stream.message())
        .await
        .expect("stream message in time")
        .expect("stream ok")
        .expect("stream not ended")
}

/// Waits until `check(content)` holds for the file at `path` (`None` while it does not exist),
/// woken by inotify on its directory: atomic writes end with a rename into place.
pub async fn wait_file<T: Send + 'static>(
    path: &Path,
    check: impl Fn(Option<&[u8]>) -> Option<T> + Send + 'static,
) -> T {
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || wait_file_blocking(&path, check))
        .await
        .unwrap()
}

fn wait_file_blocking<T>(path: &Path, check: impl Fn(Option<&[u8]>) -> Option<T>) -> T {
    // The file's directory may not exist yet (the server creates `history/` on its first
    // tail): watch its parent too, and the directory once it is there. Never create it here —
    // the server must be the one that does, with its own permissions.
    let dir = path.parent().unwrap();
    let flags = AddWatchFlags::IN_MOVED_TO
        | AddWatchFlags::IN_CLOSE_WRITE
        | AddWatchFlags::IN_CREATE
        | AddWatchFlags::IN_DELETE
        | AddWatchFlags::IN_MOVED_FROM;
    let inotify = Inotify::init(InitFlags::IN_NONBLOCK | InitFlags::IN_CLOEXEC).unwrap();
    inotify.add_watch(dir.parent().unwrap(), flags).unwrap();
    let mut watching_dir = false;
    let deadline = Instant::now() + WAIT;
    loop {
        if !watching_dir {
            watching_dir = inotify.add_watch(dir, flags).is_ok();
        }
        // Checked after the watch is in place, so no change can slip between check and wait.
        let content = std::fs::read(path).ok();
        if let Some(v) = check(content.as_deref()) {
            return v;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "{} never reached the expected content; last: {}",
            path.display(),
            content.map_or("<missing>".into(), |c| String::from_utf8_lossy(&c)
                .chars()
                .take(2000)
                .collect::<String>())
        );
        let ms = u16::try_from(left.as_millis()).unwrap_or(u16::MAX);
        let mut fds = [PollFd::new(inotify.as_fd(), PollFlags::POLLIN)];
        let _ = poll(&mut fds, PollTimeout::from(ms));
        let _ = inotify.read_events();
    }
}

/// Waits until the file contains every needle.
pub async fn wait_file_contains(path: &Path, needles: &[&str]) -> String {
    let needles: Vec<String> = needles.iter().map(|s| s.to_string()).collect();
    wait_file(path, move |c| {
        let text = String::from_utf8_lossy(c?).into_owned();
        needles.iter().all(|n| text.contains(n)).then_some(text)
    })
    .await
}

/// The lines of a record file that test scripts append to (one line per run); none while the
/// file does not exist.
pub fn runs(record: &Path) -> Vec<String> {
    std::fs::read_to_string(record)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Waits until the file is gone.
pub async fn wait_file_gone(path: &Path) {
    wait_file(path, |c| c.is_none().then_some(())).await;
}
