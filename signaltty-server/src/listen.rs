//! The Unix socket: a private directory (0700), the socket (0600), one server per socket, and a
//! peer-uid check on every connection.
//!
//! One-server-per-socket is decided by an exclusive `flock` on `<socket>.lock`, held for the
//! server's life: it is race-free (two servers starting at once cannot both win) and the kernel
//! drops it when a server dies, so a socket file left behind by a crash is known to be stale and
//! is replaced.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use futures_util::Stream;
use nix::fcntl::{Flock, FlockArg};
use signaltty_proto::QuietStream;
use tokio::net::UnixListener;

/// Why the socket could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ListenError {
    /// Another live server holds this socket.
    #[error(
        "a signaltty server is already running on {0}; stop it with `signaltty server stop` or use --socket"
    )]
    AlreadyRunning(PathBuf),
    /// The socket path does not fit in a sockaddr_un.
    #[error("socket path {0} is too long (max 107 bytes); choose a shorter --socket")]
    PathTooLong(PathBuf),
    /// The directory is not ours or cannot be made private.
    #[error("socket directory {path} is unsafe: {why}")]
    UnsafeDir {
        /// The directory.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// An OS call failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        source: io::Error,
    },
}

fn io_err(context: impl Into<String>) -> impl FnOnce(io::Error) -> ListenError {
    let context = context.into();
    move |source| ListenError::Io { context, source }
}

/// Creates `dir` with mode 0700 (parents too), or checks that an existing one is ours and private.
pub fn private_dir(dir: &Path) -> Result<(), ListenError> {
    match fs::metadata(dir) {
        Ok(meta) => {
            if !meta.is_dir() {
                return Err(ListenError::UnsafeDir {
                    path: dir.to_path_buf(),
                    why: "it is not a directory".into(),
                });
            }
            if meta.uid() != nix::unistd::getuid().as_raw() {
                return Err(ListenError::UnsafeDir {
                    path: dir.to_path_buf(),
                    why: format!("it belongs to uid {}, not to us", meta.uid()),
                });
            }
            // Never chmod an existing directory: it may be shared (e.g. /tmp). Refuse instead.
            if meta.mode() & 0o077 != 0 {
                return Err(ListenError::UnsafeDir {
                    path: dir.to_path_buf(),
                    why: format!(
                        "its mode is {:o}; it must be private (chmod 700) or choose another --socket",
                        meta.mode() & 0o777
                    ),
                });
            }
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(io_err(format!("creating {}", dir.display()))),
        Err(e) => Err(io_err(format!("inspecting {}", dir.display()))(e)),
    }
}

/// A bound socket plus the lock that makes it ours.
#[derive(Debug)]
pub struct Bound {
    /// The listener.
    pub listener: UnixListener,
    /// The socket path.
    pub path: PathBuf,
    /// Held for the server's life; dropping it lets another server take the socket.
    pub lock: Flock<File>,
}

/// Takes the socket: private dir, exclusive lock, stale file removed, bound, chmod 0600.
pub fn bind(path: &Path) -> Result<Bound, ListenError> {
    if path.as_os_str().len() > 107 {
        return Err(ListenError::PathTooLong(path.to_path_buf()));
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    private_dir(dir)?;
    let lock_path = PathBuf::from(format!("{}.lock", path.display()));
    let lock_file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&lock_path)
        .map_err(io_err(format!("opening {}", lock_path.display())))?;
    let lock = Flock::lock(lock_file, FlockArg::LockExclusiveNonblock)
        .map_err(|_| ListenError::AlreadyRunning(path.to_path_buf()))?;
    // We hold the lock, so any socket file here was left by a server that died.
    match fs::remove_file(path) {
        Ok(()) => tracing::info!(socket = %path.display(), "replaced a stale socket file"),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(format!("removing stale {}", path.display()))(e)),
    }
    let listener =
        UnixListener::bind(path).map_err(io_err(format!("binding {}", path.display())))?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o600))
        .map_err(io_err(format!("chmod 0600 {}", path.display())))?;
    Ok(Bound {
        listener,
        path: path.to_path_buf(),
        lock,
    })
}

/// Accepted connections whose peer runs as our uid. Others are dropped (and logged) before any
/// byte is read from them, even if the socket's permissions were loosened.
pub fn incoming(listener: UnixListener) -> impl Stream<Item = io::Result<QuietStream>> {
    let me = nix::unistd::getuid().as_raw();
    futures_util::stream::unfold(listener, move |listener| async move {
        loop {
            match listener.accept().await {
                Ok((stream, _)) => match stream.peer_cred() {
                    Ok(cred) if cred.uid() == me => {
                        return Some((QuietStream::from_tokio(stream), listener));
                    }
                    Ok(cred) => {
                        tracing::warn!(uid = cred.uid(), "refused a connection from another user")
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "refused a connection without peer credentials")
                    }
                },
                Err(e) => {
                    // Transient accept errors (EMFILE, ECONNABORTED) must not end the server.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::task::yield_now().await;
                }
            }
        }
    })
}
