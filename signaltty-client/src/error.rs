//! The one error type of the client crate: what went wrong talking to the server, with the
//! server's own words when it answered.
//!
//! A status from the server keeps its gRPC code, its message and its stable reason (the
//! `google.rpc.ErrorInfo` reason, e.g. `NO_SUCH_PANE`), so a client can decide by reason and
//! show the message. Everything else says which socket and what to do. Clients map the variants
//! to their own conventions (the CLI to exit codes, the TUI to a toast or a reconnect).

use std::io;
use std::path::PathBuf;

use tonic::Code;

use crate::trust::TrustError;

/// Why a call to the server, or reaching it, failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server answered with an error status.
    #[error("{message} ({})", .reason.as_deref().unwrap_or_else(|| code_name(*.code)))]
    Server {
        /// The gRPC code.
        code: Code,
        /// The stable reason from the status's ErrorInfo (`NO_SUCH_PANE`, `BAD_PARAMS`, …), if
        /// the server gave one.
        reason: Option<String>,
        /// What the server said (or the code's description when it said nothing).
        message: String,
    },
    /// Nothing accepts connections on the socket.
    #[error("no server running on {}", .socket.display())]
    NoServer {
        /// The socket tried.
        socket: PathBuf,
    },
    /// The connection broke during a call or a stream (the server went away).
    #[error("lost the connection to the server: {detail}")]
    Disconnected {
        /// What the transport said.
        detail: String,
    },
    /// The socket, or the process serving it, is not the user's own: refused before any RPC.
    #[error(transparent)]
    Untrusted(#[from] TrustError),
    /// Starting a server failed (binary not found, it exited before answering, or it did not
    /// answer in time).
    #[error("{message}")]
    Start {
        /// What happened, with the server's last words when it said any.
        message: String,
        /// `TIMEOUT` when the server started but did not answer in time.
        timed_out: bool,
    },
    /// A remote machine could not be reached through `ssh` and its bridge (see
    /// [`crate::remote`]): ssh failed, signaltty is missing there, or another version answered.
    #[error("{message}")]
    Remote {
        /// The remote's name.
        remote: String,
        /// `REMOTE_UNREACHABLE`, `REMOTE_BINARY_MISSING`, `BRIDGE_VERSION`, ….
        reason: &'static str,
        /// What happened and what to do.
        message: String,
    },
    /// The local terminal cannot be used (stdin is not a terminal).
    #[error("{0}")]
    NotATerminal(String),
    /// A local system call failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        #[source]
        source: io::Error,
    },
}

impl ClientError {
    /// An I/O failure while doing `context`.
    pub fn io(context: impl Into<String>) -> impl FnOnce(io::Error) -> ClientError {
        let context = context.into();
        move |source| ClientError::Io { context, source }
    }

    /// The stable reason: the server's, else the gRPC code name for a status, else a name for
    /// the local failure (`NO_SERVER`, `UNTRUSTED_SOCKET`, …).
    pub fn reason(&self) -> &str {
        match self {
            ClientError::Server { code, reason, .. } => {
                reason.as_deref().unwrap_or_else(|| code_name(*code))
            }
            ClientError::NoServer { .. } => "NO_SERVER",
            ClientError::Disconnected { .. } => "UNAVAILABLE",
            ClientError::Untrusted(_) => "UNTRUSTED_SOCKET",
            ClientError::Start {
                timed_out: true, ..
            } => "TIMEOUT",
            ClientError::Start { .. } => "START_FAILED",
            ClientError::NotATerminal(_) => "NOT_A_TERMINAL",
            ClientError::Remote { reason, .. } => reason,
            ClientError::Io { .. } => "IO",
        }
    }

    /// The gRPC code of a server error.
    pub fn code(&self) -> Option<Code> {
        match self {
            ClientError::Server { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// True when trying again later may succeed: no server yet, or the connection broke. A
    /// server's refusal or an untrusted socket stays what it is.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            ClientError::NoServer { .. } | ClientError::Disconnected { .. }
        )
    }
}

impl From<tonic::Status> for ClientError {
    fn from(status: tonic::Status) -> Self {
        let reason = signaltty_proto::error_reason(&status);
        // A transport failure surfaces as UNAVAILABLE without a signaltty reason, or (a stream
        // cut mid-body: "h2 protocol error") as a status tonic made locally from the transport's
        // error, which it keeps as the source; a status the server sent never has one. Either
        // way the server went away mid-call.
        let local = std::error::Error::source(&status).is_some();
        if reason.is_none() && (status.code() == Code::Unavailable || local) {
            return ClientError::Disconnected {
                detail: status.message().to_string(),
            };
        }
        let message = if status.message().is_empty() {
            status.code().description().to_string()
        } else {
            status.message().to_string()
        };
        ClientError::Server {
            code: status.code(),
            reason,
            message,
        }
    }
}

/// The canonical upper-case name of a gRPC code, used when the server gave no reason.
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_status_without_reason_shows_its_code_name() {
        let err = ClientError::from(tonic::Status::not_found("no pane pane_x"));
        assert_eq!(err.code(), Some(Code::NotFound));
        assert_eq!(err.reason(), "NOT_FOUND");
        assert_eq!(err.to_string(), "no pane pane_x (NOT_FOUND)");
    }

    #[test]
    fn a_status_with_error_info_keeps_reason_code_and_message() {
        use tonic_types::{ErrorDetails, StatusExt};
        let details = ErrorDetails::with_error_info(
            "NO_SUCH_WORKSPACE",
            "signaltty",
            std::collections::HashMap::new(),
        );
        let status =
            tonic::Status::with_error_details(Code::NotFound, "no workspace ws_x", details);
        let err = ClientError::from(status);
        let ClientError::Server {
            code,
            reason,
            message,
        } = &err
        else {
            panic!("a server error: {err:?}")
        };
        assert_eq!(*code, Code::NotFound);
        assert_eq!(reason.as_deref(), Some("NO_SUCH_WORKSPACE"));
        assert_eq!(message, "no workspace ws_x");
        assert_eq!(err.to_string(), "no workspace ws_x (NO_SUCH_WORKSPACE)");
        assert!(!err.is_retryable());
    }

    #[test]
    fn unavailable_without_reason_is_a_lost_connection() {
        let err = ClientError::from(tonic::Status::unavailable("transport error"));
        assert!(matches!(err, ClientError::Disconnected { .. }), "{err:?}");
        assert!(err.is_retryable());
    }

    #[test]
    fn a_status_made_from_a_transport_error_is_a_lost_connection() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset by peer");
        let status = tonic::Status::from_error(Box::new(io));
        assert!(std::error::Error::source(&status).is_some());
        let err = ClientError::from(status);
        assert!(matches!(err, ClientError::Disconnected { .. }), "{err:?}");
        assert!(err.is_retryable());
    }

    #[test]
    fn an_empty_message_falls_back_to_the_code_description() {
        let err = ClientError::from(tonic::Status::new(Code::Internal, ""));
        assert_eq!(err.to_string(), "Internal error (INTERNAL)");
    }

    #[test]
    fn no_server_names_the_socket() {
        let err = ClientError::NoServer {
            socket: Path::new("/run/x.sock").to_path_buf(),
        };
        assert_eq!(err.to_string(), "no server running on /run/x.sock");
        assert_eq!(err.reason(), "NO_SERVER");
        assert!(err.is_retryable());
    }
}
