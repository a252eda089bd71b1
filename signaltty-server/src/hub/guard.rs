//! What a client inside a pane may do (`config::PaneClientPolicy`). The peer's place is found at
//! accept (`peer.rs`); these checks run before the operation and change nothing when they refuse.
//!
//! Strict by default: a program in a pane cannot answer permission decisions, reports hook
//! events and sessions only for its own pane, and writes input to, signals or closes only panes
//! of its own workspace. A process that escaped its pane (double fork, or its pane's child
//! exited) has no known pane or workspace, so every one of these is refused to it.

use crate::error::{Error, Result};
use crate::model::ids::{PaneId, TabId, WorkspaceId};
use crate::peer::Origin;

use super::Hub;

/// The key that relaxes answering decisions.
pub const KEY_ANSWER: &str = "policy.pane_clients_may_answer_decisions";
/// The key that relaxes reporting for other panes.
pub const KEY_REPORT: &str = "policy.pane_clients_may_report_for_other_panes";
/// The key that relaxes controlling other workspaces.
pub const KEY_CONTROL: &str = "policy.pane_clients_may_control_other_workspaces";

fn where_from(origin: &Origin) -> String {
    match origin {
        Origin::Pane(p) => format!("this client runs inside pane {p}"),
        _ => "this client descends from a pane (it left the pane's process tree)".to_owned(),
    }
}

fn denied(origin: &Origin, what: &str, key: &str) -> Error {
    Error::DeniedInPane(format!(
        "{}, and programs in panes may not {what}; do it from a shell outside signaltty, or allow it with `{key} = true` in the server's config",
        where_from(origin)
    ))
}

impl Hub {
    /// The workspace a pane-bound caller belongs to; `None` for an escaped one.
    fn caller_workspace(&self, origin: &Origin) -> Option<WorkspaceId> {
        let Origin::Pane(pane) = origin else {
            return None;
        };
        self.store()
            .read(|s| s.pane(pane).map(|p| p.workspace_id.clone()))
            .ok()
    }

    /// May `origin` answer a permission decision?
    pub fn may_answer(&self, origin: &Origin) -> Result<()> {
        if *origin == Origin::Outside || self.config().pane_clients.may_answer_decisions {
            return Ok(());
        }
        Err(denied(origin, "answer permission decisions", KEY_ANSWER))
    }

    /// The pane a hook report from `origin` may name: its own pane, whatever it claimed. An
    /// explicit other pane, or any report from an escaped process, is refused. Outside callers
    /// (and a relaxed policy) keep what they asked for.
    pub fn hook_pane(&self, origin: &Origin, explicit: Option<PaneId>) -> Result<Option<PaneId>> {
        if *origin == Origin::Outside || self.config().pane_clients.may_report_for_other_panes {
            return Ok(explicit);
        }
        match (origin, explicit) {
            (Origin::Pane(own), None) => Ok(Some(own.clone())),
            (Origin::Pane(own), Some(named)) if &named == own => Ok(Some(named)),
            (Origin::Pane(_), Some(named)) => Err(denied(
                origin,
                &format!("report hook events for another pane ({named})"),
                KEY_REPORT,
            )),
            _ => Err(denied(origin, "report hook events", KEY_REPORT)),
        }
    }

    /// May `origin` write to, signal or close pane `pane`?
    pub fn may_control_pane(&self, origin: &Origin, pane: &PaneId) -> Result<()> {
        if *origin == Origin::Outside {
            return Ok(());
        }
        let target = self
            .store()
            .read(|s| s.pane(pane).map(|p| p.workspace_id.clone()))?;
        self.may_control_workspace(origin, &target)
    }

    /// May `origin` close tab `tab` (and the panes in it)?
    pub fn may_control_tab(&self, origin: &Origin, tab: &TabId) -> Result<()> {
        if *origin == Origin::Outside {
            return Ok(());
        }
        let target = self
            .store()
            .read(|s| s.tab(tab).map(|t| t.workspace_id.clone()))?;
        self.may_control_workspace(origin, &target)
    }

    /// May `origin` act on panes of workspace `target`?
    pub fn may_control_workspace(&self, origin: &Origin, target: &WorkspaceId) -> Result<()> {
        if *origin == Origin::Outside || self.config().pane_clients.may_control_other_workspaces {
            return Ok(());
        }
        match self.caller_workspace(origin) {
            Some(own) if &own == target => Ok(()),
            _ => Err(denied(
                origin,
                &format!("control panes of another workspace ({target})"),
                KEY_CONTROL,
            )),
        }
    }
}
