//! The Unix socket: a private directory (0700), the socket (0600), one server per socket, and a
//! peer-uid check on every connection, with the peer's place (inside a pane or not) attached.
//!
//! One-server-per-socket is decided by an exclusive `flock` on `<socket>.lock`, held for the
//! server's life: it is race-free (two servers starting at once cannot both win) and the kernel
//! drops it when a server dies, so a socket file left behind by a crash is known to be stale and
//! is replaced.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::Stream;
use nix::fcntl::{Flock, FlockArg};
use signaltty_proto::QuietStream;
use tokio::net::UnixListener;

use crate::log_limit::{self, LogLimit};
use crate::peer::{Origin, PeerStream, identify};

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
    /// The socket's directory is not ours or cannot be made private.
    #[error("socket directory {path} is unsafe: {why}, or choose another --socket")]
    UnsafeDir {
        /// The directory.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The state directory (snapshot, tails, log) is not ours or not private.
    #[error(
        "state directory {path} is unsafe: {why}, or choose another one (--state-dir; \
         SIGNALTTY_STATE_DIR for a server the CLI starts)"
    )]
    UnsafeStateDir {
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
                        "its mode is {:o}; it must be private (chmod 700 {})",
                        meta.mode() & 0o777,
                        dir.display()
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

/// [`private_dir`] for the state directory: the same checks, an error that names it as such.
pub fn private_state_dir(dir: &Path) -> Result<(), ListenError> {
    private_dir(dir).map_err(|err| match err {
        ListenError::UnsafeDir { path, why } => ListenError::UnsafeStateDir { path, why },
        other => other,
    })
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
    let listener = bind_held(path)?;
    Ok(Bound {
        listener,
        path: path.to_path_buf(),
        lock,
    })
}

/// Binds `path` (mode 0600), replacing a socket file left there by a server that died. Only
/// for a path whose lock the caller holds: the main socket's, or a socket beside it (the
/// terminal hand-off's) while the main socket's lock is held.
pub fn bind_held(path: &Path) -> Result<UnixListener, ListenError> {
    if path.as_os_str().len() > 107 {
        return Err(ListenError::PathTooLong(path.to_path_buf()));
    }
    match fs::remove_file(path) {
        Ok(()) => tracing::info!(socket = %path.display(), "replaced a stale socket file"),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(format!("removing stale {}", path.display()))(e)),
    }
    let listener =
        UnixListener::bind(path).map_err(io_err(format!("binding {}", path.display())))?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o600))
        .map_err(io_err(format!("chmod 0600 {}", path.display())))?;
    Ok(listener)
}

/// First pause after `accept` fails for lack of descriptors or memory; doubled on each failure.
const BACKOFF_START: Duration = Duration::from_millis(5);
/// Longest pause between accept attempts while descriptors are exhausted.
pub const BACKOFF_MAX: Duration = Duration::from_secs(1);

