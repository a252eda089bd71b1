//! The transport: one `ssh` child per connection, its stdin/stdout as the connection's bytes.
//!
//! A dropped SSH link is redialled by running `ssh` again (the client's tonic connector, the
//! server's machine table): the remote server (and its panes) never noticed anything but one
//! client going away.

use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, BufReader, ReadBuf};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::LinkError;

/// How long `ssh` may take to log in and the bridge to answer with its line.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a shared ssh connection stays up after its last user left.
pub const SHARE_FOR: Duration = Duration::from_secs(60);
/// Environment variable naming the `ssh` program (default: `ssh` on `PATH`).
pub const SSH_ENV: &str = "SIGNALTTY_SSH";

/// One remote machine: how to reach it with `ssh` and how signaltty is run there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remote {
    /// The name the user gave it (`gpu`); names it in messages.
    pub name: String,
    /// `[user@]host`, as `ssh` takes it (an alias from `~/.ssh/config` works).
    pub host: String,
    /// Extra `ssh` arguments, before ours (so the user's `-o` wins: ssh keeps the first value).
    pub ssh_options: Vec<String>,
    /// The remote command that runs signaltty (`signaltty`, a path, or `env X=1 /path/signaltty`);
    /// the remote shell runs `<command> bridge`.
    pub command: String,
    /// A private directory (the local server's socket directory) where the shared ssh
    /// connection's control socket may live; `None`: every connection logs in on its own.
    pub control_dir: Option<PathBuf>,
}

impl Remote {
    /// The full `ssh` argument list for one bridge connection.
    pub fn ssh_args(&self) -> Vec<String> {
        // No remote terminal (the bytes must pass untouched), no escape character.
        self.args_running("-T", &format!("{} bridge", self.command))
    }

    /// The `ssh` argument list that runs `signaltty ARGS` on the remote in a terminal of its
    /// own (`-tt`, no escape character): a remote attach takes this route so that the remote
    /// CLI can hand its terminal to its server, as `ssh -t host tmux attach` does.
    pub fn tty_args(&self, args: &str) -> Vec<String> {
        self.args_running("-tt", &format!("{} {args}", self.command))
    }

    fn args_running(&self, tty: &str, remote_command: &str) -> Vec<String> {
        let mut args = self.ssh_options.clone();
        for opt in [
            // Never ask for a password or a host key on a terminal we do not own: fail instead.
            "BatchMode=yes",
            "ConnectTimeout=10",
            // A dead link (laptop asleep, Wi-Fi gone) is noticed within ~15 s, not at the next
            // TCP timeout.
            "ServerAliveInterval=5",
            "ServerAliveCountMax=3",
        ] {
            args.extend(["-o".to_owned(), opt.to_owned()]);
        }
        args.extend(self.sharing_options());
        args.extend([tty.to_owned(), "-e".to_owned(), "none".to_owned()]);
        args.push(self.host.clone());
        args.push(remote_command.to_owned());
        args
    }

    /// OpenSSH connection sharing: the first connection to a host becomes a master that
    /// outlives it by [`SHARE_FOR`], and later ones (each CLI call, a reconnect) open a channel
    /// on it instead of logging in again (~1 s saved per call). Only in a directory that is ours
    /// alone (the socket lives there), and only when the socket's path fits: ssh fails outright
    /// on a control path too long for a Unix socket. A user's own `-o ControlPath=none` in the
    /// remote's ssh options turns sharing off (ssh keeps the first value given; `ControlMaster=no`
    /// alone still uses a master that is up).
    fn sharing_options(&self) -> Vec<String> {
        let Some(dir) = self.control_dir.as_deref().filter(|d| private_dir(d)) else {
            return Vec::new();
        };
        // `%C` is a 40-hex-digit hash of host, port, user and jump host; ssh adds a 17-byte
        // suffix while binding, and a Unix socket's path holds 107 bytes.
        let path = dir.join("ssh-%C");
        if path.as_os_str().len() + 40 - 2 + 17 > 107 {
            return Vec::new();
        }
        [
            "ControlMaster=auto".to_owned(),
            format!("ControlPath={}", path.display()),
            format!("ControlPersist={}", SHARE_FOR.as_secs()),
        ]
        .into_iter()
        .flat_map(|opt| ["-o".to_owned(), opt])
        .collect()
    }

