//! What persistence needs to know of a pane's agent: whether it can be resumed, with which
//! command and environment, and what of it must not outlive the process.
//!
//! HOOK POINT (agent awareness): the pane record does not carry agent info yet. Once it has
//! `agent: Option<AgentInfo { session_id, resume_argv, env, .. }>` and `pending_decision`, these
//! functions read and clear them; nothing else in `persist` or `hub::resume` has to change.

use crate::model::pane::{Pane, PaneStatus};

/// The command that resumes the pane's agent session, when one is known.
pub fn resume_argv(_pane: &Pane) -> Option<Vec<String>> {
    None
}

/// The environment a resumed agent gets back (allow-listed config locations only).
pub fn resume_env(_pane: &Pane) -> Vec<(String, String)> {
    Vec::new()
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

/// Drops what belonged to the process instance (pid, pending decision waits) from a record that
/// is being saved or restored.
pub fn forget_process(pane: &mut Pane) {
    pane.status = restorable_status(pane);
}
