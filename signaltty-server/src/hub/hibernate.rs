//! Hibernation: an idle agent's process tree is stopped to give its memory and CPU back, and
//! started again with the agent's own resume command when someone needs it.
//!
//! - **Who.** Only a LIVE agent pane whose session id is known (so that it can be resumed),
//!   whose turn has ended (`idle` or `done`) and with no pending decision: never a working or
//!   blocked agent, a plain shell or an agent without a session ([`hibernatable`]).
//! - **Stopping.** The agent's own exit path first (its exit command typed into it, so it saves
//!   its session as when a person quits it), then SIGTERM to its process group, then SIGKILL,
//!   each after [`Timing::grace`]. The record says HIBERNATED before the process is told to stop,
//!   so `on_exit` ignores that exit: the pane never reads `exited`.
//! - **Screen.** Rendered before the exit command (what the agent printed on its way out is not
//!   kept), and made the pane's dormant tail: the wake feeds it to the new screen first, as a
//!   resume after a restart does, so the scrollback carries on above the resumed agent.
//! - **Waking.** `WakePane`, or typing into the pane / `WriteInput` (what was typed is written to
//!   the woken agent): `resume_pane` in `AgentSession` mode, the same pane, size, cwd and the
//!   remembered config-dir variables. One wake at a time ([`Hibernation::waking`]).
//! - **Timer.** [`Hub::run_hibernation_timer`] sleeps until the earliest pane could be due, and
//!   otherwise only on the store's head: with no workspace asking for it, it never wakes.

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use tokio::time::Instant;
use tokio_util::task::TaskTracker;

use super::Hub;
use super::resume::ResumeMode;
use crate::error::{Error, Result};
use crate::model::agent_kind::AgentKind;
use crate::model::ids::PaneId;
use crate::model::lifecycle::Lifecycle;
use crate::model::pane::{Pane, PaneStatus};
use crate::pane::signal::{PaneSignal, SignalScope};
use crate::persist::{resumable, tails};

/// How a hibernated process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoppedBy {
    /// The agent's own exit command.
    ExitCommand,
    /// SIGTERM to its process group.
    Sigterm,
    /// SIGKILL to its process group.
    Sigkill,
}

impl StoppedBy {
    /// The stable name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            StoppedBy::ExitCommand => "exit-command",
            StoppedBy::Sigterm => "sigterm",
            StoppedBy::Sigkill => "sigkill",
        }
    }
}

/// Durations of hibernation; tests shorten them through the environment.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// What a "minute" of `hibernate_after_minutes` lasts (`SIGNALTTY_HIBERNATE_MINUTE_MS`).
    pub minute: Duration,
    /// How long each step of the stop waits for the process (`SIGNALTTY_HIBERNATE_GRACE_MS`).
    pub grace: Duration,
}

impl Timing {
    fn from_env() -> Timing {
        let ms = |name: &str, default: u64| {
            Duration::from_millis(
                std::env::var(name)
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(default),
            )
        };
        Timing {
            minute: ms("SIGNALTTY_HIBERNATE_MINUTE_MS", 60_000),
            grace: ms("SIGNALTTY_HIBERNATE_GRACE_MS", 5_000),
        }
    }
}

/// The hub's hibernation state.
#[derive(Debug)]
pub struct Hibernation {
    timing: Timing,
    /// Held by a wake from its check to its resume: input and WakePane wake once.
    waking: tokio::sync::Mutex<()>,
    /// Keys typed into a hibernated pane (attach input), in order, until its woken agent has
    /// them: one delivery task per pane writes them, so a burst of keys arrives as typed.
    typed: std::sync::Mutex<HashMap<PaneId, Vec<u8>>>,
}

impl Default for Hibernation {
    fn default() -> Self {
        Hibernation {
            timing: Timing::from_env(),
            waking: tokio::sync::Mutex::new(()),
            typed: std::sync::Mutex::default(),
        }
    }
}

/// What the agent reads as "quit", typed as a person would. Claude Code and OpenCode take
/// `/exit`, Codex and Cursor's agent `/quit`; each saves its session on that path.
pub fn exit_command(kind: AgentKind) -> Option<&'static [u8]> {
    match kind {
        AgentKind::Claude | AgentKind::Opencode => Some(b"/exit\r"),
        AgentKind::Codex | AgentKind::Cursor => Some(b"/quit\r"),
        AgentKind::Generic => None,
    }
}

/// Why `pane` cannot be hibernated now; `Ok` when it can.
pub fn hibernatable(pane: &Pane) -> std::result::Result<(), String> {
    let id = &pane.id;
    if !pane.status.is_live() {
        return Err(format!("pane {id} has no running process to hibernate"));
    }
    let Some(agent) = pane.agent.as_ref().filter(|a| a.kind != AgentKind::Generic) else {
        return Err(format!(
            "pane {id} runs no known agent ({}); only an agent pane can be hibernated and resumed",
            pane.argv.join(" ")
        ));
    };
    if resumable::resume_argv(pane).is_none() {
        return Err(format!(
            "pane {id}'s {} agent has not reported a session id yet, so it could not be resumed; \
             wait until its hooks have run (a first prompt)",
            agent.kind.as_str()
        ));
    }
    if pane.pending_decision.is_some() {
        return Err(format!("pane {id} waits for a decision; answer it first"));
    }
    match pane.state.lifecycle() {
        Lifecycle::Idle | Lifecycle::Done => Ok(()),
        other => Err(format!(
            "pane {id} is {}; only an agent whose turn has ended (idle or done) can be hibernated",
            other.as_str()
        )),
    }
}

