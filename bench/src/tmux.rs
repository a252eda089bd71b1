//! `TmuxServer`: a private tmux server on its own `-S` socket with the benchmark's config, driven
//! through the tmux CLI as a script would drive it. Dropping it kills the server (`kill-server`,
//! then SIGKILL if it lingers) and removes the socket, so no tmux outlives the benchmark.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::pty::{PtyChild, TERM_SIZE, TermSize};

/// The config every benchmark tmux server loads instead of the user's: signaltty's scrollback
/// depth, and no status line (signaltty draws none, so tmux should not pay for one either).
pub const CONFIG: &str = "set -g history-limit 10000\nset -g status off\n";

/// A tmux server on a private socket, started by the first command that creates a session.
pub struct TmuxServer {
    socket: PathBuf,
    config: PathBuf,
    pid: Option<u32>,
}

impl TmuxServer {
    /// A server that will listen on `<dir>/tmux-<name>.sock` with `config` (written by the
    /// caller); nothing runs until the first session is created.
    pub fn new(dir: &Path, name: &str, config: &Path) -> Self {
        Self {
            socket: dir.join(format!("tmux-{name}.sock")),
            config: config.to_path_buf(),
            pid: None,
        }
    }

    /// The tmux command line prefix for this server.
    pub fn base_argv(&self) -> Vec<String> {
        vec![
            "tmux".into(),
            "-f".into(),
            self.config.display().to_string(),
            "-S".into(),
            self.socket.display().to_string(),
        ]
    }

    /// Runs one tmux CLI command against this server and returns its stdout; a non-zero exit
    /// is an error carrying tmux's stderr.
    pub async fn run<S: AsRef<str>>(&self, args: &[S]) -> anyhow::Result<String> {
        let argv = self.base_argv();
        let output = tokio::process::Command::new(&argv[0])
            .args(&argv[1..])
            .args(args.iter().map(AsRef::as_ref))
            .env_remove("TMUX")
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output()
            .await
            .context("run tmux")?;
        if !output.status.success() {
            let first = args.first().map_or("", AsRef::as_ref);
            bail!(
                "tmux {first}: {} ({})",
                String::from_utf8_lossy(&output.stderr).trim(),
                output.status
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Creates detached session `name` (80×24) running `argv`, starting the server if needed,
    /// and learns the server's pid.
    pub async fn new_session(&mut self, name: &str, argv: &[String]) -> anyhow::Result<()> {
        let mut args = new_session_args(name);
        args.extend(argv.iter().cloned());
        self.run(&args).await?;
        self.learn_pid(name).await
    }

    /// Asks the server (through session `name`) for its pid, once, so that dropping this guard
    /// can make sure it is gone.
    pub async fn learn_pid(&mut self, name: &str) -> anyhow::Result<()> {
        if self.pid.is_none() {
            let pid = self
                .run(&["display-message", "-p", "-t", name, "#{pid}"])
                .await?;
            self.pid = Some(pid.trim().parse().context("tmux server pid")?);
        }
        Ok(())
    }

    /// The server's pid, once a session exists.
    pub fn pid(&self) -> anyhow::Result<u32> {
        self.pid.context("the tmux server is not running")
    }

    /// Starts `tmux attach -t target` on a fresh 80×24 PTY that the caller drains, and waits
    /// until the server lists the client.
    pub async fn attach(&self, target: &str) -> anyhow::Result<PtyChild> {
        self.attach_with(target, TERM_SIZE, false).await
    }

    /// [`TmuxServer::attach`] on a `size` PTY, as a UTF-8 client (`-u`: the locale may not say
    /// so, and a key typed as UTF-8 must come back as itself).
    pub async fn attach_utf8(&self, target: &str, size: TermSize) -> anyhow::Result<PtyChild> {
        self.attach_with(target, size, true).await
    }

    async fn attach_with(
        &self,
        target: &str,
        size: TermSize,
        utf8: bool,
    ) -> anyhow::Result<PtyChild> {
        let mut argv = self.base_argv();
        if utf8 {
            argv.push("-u".into());
        }
        argv.extend(["attach-session".into(), "-t".into(), target.into()]);
        let client = PtyChild::spawn(&argv, size)?;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let clients = self.run(&["list-clients", "-t", target]).await?;
            if !clients.trim().is_empty() {
                return Ok(client);
            }
            if Instant::now() > deadline {
                bail!("tmux client never attached to {target}");
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
}

/// `new-session -d -s NAME -x 80 -y 24`, to which the command's argv is appended.
pub fn new_session_args(name: &str) -> Vec<String> {
    ["new-session", "-d", "-s", name, "-x"]
        .into_iter()
        .map(String::from)
        .chain([
            TERM_SIZE.cols.to_string(),
            "-y".into(),
            TERM_SIZE.rows.to_string(),
        ])
        .collect()
}

impl Drop for TmuxServer {
    fn drop(&mut self) {
        let argv = self.base_argv();
        let _ = std::process::Command::new(&argv[0])
            .args(&argv[1..])
            .arg("kill-server")
            .env_remove("TMUX")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if let Some(pid) = self
            .pid
            .and_then(|p| i32::try_from(p).ok())
            .map(Pid::from_raw)
        {
            let deadline = Instant::now() + Duration::from_secs(2);
            while kill(pid, None).is_ok() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            // kill-server failed or hangs: the server is ours, end it.
            let _ = kill(pid, Signal::SIGKILL);
        }
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// `tmux -V`, for the report.
pub fn version() -> String {
    std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "tmux not found".into())
}
