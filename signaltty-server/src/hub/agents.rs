//! Agent hooks and sessions: `ReportHookEvent` (payload checks, attribution, the mapping, the
//! decision and its wait), `ReportSession`, and the hook installers — on request, and before a
//! pane that launches a supported agent directly starts it.

use std::path::PathBuf;
use std::time::Duration;

use crate::agents::AgentKind;
use crate::agents::install::HookState;
use crate::agents::mapping::{
    AskKind, HookEffect, check_payload_size, is_foreign, map_hook, parse_payload,
};
use crate::agents::session::SessionId;
use crate::error::{Error, Result};
use crate::model::agent::AgentInfo;
use crate::model::decision::Verdict;
use crate::model::ids::{DecisionId, PaneId};

use super::Hub;

mod hooks;
use super::decisions::WaitEnd;
pub use hooks::Agents;

/// The longest a hook may wait for an answer, and the wait when none is given.
pub const MAX_ANSWER_WAIT: Duration = Duration::from_secs(120);
/// The shortest wait a hook may ask for.
pub const MIN_ANSWER_WAIT: Duration = Duration::from_secs(1);

/// One hook call, decoded.
#[derive(Clone, Debug)]
pub struct HookCall {
    /// The agent reporting.
    pub kind: AgentKind,
    /// Its event name.
    pub event: String,
    /// The raw payload (JSON object, or empty).
    pub payload: Vec<u8>,
    /// The pane named by the hook (`SIGNALTTY_PANE`).
    pub pane: Option<PaneId>,
    /// Who runs the hook: a process of the agent's own pane, or a daemon several panes share.
    pub reporter: Reporter,
    /// The hook's pid, for attribution by ancestry (0 = unknown).
    pub client_pid: u32,
    /// How long to wait for an answer to a permission request; `None` = do not wait.
    pub wait: Option<Duration>,
}

/// Who runs a hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reporter {
    /// A process inside the agent's own pane (or outside every pane): attributed by the pane it
    /// names and its ancestry.
    Pane,
    /// A daemon that the agents of several panes share (Codex's app-server): routed by session.
    SharedDaemon {
        /// The daemon's pid.
        daemon: u32,
    },
}

impl Reporter {
    /// Who runs a hook of `kind` whose connection comes from `peer_pid` (0 = unknown).
    pub fn of(kind: AgentKind, peer_pid: u32) -> Reporter {
        if kind != AgentKind::Codex || peer_pid == 0 {
            return Reporter::Pane;
        }
        match super::shared_hooks::codex_daemon_of(peer_pid) {
            Some(daemon) => Reporter::SharedDaemon { daemon },
            None => Reporter::Pane,
        }
    }
}

/// What a hook call did.
#[derive(Clone, Debug, Default)]
pub struct HookOutcome {
    /// The pane it was attributed to.
    pub pane: Option<PaneId>,
    /// The decision it created.
    pub decision: Option<DecisionId>,
    /// How the wait ended, when the call waited.
    pub wait: Option<WaitEnd>,
}

impl HookOutcome {
    /// The verdict, only when a client answered.
    pub fn verdict(&self) -> Option<&Verdict> {
        self.wait.as_ref().and_then(WaitEnd::verdict)
    }
}

/// The wait a hook asked for: 0 → the default (120 s); otherwise 1–120 s.
pub fn answer_wait(timeout_ms: u32) -> Result<Duration> {
    if timeout_ms == 0 {
        return Ok(MAX_ANSWER_WAIT);
    }
    let wait = Duration::from_millis(u64::from(timeout_ms));
    if !(MIN_ANSWER_WAIT..=MAX_ANSWER_WAIT).contains(&wait) {
        return Err(Error::bad(format!(
            "timeout_ms {timeout_ms} is out of range: give 1000-120000 (or 0 for 120000)"
        )));
    }
    Ok(wait)
}

/// Outcome of installing, removing or inspecting one agent's hooks.
#[derive(Clone, Debug)]
pub struct HookReport {
    /// The agent.
    pub kind: AgentKind,
    /// Its config file ("" when the kind has none).
    pub path: PathBuf,
    /// The state after the operation, when it could be read.
    pub state: Option<HookState>,
    /// Whether the file was written.
    pub changed: bool,
    /// What went wrong.
    pub error: Option<String>,
    /// Something the user must do themselves (e.g. trust the new hooks in Codex).
    pub notice: Option<String>,
}

/// Agents whose hooks we can install.
pub const INSTALLABLE: [AgentKind; 4] = [
    AgentKind::Claude,
    AgentKind::Codex,
    AgentKind::Opencode,
    AgentKind::Cursor,
];

