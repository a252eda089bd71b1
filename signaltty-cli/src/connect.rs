//! Reaching the server, and starting it when nobody answers (like tmux).
//!
//! Every command but `server stop`, `server status` and `hook-event` calls [`connect`] with
//! [`AutoStart::Yes`]: when the socket does not accept a connection, the server binary is started
//! detached (its own session, stdio on /dev/null; it logs to its own file) and we wait, polling
//! with a short backoff up to [`START_TIMEOUT`], until `GetStatus` answers.
//!
//! The server binary is `$SIGNALTTY_SERVER_BIN` when set, else `signaltty-server` next to this
//! executable, else `signaltty-server` on `PATH`. `$SIGNALTTY_STATE_DIR` (or `server start
//! --state-dir`) is passed on as `--state-dir`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use signaltty_proto::v1 as pb;
use signaltty_proto::v1::server_service_client::ServerServiceClient;
use tonic::transport::Channel;

use crate::error::{CliError, CliResult, ErrorKind};
use crate::sys;

/// Environment variable naming the server binary to start.
pub const SERVER_BIN_ENV: &str = "SIGNALTTY_SERVER_BIN";
/// Environment variable naming the state directory for a server this client starts.
pub const STATE_DIR_ENV: &str = "SIGNALTTY_STATE_DIR";
/// The server binary's file name.
pub const SERVER_BIN_NAME: &str = "signaltty-server";
/// How long a started server may take to answer `GetStatus`.
pub const START_TIMEOUT: Duration = Duration::from_secs(15);
/// How long `server stop` waits for the socket to stop answering.
pub const STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether [`connect`] may start a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoStart {
    /// Start one when nobody answers.
    Yes,
    /// Fail with "no server running" instead.
    No,
}

/// How to reach (and if needed start) the server.
#[derive(Debug, Clone)]
pub struct Target {
    /// The socket path, absolute.
    pub socket: PathBuf,
    /// The state directory to give a server we start, if any.
    pub state_dir: Option<PathBuf>,
}

impl Target {
    /// The target for an explicit `--socket` (or the environment's / default socket).
    pub fn resolve(explicit: Option<&Path>) -> Self {
        let socket = absolute(&signaltty_proto::resolve_socket_path(explicit));
        let state_dir = std::env::var_os(STATE_DIR_ENV)
            .filter(|d| !d.is_empty())
            .map(|d| absolute(Path::new(&d)));
        Target { socket, state_dir }
    }
}

/// Opens a channel to the server, starting one first when allowed and needed.
pub async fn connect(target: &Target, auto: AutoStart) -> CliResult<Channel> {
    if let Ok(channel) = signaltty_proto::connect(&target.socket).await {
        return Ok(channel);
    }
    match auto {
        AutoStart::No => Err(CliError::no_server(&target.socket)),
        AutoStart::Yes => {
            start_server(target).await?;
            signaltty_proto::connect(&target.socket)
                .await
                .map_err(|_| CliError::no_server(&target.socket))
        }
    }
}

/// Asks a channel for the server's status.
pub async fn status(channel: Channel) -> CliResult<pb::GetStatusResponse> {
    let mut client = ServerServiceClient::new(channel);
    Ok(client
        .get_status(pb::GetStatusRequest {})
        .await?
        .into_inner())
}

/// Starts a server on `target.socket` and waits until it answers `GetStatus`.
pub async fn start_server(target: &Target) -> CliResult<pb::GetStatusResponse> {
    let binary = find_server_binary()?;
    let mut command = Command::new(&binary);
    command.arg("--socket").arg(&target.socket);
    if let Some(dir) = &target.state_dir {
        command.arg("--state-dir").arg(dir);
    }
    // The server logs to its own file once running; what it says on stderr before that (a bad
    // flag, an unsafe socket directory) goes to an unlinked scratch file, read back if it dies.
    let early_stderr = ScratchFile::create();
    let stderr = match &early_stderr {
        Some(scratch) => scratch.stdio(),
        None => Stdio::null(),
    };
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        // Never pin the caller's directory (it may be unmounted later); paths are absolute.
        .current_dir("/")
        // A server started from inside a pane is not that pane's child in any sense.
        .env_remove("SIGNALTTY_PANE");
    sys::detach_into_new_session(&mut command);
    let mut child = command
        .spawn()
        .map_err(|err| CliError::local(format!("cannot start {}: {err}", binary.display())))?;
    wait_until_ready(target, &mut child, early_stderr, START_TIMEOUT).await
}

/// Polls, with a short backoff, until the server answers `GetStatus`, the child dies without a
/// server answering, or the timeout passes.
async fn wait_until_ready(
    target: &Target,
    child: &mut Child,
    early_stderr: Option<ScratchFile>,
    timeout: Duration,
) -> CliResult<pb::GetStatusResponse> {
    let deadline = Instant::now() + timeout;
    let mut delay = Duration::from_millis(5);
    loop {
        if let Ok(channel) = signaltty_proto::connect(&target.socket).await
            && let Ok(status) = status(channel).await
        {
            return Ok(status);
        }
        if let Ok(Some(exit)) = child.try_wait() {
            // Another client may have started a server at the same moment; ours then exits
            // because the socket is taken. One last look tells the two cases apart.
            if let Ok(channel) = signaltty_proto::connect(&target.socket).await
                && let Ok(status) = status(channel).await
            {
                return Ok(status);
            }
            let said = early_stderr.map(ScratchFile::read).unwrap_or_default();
            let said = said.trim();
            return Err(CliError::local(if said.is_empty() {
                format!(
                    "the server exited ({exit}) before answering on {}; see its log in its state directory",
                    target.socket.display()
                )
            } else {
                format!("the server exited ({exit}) before answering: {said}")
            }));
        }
        if Instant::now() >= deadline {
            return Err(CliError::with_reason(
                ErrorKind::NoServer,
                format!(
                    "started a server but it did not answer on {} within {}s",
                    target.socket.display(),
                    timeout.as_secs()
                ),
                "TIMEOUT",
            ));
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_millis(200));
    }
}

