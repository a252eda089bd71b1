//! `SignalttyServer`: a private `signaltty-server` (own socket, state dir and log in the
//! benchmark's temp dir) with gRPC clients, and `Attachment`, one client's Attach stream.
//! Dropping the server sends SIGTERM (the server hangs up its panes and exits) and SIGKILLs it
//! if it lingers, so no server or pane outlives the benchmark.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use signaltty_proto::v1::attach_request::{self, Input, Start};
use signaltty_proto::v1::attach_response::{self, Snapshot};
use signaltty_proto::v1::pane_service_client::PaneServiceClient;
use signaltty_proto::v1::server_service_client::ServerServiceClient;
use signaltty_proto::v1::workspace_service_client::WorkspaceServiceClient;
use signaltty_proto::v1::{
    AttachRequest, AttachResponse, ClosePaneRequest, CreateWorkspaceRequest, GetStatusRequest,
    Pane, SpawnPaneRequest,
};
use tokio::sync::mpsc;
use tonic::Streaming;
use tonic::transport::Channel;

use crate::pty::{PtyChild, TERM_SIZE};

/// A running signaltty server and a channel to it.
pub struct SignalttyServer {
    process: ServerProcess,
    channel: Channel,
    version: String,
    socket: std::path::PathBuf,
}

/// The server's process; dropping it ends the server.
struct ServerProcess {
    child: Option<Child>,
    pid: u32,
}

impl SignalttyServer {
    /// Starts `bin` on `<dir>/<name>.sock` with its state in `<dir>/<name>-state`, and waits
    /// until GetStatus answers. Also returns the time from spawn to that first answer, polling
    /// the socket every 0.2 ms.
    pub async fn start(bin: &Path, dir: &Path, name: &str) -> anyhow::Result<(Self, Duration)> {
        Self::start_with_env(bin, dir, name, &[]).await
    }

