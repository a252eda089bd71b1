//! Servers on other machines, reached through the system `ssh` (issue 33).
//!
//! No listener of our own: `ssh [options] host <command> bridge` runs `signaltty bridge` on the
//! other machine as the remote user; the bridge connects to (and if needed starts) that user's
//! server on its Unix socket, with the same trust checks as any local client, and then copies
//! bytes between its stdin/stdout and the socket. The local side hands the ssh child's pipes to
//! tonic as one duplex stream ([`ssh::SshIo`]), so every RPC, stream and attach runs over the
//! SSH channel unchanged.
//!
//! ```text
//!  local client ─ h2 ─▶ ssh ══ SSH ══▶ sshd ─▶ signaltty bridge ─▶ remote server's socket
//! ```
//!
//! Before any byte of HTTP/2 the bridge prints one line, [`handshake_line`]; the client checks
//! it ([`check_handshake`]) so a version mismatch or a missing binary is a clear error naming
//! both ends, not an h2 protocol error.

pub mod handshake;
pub mod ssh;

pub use handshake::{BRIDGE_PROTOCOL, check_handshake, handshake_line};
pub use ssh::{Remote, connect_remote};
