//! Servers on other machines, reached through the system `ssh` (issue 33).
//!
//! The transport — `ssh host <command> bridge`, the bridge's handshake line, the ssh child's
//! pipes as one byte stream — is the crate `signaltty-link`, shared with the server (which
//! forwards a local client's calls to a remote machine). This module adds what only clients
//! need: a [`Client`](crate::client::Client) over a link ([`connect_remote`]) whose tonic
//! connector runs `ssh` again whenever the connection broke, and errors as [`ClientError`]s.
//!
//! ```text
//!  local client ─ h2 ─▶ ssh ══ SSH ══▶ sshd ─▶ signaltty bridge ─▶ remote server's socket
//! ```
//!
//! [`ClientError`]: crate::ClientError

pub mod ssh;

pub use signaltty_link::{
    BRIDGE_PROTOCOL, HANDSHAKE_TIMEOUT, Remote, SSH_ENV, SshIo, check_handshake, handshake_line,
};
pub use ssh::{connect_remote, open_link};
