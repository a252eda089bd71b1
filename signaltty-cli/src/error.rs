//! The CLI's one error type. Every failure carries a [`ErrorKind`] that alone decides the exit
//! code, so commands never pick exit codes themselves: 1 for errors the server reported (or local
//! failures), 2 for usage errors, 3 when no server is reachable.
//!
//! Printed as `error: <message> (<REASON>)`, where REASON is the server's stable reason
//! (`NO_SUCH_PANE`, `BAD_PARAMS`, …) or, failing that, the gRPC code name. Errors of the client
//! crate ([`ClientError`]) are mapped to a kind here, in one place.

use std::fmt;
use std::path::Path;

use signaltty_client::ClientError;

/// What kind of failure this is; decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The server answered with an error status.
    Server,
    /// Something failed on this side (I/O, a spawn, a malformed reply).
    Local,
    /// The command line or its input (a layout file, a detach key) is wrong.
    Usage,
    /// No server answers on the socket, or the connection was lost.
    NoServer,
}

impl ErrorKind {
    /// The process exit code for this kind.
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::Server | ErrorKind::Local => 1,
            ErrorKind::Usage => 2,
            ErrorKind::NoServer => 3,
        }
    }
}

/// An error that ends a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// Decides the exit code.
    pub kind: ErrorKind,
    /// What a person should read.
    pub message: String,
    /// A stable machine reason (`NO_SUCH_PANE`), when known.
    pub reason: Option<String>,
}

impl CliError {
    /// A usage error (exit code 2).
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            kind: ErrorKind::Usage,
            message: message.into(),
            reason: None,
        }
    }

    /// A local failure (exit code 1).
    pub fn local(message: impl Into<String>) -> Self {
        CliError {
            kind: ErrorKind::Local,
            message: message.into(),
            reason: None,
        }
    }

    /// No server answers on `socket` (exit code 3).
    pub fn no_server(socket: &Path) -> Self {
        CliError {
            kind: ErrorKind::NoServer,
            message: format!("no server running on {}", socket.display()),
            reason: None,
        }
    }

    /// A failure with an explicit reason (exit code from `kind`).
    pub fn with_reason(kind: ErrorKind, message: impl Into<String>, reason: &str) -> Self {
        CliError {
            kind,
            message: message.into(),
            reason: Some(reason.to_string()),
        }
    }

    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        self.kind.exit_code()
    }

    /// True for a write to a closed pipe (`signaltty events | head`): not worth reporting.
    pub fn is_broken_pipe(&self) -> bool {
        self.reason.as_deref() == Some("BROKEN_PIPE")
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.reason {
            Some(reason) => write!(f, "{} ({reason})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for CliError {}

impl From<ClientError> for CliError {
    fn from(err: ClientError) -> Self {
        let reason = Some(err.reason().to_string());
        let (kind, message) = match err {
            ClientError::Server { message, .. } => (ErrorKind::Server, message),
            // No server, or it went away mid-call: the same situation for a script.
            err @ (ClientError::NoServer { .. } | ClientError::Disconnected { .. }) => {
                (ErrorKind::NoServer, err.to_string())
            }
            // Started, but not answering in time: still nobody to talk to.
            err @ ClientError::Start {
                timed_out: true, ..
            } => (ErrorKind::NoServer, err.to_string()),
            err @ ClientError::NotATerminal(_) => (ErrorKind::Usage, err.to_string()),
            err @ (ClientError::Untrusted(_)
            | ClientError::Remote { .. }
            | ClientError::Start { .. }
            | ClientError::Io { .. }) => (ErrorKind::Local, err.to_string()),
        };
        // A plain "no server running" reads better without a reason in brackets, as before.
        let reason = if kind == ErrorKind::NoServer && reason.as_deref() == Some("NO_SERVER") {
            None
        } else {
            reason
        };
        CliError {
            kind,
            message,
            reason,
        }
    }
}

impl From<tonic::Status> for CliError {
    fn from(status: tonic::Status) -> Self {
        ClientError::from(status).into()
    }
}

impl From<std::io::Error> for CliError {
    fn from(err: std::io::Error) -> Self {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            return CliError::with_reason(ErrorKind::Local, "broken pipe", "BROKEN_PIPE");
        }
        CliError::local(err.to_string())
    }
}

impl From<serde_json::Error> for CliError {
    fn from(err: serde_json::Error) -> Self {
        CliError::local(format!("cannot encode JSON: {err}"))
    }
}

/// The result of a command.
pub type CliResult<T = ()> = Result<T, CliError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_kind() {
        assert_eq!(CliError::usage("x").exit_code(), 2);
        assert_eq!(CliError::no_server(Path::new("/s")).exit_code(), 3);
        assert_eq!(CliError::local("x").exit_code(), 1);
    }

    #[test]
    fn a_status_without_reason_shows_its_code_name() {
        let err = CliError::from(tonic::Status::not_found("no pane pane_x"));
        assert_eq!(err.kind, ErrorKind::Server);
        assert_eq!(err.to_string(), "no pane pane_x (NOT_FOUND)");
    }

    #[test]
    fn client_errors_map_to_exit_codes() {
        use signaltty_client::TrustError;
        let untrusted = ClientError::Untrusted(TrustError::NotADirectory {
            socket: "/d/s".into(),
            dir: "/d".into(),
        });
        let err = CliError::from(untrusted);
        assert_eq!(err.exit_code(), 1);
        assert_eq!(err.reason.as_deref(), Some("UNTRUSTED_SOCKET"));
        let err = CliError::from(ClientError::NotATerminal("stdin is not a terminal".into()));
        assert_eq!(err.exit_code(), 2);
        let err = CliError::from(ClientError::Start {
            message: "did not answer".into(),
            timed_out: true,
        });
        assert_eq!(err.exit_code(), 3);
        assert_eq!(err.to_string(), "did not answer (TIMEOUT)");
    }

    #[test]
    fn a_status_with_error_info_shows_the_reason() {
        use tonic_types::{ErrorDetails, StatusExt};
        let details = ErrorDetails::with_error_info(
            "NO_SUCH_WORKSPACE",
            "signaltty",
            std::collections::HashMap::new(),
        );
        let status =
            tonic::Status::with_error_details(tonic::Code::NotFound, "no workspace ws_x", details);
        let err = CliError::from(status);
        assert_eq!(err.to_string(), "no workspace ws_x (NO_SUCH_WORKSPACE)");
        assert_eq!(err.exit_code(), 1);
    }

    #[test]
    fn unavailable_means_no_server() {
        let err = CliError::from(tonic::Status::unavailable("transport error"));
        assert_eq!(err.exit_code(), 3);
    }

    #[test]
    fn no_server_names_the_socket() {
        let err = CliError::no_server(Path::new("/run/x.sock"));
        assert_eq!(err.to_string(), "no server running on /run/x.sock");
    }
}