    /// The ssh client to run: `$SIGNALTTY_SSH`, else `ssh` from `PATH`.
    pub fn ssh_program() -> PathBuf {
        std::env::var_os(SSH_ENV)
            .filter(|s| !s.is_empty())
            .map_or_else(|| PathBuf::from("ssh"), PathBuf::from)
    }
}

/// Runs `ssh … <command> bridge` and reads the bridge's line.
pub async fn open_link(remote: &Remote) -> Result<SshIo, LinkError> {
    if let Some(dir) = &remote.control_dir {
        // A remote-only user has no local server to have made it; made as the server would
        // (0700), and sharing is simply off when that fails.
        use std::os::unix::fs::DirBuilderExt;
        let _ = std::fs::DirBuilder::new().mode(0o700).create(dir);
    }
    let program = Remote::ssh_program();
    let mut child = Command::new(&program)
        .args(remote.ssh_args())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| LinkError {
            remote: remote.name.clone(),
            reason: "SSH_NOT_FOUND",
            message: format!(
                "cannot run {} to reach {}: {e} (install OpenSSH's client, or set ${SSH_ENV})",
                program.display(),
                remote.name
            ),
        })?;
    let stderr = Arc::new(Mutex::new(Vec::new()));
    if let Some(pipe) = child.stderr.take() {
        tokio::spawn(drain_stderr(pipe, stderr.clone()));
    }
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(LinkError {
            remote: remote.name.clone(),
            reason: "REMOTE_UNREACHABLE",
            message: format!(
                "cannot reach {}: ssh started without its pipes",
                remote.name
            ),
        });
    };
    let mut stdout = BufReader::new(stdout);
    let mut line = Vec::new();
    let read = tokio::time::timeout(
        HANDSHAKE_TIMEOUT,
        (&mut stdout).take(512).read_until(b'\n', &mut line),
    )
    .await;
    match read {
        Err(_) => {
            return Err(LinkError {
                remote: remote.name.clone(),
                reason: "REMOTE_TIMEOUT",
                message: format!(
                    "{} did not answer within {}s (ssh {}): {}",
                    remote.name,
                    HANDSHAKE_TIMEOUT.as_secs(),
                    remote.host,
                    last_words(&stderr)
                ),
            });
        }
        Ok(Ok(_)) if line.ends_with(b"\n") => {}
        Ok(_) => {
            // EOF before a line: ssh or the remote command failed; its exit code says which.
            let status = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
            let code = status.ok().and_then(|s| s.ok()).and_then(|s| s.code());
            // Let the stderr reader catch the last bytes.
            tokio::task::yield_now().await;
            let said = last_words(&stderr);
            return Err(link_failure(remote, code, &said));
        }
    }
    let text = String::from_utf8_lossy(&line);
    crate::check_handshake(&remote.name, text.trim_end())?;
    Ok(SshIo {
        _child: child,
        stdin,
        stdout,
    })
}

/// `dir` exists, is ours, and nobody else may enter it (mode `0700`): a control socket there
/// cannot be used or replaced by another user.
fn private_dir(dir: &std::path::Path) -> bool {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    std::fs::symlink_metadata(dir).is_ok_and(|m| {
        m.is_dir()
            && m.uid() == nix::unistd::getuid().as_raw()
            && m.permissions().mode() & 0o077 == 0
    })
}

/// The error for an `ssh` that ended before the bridge's line.
fn link_failure(remote: &Remote, code: Option<i32>, said: &str) -> LinkError {
    let missing = code == Some(127)
        || said.contains("command not found")
        || said.contains("No such file or directory");
    if missing {
        return LinkError {
            remote: remote.name.clone(),
            reason: "REMOTE_BINARY_MISSING",
            message: format!(
                "signaltty is not installed on {} (tried `{}` there: {said}): install signaltty \
                 {} on {}, or give its path with `signaltty remote add {} {} --command PATH`",
                remote.host,
                remote.command,
                env!("CARGO_PKG_VERSION"),
                remote.host,
                remote.name,
                remote.host
            ),
        };
    }
    let how = match code {
        Some(255) => "ssh could not log in".to_owned(),
        Some(code) => format!("the remote command exited with {code}"),
        None => "ssh ended".to_owned(),
    };
    LinkError {
        remote: remote.name.clone(),
        reason: "REMOTE_UNREACHABLE",
        message: format!(
            "cannot reach {} (ssh {}): {how}: {said}",
            remote.name, remote.host
        ),
    }
}

