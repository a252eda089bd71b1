//! The link to another machine's signaltty server (issue 33): the system `ssh` runs
//! `signaltty bridge` there, and the ssh child's stdin/stdout carry one gRPC connection.
//!
//! No listener of our own: `ssh [options] host <command> bridge` runs `signaltty bridge` on the
//! other machine as the remote user; the bridge connects to (and if needed starts) that user's
//! server on its Unix socket, with the same trust checks as any local client, and then copies
//! bytes between its stdin/stdout and the socket. [`open_link`] hands the ssh child's pipes over
//! as one duplex stream ([`SshIo`]), so every RPC, stream and attach runs over the SSH channel
//! unchanged.
//!
//! ```text
//!  client or local server ─ h2 ─▶ ssh ══ SSH ══▶ sshd ─▶ signaltty bridge ─▶ remote server
//! ```
//!
//! Before any byte of HTTP/2 the bridge prints one line, [`handshake_line`]; [`open_link`]
//! checks it ([`check_handshake`]) so a version mismatch or a missing binary is a clear error
//! naming both ends, not an h2 protocol error.
//!
//! Two users: `signaltty-client` (`--remote NAME`, each CLI call its own link) and the server's
//! machine table (`signaltty-server/src/machines/`, one shared link per remote for every local
//! client). A crate of its own so that the server needs no client code: it depends on tokio and
//! nix only.

pub mod handshake;
pub mod ssh;

pub use handshake::{BRIDGE_PROTOCOL, check_handshake, handshake_line};
pub use ssh::{HANDSHAKE_TIMEOUT, Remote, SHARE_FOR, SSH_ENV, SshIo, open_link};

/// Why a link could not be opened: which remote, a stable reason, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LinkError {
    /// The remote's name.
    pub remote: String,
    /// `REMOTE_UNREACHABLE`, `REMOTE_BINARY_MISSING`, `REMOTE_TIMEOUT`, `BRIDGE_VERSION`,
    /// `BRIDGE_HANDSHAKE`, `SSH_NOT_FOUND`.
    pub reason: &'static str,
    /// What happened and what to do.
    pub message: String,
}