/// Whether an accept error means "out of a resource": retrying at once would spin.
fn is_exhaustion(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

/// Live connections, counted so that past a cap new ones are refused clearly.
#[derive(Clone, Debug, Default)]
pub struct Connections(Arc<AtomicUsize>);

impl Connections {
    /// How many connections are open now.
    pub fn open(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    /// Counts one more connection (a gRPC one, or a terminal handed over): its slot, and how
    /// many are open with it.
    pub fn take(&self) -> (ConnectionSlot, usize) {
        let open = self.0.fetch_add(1, Ordering::Relaxed) + 1;
        (ConnectionSlot(Arc::clone(&self.0)), open)
    }
}

/// What a client past the cap is told (reason `TOO_MANY_CONNECTIONS`), over gRPC or on the
/// hand-off socket.
pub fn over_cap_message(cap: usize) -> String {
    format!("the server has {cap} connections open, its limit; close idle clients and retry")
}

/// Logs (rate-limited by `log`) that `open` connections passed the cap `max`; the same line for
/// a gRPC connection and a terminal hand-off.
pub fn warn_over_cap(log: &mut LogLimit, open: usize, max: usize) {
    if let Some(n) = log.allow() {
        tracing::warn!(
            open,
            max,
            suppressed = n,
            "too many connections; refusing calls on new ones"
        );
    }
}

/// Held by a connection for its life; decrements the count on drop.
#[derive(Debug)]
pub struct ConnectionSlot(Arc<AtomicUsize>);

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What bounds the accepted connections.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The count of connections that completed the HTTP/2 preface.
    pub connections: Connections,
    /// Past this many, calls on a new connection are refused.
    pub max_connections: usize,
    /// A connection silent for this long after accept, before its preface, is closed.
    pub preface_timeout: Duration,
}

struct Acceptor<F> {
    listener: UnixListener,
    classify: F,
    limits: Limits,
    backoff: Duration,
    exhausted_log: LogLimit,
    other_log: LogLimit,
    refused_log: LogLimit,
}

/// Accepted connections whose peer runs as our uid, each with its [`Peer`] (classified by
/// `classify`, given the peer's pid). Others are dropped (and logged, rate-limited) before any
/// byte is read from them, even if the socket's permissions were loosened. When `accept` fails
/// for lack of descriptors it backs off (5 ms doubling up to [`BACKOFF_MAX`]) and logs at most
/// once per 10 s; past `max_connections` open connections, a new one is still accepted but marked
/// over the cap, and every call on it is refused with RESOURCE_EXHAUSTED (see `rpc::limits`).
/// Only connections that sent the HTTP/2 preface count as open; one that stays silent for
/// `preface_timeout` is closed (`PeerStream`), so connections that never speak cannot fill the
/// cap and lock out the clients that do.
pub fn incoming<F, Fut>(
    listener: UnixListener,
    classify: F,
    limits: Limits,
) -> impl Stream<Item = io::Result<PeerStream>>
where
    F: Fn(u32) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Origin> + Send,
{
    let me = nix::unistd::getuid().as_raw();
    let acceptor = Acceptor {
        listener,
        classify,
        limits,
        backoff: BACKOFF_START,
        exhausted_log: LogLimit::new(log_limit::DEFAULT_EVERY),
        other_log: LogLimit::new(log_limit::DEFAULT_EVERY),
        refused_log: LogLimit::new(log_limit::DEFAULT_EVERY),
    };
    futures_util::stream::unfold(acceptor, move |mut a| async move {
        loop {
            match a.listener.accept().await {
                Ok((stream, _)) => {
                    a.backoff = BACKOFF_START;
                    match stream.peer_cred() {
                        Ok(cred) if cred.uid() == me => {
                            let mut peer = identify(&stream, &a.classify).await;
                            let open = a.limits.connections.open() + 1;
                            let max = a.limits.max_connections;
                            if open > max {
                                peer.over_cap = Some(max);
                                warn_over_cap(&mut a.refused_log, open, max);
                            }
                            let stream = match QuietStream::from_tokio(stream) {
                                Ok(s) => s,
                                Err(e) => {
                                    if let Some(n) = a.other_log.allow() {
                                        tracing::warn!(error = %e, suppressed = n, "cannot set up an accepted connection");
                                    }
                                    continue;
                                }
                            };
                            let stream = PeerStream::new(
                                stream,
                                peer,
                                a.limits.connections.clone(),
                                a.limits.preface_timeout,
                            );
                            return Some((Ok(stream), a));
                        }
                        Ok(cred) => {
                            if let Some(n) = a.refused_log.allow() {
                                tracing::warn!(
                                    uid = cred.uid(),
                                    suppressed = n,
                                    "refused a connection from another user"
                                );
                            }
                        }
                        Err(e) => {
                            if let Some(n) = a.refused_log.allow() {
                                tracing::warn!(error = %e, suppressed = n, "refused a connection without peer credentials");
                            }
                        }
                    }
                }
                Err(e) if is_exhaustion(&e) => {
                    // Out of descriptors: the pending connection stays in the backlog, so an
                    // immediate retry fails the same way. Wait, longer each time, bounded.
                    if let Some(n) = a.exhausted_log.allow() {
                        tracing::warn!(error = %e, suppressed = n, retry_in_ms = a.backoff.as_millis() as u64, "accept failed: out of descriptors; backing off");
                    }
                    tokio::time::sleep(a.backoff).await;
                    a.backoff = (a.backoff * 2).min(BACKOFF_MAX);
                }
                Err(e) => {
                    // Transient accept errors (ECONNABORTED) must not end the server.
                    if let Some(n) = a.other_log.allow() {
                        tracing::warn!(error = %e, suppressed = n, "accept failed");
                    }
                    tokio::task::yield_now().await;
                }
            }
        }
    })
}
