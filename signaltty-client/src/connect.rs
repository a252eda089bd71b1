//! Reaching the server: which socket ([`Target`]), a trusted connection to it ([`try_connect`]),
//! and starting a server when nobody answers ([`connect`] with [`AutoStart::Yes`], like tmux).
//!
//! Every connection is checked before its first RPC ([`crate::trust`]): the socket's directory
//! must be ours and private, and the process serving it must run as our uid. An untrusted socket
//! is an error of its own ([`ClientError::Untrusted`]), never "no server" — a client must not
//! start a server (or retry) against a squatter.
//!
//! `$SIGNALTTY_STATE_DIR` is passed to a server this client starts as `--state-dir`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::net::UnixStream;
use tonic::transport::{Endpoint, Uri};

use crate::client::Client;
use crate::error::ClientError;
use crate::trust::{self, DirState};

/// Environment variable naming the state directory for a server this client starts.
pub const STATE_DIR_ENV: &str = "SIGNALTTY_STATE_DIR";
/// How long `server stop` waits for the server to stop answering and let go of the socket.
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The socket path, absolute.
    pub socket: PathBuf,
    /// The state directory to give a server we start, if any.
    pub state_dir: Option<PathBuf>,
    /// The server binary to start; `None` looks it up (see [`crate::autostart`]).
    pub server_bin: Option<PathBuf>,
}

impl Target {
    /// A target for `socket` (made absolute), with no state directory and the server binary
    /// looked up.
    pub fn new(socket: impl AsRef<Path>) -> Self {
        Target {
            socket: absolute(socket.as_ref()),
            state_dir: None,
            server_bin: None,
        }
    }

    /// The target for an explicit `--socket`, else `$SIGNALTTY_SOCKET`, else the default socket;
    /// the state directory from `$SIGNALTTY_STATE_DIR`.
    pub fn resolve(explicit: Option<&Path>) -> Self {
        let socket = absolute(&signaltty_proto::resolve_socket_path(explicit));
        let state_dir = std::env::var_os(STATE_DIR_ENV)
            .filter(|d| !d.is_empty())
            .map(|d| absolute(Path::new(&d)));
        Target {
            socket,
            state_dir,
            server_bin: None,
        }
    }
}

/// Connects to the server on `target`, starting one first when allowed and nobody answers.
pub async fn connect(target: &Target, auto: AutoStart) -> Result<Client, ClientError> {
    match try_connect(&target.socket).await {
        Err(ClientError::NoServer { .. }) => {}
        done => return done,
    }
    match auto {
        AutoStart::No => Err(ClientError::NoServer {
            socket: target.socket.clone(),
        }),
        AutoStart::Yes => {
            crate::autostart::start_server(target).await?;
            try_connect(&target.socket).await
        }
    }
}

/// Connects to the server on `socket` once, without starting one: the trust checks, then the
/// connection. Fails fast with [`ClientError::NoServer`] when nothing listens.
pub async fn try_connect(socket: &Path) -> Result<Client, ClientError> {
    let stream = trusted_stream(socket).await?;
    // Tonic asks the connector for a connection now and again whenever the connection breaks;
    // the first time it gets the stream checked above, later ones are checked the same way.
    let first = Arc::new(Mutex::new(Some(stream)));
    let path = socket.to_path_buf();
    let channel = Endpoint::from_static("http://signaltty.local")
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let first = first
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .take();
            let path = path.clone();
            async move {
                let stream = match first {
                    Some(stream) => stream,
                    None => trusted_stream(&path).await.map_err(std::io::Error::other)?,
                };
                let stream = signaltty_proto::QuietStream::from_tokio(stream)?;
                Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(stream))
            }
        }))
        .await
        .map_err(|_| ClientError::NoServer {
            socket: socket.to_path_buf(),
        })?;
    Ok(Client::new(channel, socket.to_path_buf()))
}

/// A connected stream to `socket` whose directory and peer passed the trust checks.
pub async fn trusted_stream(socket: &Path) -> Result<UnixStream, ClientError> {
    let no_server = || ClientError::NoServer {
        socket: socket.to_path_buf(),
    };
    if trust::check_dir(socket)? == DirState::Missing {
        return Err(no_server());
    }
    let stream = UnixStream::connect(socket).await.map_err(|_| no_server())?;
    trust::check_peer(&stream, socket)?;
    Ok(stream)
}

/// Polls until nothing accepts connections on the socket any more and the server has let go
/// of the socket's lock (so a new server can start there: see [`crate::server_lock`]), or the
/// timeout passes.
pub async fn wait_until_gone(socket: &Path, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    let mut delay = Duration::from_millis(5);
    loop {
        if UnixStream::connect(socket).await.is_err() {
            break;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_millis(200));
    }
    let left = deadline.saturating_duration_since(Instant::now());
    crate::server_lock::wait_until_free(socket, left).await
}

/// `path` made absolute against the current directory (without resolving symlinks).
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A temp dir the trust checks accept (tempfile makes them 0755 under a 022 umask).
    pub(crate) fn private_tempdir() -> tempfile::TempDir {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("chmod 700");
        dir
    }

    #[tokio::test]
    async fn connect_without_autostart_reports_no_server() {
        let dir = private_tempdir();
        let target = Target::new(dir.path().join("s.sock"));
        let err = connect(&target, AutoStart::No)
            .await
            .expect_err("nothing listens");
        assert!(matches!(err, ClientError::NoServer { .. }), "{err:?}");
        assert!(err.to_string().contains("no server running on"), "{err}");
    }

    #[tokio::test]
    async fn a_missing_directory_is_no_server() {
        let dir = private_tempdir();
        let socket = dir.path().join("nope").join("s.sock");
        let err = try_connect(&socket).await.expect_err("nothing there");
        assert!(matches!(err, ClientError::NoServer { .. }), "{err:?}");
    }

    #[test]
    fn targets_are_absolute() {
        let target = Target::resolve(Some(Path::new("rel/s.sock")));
        assert!(target.socket.is_absolute(), "{:?}", target.socket);
        assert!(target.socket.ends_with("rel/s.sock"));
    }
}
