//! The agents concern, `hub.agents()`: our hooks in the agents' configs (installing, removing,
//! their status, and the check before a pane launches an agent), the notice a pane shows when
//! its hooks need the user, and how long a permission hook may be held. It needs the store, the
//! configured hook home and the answer policy, nothing else.
//!
//! What else of agents stays on `Hub` (`agents.rs`: `ReportHookEvent` and `ReportSession`;
//! `attention.rs`, `attribution.rs`, `shared_hooks.rs`, the transcript, turn and screen watches):
//! each reads the pane actors — a screen, the spawn table, a pane's actor handle — which are not
//! a handle yet.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::agents::AgentKind;
use crate::agents::install::{self, ConfigRoots, HookState};
use crate::agents::mapping::AskKind;
use crate::config::AnswerPolicy;
use crate::error::{Error, Result};
use crate::model::event::ChangeSource;
use crate::model::ids::PaneId;
use crate::model::notification::{Notification, NotificationSource, Severity};
use crate::store::Store;

use super::{HookReport, INSTALLABLE, signaltty_program};

/// The agents concern's handle.
#[derive(Clone, Debug)]
pub struct Agents {
    store: Store,
    /// `Config::hook_home`: the home tests pin; `None` reads the environment.
    configured_home: Option<PathBuf>,
    /// `Config::answer_policy`: which agents' hooks may hold their own prompt, and how long.
    answer_policy: AnswerPolicy,
}

impl Agents {
    /// The handle over the store and the agent settings of the configuration.
    pub fn new(
        store: Store,
        configured_home: Option<PathBuf>,
        answer_policy: AnswerPolicy,
    ) -> Self {
        Agents {
            store,
            configured_home,
            answer_policy,
        }
    }

    fn store(&self) -> &Store {
        &self.store
    }

    /// The home whose agent configs get our hooks: the configured one (tests), else
    /// `$SIGNALTTY_HOOK_HOME`, else `$HOME`.
    pub fn hook_home(&self) -> Option<PathBuf> {
        self.configured_home.clone().or_else(|| {
            ["SIGNALTTY_HOOK_HOME", "HOME"]
                .into_iter()
                .find_map(|var| std::env::var_os(var).filter(|v| !v.is_empty()))
                .map(PathBuf::from)
        })
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
        self.answer_policy
            .hold(kind, &workspace_agents)
            .map(|hold| hold.min(wait))
    }

    /// Installs (or with `uninstall`, removes) our hooks for `kinds` under `home` (default:
    /// [`Agents::hook_home`]). One report per kind; failures are reported, not raised.
    pub async fn install_hooks(
        &self,
        kinds: Vec<AgentKind>,
        home: Option<PathBuf>,
        uninstall: bool,
    ) -> Result<Vec<HookReport>> {
        let roots = self.request_roots(home)?;
        let program = signaltty_program();
        crate::hub::blocking("hook installer", move || {
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

    /// Whether our hooks are installed for `kinds` under `home` (default: [`Agents::hook_home`]).
    pub async fn hook_status(
        &self,
        kinds: Vec<AgentKind>,
        home: Option<PathBuf>,
    ) -> Result<Vec<HookReport>> {
        let roots = self.request_roots(home)?;
        let program = signaltty_program();
        crate::hub::blocking("hook installer", move || {
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
        let inherit = self.configured_home.is_none();
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
    pub(crate) fn notify_pane_of_hooks(&self, pane: &PaneId, text: &str) {
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
    pub(crate) async fn install_hooks_for_launch(
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
