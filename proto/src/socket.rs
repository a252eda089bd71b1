//! Where the server's socket lives and how a client reaches it.
//!
//! `$SIGNALTTY_SOCKET` wins; else `$XDG_RUNTIME_DIR/signaltty/signaltty.sock`; else
//! `/tmp/signaltty-$UID/signaltty.sock`. The directory is created 0700 by the server.

use std::path::{Path, PathBuf};

use tonic::transport::{Channel, Endpoint, Uri};

/// Environment variable that overrides the socket path (also set in every pane's child).
pub const SOCKET_ENV: &str = "SIGNALTTY_SOCKET";

/// The directory that holds the default socket.
pub fn default_socket_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir).join("signaltty"),
        _ => PathBuf::from(format!("/tmp/signaltty-{}", current_uid())),
    }
}

/// The default socket path, ignoring `$SIGNALTTY_SOCKET`.
pub fn default_socket_path() -> PathBuf {
    default_socket_dir().join("signaltty.sock")
}

/// The socket to use: an explicit `--socket`, else `$SIGNALTTY_SOCKET`, else the default.
pub fn resolve_socket_path(explicit: Option<&Path>) -> PathBuf {
    if let Some(path) = explicit {
        return path.to_path_buf();
    }
    match std::env::var_os(SOCKET_ENV) {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => default_socket_path(),
    }
}

/// Opens a tonic channel to the server listening on `socket`. Fails fast (no retry) when nothing
/// listens there, so callers can decide to start a server. It checks nothing about who serves
/// the socket: clients use `signaltty_client::connect`, which refuses a squatted socket first;
/// this bare form is for tests and benchmarks that start their own server.
pub async fn connect(socket: impl AsRef<Path>) -> Result<Channel, tonic::transport::Error> {
    let socket = socket.as_ref().to_path_buf();
    // The URI is never used to route: every connection goes to the socket.
    Endpoint::from_static("http://signaltty.local")
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let socket = socket.clone();
            async move {
                let stream = tokio::net::UnixStream::connect(socket).await?;
                let stream = crate::QuietStream::from_tokio(stream)?;
                Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(stream))
            }
        }))
        .await
}

fn current_uid() -> u32 {
    // Read from /proc rather than calling getuid(), which would need unsafe or libc here.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("Uid:"))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|uid| uid.parse().ok())
        })
        .unwrap_or(0)
}
