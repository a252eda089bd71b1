//! The single conversion from the server's [`Error`] to a `tonic::Status`: a gRPC code, the
//! error's message (which says what to do), and a `google.rpc.ErrorInfo` with the stable reason
//! and the domain `signaltty`.

use std::collections::HashMap;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::error::Error;

impl From<Error> for Status {
    fn from(e: Error) -> Status {
        let code = match &e {
            Error::NoSuchWorkspace(_)
            | Error::NoSuchTab(_)
            | Error::NoSuchPane(_)
            | Error::NoSuchDecision(_)
            | Error::NoSuchRace(_) => Code::NotFound,
            Error::BadParams(_) => Code::InvalidArgument,
            Error::PaneExited(_)
            | Error::PanesAlive(_)
            | Error::NotResumable(_)
            | Error::NotHibernatable(_)
            | Error::NotHibernated(_)
            | Error::NotARepo(_)
            | Error::Refused { .. }
            | Error::GitFailed(_)
            | Error::SpawnFailed { .. }
            | Error::RaceBaseDirty(_)
            | Error::RaceMergeConflict(_)
            | Error::RaceEnded(_) => Code::FailedPrecondition,
            Error::InputTooLarge { .. } | Error::RateLimited(_) | Error::TooManyPanes(_) => {
                Code::ResourceExhausted
            }
            Error::Timeout { .. } => Code::DeadlineExceeded,
            Error::IdentityChanged(_) => Code::Aborted,
            Error::Unimplemented(_) => Code::Unimplemented,
            Error::DeniedInPane(_) => Code::PermissionDenied,
            Error::Io { .. } | Error::Internal(_) => Code::Internal,
        };
        let mut metadata = HashMap::new();
        if let Error::Timeout {
            written: Some(w), ..
        } = &e
        {
            metadata.insert("bytes_written".to_owned(), w.to_string());
        }
        let details =
            ErrorDetails::with_error_info(e.reason(), signaltty_proto::ERROR_DOMAIN, metadata);
        Status::with_error_details(code, crate::error::clip_message(e.to_string()), details)
    }
}