/// The `signaltty` CLI the hooks run: the one installed next to this server binary, else
/// whatever `signaltty` is on the agent's PATH.
pub fn signaltty_program() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("signaltty")))
        .filter(|cli| cli.is_file())
        .map_or_else(|| "signaltty".to_owned(), |cli| cli.display().to_string())
}

impl Hub {
    /// Handles one hook call: checks the payload (size, JSON, field types) and the wait, maps
    /// the event, attributes it, applies it, and — when the hook may be held (see
    /// [`Agents::hold_for`]) — holds the call until the decision it created ends. An event that maps
    /// to no pane, or that another agent fired through this agent's config, is accepted and
    /// changes nothing.
    pub async fn report_hook_event(&self, call: HookCall) -> Result<HookOutcome> {
        check_payload_size(call.payload.len()).map_err(|e| Error::bad(e.to_string()))?;
        if call.wait.is_some() && !call.kind.can_wait_on(&call.event) {
            return Err(Error::bad(format!(
                "{} hooks can wait for an answer only on {}, not on {}",
                call.kind,
                call.kind.waiting_events().join(", "),
                crate::error::quote(&call.event)
            )));
        }
        let payload = parse_payload(&call.payload).map_err(|e| Error::bad(e.to_string()))?;
        let mut effect =
            map_hook(call.kind, &call.event, &payload).map_err(|e| Error::bad(e.to_string()))?;
        if is_foreign(call.kind, &payload) {
            return Ok(HookOutcome::default());
        }
        let pane = match call.reporter {
            Reporter::Pane => self.attribute(call.pane, call.client_pid)?,
            Reporter::SharedDaemon { .. } => {
                self.route_by_session(call.kind, effect.session_id.as_ref(), &payload)
                    .await
            }
        };
        let Some(pane) = pane else {
            return Ok(HookOutcome::default());
        };
        // A sub-agent's hooks (`agent_id`) may name its own transcript; the main one counts.
        if call.kind == AgentKind::Claude
            && payload.get("agent_id").is_none()
            && let Some(path) = payload
                .get("transcript_path")
                .and_then(|p| p.as_str())
                .filter(|p| !p.is_empty())
        {
            self.watch_transcript(&pane, PathBuf::from(path));
        }
        let hold = match (&effect.permission, call.wait) {
            (Some(ask), Some(wait)) => self.agents().hold_for(&pane, call.kind, ask.kind, wait),
            _ => None,
        };
        if effect
            .permission
            .as_ref()
            .is_some_and(|a| a.kind == AskKind::PreCheck)
            && hold.is_none()
        {
            // A check the agent runs before every command is no ask unless we answer it.
            effect = HookEffect {
                session_id: effect.session_id,
                settles: effect.settles,
                ..HookEffect::default()
            };
        }
        let wants_wait = hold.is_some();
        let (created, rx) = self.store().apply(|s, now| {
            let (applied, events) =
                s.apply_hook_event(&pane, call.kind, &effect, wants_wait, now)?;
            for (id, reason) in &applied.cleared {
                self.decisions()
                    .waiters()
                    .deliver(id, WaitEnd::Ended(*reason));
            }
            // Registered before the decision is published, so no answer can miss its waiter.
            let rx = match (&applied.created, wants_wait) {
                (Some(d), true) => Some(self.decisions().waiters().register(&d.id, &pane)),
                _ => None,
            };
            Ok(((applied.created, rx), events))
        })?;
        if let Some(d) = &created {
            self.watch_permission_dialog(&pane, call.kind, d.id.clone());
        }
        if call.kind == AgentKind::Codex && self.working_since(&pane).is_some() {
            self.watch_codex_turn(&pane);
        }
        let mut outcome = HookOutcome {
            pane: Some(pane),
            decision: created.as_ref().map(|d| d.id.clone()),
            wait: None,
        };
        if let (Some(decision), Some(rx), Some(wait)) = (created, rx, hold) {
            outcome.wait = Some(self.decisions().wait_for_answer(decision, rx, wait).await);
        }
        Ok(outcome)
    }

    /// Records an agent session for the pane the report is attributed to; returns the pane and
    /// the agent info (with its resume argv), or nothing when no pane matches.
    pub fn report_session(
        &self,
        kind: AgentKind,
        session: &str,
        pane: Option<PaneId>,
        client_pid: u32,
    ) -> Result<Option<(PaneId, AgentInfo)>> {
        let session = SessionId::parse(session).map_err(|e| Error::bad(e.to_string()))?;
        let Some(pane) = self.attribute(pane, client_pid)? else {
            return Ok(None);
        };
        let info = self
            .store()
            .apply(|s, _| s.record_session(&pane, kind, session))?;
        Ok(Some((pane, info)))
    }
}
