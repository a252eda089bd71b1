//! What persistence needs to know of a pane's agent: whether it can be resumed, with which
//! command and environment, and what of it must not outlive the process.
//!
//! The resume argv comes only from the agent adapter (`AgentInfo::resume_argv` is derived from a
//! hook-reported session id, never copied from a client), which is what makes auto-resume of a
//! workspace's agents acceptable. A pending decision is not saved at all (`#[serde(skip)]` on
//! the record): only the hook waiting in this process could receive its answer.

use super::ENV_ALLOW_LIST;
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
        PaneStatus::Live { .. } | PaneStatus::Restored | PaneStatus::Resumable => {
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
