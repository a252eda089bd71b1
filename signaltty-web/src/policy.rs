//! What a browser may call: a path (`/signaltty.v1.Service/Method`) against its token's access.
//!
//! The upper bound is what a CLI outside any pane may do — the calls go to the server as this
//! `signaltty web` process, which the server places like any other client (started inside a
//! pane, it gets the pane policy). Within that, the web takes less:
//! - **never** `AgentService` (a browser is no agent: it reports no hook events, holds no
//!   decisions open and edits no agent configs) nor `ServerService.Shutdown`;
//! - a **read-only** token only the calls that change nothing (`READ_ONLY`); its `Attach` must
//!   be a read-only one ([`crate::proxy`] checks the Start message).
//!
//! Anything not named here is refused: a method added to the proto later stays closed to the web
//! until it is listed.

use crate::token::Access;

/// Calls that change nothing: allowed to every token.
pub const READ_ONLY: &[&str] = &[
    "ServerService/GetStatus",
    "WorkspaceService/ListWorkspaces",
    "WorkspaceService/GetWorkspace",
    "PaneService/GetPane",
    "PaneService/ListPanes",
    "PaneService/ReadPane",
    "PaneService/WaitPane",
    "PaneService/Attach",
    "EventService/Subscribe",
    "DecisionService/ListPendingDecisions",
    "NotificationService/ListNotifications",
    "NotificationService/NextUnread",
    "GitService/ListWorktrees",
    "GitService/GetWorkspaceDiff",
    "GitService/GetFileDiff",
];

/// Calls that act: allowed to full tokens only.
pub const FULL_ONLY: &[&str] = &[
    "DecisionService/AnswerDecision",
    "PaneService/WriteInput",
    "PaneService/ResizePane",
    "PaneService/MarkSeen",
    "PaneService/SignalPane",
    "PaneService/FocusPane",
    "NotificationService/MarkNotificationRead",
    "WorkspaceService/RefreshGit",
];

/// The proto package every path is in.
const PACKAGE: &str = "/signaltty.v1.";

/// Why a call is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not a call the web makes at all.
    NotOnTheWeb,
    /// A full token's call asked with a read-only token.
    ReadOnly,
}

impl Refusal {
    /// The stable reason in the gRPC error's `ErrorInfo`.
    pub fn reason(self) -> &'static str {
        match self {
            Refusal::NotOnTheWeb => "WEB_NOT_ALLOWED",
            Refusal::ReadOnly => "WEB_READ_ONLY",
        }
    }

    /// What the person is told.
    pub fn message(self, path: &str) -> String {
        match self {
            Refusal::NotOnTheWeb => format!(
                "{path} is not available from the web client; use the signaltty CLI on the machine"
            ),
            Refusal::ReadOnly => format!(
                "{path} changes something and this web token is read-only; open the page with a full token (`signaltty web token new`)"
            ),
        }
    }
}

/// Whether `access` may call `path`.
pub fn check(path: &str, access: Access) -> Result<(), Refusal> {
    let Some(method) = path.strip_prefix(PACKAGE) else {
        return Err(Refusal::NotOnTheWeb);
    };
    if READ_ONLY.contains(&method) {
        return Ok(());
    }
    if FULL_ONLY.contains(&method) {
        return match access {
            Access::Full => Ok(()),
            Access::ReadOnly => Err(Refusal::ReadOnly),
        };
    }
    Err(Refusal::NotOnTheWeb)
}

/// The path of an `Attach`, whose Start message is checked too.
pub const ATTACH: &str = "/signaltty.v1.PaneService/Attach";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_watches_full_acts_and_agents_are_never_reached() {
        let answer = "/signaltty.v1.DecisionService/AnswerDecision";
        assert_eq!(check(answer, Access::ReadOnly), Err(Refusal::ReadOnly));
        assert_eq!(check(answer, Access::Full), Ok(()));
        let list = "/signaltty.v1.DecisionService/ListPendingDecisions";
        assert_eq!(check(list, Access::ReadOnly), Ok(()));
        for closed in [
            "/signaltty.v1.AgentService/ReportHookEvent",
            "/signaltty.v1.ServerService/Shutdown",
            "/signaltty.v1.PaneService/SpawnPane",
            "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        ] {
            assert_eq!(
                check(closed, Access::Full),
                Err(Refusal::NotOnTheWeb),
                "{closed}"
            );
        }
    }
}