/// Keeps ssh's stderr (its last 4 KiB) for the error message, and keeps the pipe drained so
/// ssh never blocks on it.
async fn drain_stderr(mut pipe: tokio::process::ChildStderr, keep: Arc<Mutex<Vec<u8>>>) {
    let mut buf = [0u8; 1024];
    while let Ok(n) = pipe.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let mut kept = keep.lock().unwrap_or_else(|p| p.into_inner());
        kept.extend_from_slice(&buf[..n]);
        let excess = kept.len().saturating_sub(4096);
        kept.drain(..excess);
    }
}

fn last_words(stderr: &Mutex<Vec<u8>>) -> String {
    let kept = stderr.lock().unwrap_or_else(|p| p.into_inner());
    let text = String::from_utf8_lossy(&kept);
    let text = text.trim();
    if text.is_empty() {
        "(nothing on stderr)".to_owned()
    } else {
        text.lines().collect::<Vec<_>>().join("; ")
    }
}

/// An `ssh` child's pipes as one duplex stream. Dropping it kills the child.
pub struct SshIo {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl AsyncRead for SshIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stdout).poll_read(cx, buf)
    }
}

impl AsyncWrite for SshIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stdin).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stdin).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stdin).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu() -> Remote {
        Remote {
            name: "gpu".into(),
            host: "me@gpu.example".into(),
            ssh_options: vec!["-p".into(), "2222".into()],
            command: "/opt/signaltty".into(),
            control_dir: None,
        }
    }

    fn private_temp_dir() -> tempfile::TempDir {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new()
            .prefix("ctl")
            .tempdir_in("/tmp")
            .expect("tempdir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("chmod");
        dir
    }

    #[test]
    fn connections_are_shared_through_a_private_directory() {
        let dir = private_temp_dir();
        let remote = Remote {
            control_dir: Some(dir.path().to_path_buf()),
            ..gpu()
        };
        let args = remote.ssh_args();
        let path = format!("ControlPath={}/ssh-%C", dir.path().display());
        assert!(args.contains(&path), "{args:?}");
        assert!(args.contains(&"ControlMaster=auto".to_owned()), "{args:?}");
        // Ours come after the user's, so a user's `-o ControlMaster=no` wins.
        let user = args.iter().position(|a| a == "2222");
        let ours = args.iter().position(|a| a == "ControlMaster=auto");
        assert!(user < ours, "{args:?}");
    }

    #[test]
    fn no_sharing_in_a_directory_others_can_enter_or_too_deep_for_a_socket() {
        use std::os::unix::fs::PermissionsExt;
        let dir = private_temp_dir();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        let open = Remote {
            control_dir: Some(dir.path().to_path_buf()),
            ..gpu()
        };
        assert!(!open.ssh_args().iter().any(|a| a.starts_with("Control")));
        let deep = private_temp_dir();
        let long = deep.path().join("a".repeat(60));
        std::fs::create_dir(&long).expect("mkdir");
        std::fs::set_permissions(&long, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        let too_long = Remote {
            control_dir: Some(long),
            ..gpu()
        };
        assert!(!too_long.ssh_args().iter().any(|a| a.starts_with("Control")));
    }

    #[test]
    fn user_options_come_first_and_the_command_last() {
        let args = gpu().ssh_args();
        assert_eq!(&args[..2], ["-p", "2222"]);
        assert_eq!(
            args.last().map(String::as_str),
            Some("/opt/signaltty bridge")
        );
        assert!(args.contains(&"BatchMode=yes".to_owned()));
    }

    #[test]
    fn exit_127_says_to_install_signaltty() {
        let err = link_failure(&gpu(), Some(127), "sh: 1: /opt/signaltty: not found");
        assert_eq!(err.reason, "REMOTE_BINARY_MISSING");
        let text = err.to_string();
        assert!(text.contains("/opt/signaltty"), "{text}");
        assert!(text.contains("install signaltty"), "{text}");
    }
}
