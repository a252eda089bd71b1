//! What a client inside a pane may do (`config::PaneClientPolicy`). The peer's place is found at
//! accept (`peer.rs`); these checks run before the operation and change nothing when they refuse.
//!
//! Strict by default: a program in a pane cannot answer permission decisions, reports hook
//! events, sessions and notifications only for its own pane, and changes only its own workspace
//! (its panes, tabs, layout, names, settings, attention, worktrees). What reaches beyond one
//! workspace — opening new workspaces, shutting the server down, editing the agents' configs —
//! is refused too. A process that escaped its pane (double fork, or its pane's child exited) has
//! no known pane or workspace, so every one of these is refused to it. Reading is never
//! restricted. `docs/security.md` lists every mutating RPC and the check it gets.
//!
//! The concern's handle is `hub.guard()`: it reads where panes are (the store) and the policy
//! (`Config::pane_clients`), nothing else.

use crate::error::{Error, Result};
use crate::model::ids::{PaneId, TabId, WorkspaceId};
use crate::peer::Origin;

use super::notifications::ReadTarget;
use crate::config::PaneClientPolicy;
use crate::store::Store;

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

/// The guard's handle.
#[derive(Clone, Debug)]
pub struct Guard {
    store: Store,
    policy: PaneClientPolicy,
}

impl Guard {
    /// The handle over the store, with the configuration's policy.
    pub(super) fn new(store: Store, policy: PaneClientPolicy) -> Self {
        Guard { store, policy }
    }

    fn store(&self) -> &Store {
        &self.store
    }

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
        if *origin == Origin::Outside || self.policy.may_answer_decisions {
            return Ok(());
        }
        Err(denied(origin, "answer permission decisions", KEY_ANSWER))
    }

    /// The pane a hook report from `origin` may name: its own pane, whatever it claimed. An
    /// explicit other pane, or any report from an escaped process, is refused. Outside callers
    /// (and a relaxed policy) keep what they asked for.
    pub fn hook_pane(&self, origin: &Origin, explicit: Option<PaneId>) -> Result<Option<PaneId>> {
        self.own_pane(origin, explicit, "report hook events")
    }

    /// The pane a notification raised by `origin` concerns: as [`Hub::hook_pane`] (a program in a
    /// pane raises notifications for its own pane only, never server-wide ones).
    pub fn notify_pane(&self, origin: &Origin, explicit: Option<PaneId>) -> Result<Option<PaneId>> {
        self.own_pane(origin, explicit, "raise notifications")
    }

    fn own_pane(
        &self,
        origin: &Origin,
        explicit: Option<PaneId>,
        what: &str,
    ) -> Result<Option<PaneId>> {
        if *origin == Origin::Outside || self.policy.may_report_for_other_panes {
            return Ok(explicit);
        }
        match (origin, explicit) {
            (Origin::Pane(own), None) => Ok(Some(own.clone())),
            (Origin::Pane(own), Some(named)) if &named == own => Ok(Some(named)),
            (Origin::Pane(_), Some(named)) => Err(denied(
                origin,
                &format!("{what} for another pane ({named})"),
                KEY_REPORT,
            )),
            _ => Err(denied(origin, what, KEY_REPORT)),
        }
    }

    /// May `origin` do what reaches beyond any one workspace: open a new workspace (also through
    /// a worktree), shut the server down, or install and remove the agents' hooks (files every
    /// workspace's agents read)? `what` names it in the refusal.
    pub fn may_act_beyond_workspace(&self, origin: &Origin, what: &str) -> Result<()> {
        if *origin == Origin::Outside || self.policy.may_control_other_workspaces {
            return Ok(());
        }
        Err(denied(origin, what, KEY_CONTROL))
    }

    /// May `origin` mark these notifications read? Only those of panes in its own workspace; a
    /// server-wide notification, or one whose pane is gone, belongs to no workspace of its own.
    /// An unknown notification passes, so that the operation reports it as usual.
    pub fn may_mark_read(&self, origin: &Origin, target: &ReadTarget) -> Result<()> {
        if *origin == Origin::Outside || self.policy.may_control_other_workspaces {
            return Ok(());
        }
        let pane = match target {
            ReadTarget::Pane(pane) => Some(pane.clone()),
            ReadTarget::One(id) => {
                let Some(pane) = self
                    .store()
                    .read(|s| s.notifications().get(id).map(|n| n.pane_id.clone()))
                else {
                    return Ok(());
                };
                pane
            }
        };
        let workspace = pane.and_then(|p| {
            self.store()
                .read(|s| s.pane(&p).map(|p| p.workspace_id.clone()))
                .ok()
        });
        match (self.caller_workspace(origin), workspace) {
            (Some(own), Some(target)) if own == target => Ok(()),
            (_, Some(target)) => Err(denied(
                origin,
                &format!("change another workspace ({target})"),
                KEY_CONTROL,
            )),
            _ => Err(denied(
                origin,
                "mark read notifications of no pane in its workspace",
                KEY_CONTROL,
            )),
        }
    }

    /// May `origin` change pane `pane` (write to it, signal, resize, rename, move, close it…)?
    pub fn may_control_pane(&self, origin: &Origin, pane: &PaneId) -> Result<()> {
        if *origin == Origin::Outside {
            return Ok(());
        }
        let target = self
            .store()
            .read(|s| s.pane(pane).map(|p| p.workspace_id.clone()))?;
        self.may_control_workspace(origin, &target)
    }

    /// May `origin` change tab `tab` (rename, lay out, focus, move or close it)?
    pub fn may_control_tab(&self, origin: &Origin, tab: &TabId) -> Result<()> {
        if *origin == Origin::Outside {
            return Ok(());
        }
        let target = self
            .store()
            .read(|s| s.tab(tab).map(|t| t.workspace_id.clone()))?;
        self.may_control_workspace(origin, &target)
    }

    /// May `origin` change workspace `target` or anything in it?
    pub fn may_control_workspace(&self, origin: &Origin, target: &WorkspaceId) -> Result<()> {
        if *origin == Origin::Outside || self.policy.may_control_other_workspaces {
            return Ok(());
        }
        match self.caller_workspace(origin) {
            Some(own) if &own == target => Ok(()),
            _ => Err(denied(
                origin,
                &format!("change or control another workspace ({target})"),
                KEY_CONTROL,
            )),
        }
    }
}