    /// [`SignalttyServer::start`] with extra environment for the server (its panes inherit it:
    /// e.g. a `PATH` on which fake agents are found).
    pub async fn start_with_env(
        bin: &Path,
        dir: &Path,
        name: &str,
        env: &[(&str, String)],
    ) -> anyhow::Result<(Self, Duration)> {
        let socket = dir.join(format!("{name}.sock"));
        let state = dir.join(format!("{name}-state"));
        let log = dir.join(format!("{name}.log"));
        let stderr = std::fs::File::create(dir.join(format!("{name}.stderr")))
            .context("create the server's stderr file")?;
        let started = Instant::now();
        let mut command = Command::new(bin);
        // In a session of its own, exactly as `signaltty`'s auto-start starts it (and as tmux's
        // server daemonizes): with autogroups (Linux's default) a session is a scheduling group,
        // and a server left in ours would share its group with the benchmark (and the shell
        // that ran it) whenever the CPUs are contended, while tmux's has one to itself.
        signaltty_client::detach_into_new_session(&mut command);
        let child = command
            .arg("--socket")
            .arg(&socket)
            .arg("--state-dir")
            .arg(&state)
            .arg("--log-file")
            .arg(&log)
            .env_remove("SIGNALTTY_SOCKET")
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .with_context(|| format!("start {}", bin.display()))?;
        // From here the guard owns the child, so an error below still ends it.
        let mut process = ServerProcess {
            pid: child.id(),
            child: Some(child),
        };
        let deadline = started + Duration::from_secs(15);
        let (channel, version) = loop {
            if let Some(child) = process.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                bail!(
                    "signaltty-server exited at start ({status}): {}",
                    last_words(dir, name)
                );
            }
            if let Ok(channel) = signaltty_proto::connect(&socket).await
                && let Ok(status) = ServerServiceClient::new(channel.clone())
                    .get_status(GetStatusRequest {})
                    .await
            {
                break (channel, status.into_inner().version);
            }
            if Instant::now() > deadline {
                bail!(
                    "signaltty-server did not answer within 15 s: {}",
                    last_words(dir, name)
                );
            }
            // A short blocking pause keeps the poll fine-grained (tokio timers tick in ms).
            std::thread::sleep(Duration::from_micros(200));
        };
        let first_answer = started.elapsed();
        Ok((
            Self {
                process,
                channel,
                version,
                socket: socket.clone(),
            },
            first_answer,
        ))
    }

    /// Starts the real client, `signaltty attach PANE`, on a fresh 80×24 PTY that the caller
    /// types into and drains, exactly as a `tmux attach` client is driven.
    pub fn attach_cli(&self, cli_bin: &Path, pane_id: &str) -> anyhow::Result<PtyChild> {
        PtyChild::spawn(
            &[
                cli_bin.display().to_string(),
                "--socket".into(),
                self.socket.display().to_string(),
                "attach".into(),
                pane_id.into(),
            ],
            TERM_SIZE,
        )
    }

    /// The shared channel, for services without a helper here.
    pub fn channel(&self) -> Channel {
        self.channel.clone()
    }

    /// The server's socket.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The server's pid.
    pub fn pid(&self) -> u32 {
        self.process.pid
    }

    /// The version GetStatus reported.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// A PaneService client on the shared channel.
    pub fn panes(&self) -> PaneServiceClient<Channel> {
        pane_client(self.channel.clone())
    }

    /// Opens a workspace in `cwd` and returns its id.
    pub async fn create_workspace(&self, cwd: &Path) -> anyhow::Result<String> {
        let response = WorkspaceServiceClient::new(self.channel.clone())
            .create_workspace(CreateWorkspaceRequest {
                name: "bench".into(),
                cwd: cwd.display().to_string(),
                settings: None,
            })
            .await
            .context("CreateWorkspace")?
            .into_inner();
        Ok(response
            .workspace
            .context("CreateWorkspace returned no workspace")?
            .id)
    }

    /// Spawns an 80×24 pane running `argv` in a new tab of `workspace_id`.
    pub async fn spawn_pane(&self, workspace_id: &str, argv: &[String]) -> anyhow::Result<Pane> {
        let response = self
            .panes()
            .spawn_pane(SpawnPaneRequest {
                workspace_id: workspace_id.into(),
                argv: argv.to_vec(),
                cols: TERM_SIZE.cols.into(),
                rows: TERM_SIZE.rows.into(),
                ..SpawnPaneRequest::default()
            })
            .await
            .context("SpawnPane")?
            .into_inner();
        response.pane.context("SpawnPane returned no pane")
    }

    /// Closes a pane.
    pub async fn close_pane(&self, pane_id: &str) -> anyhow::Result<()> {
        self.panes()
            .close_pane(ClosePaneRequest {
                pane_id: pane_id.into(),
            })
            .await
            .context("ClosePane")?;
        Ok(())
    }

    /// Attaches to a pane at 80×24 and returns the stream with its first message, the Snapshot.
    pub async fn attach(&self, pane_id: &str) -> anyhow::Result<(Attachment, Snapshot)> {
        attach_with(self.panes(), pane_id).await
    }

    /// [`SignalttyServer::attach`] over a connection of its own to `socket`, as another client
    /// process would.
    pub async fn attach_at(socket: &Path, pane_id: &str) -> anyhow::Result<(Attachment, Snapshot)> {
        let channel = signaltty_proto::connect(socket).await.context("connect")?;
        attach_with(pane_client(channel), pane_id).await
    }
}

/// A PaneService client that takes Snapshots and captures of a full history.
fn pane_client(channel: Channel) -> PaneServiceClient<Channel> {
    PaneServiceClient::new(channel).max_decoding_message_size(64 << 20)
}

