//! What persistence needs to know of a pane's agent: whether it can be resumed, with which
//! command and environment, and what of it must not outlive the process.
//!
//! The resume argv comes only from the agent adapter (`AgentInfo::resume_argv` is derived from a
//! hook-reported session id, never copied from a client), which is what makes auto-resume of a
//! workspace's agents acceptable. A pending decision is not saved at all (`#[serde(skip)]` on
//! the record): only the hook waiting in this process could receive its answer.

use std::time::SystemTime;

use super::ENV_ALLOW_LIST;
use crate::model::lifecycle::{Attention, ChangeSource, Lifecycle};
use crate::model::pane::{Pane, PaneStatus};

/// The command that resumes the pane's agent session, when one is known.
pub fn resume_argv(pane: &Pane) -> Option<Vec<String>> {
    pane.agent
        .as_ref()?
        .resume_argv
        .clone()
        .filter(|argv| !argv.is_empty())
}

/// The environment a resumed agent gets back: its remembered config locations, allow-listed
/// again here (never anything else).
pub fn resume_env(pane: &Pane) -> Vec<(String, String)> {
    pane.agent.as_ref().map_or_else(Vec::new, |agent| {
        agent
            .env
            .iter()
            .filter(|(name, _)| ENV_ALLOW_LIST.contains(&name.as_str()))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect()
    })
}

/// Whether the workspace's `auto_resume_agents` may start this pane without asking.
pub fn auto_resumable(pane: &Pane) -> bool {
    resume_argv(pane).is_some()
}

/// The status a pane without a process is saved and restored with: an exit stays an exit; any
/// other pane is RESUMABLE when its agent can be resumed, else RESTORED.
pub fn restorable_status(pane: &Pane) -> PaneStatus {
    match pane.status {
        PaneStatus::Exited { .. } => pane.status,
        PaneStatus::Live { .. }
        | PaneStatus::Restored
        | PaneStatus::Resumable
        | PaneStatus::Hibernated => {
            if resume_argv(pane).is_some() {
                PaneStatus::Resumable
            } else {
                PaneStatus::Restored
            }
        }
    }
}

/// Drops what belonged to the process instance from a record that is being saved or restored:
/// the pid (a live pane becomes restorable) and any pending decision.
pub fn forget_process(pane: &mut Pane) {
    pane.status = restorable_status(pane);
    pane.pending_decision = None;
}

/// A restored pane's process is gone, and with it the turn it was running and the question it
/// was waiting on. `working` and `blocked` become `exited` (no run clock and no wait for a pane
/// that has no process), and a permission or input attention, which nothing can answer any more,
/// becomes `unread`: the user still sees that something happened there. A finished turn (`done`,
/// `failed`, `idle`) stays as it was: that is still true.
pub fn interrupted(pane: &mut Pane, now: SystemTime) {
    if matches!(
        pane.state.lifecycle(),
        Lifecycle::Working | Lifecycle::Blocked
    ) {
        pane.state
            .set_lifecycle(Lifecycle::Exited, ChangeSource::Exit, now);
    }
    if matches!(
        pane.state.attention(),
        Attention::PermissionRequired | Attention::InputRequired
    ) {
        pane.state.clear_attention(false, now);
        pane.state.raise_attention(Attention::Unread, now);
    }
}
