//! The CLI's one error type. Every failure carries a [`ErrorKind`] that alone decides the exit
//! code, so commands never pick exit codes themselves: 1 for errors the server reported (or local
//! failures), 2 for usage errors, 3 when no server is reachable.
//!
//! Printed as `error: <message> (<REASON>)`, where REASON is the server's stable reason
//! (`NO_SUCH_PANE`, `BAD_PARAMS`, …) or, failing that, the gRPC code name.

use std::fmt;
use std::path::Path;

use tonic::Code;

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

impl From<tonic::Status> for CliError {
    fn from(status: tonic::Status) -> Self {
        let reason = signaltty_proto::error_reason(&status);
        // A transport failure surfaces as UNAVAILABLE without a signaltty reason: the server
        // went away mid-call, which is the same situation as not finding one.
        let kind = match (status.code(), &reason) {
            (Code::Unavailable, None) => ErrorKind::NoServer,
            _ => ErrorKind::Server,
        };
        let message = if status.message().is_empty() {
            status.code().description().to_string()
        } else {
            status.message().to_string()
        };
        CliError {
            kind,
            message,
            reason: Some(reason.unwrap_or_else(|| code_name(status.code()).to_string())),
        }
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
    fn a_status_with_error_info_shows_the_reason() {
        use tonic_types::{ErrorDetails, StatusExt};
        let details = ErrorDetails::with_error_info(
            "NO_SUCH_WORKSPACE",
            "signaltty",
            std::collections::HashMap::new(),
        );
        let status =
            tonic::Status::with_error_details(Code::NotFound, "no workspace ws_x", details);
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