/// A file that exists only as an open descriptor: created private in the temp dir and unlinked
/// at once, so nothing is left behind whatever happens.
struct ScratchFile(std::fs::File);

impl ScratchFile {
    fn create() -> Option<ScratchFile> {
        use std::os::unix::fs::OpenOptionsExt;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path = std::env::temp_dir().join(format!(
            "signaltty-start-{}-{nanos}.err",
            std::process::id()
        ));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .ok()?;
        let _ = std::fs::remove_file(&path);
        Some(ScratchFile(file))
    }

    fn stdio(&self) -> Stdio {
        self.0
            .try_clone()
            .map(Stdio::from)
            .unwrap_or_else(|_| Stdio::null())
    }

    /// The last few lines written (the server's last words).
    fn read(self) -> String {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = self.0;
        let mut text = String::new();
        if file.seek(SeekFrom::Start(0)).is_ok() {
            let _ = file.take(64 * 1024).read_to_string(&mut text);
        }
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(3)..].join("; ")
    }
}

/// Polls until nothing accepts connections on the socket any more, or the timeout passes.
pub async fn wait_until_gone(socket: &Path, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    let mut delay = Duration::from_millis(5);
    loop {
        if signaltty_proto::connect(socket).await.is_err() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_millis(200));
    }
}

/// The server binary: `$SIGNALTTY_SERVER_BIN`, else next to this executable, else on `PATH`.
pub fn find_server_binary() -> CliResult<PathBuf> {
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf));
    locate_server_binary(
        std::env::var_os(SERVER_BIN_ENV),
        exe_dir.as_deref(),
        std::env::var_os("PATH"),
    )
    .ok_or_else(|| {
        CliError::local(format!(
            "cannot find {SERVER_BIN_NAME}: not next to this executable, not on PATH, and \
             ${SERVER_BIN_ENV} is not set"
        ))
    })
}

/// The lookup behind [`find_server_binary`], with its inputs explicit so it can be tested.
pub fn locate_server_binary(
    override_path: Option<OsString>,
    exe_dir: Option<&Path>,
    path_var: Option<OsString>,
) -> Option<PathBuf> {
    if let Some(path) = override_path.filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    if let Some(dir) = exe_dir {
        let sibling = dir.join(SERVER_BIN_NAME);
        if is_executable(&sibling) {
            return Some(sibling);
        }
    }
    let path_var = path_var?;
    std::env::split_paths(&path_var)
        .map(|dir| dir.join(SERVER_BIN_NAME))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// `path` made absolute against the current directory (without resolving symlinks).
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn make_executable(path: &Path) {
        std::fs::write(path, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    #[test]
    fn the_override_wins() {
        let found = locate_server_binary(Some("/opt/s".into()), None, None);
        assert_eq!(found, Some(PathBuf::from("/opt/s")));
    }

    #[test]
    fn a_sibling_binary_beats_path() {
        let exe_dir = tempfile::tempdir().expect("tempdir");
        let path_dir = tempfile::tempdir().expect("tempdir");
        make_executable(&exe_dir.path().join(SERVER_BIN_NAME));
        make_executable(&path_dir.path().join(SERVER_BIN_NAME));
        let found = locate_server_binary(
            None,
            Some(exe_dir.path()),
            Some(path_dir.path().as_os_str().to_owned()),
        );
        assert_eq!(found, Some(exe_dir.path().join(SERVER_BIN_NAME)));
    }

    #[test]
    fn path_is_searched_for_an_executable_file() {
        let empty = tempfile::tempdir().expect("tempdir");
        let not_exec = tempfile::tempdir().expect("tempdir");
        let good = tempfile::tempdir().expect("tempdir");
        std::fs::write(not_exec.path().join(SERVER_BIN_NAME), "x").expect("write");
        make_executable(&good.path().join(SERVER_BIN_NAME));
        let path_var =
            std::env::join_paths([empty.path(), not_exec.path(), good.path()]).expect("joinable");
        let found = locate_server_binary(None, Some(empty.path()), Some(path_var));
        assert_eq!(found, Some(good.path().join(SERVER_BIN_NAME)));
    }

    #[test]
    fn nothing_found_is_none() {
        let empty = tempfile::tempdir().expect("tempdir");
        let found = locate_server_binary(
            None,
            Some(empty.path()),
            Some(empty.path().as_os_str().into()),
        );
        assert_eq!(found, None);
    }

    #[tokio::test]
    async fn connect_without_autostart_reports_no_server() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = Target {
            socket: dir.path().join("s.sock"),
            state_dir: None,
        };
        let err = connect(&target, AutoStart::No)
            .await
            .expect_err("nothing listens");
        assert_eq!(err.exit_code(), 3);
        assert!(err.message.contains("no server running on"), "{err}");
    }
}