impl Hub {
    fn hibernation(&self) -> &Hibernation {
        &self.inner.hibernation
    }

    /// True when the pane is hibernated.
    pub fn is_hibernated(&self, id: &PaneId) -> bool {
        self.store()
            .read(|s| s.pane(id).map(|p| p.status == PaneStatus::Hibernated))
            .unwrap_or(false)
    }

    /// Hibernates one pane: checks it, records HIBERNATED, keeps its screen, and stops its
    /// process (exit command, SIGTERM, SIGKILL). Returns the pane and how it stopped.
    pub async fn hibernate_pane(&self, id: &PaneId) -> Result<(Pane, StoppedBy)> {
        let handle = self.panes().handle(id).map_err(|e| match e {
            Error::PaneExited(_) => {
                Error::NotHibernatable(format!("pane {id} has no running process to hibernate"))
            }
            other => other,
        })?;
        let kind = self.store().apply_with(|s, _| {
            let pane = s.pane(id)?;
            hibernatable(pane).map_err(Error::NotHibernatable)?;
            let kind = pane.agent_kind();
            let (_, events) = s.update_pane(id, |p| p.status = PaneStatus::Hibernated)?;
            Ok((kind, events))
        })?;
        // The screen as the user last saw it, before the agent says goodbye.
        let tail = handle.with_screen(|screen, _| tails::render(screen));
        self.persistence()
            .dormant()
            .insert(id.clone(), Bytes::from(tail));
        let stopped = stop(&handle, kind, self.hibernation().timing.grace).await;
        tracing::info!(pane = %id, stopped_by = stopped.as_str(), "hibernated a pane");
        let pane = self.store().read(|s| s.pane(id).cloned())?;
        Ok((pane, stopped))
    }

    /// Wakes a hibernated pane with its agent's resume command. NOT_HIBERNATED otherwise.
    pub async fn wake_pane(&self, id: &PaneId) -> Result<Pane> {
        let _one = self.hibernation().waking.lock().await;
        let status = self.store().read(|s| s.pane(id).map(|p| p.status))?;
        if status != PaneStatus::Hibernated {
            return Err(Error::NotHibernated(format!(
                "pane {id} is not hibernated; only a hibernated pane can be woken"
            )));
        }
        self.wake_locked(id).await
    }

    /// Wakes the pane if it is hibernated (typing into it, WriteInput); a pane that is not, or
    /// that another caller has just woken, is left as it is.
    pub async fn wake_if_hibernated(&self, id: &PaneId) -> Result<()> {
        if !self.is_hibernated(id) {
            return Ok(());
        }
        let _one = self.hibernation().waking.lock().await;
        if self.is_hibernated(id) {
            self.wake_locked(id).await?;
        }
        Ok(())
    }

    fn typed(&self) -> std::sync::MutexGuard<'_, HashMap<PaneId, Vec<u8>>> {
        self.hibernation()
            .typed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether keys typed into this pane's old (exited) process go to [`Hub::type_while_asleep`]:
    /// it is hibernated, or keys typed while it was are still on their way.
    pub fn takes_typing_while_asleep(&self, id: &PaneId) -> bool {
        self.typed().contains_key(id) || self.is_hibernated(id)
    }

    /// Keys typed into a hibernated pane: the first wakes it, and all are written to the woken
    /// agent in the order they were typed.
    pub fn type_while_asleep(&self, id: &PaneId, data: Vec<u8>) {
        {
            let mut typed = self.typed();
            if let Some(waiting) = typed.get_mut(id) {
                waiting.extend_from_slice(&data);
                return;
            }
            typed.insert(id.clone(), data);
        }
        let (hub, id) = (self.clone(), id.clone());
        tokio::spawn(async move { hub.deliver_typed(id).await });
    }

    async fn deliver_typed(&self, id: PaneId) {
        if let Err(e) = self.wake_if_hibernated(&id).await {
            tracing::warn!(pane = %id, error = %e, "waking a hibernated pane for typed keys failed");
            self.typed().remove(&id);
            return;
        }
        loop {
            let data = {
                let mut typed = self.typed();
                match typed.get_mut(&id) {
                    Some(waiting) if !waiting.is_empty() => std::mem::take(waiting),
                    _ => {
                        typed.remove(&id);
                        return;
                    }
                }
            };
            if let Err(e) = self.write_input(&id, &data, 0).await {
                tracing::warn!(pane = %id, error = %e, "keys typed into a woken pane were not written");
                self.typed().remove(&id);
                return;
            }
        }
    }