/// Attaches through `panes`; see [`SignalttyServer::attach`].
async fn attach_with(
    mut panes: PaneServiceClient<Channel>,
    pane_id: &str,
) -> anyhow::Result<(Attachment, Snapshot)> {
    let (tx, rx) = mpsc::channel(64);
    // Start goes into the request stream before the call, so the server can answer at once.
    tx.send(AttachRequest {
        kind: Some(attach_request::Kind::Start(Start {
            pane_id: pane_id.into(),
            cols: TERM_SIZE.cols.into(),
            rows: TERM_SIZE.rows.into(),
            mark_seen: false,
            read_only: false,
        })),
    })
    .await
    .context("queue Start")?;
    let stream = panes
        .attach(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .context("Attach")?
        .into_inner();
    let mut attachment = Attachment {
        tx,
        stream,
        resyncs: 0,
        received: 0,
    };
    match attachment.next().await? {
        attach_response::Kind::Snapshot(snapshot) => Ok((attachment, snapshot)),
        other => bail!("Attach began with {other:?}, not a Snapshot"),
    }
}

/// The server's stderr and the end of its log (they vanish with the temp dir).
fn last_words(dir: &Path, name: &str) -> String {
    let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}")));
    let stderr = read("stderr").unwrap_or_default();
    let log = read("log").unwrap_or_default();
    let tail: Vec<&str> = log.lines().rev().take(5).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    format!("stderr: {} log: {}", stderr.trim(), tail.join(" / "))
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if let Ok(pid) = i32::try_from(self.pid) {
            let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
        }
        // The server hangs its panes up (SIGKILL after its 2 s grace) before exiting.
        let deadline = Instant::now() + Duration::from_secs(8);
        while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// One client's Attach stream.
pub struct Attachment {
    tx: mpsc::Sender<AttachRequest>,
    stream: Streaming<AttachResponse>,
    /// Resyncs received so far (the client lagged and bytes were skipped).
    pub resyncs: u64,
    /// Output bytes received so far (Snapshots not counted).
    pub received: u64,
}

impl Attachment {
    /// Sends typed bytes.
    pub async fn input(&self, data: &[u8]) -> anyhow::Result<()> {
        self.tx
            .send(AttachRequest {
                kind: Some(attach_request::Kind::Input(Input {
                    data: data.to_vec(),
                })),
            })
            .await
            .context("the Attach request stream closed")
    }

    /// The next message; the end of the stream is an error.
    pub async fn next(&mut self) -> anyhow::Result<attach_response::Kind> {
        loop {
            let message = self
                .stream
                .message()
                .await
                .context("Attach stream")?
                .context("the Attach stream ended")?;
            match message.kind {
                Some(attach_response::Kind::Resync(_)) => self.resyncs += 1,
                Some(attach_response::Kind::Output(output)) => {
                    self.received += output.data.len() as u64;
                    return Ok(attach_response::Kind::Output(output));
                }
                Some(kind) => return Ok(kind),
                None => {}
            }
        }
    }

    /// Reads until `pattern` appears in the output (found across message boundaries) or in a
    /// Snapshot sent after a Resync.
    pub async fn until(&mut self, pattern: &[u8]) -> anyhow::Result<()> {
        let finder = memchr::memmem::Finder::new(pattern);
        let keep = pattern.len().saturating_sub(1);
        let mut carry: Vec<u8> = Vec::new();
        loop {
            match self.next().await? {
                attach_response::Kind::Output(output) => {
                    // Search the new bytes together with the tail of the previous ones, so a
                    // pattern split across messages (however small) is still found.
                    carry.extend_from_slice(&output.data);
                    if finder.find(&carry).is_some() {
                        return Ok(());
                    }
                    let cut = carry.len().saturating_sub(keep);
                    carry.drain(..cut);
                }
                attach_response::Kind::Snapshot(snapshot) => {
                    if finder.find(&snapshot.screen).is_some() {
                        return Ok(());
                    }
                    carry.clear();
                }
                _ => {}
            }
        }
    }
}
