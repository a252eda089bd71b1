//! Agent hooks and sessions: `ReportHookEvent` (payload checks, attribution, the mapping, the
//! decision and its wait), `ReportSession`, and the hook installers — on request, and before a
//! pane that launches a supported agent directly starts it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::agents::AgentKind;
use crate::agents::install::ConfigRoots;
use crate::agents::install::{self, HookState};
use crate::agents::mapping::{
    AskKind, HookEffect, check_payload_size, is_foreign, map_hook, parse_payload,
};
use crate::agents::session::SessionId;
use crate::error::{Error, Result};
use crate::model::agent::AgentInfo;
use crate::model::decision::Verdict;
use crate::model::event::ChangeSource;
use crate::model::ids::{DecisionId, PaneId};
use crate::model::notification::{Notification, NotificationSource, Severity};

use super::Hub;
use super::decisions::WaitEnd;

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
    /// The home whose agent configs get our hooks: the configured one (tests), else
    /// `$SIGNALTTY_HOOK_HOME`, else `$HOME`.
    pub fn hook_home(&self) -> Option<PathBuf> {
        self.config().hook_home.clone().or_else(|| {
            ["SIGNALTTY_HOOK_HOME", "HOME"]
                .into_iter()
                .find_map(|var| std::env::var_os(var).filter(|v| !v.is_empty()))
                .map(PathBuf::from)
        })
    }

    /// Handles one hook call: checks the payload (size, JSON, field types) and the wait, maps
    /// the event, attributes it, applies it, and — when the hook may be held (see
    /// [`Hub::hold_for`]) — holds the call until the decision it created ends. An event that maps
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
            (Some(ask), Some(wait)) => self.hold_for(&pane, call.kind, ask.kind, wait),
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

    /// How long a permission hook of `kind` asking `ask` may be held for an answer (`None` = it
    /// returns at once). A hook the agent races against its own dialog waits as long as it asked
    /// (`wait`); one the agent awaits before showing its prompt only when the user opted in for
    /// this agent, in the server's policy or the pane's workspace, and then for the policy's
    /// short hold — an agent's own prompt is never delayed by default.
    pub fn hold_for(
        &self,
        pane: &PaneId,
        kind: AgentKind,
        ask: AskKind,
        wait: Duration,
    ) -> Option<Duration> {
        if ask == AskKind::Raced {
            return Some(wait);
        }
        let workspace_agents = self
            .store()
            .read(|s| {
                let ws = s.pane(pane)?.workspace_id.clone();
                Ok::<_, crate::model::state::StateError>(
                    s.workspace(&ws)?.settings.answer_from_signaltty.clone(),
                )
            })
            .unwrap_or_default();
        self.config()
            .answer_policy
            .hold(kind, &workspace_agents)
            .map(|hold| hold.min(wait))
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

    /// Installs (or with `uninstall`, removes) our hooks for `kinds` under `home` (default:
    /// [`Hub::hook_home`]). One report per kind; failures are reported, not raised.
    pub async fn install_hooks(
        &self,
        kinds: Vec<AgentKind>,
        home: Option<PathBuf>,
        uninstall: bool,
    ) -> Result<Vec<HookReport>> {
        let roots = self.request_roots(home)?;
        let program = signaltty_program();
        super::blocking("hook installer", move || {
            kinds
                .into_iter()
                .map(|kind| {
                    let done = if uninstall {
                        install::uninstall_in(kind, &roots)
                    } else {
                        install::install_in(kind, &roots, &program)
                    };
                    let mut report = status_report(kind, &roots, &program);
                    match done {
                        Ok(r) => {
                            report.changed = r.outcome == install::WriteOutcome::Changed;
                            report.notice = r.notice;
                        }
                        Err(e) => report.error = Some(e.to_string()),
                    }
                    report
                })
                .collect()
        })
        .await
    }

    /// Whether our hooks are installed for `kinds` under `home` (default: [`Hub::hook_home`]).
    pub async fn hook_status(
        &self,
        kinds: Vec<AgentKind>,
        home: Option<PathBuf>,
    ) -> Result<Vec<HookReport>> {
        let roots = self.request_roots(home)?;
        let program = signaltty_program();
        super::blocking("hook installer", move || {
            kinds
                .into_iter()
                .map(|kind| status_report(kind, &roots, &program))
                .collect()
        })
        .await
    }

    /// The config directories an install request means: an explicit `home` pins everything
    /// under it; otherwise the hook home, with the agents' config variables of the server's own
    /// environment (unless a hook home was configured, as tests do).
    fn request_roots(&self, home: Option<PathBuf>) -> Result<ConfigRoots> {
        if home.is_some() {
            return Ok(ConfigRoots::home(&self.checked_home(home)?));
        }
        let home = self.checked_home(None)?;
        Ok(self.launch_roots(&home, &[]))
    }

    /// The config directories of an agent launched with `launch_env` (the pane's explicit
    /// environment): those variables, over the server's own environment — which is what the
    /// pane inherits — unless a hook home was configured.
    fn launch_roots(&self, home: &Path, launch_env: &[(String, String)]) -> ConfigRoots {
        let inherit = self.config().hook_home.is_none();
        ConfigRoots::from_env(home, |var| {
            launch_env
                .iter()
                .rev()
                .find(|(k, _)| k == var)
                .map(|(_, v)| v.clone())
                .or_else(|| inherit.then(|| std::env::var(var).ok()).flatten())
                .filter(|v| !v.is_empty())
        })
    }

    fn checked_home(&self, home: Option<PathBuf>) -> Result<PathBuf> {
        let home = home
            .or_else(|| self.hook_home())
            .ok_or_else(|| Error::bad("no home directory: set HOME or give home in the request"))?;
        if !home.is_absolute() {
            return Err(Error::bad(format!(
                "home {} is relative: give an absolute directory",
                home.display()
            )));
        }
        Ok(home)
    }

    /// Stores what the user must do about a pane's agent hooks (e.g. trust them in Codex) as a
    /// warning notification of that pane, so it reaches every client, not only the log.
    pub(super) fn notify_pane_of_hooks(&self, pane: &PaneId, text: &str) {
        let stored = Notification::new(
            Some(pane.clone()),
            "Agent hooks need you",
            text,
            Severity::Warning,
            NotificationSource::Hook,
            std::time::SystemTime::now(),
        )
        .map_err(|e| Error::bad(e.to_string()))
        .and_then(|n| {
            self.store()
                .apply(|s, now| s.notify(n, ChangeSource::Hook, now))
        });
        if let Err(e) = stored {
            tracing::warn!(pane = %pane, error = %e, "could not show the hook notice on the pane");
        }
    }

    /// Before a pane launches a supported agent directly: make sure our hooks are in the config
    /// it will read (its config variables from `launch_env`, relative ones against `cwd`).
    /// Failures are logged and never block the spawn. Returns what the user must do
    /// themselves (trust new Codex hooks), for the pane to show.
    pub(super) async fn install_hooks_for_launch(
        &self,
        kind: AgentKind,
        launch_env: &[(String, String)],
        cwd: &Path,
    ) -> Option<String> {
        if !INSTALLABLE.contains(&kind) {
            return None;
        }
        let Some(home) = self.hook_home() else {
            tracing::warn!(agent = %kind, "no home directory; hooks not installed");
            return None;
        };
        let env: Vec<(String, String)> = launch_env
            .iter()
            .map(|(k, v)| {
                let abs = if install::CONFIG_ENV.contains(&k.as_str())
                    && !v.is_empty()
                    && !Path::new(v).is_absolute()
                {
                    cwd.join(v).display().to_string()
                } else {
                    v.clone()
                };
                (k.clone(), abs)
            })
            .collect();
        let roots = self.launch_roots(&home, &env);
        let program = signaltty_program();
        let done = tokio::task::spawn_blocking(move || install::install_in(kind, &roots, &program))
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string()));
        match done {
            Ok(report) => {
                tracing::debug!(agent = %kind, path = %report.path.display(), outcome = ?report.outcome, "hooks checked before launch");
                if let Some(notice) = &report.notice {
                    tracing::info!(agent = %kind, "{notice}");
                }
                report.notice
            }
            Err(e) => {
                tracing::warn!(agent = %kind, error = %e, "installing hooks before launch failed");
                None
            }
        }
    }
}

/// The hook state of one agent as a report.
fn status_report(kind: AgentKind, roots: &ConfigRoots, program: &str) -> HookReport {
    let path = roots.report_path(kind).unwrap_or_default();
    let (state, error) = match install::status_in(kind, roots, program) {
        Ok(HookState::Malformed(reason)) => {
            (Some(HookState::Malformed(reason.clone())), Some(reason))
        }
        Ok(state) => (Some(state), None),
        Err(e) => (None, Some(e.to_string())),
    };
    HookReport {
        kind,
        path,
        state,
        changed: false,
        error,
        notice: None,
    }
}