    async fn wake_locked(&self, id: &PaneId) -> Result<Pane> {
        // The old process may still be on its way out (a wake right after the hibernate).
        if let Ok(old) = self.panes().handle(id) {
            let mut exit = old.watch_exit();
            let _ = tokio::time::timeout(
                self.hibernation().timing.grace * 3 + Duration::from_secs(5),
                exit.wait_for(Option::is_some),
            )
            .await;
        }
        let pane = self.resume_pane(id, ResumeMode::AgentSession).await?;
        tracing::info!(pane = %id, "woke a hibernated pane");
        Ok(pane)
    }

    /// Starts the timer that hibernates idle agents of workspaces with
    /// `hibernate_after_minutes`.
    pub fn start_hibernation_timer(&self, tasks: &TaskTracker) {
        let hub = self.clone();
        tasks.spawn(async move { hub.run_hibernation_timer().await });
    }

    async fn run_hibernation_timer(&self) {
        let mut head = self.store().watch_head();
        let stop = self.shutdown_token().clone();
        loop {
            let (due, next) = self.due_for_hibernation(SystemTime::now());
            for id in due {
                if let Err(e) = self.hibernate_pane(&id).await {
                    tracing::debug!(pane = %id, error = %e, "not hibernated after all");
                }
            }
            let sleep = async {
                match next {
                    Some(after) => tokio::time::sleep_until(Instant::now() + after).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = stop.cancelled() => return,
                changed = head.changed() => if changed.is_err() { return },
                () = sleep => {}
            }
        }
    }

    /// The panes due now, and how long until the next one could be.
    fn due_for_hibernation(&self, now: SystemTime) -> (Vec<PaneId>, Option<Duration>) {
        let minute = self.hibernation().timing.minute;
        let per_agent = |kind: AgentKind| {
            signaltty_config::AgentKind::from_name(kind.as_str())
                .and_then(|k| self.config().user.agents.get(&k))
                .and_then(|a| a.hibernate_after_minutes)
                .unwrap_or(0)
        };
        let candidates: Vec<(PaneId, Duration)> = self.store().read(|s| {
            let mut out = Vec::new();
            for w in s.workspaces() {
                let settings = &w.settings;
                for p in s.tabs_of(w).into_iter().flat_map(|t| s.panes_of_tab(t)) {
                    let kind = p.agent_kind();
                    // The workspace's setting wins; without one, the agent's `[agents.<kind>]`.
                    let minutes = if settings.hibernate_after_minutes > 0 {
                        let listed = settings.hibernate_agents.is_empty()
                            || settings.hibernate_agents.contains(&kind);
                        if listed {
                            u64::from(settings.hibernate_after_minutes)
                        } else {
                            0
                        }
                    } else {
                        per_agent(kind)
                    };
                    if minutes > 0 && hibernatable(p).is_ok() {
                        let minutes = u32::try_from(minutes).unwrap_or(u32::MAX);
                        out.push((p.id.clone(), minute.saturating_mul(minutes)));
                    }
                }
            }
            out
        });
        let mut due = Vec::new();
        let mut next: Option<Duration> = None;
        let quiet: HashMap<PaneId, SystemTime> = candidates
            .iter()
            .map(|(id, _)| (id.clone(), self.quiet_since(id)))
            .collect();
        for (id, after) in candidates {
            let since = quiet.get(&id).copied().unwrap_or(now);
            let idle = now.duration_since(since).unwrap_or_default();
            if idle >= after {
                due.push(id);
            } else {
                let left = after - idle;
                next = Some(next.map_or(left, |n| n.min(left)));
            }
        }
        (due, next)
    }

    /// When the pane last changed: its turn ended, or it last printed (an echo of typing too).
    fn quiet_since(&self, id: &PaneId) -> SystemTime {
        let turn = self
            .store()
            .read(|s| s.pane(id).map(|p| p.state.lifecycle_since()))
            .unwrap_or_else(|_| SystemTime::now());
        let output = self
            .panes()
            .handle(id)
            .ok()
            .and_then(|h| h.last_activity())
            .unwrap_or(turn);
        turn.max(output)
    }
}

/// Stops the pane's process: its exit command, then SIGTERM, then SIGKILL to its group.
async fn stop(
    handle: &crate::pane::actor::PaneHandle,
    kind: AgentKind,
    grace: Duration,
) -> StoppedBy {
    let mut exit = handle.watch_exit();
    let pty = handle.pty();
    if let Some(command) = exit_command(kind) {
        let _ = pty
            .write_input(command, std::time::Instant::now() + grace)
            .await;
        if tokio::time::timeout(grace, exit.wait_for(Option::is_some))
            .await
            .is_ok()
        {
            return StoppedBy::ExitCommand;
        }
    }
    let _ = pty.signal(PaneSignal::Term, SignalScope::Group);
    if tokio::time::timeout(grace, exit.wait_for(Option::is_some))
        .await
        .is_ok()
    {
        return StoppedBy::Sigterm;
    }
    let _ = pty.signal(PaneSignal::Kill, SignalScope::Group);
    let _ = tokio::time::timeout(
        grace.max(Duration::from_secs(2)),
        exit.wait_for(Option::is_some),
    )
    .await;
    StoppedBy::Sigkill
}
