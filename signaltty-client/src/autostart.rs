//! Starting a server when nobody answers, like tmux: the server binary is started detached (its
//! own session, stdio on /dev/null; it logs to its own file) and we poll, with a short backoff up
//! to [`START_TIMEOUT`], until `GetStatus` answers.
//!
//! The server binary is the target's `server_bin` when given, else `$SIGNALTTY_SERVER_BIN` when
//! set, else `signaltty-server` next to this executable, else `signaltty-server` on `PATH`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use signaltty_proto::v1 as pb;

use crate::connect::{STOP_TIMEOUT, Target, try_connect};
use crate::error::ClientError;
use crate::server_lock::{self, LockState};
use crate::sys;

/// Environment variable naming the server binary to start.
pub const SERVER_BIN_ENV: &str = "SIGNALTTY_SERVER_BIN";
/// The server binary's file name.
pub const SERVER_BIN_NAME: &str = "signaltty-server";
/// How long a started server may take to answer `GetStatus`.
pub const START_TIMEOUT: Duration = Duration::from_secs(15);

/// Starts a server on `target.socket` and waits until it answers `GetStatus`.
pub async fn start_server(target: &Target) -> Result<pb::GetStatusResponse, ClientError> {
    if let Some(status) = wait_for_a_stopping_server(target).await? {
        return Ok(status);
    }
    let binary = match &target.server_bin {
        Some(binary) => binary.clone(),
        None => find_server_binary()?,
    };
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
    let mut child = command.spawn().map_err(|err| ClientError::Start {
        message: format!("cannot start {}: {err}", binary.display()),
        timed_out: false,
    })?;
    wait_until_ready(target, &mut child, early_stderr, START_TIMEOUT).await
}

/// A server that is stopping no longer answers but holds the socket's lock for a moment longer
/// (see [`crate::server_lock`]); a server started then would refuse ("already running"). Waits,
/// up to [`STOP_TIMEOUT`], until the lock is free, or until a server answers after all (one
/// another client was starting): then that server's status.
async fn wait_for_a_stopping_server(
    target: &Target,
) -> Result<Option<pb::GetStatusResponse>, ClientError> {
    let deadline = Instant::now() + STOP_TIMEOUT;
    let mut delay = Duration::from_millis(5);
    while server_lock::state(&target.socket) == LockState::Held && Instant::now() < deadline {
        if let Some(status) = answer(&target.socket).await? {
            return Ok(Some(status));
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_millis(100));
    }
    Ok(None)
}

/// Polls, with a short backoff, until the server answers `GetStatus`, the child dies without a
/// server answering, or the timeout passes. An untrusted socket ends the wait at once.
async fn wait_until_ready(
    target: &Target,
    child: &mut Child,
    early_stderr: Option<ScratchFile>,
    timeout: Duration,
) -> Result<pb::GetStatusResponse, ClientError> {
    let deadline = Instant::now() + timeout;
    let mut delay = Duration::from_millis(5);
    loop {
        if let Some(status) = answer(&target.socket).await? {
            return Ok(status);
        }
        if let Ok(Some(exit)) = child.try_wait() {
            // Another client may have started a server at the same moment; ours then exits
            // because the socket is taken. One last look tells the two cases apart.
            if let Some(status) = answer(&target.socket).await? {
                return Ok(status);
            }
            let said = early_stderr.map(ScratchFile::read).unwrap_or_default();
            let said = said.trim();
            return Err(ClientError::Start {
                message: if said.is_empty() {
                    format!(
                        "the server exited ({exit}) before answering on {}; see its log in its state directory",
                        target.socket.display()
                    )
                } else {
                    format!("the server exited ({exit}) before answering:\n  {said}")
                },
                timed_out: false,
            });
        }
        if Instant::now() >= deadline {
            return Err(ClientError::Start {
                message: format!(
                    "started a server but it did not answer on {} within {}s",
                    target.socket.display(),
                    timeout.as_secs()
                ),
                timed_out: true,
            });
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_millis(200));
    }
}

/// The server's status if a trusted server answers on `socket`, `None` if none answers (yet).
async fn answer(socket: &Path) -> Result<Option<pb::GetStatusResponse>, ClientError> {
    match try_connect(socket).await {
        Ok(client) => Ok(client.status().await.ok()),
        Err(err @ ClientError::Untrusted(_)) => Err(err),
        Err(_) => Ok(None),
    }
}

/// At most this many lines of what a server said before dying are shown.
const MAX_LAST_WORDS: usize = 100;

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

    /// What the server wrote before it died, every line of it up to [`MAX_LAST_WORDS`] (a config
    /// file with many mistakes lists each one; none may be dropped), each on a line of its own.
    fn read(self) -> String {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = self.0;
        let mut text = String::new();
        if file.seek(SeekFrom::Start(0)).is_ok() {
            let _ = file.take(64 * 1024).read_to_string(&mut text);
        }
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let shown = &lines[lines.len().saturating_sub(MAX_LAST_WORDS)..];
        let mut said = shown.join("\n  ");
        if lines.len() > shown.len() {
            said = format!(
                "({} earlier lines left out)\n  {said}",
                lines.len() - shown.len()
            );
        }
        said
    }
}

/// The server binary: `$SIGNALTTY_SERVER_BIN`, else next to this executable, else on `PATH`.
pub fn find_server_binary() -> Result<PathBuf, ClientError> {
    let exe_dir = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf));
    locate_server_binary(
        std::env::var_os(SERVER_BIN_ENV),
        exe_dir.as_deref(),
        std::env::var_os("PATH"),
    )
    .ok_or_else(|| ClientError::Start {
        message: format!(
            "cannot find {SERVER_BIN_NAME}: not next to this executable, not on PATH, and \
             ${SERVER_BIN_ENV} is not set"
        ),
        timed_out: false,
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
}
