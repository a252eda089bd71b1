//! Services whose capabilities are not built yet. Every RPC answers UNIMPLEMENTED with a message
//! naming the missing capability, so clients generated from the full contract fail clearly.

use signaltty_proto::v1 as pb;
use tonic::{Request, Response, Status};

fn missing(capability: &str) -> Status {
    Status::unimplemented(format!(
        "{capability} is not implemented by this server version yet"
    ))
}

/// Writes a whole `#[tonic::async_trait]` impl whose every unary RPC answers UNIMPLEMENTED.
/// (The attribute must see the methods, so the macro emits the impl block itself.)
macro_rules! pending_service {
    ($trait:path, $ty:ty, { $($extra:item)* } $($name:ident($req:ty) -> $resp:ty, $what:literal;)*) => {
        #[tonic::async_trait]
        impl $trait for $ty {
            $($extra)*
            $(async fn $name(&self, _: Request<$req>) -> Result<Response<$resp>, Status> {
                Err(missing($what))
            })*
        }
    };
}

/// Placeholder for `signaltty.v1.AgentService` (agent hooks).
#[derive(Debug)]
pub struct AgentService;

/// Placeholder for `signaltty.v1.DecisionService` (permission requests).
#[derive(Debug)]
pub struct DecisionService;

/// Placeholder for `signaltty.v1.NotificationService`.
#[derive(Debug)]
pub struct NotificationService;

/// Placeholder for `signaltty.v1.GitService` (worktrees and diffs).
#[derive(Debug)]
pub struct GitService;

pending_service! {
    pb::agent_service_server::AgentService, AgentService, {  }
        report_hook_event(pb::ReportHookEventRequest) -> pb::ReportHookEventResponse, "agent hooks (agent awareness)";
        report_session(pb::ReportSessionRequest) -> pb::ReportSessionResponse, "agent sessions (agent awareness)";
        install_hooks(pb::InstallHooksRequest) -> pb::InstallHooksResponse, "hook installers (agent awareness)";
        hook_status(pb::HookStatusRequest) -> pb::HookStatusResponse, "hook installers (agent awareness)";
}

pending_service! {
    pb::decision_service_server::DecisionService, DecisionService, {  }
        list_pending_decisions(pb::ListPendingDecisionsRequest) -> pb::ListPendingDecisionsResponse, "permission decisions (agent awareness)";
        answer_decision(pb::AnswerDecisionRequest) -> pb::AnswerDecisionResponse, "permission decisions (agent awareness)";
}

pending_service! {
    pb::notification_service_server::NotificationService, NotificationService, {  }
        notify(pb::NotifyRequest) -> pb::NotifyResponse, "notifications (agent awareness)";
        list_notifications(pb::ListNotificationsRequest) -> pb::ListNotificationsResponse, "notifications (agent awareness)";
        mark_notification_read(pb::MarkNotificationReadRequest) -> pb::MarkNotificationReadResponse, "notifications (agent awareness)";
        next_unread(pb::NextUnreadRequest) -> pb::NextUnreadResponse, "notifications (agent awareness)";
}

pending_service! {
    pb::git_service_server::GitService, GitService, {  }
        list_worktrees(pb::ListWorktreesRequest) -> pb::ListWorktreesResponse, "git worktrees";
        create_worktree(pb::CreateWorktreeRequest) -> pb::CreateWorktreeResponse, "git worktrees";
        open_worktree(pb::OpenWorktreeRequest) -> pb::OpenWorktreeResponse, "git worktrees";
        remove_worktree(pb::RemoveWorktreeRequest) -> pb::RemoveWorktreeResponse, "git worktrees";
        get_workspace_diff(pb::GetWorkspaceDiffRequest) -> pb::GetWorkspaceDiffResponse, "git diffs";
        get_file_diff(pb::GetFileDiffRequest) -> pb::GetFileDiffResponse, "git diffs";
}
