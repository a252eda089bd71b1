//! Test harness: a real in-process server on a temp-dir Unix socket, reached through real gRPC
//! clients over that socket.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod repo;

use std::path::{Path, PathBuf};
use std::time::Duration;

use signaltty_proto::v1 as pb;
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
        let mut config = base_config(dir.path());
        tune(&mut config);
        Self::start_in(dir, config).await
    }

    async fn start_in(dir: tempfile::TempDir, config: Config) -> TestServer {
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

    /// Stops the server as a `Shutdown --force` does (final save, then hangups) and starts a new
    /// one on the same socket and state dir: what a user sees after a restart.
    pub async fn restart(self) -> TestServer {
        let TestServer {
            dir,
            daemon,
            channel,
        } = self;
        drop(channel);
        daemon
            .hub()
            .shutdown(true, "test restart")
            .await
            .expect("shutdown");
        daemon.wait().await;
        drop(daemon);
        let config = base_config(dir.path());
        Self::start_in(dir, config).await
    }

    crate::clients::client_accessors!();

    /// A live event stream of the given kinds (all when empty), already synced.
    pub async fn subscribe(
        &self,
        kinds: &[pb::EventKind],
    ) -> tonic::Streaming<pb::SubscribeResponse> {
        let mut stream = self
            .events()
            .subscribe(pb::SubscribeRequest {
                from_seq: None,
                kinds: kinds.iter().map(|k| *k as i32).collect(),
            })
            .await
            .expect("subscribe")
            .into_inner();
        loop {
            if let Some(pb::subscribe_response::Kind::Synced(_)) = next(&mut stream).await.kind {
                return stream;
            }
        }
    }

    /// The pane's lines by ReadPane (`lines` = 0: all of the mode's).
    pub async fn read(
        &self,
        pane_id: &str,
        mode: pb::ReadMode,
        lines: u32,
        keep_ansi: bool,
    ) -> Vec<String> {
        self.panes()
            .read_pane(pb::ReadPaneRequest {
                pane_id: pane_id.into(),
                mode: mode as i32,
                lines,
                keep_ansi,
            })
            .await
            .expect("ReadPane")
            .into_inner()
            .lines
    }

    /// A pane record now.
    pub async fn pane(&self, id: &str) -> pb::Pane {
        self.panes()
            .get_pane(pb::GetPaneRequest { pane_id: id.into() })
            .await
            .expect("get pane")
            .into_inner()
            .pane
            .expect("pane")
    }

    /// The newest event seq.
    pub async fn head(&self) -> u64 {
        self.status().await.head_seq
    }

    /// A workspace on a fresh temp directory.
    pub async fn workspace(&self, name: &str) -> pb::Workspace {
        let cwd = self.dir.path().join(format!("ws-{}", uuid_like()));
        std::fs::create_dir_all(&cwd).unwrap();
        self.create_workspace(name, &cwd).await
    }

    pub fn dir_path(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

/// The config every test server starts from: socket and state dir under `dir`.
fn base_config(dir: &Path) -> Config {
    let mut config = Config::new(dir.join("run/s.sock"), dir.join("state"));
    // Hooks installed before launching an agent must never touch the real HOME.
    config.hook_home = Some(dir.join("home"));
    config
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

/// Spawns a pane running `argv` in a new tab of `ws`.
pub async fn spawn(srv: &TestServer, ws: &str, argv: &[&str]) -> pb::Pane {
    spawn_sized(srv, ws, argv, 80, 24).await
}

/// Spawns a pane of a given size.
pub async fn spawn_sized(
    srv: &TestServer,
    ws: &str,
    argv: &[&str],
    cols: u32,
    rows: u32,
) -> pb::Pane {
    srv.spawn_with(pb::SpawnPaneRequest {
        workspace_id: ws.into(),
        argv: argv.iter().map(|s| s.to_string()).collect(),
        cols,
        rows,
        ..Default::default()
    })
    .await
}

/// A `cat` of `cols`×`rows` in raw mode without echo (what is typed is printed once, as is),
/// in a new workspace named `name`, once it printed `ready`.
pub async fn raw_cat(srv: &TestServer, name: &str, cols: u16, rows: u16) -> pb::Pane {
    let ws = srv.workspace(name).await;
    let argv = ["sh", "-c", "stty raw -echo; printf ready; exec cat"];
    let pane = spawn_sized(srv, &ws.id, &argv, cols.into(), rows.into()).await;
    until_screen(srv, &pane.id, |s| s.contains("ready")).await;
    pane
}

/// Waits until `pane`'s screen text (`ReadPane`, rows joined by `\n`) passes `check`; returns it.
pub async fn until_screen(srv: &TestServer, pane: &str, check: impl Fn(&str) -> bool) -> String {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let screen = srv
            .read(pane, pb::ReadMode::Screen, 0, false)
            .await
            .join("\n");
        if check(&screen) {
            return screen;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the screen never got there: {screen:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Spawns a pane running `argv` (80×24) in a new tab of `ws`, started in `cwd`.
pub async fn spawn_in(srv: &TestServer, ws: &str, cwd: &Path, argv: &[&str]) -> pb::Pane {
    srv.spawn_with(pb::SpawnPaneRequest {
        workspace_id: ws.into(),
        argv: argv.iter().map(|s| s.to_string()).collect(),
        cwd: cwd.display().to_string(),
        cols: 80,
        rows: 24,
        ..Default::default()
    })
    .await
}

/// An attached client: the request sender and the response stream.
pub struct Attached {
    pub tx: tokio::sync::mpsc::Sender<pb::AttachRequest>,
    pub rx: tonic::Streaming<pb::AttachResponse>,
    /// Output seen so far (starting with the first snapshot's repaint), and the offset reached.
    pub seen: Vec<u8>,
    pub offset: u64,
}

pub async fn attach(
    srv: &TestServer,
    pane: &str,
    cols: u32,
    rows: u32,
    read_only: bool,
) -> (Attached, pb::attach_response::Snapshot) {
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    tx.send(pb::AttachRequest {
        kind: Some(pb::attach_request::Kind::Start(pb::attach_request::Start {
            pane_id: pane.into(),
            cols,
            rows,
            mark_seen: false,
            read_only,
        })),
    })
    .await
    .unwrap();
    let mut stream = srv
        .panes()
        .attach(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .expect("attach")
        .into_inner();
    let first = next(&mut stream).await;
    let Some(pb::attach_response::Kind::Snapshot(snap)) = first.kind else {
        panic!("first attach message must be a Snapshot, got {first:?}")
    };
    let offset = snap.output_offset;
    (
        Attached {
            tx,
            rx: stream,
            // The snapshot counts as seen: what was printed before attaching is on it.
            seen: snap.screen.clone(),
            offset,
        },
        snap,
    )
}

impl Attached {
    pub async fn input(&self, data: &[u8]) {
        self.tx
            .send(pb::AttachRequest {
                kind: Some(pb::attach_request::Kind::Input(pb::attach_request::Input {
                    data: data.to_vec(),
                })),
            })
            .await
            .unwrap();
    }

    pub async fn resize(&self, cols: u32, rows: u32) {
        self.tx
            .send(pb::AttachRequest {
                kind: Some(pb::attach_request::Kind::Resize(
                    pb::attach_request::Resize { cols, rows },
                )),
            })
            .await
            .unwrap();
    }

    /// Reads messages until the output seen contains `needle`; checks offsets are contiguous.
    /// After a first look at everything seen, only the new bytes (and a needle's length before
    /// them) are searched, so waiting through megabytes of output stays linear.
    pub async fn until_output(&mut self, needle: &str) {
        let needle = needle.as_bytes();
        let mut from = 0;
        loop {
            if memchr::memmem::find(&self.seen[from..], needle).is_some() {
                return;
            }
            from = self.seen.len().saturating_sub(needle.len());
            let msg = next(&mut self.rx).await;
            match msg.kind {
                Some(pb::attach_response::Kind::Output(o)) => {
                    assert_eq!(
                        o.end_offset,
                        self.offset + o.data.len() as u64,
                        "offsets must be contiguous"
                    );
                    self.offset = o.end_offset;
                    self.seen.extend_from_slice(&o.data);
                }
                Some(pb::attach_response::Kind::Snapshot(s)) => {
                    self.offset = s.output_offset;
                    self.seen.extend_from_slice(&s.screen);
                }
                _ => {}
            }
        }
    }

    /// Reads until a message matching `pick` arrives.
    pub async fn until<T>(
        &mut self,
        mut pick: impl FnMut(&pb::attach_response::Kind) -> Option<T>,
    ) -> T {
        loop {
            let msg = next(&mut self.rx).await;
            if let Some(kind) = &msg.kind {
                if let pb::attach_response::Kind::Output(o) = kind {
                    self.offset = o.end_offset;
                    self.seen.extend_from_slice(&o.data);
                }
                if let Some(v) = pick(kind) {
                    return v;
                }
            }
        }
    }
}

/// Waits for an event matching `pick` on a subscription.
pub async fn until_event<T>(
    stream: &mut tonic::Streaming<pb::SubscribeResponse>,
    mut pick: impl FnMut(&pb::event::Kind) -> Option<T>,
) -> T {
    loop {
        let msg = next(stream).await;
        if let Some(pb::subscribe_response::Kind::Event(pb::Event {
            kind: Some(kind), ..
        })) = &msg.kind
            && let Some(v) = pick(kind)
        {
            return v;
        }
    }
}

/// Waits for pane `pane_id`'s exit on a subscription to pane events; returns its exit code.
pub async fn until_exited(
    stream: &mut tonic::Streaming<pb::SubscribeResponse>,
    pane_id: &str,
) -> i32 {
    until_event(stream, |k| match k {
        pb::event::Kind::PaneExited(e) if e.pane_id == pane_id => Some(e.exit_code),
        _ => None,
    })
    .await
}

/// The real `signaltty` CLI: `$SIGNALTTY_CLI_BIN`, else the one beside this crate's server
/// binary (the same target directory, wherever `CARGO_TARGET_DIR` put it). Build it first with
/// `cargo build -p signaltty-cli` (`cargo test --workspace` builds it).
pub fn cli_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("SIGNALTTY_CLI_BIN").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let path = PathBuf::from(env!("CARGO_BIN_EXE_signaltty-server")).with_file_name("signaltty");
    assert!(
        path.is_file(),
        "{} not found: build the CLI first with `cargo build -p signaltty-cli`, or set SIGNALTTY_CLI_BIN",
        path.display()
    );
    path
}

/// The hook payload fixtures of one agent (tests/fixtures/hooks/<agent>).
pub fn fixtures(agent: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hooks")
        .join(agent)
}

/// A raw pty standing for a person's terminal: the slave (handed to the server), a second
/// handle on the master (the keyboard), and what the master reads, chunk by chunk, from a
/// thread. Raw, so the bytes read are the bytes written (no ONLCR) and nothing is echoed.
pub struct RawPty {
    pub slave: std::os::fd::OwnedFd,
    pub keyboard: std::fs::File,
    pub chunks: tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>,
}

/// A [`RawPty`] of `cols`×`rows`.
pub fn raw_pty(cols: u16, rows: u16) -> RawPty {
    use std::io::Read;
    let size = nix::pty::Winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = nix::pty::openpty(Some(&size), None).expect("openpty");
    let mut t = nix::sys::termios::tcgetattr(&pty.slave).expect("tcgetattr");
    nix::sys::termios::cfmakeraw(&mut t);
    nix::sys::termios::tcsetattr(&pty.slave, nix::sys::termios::SetArg::TCSANOW, &t).expect("raw");
    let keyboard = std::fs::File::from(pty.master.try_clone().expect("dup"));
    let (tx, chunks) = tokio::sync::mpsc::unbounded_channel();
    let mut master = std::fs::File::from(pty.master);
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    RawPty {
        slave: pty.slave,
        keyboard,
        chunks,
    }
}

/// The child's view of its terminal (`rows cols`), asked through a read-only attach;
/// `tag` tells this answer from earlier ones in the same pane.
pub async fn stty_size(srv: &TestServer, pane: &str, tag: &str) -> String {
    let (mut c, _) = attach(srv, pane, 0, 0, true).await;
    // The typed line must not contain the marker itself, or its echo would match first.
    srv.write_input(
        pane,
        format!("echo \"S\"\"Z{tag}:\" $(stty size)\n").as_bytes(),
    )
    .await
    .unwrap();
    let needle = format!("SZ{tag}: ");
    loop {
        let text = String::from_utf8_lossy(&c.seen).to_string();
        if let Some(pos) = text.find(&needle)
            && let Some(end) = text[pos + needle.len()..].find('\r')
        {
            return text[pos + needle.len()..][..end].trim().to_owned();
        }
        c.until(|k| matches!(k, pb::attach_response::Kind::Output(_)).then_some(()))
            .await;
    }
}
