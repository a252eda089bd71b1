//! Restored panes: a pane loaded from the snapshot has a record but no process. Until it is
//! resumed it is *dormant*: captures and attach snapshots come from its saved tail, and attached
//! clients wait for it. `ResumePane` starts a process in the same record slot — same id, title,
//! position and tail — through the same `spawn_pty` + `start_actor` path as a new pane.
//!
//! The dormant panes are `hub.persistence()`'s (`persistence.rs` reads their tails); resuming
//! one is on `Hub`, as it spans panes (spawn, actor), agents (hooks) and persistence.
//!
//! Invariants: nothing restored runs without an explicit `ResumePane`, except agent panes of a
//! workspace with `auto_resume_agents`; a pane is resumed by at most one caller at a time; the
//! record says LIVE before the new actor can report, so no exit is lost.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::SystemTime;

use bytes::Bytes;
use tokio::sync::watch;

use super::Hub;
use crate::error::{Error, Result};
use crate::model::event::{ChangeSource, Event};
use crate::model::ids::PaneId;
use crate::model::lifecycle::Lifecycle;
use crate::model::pane::{Pane, PaneStatus};
use crate::pane::spawn::SpawnSpec;
use crate::persist::{resumable, tails};
use crate::term::ScreenSnapshot;

/// Which command `ResumePane` starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResumeMode {
    /// The agent's resume command; NOT_RESUMABLE when none is known.
    AgentSession,
    /// The pane's original argv (plain commands and shells; only on explicit request).
    RespawnArgv,
}

/// Dormant panes and the resumes in progress.
#[derive(Debug, Default)]
pub struct Dormant(Mutex<DormantInner>);

#[derive(Debug, Default)]
struct DormantInner {
    panes: HashMap<PaneId, DormantPane>,
    resuming: HashSet<PaneId>,
}

#[derive(Debug)]
struct DormantPane {
    tail: Bytes,
    /// Dropped when the pane is resumed or closed: waiting attach sessions wake up.
    gone: watch::Sender<()>,
}

impl Dormant {
    fn lock(&self) -> MutexGuard<'_, DormantInner> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn insert(&self, id: PaneId, tail: Bytes) {
        let (gone, _) = watch::channel(());
        self.lock().panes.insert(id, DormantPane { tail, gone });
    }

    /// Forgets panes that were closed (or resumed); their waiters wake up.
    pub fn forget(&self, ids: &[PaneId]) {
        let mut inner = self.lock();
        for id in ids {
            inner.panes.remove(id);
        }
    }

    pub(super) fn tail(&self, id: &PaneId) -> Option<Bytes> {
        self.lock().panes.get(id).map(|p| p.tail.clone())
    }

    pub(super) fn watch(&self, id: &PaneId) -> Option<(Bytes, watch::Receiver<()>)> {
        self.lock()
            .panes
            .get(id)
            .map(|p| (p.tail.clone(), p.gone.subscribe()))
    }

    /// Marks `id` as being resumed; `None` when someone else already is.
    fn claim(&self, id: &PaneId) -> Option<Claim<'_>> {
        self.lock().resuming.insert(id.clone()).then(|| Claim {
            dormant: self,
            id: id.clone(),
        })
    }
}

/// Releases a resume claim when dropped (success or failure).
struct Claim<'a> {
    dormant: &'a Dormant,
    id: PaneId,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.dormant.lock().resuming.remove(&self.id);
    }
}

/// What an attach to a dormant pane starts with.
#[derive(Debug)]
pub struct RestoredView {
    /// The saved tail on a screen of the pane's size.
    pub snapshot: ScreenSnapshot,
    /// The pane's title.
    pub title: String,
    /// What the user reads on an attached screen, line by line: that the pane is not running,
    /// and the command that starts it (`signaltty pane resume ID`, with `--respawn` when there
    /// is no agent session to resume).
    pub notice: Vec<String>,
    /// Changes (closes) when the pane is resumed or closed.
    pub gone: watch::Receiver<()>,
}

impl Hub {
    /// Starts a process in a pane that has none (restored, or exited): the agent's resume
    /// command or the original argv, in the pane's cwd and size, with its tail on screen.
    pub async fn resume_pane(&self, id: &PaneId, mode: ResumeMode) -> Result<Pane> {
        // Claimed before the checks, so a resume that has just finished is seen as running.
        let _claim =
            self.persistence().dormant().claim(id).ok_or_else(|| {
                Error::NotResumable(format!("pane {id} is already being resumed"))
            })?;
        let (pane, ws_cwd) = self.store().read(|s| {
            let pane = s.pane(id)?.clone();
            let ws_cwd = s.workspace(&pane.workspace_id)?.cwd.clone();
            Ok::<_, crate::model::state::StateError>((pane, ws_cwd))
        })?;
        let running = self
            .panes()
            .registry()
            .lock()
            .get(id)
            .is_some_and(|h| h.exit_code().is_none());
        if pane.status.is_live() || running {
            return Err(Error::NotResumable(format!(
                "pane {id} is running; only a restored or exited pane can be resumed"
            )));
        }
        let (argv, env) = match mode {
            ResumeMode::AgentSession => {
                let argv = resumable::resume_argv(&pane).ok_or_else(|| {
                    Error::NotResumable(format!(
                        "pane {id} has no agent session to resume; start its original command \
                         ({}) again with `signaltty pane resume {id} --respawn`",
                        pane.argv.join(" ")
                    ))
                })?;
                (argv, resumable::resume_env(&pane))
            }
            ResumeMode::RespawnArgv => (pane.argv.clone(), Vec::new()),
        };
        let cwd = resume_cwd(&pane, ws_cwd)?;
        // A resumed agent reads its hooks from the same config as at launch (config_env).
        let hook_notice = match (&mode, &pane.agent) {
            (ResumeMode::AgentSession, Some(agent)) => {
                self.agents()
                    .install_hooks_for_launch(agent.kind, &env, &cwd)
                    .await
            }
            _ => None,
        };
        let spec = SpawnSpec {
            argv,
            cwd,
            env,
            cols: pane.size.cols,
            rows: pane.size.rows,
        };
        let mut prelude = match self.persistence().dormant().tail(id) {
            Some(tail) => tail.to_vec(),
            None => self
                .panes()
                .registry()
                .lock()
                .get(id)
                .map(|h| h.with_screen(|screen, _| tails::render(screen)))
                .unwrap_or_default(),
        };
        if !prelude.is_empty() {
            // The new process starts on a line of its own, below what the old one said.
            prelude.extend_from_slice(b"\r\n");
        }
        let (pty, events, ticket) = self.spawn_pty(id, &spec).await?;
        let pid = pty.pid();
        let updated = self.store().apply(|s, now| {
            let mut lifecycle = None;
            let (pane, mut events) = s.update_pane(id, |p| {
                p.status = PaneStatus::Live { pid };
                lifecycle = mark_resumed(p, now);
            })?;
            events.extend(lifecycle);
            Ok((pane, events))
        });
        drop(ticket);
        let pane = match updated {
            Ok(pane) => pane,
            Err(e) => {
                // Closed while we spawned: leave nothing running.
                let grace = self.config().hangup_grace;
                tokio::spawn(async move { pty.hangup(grace).await });
                return Err(e);
            }
        };
        if let Some(old) = self.start_actor(id.clone(), pty, events, pane.size, prelude.into()) {
            // The exited process's clients re-attach to the new one.
            old.mark_closed();
            let grace = self.config().hangup_grace;
            tokio::spawn(async move { old.pty().hangup(grace).await });
        }
        self.persistence()
            .dormant()
            .forget(std::slice::from_ref(id));
        if let Some(agent) = &pane.agent {
            self.watch_start_screen(id, agent.kind);
        }
        if let Some(notice) = hook_notice {
            self.agents().notify_pane_of_hooks(id, &notice);
        }
        tracing::info!(pane = %id, ?mode, pid, "resumed a pane");
        Ok(pane)
    }

    /// Resumes the agent panes of workspaces that opted in (`auto_resume_agents`). Failures are
    /// logged; those panes stay RESUMABLE.
    pub async fn auto_resume(&self) {
        let ids: Vec<PaneId> = self.store().read(|s| {
            s.workspaces()
                .iter()
                .filter(|w| w.settings.auto_resume_agents)
                .flat_map(|w| s.tabs_of(w))
                .flat_map(|t| s.panes_of_tab(t))
                .filter(|p| p.status == PaneStatus::Resumable && resumable::auto_resumable(p))
                .map(|p| p.id.clone())
                .collect()
        });
        for id in ids {
            if let Err(e) = self.resume_pane(&id, ResumeMode::AgentSession).await {
                tracing::warn!(pane = %id, error = %e, "auto-resume failed; the pane stays resumable");
            }
        }
    }
}

/// The pane's last cwd, else its workspace's, else a clear refusal.
fn resume_cwd(pane: &Pane, ws_cwd: PathBuf) -> Result<PathBuf> {
    [pane.cwd.clone(), ws_cwd]
        .into_iter()
        .find(|dir| dir.is_dir())
        .ok_or_else(|| Error::SpawnFailed {
            program: pane.argv.first().cloned().unwrap_or_default(),
            reason: format!(
                "neither the pane's directory {} nor its workspace's exists any more",
                pane.cwd.display()
            ),
        })
}

/// A resumed process starts fresh: what the old one was doing (or how it ended) no longer holds,
/// so the lifecycle goes back to `unknown` until the new process (or its hooks) says more.
/// Attention is kept: the user has still not seen what it was about.
fn mark_resumed(pane: &mut Pane, now: SystemTime) -> Option<Event> {
    let change = pane
        .state
        .set_lifecycle(Lifecycle::Unknown, ChangeSource::Resume, now)?;
    Some(Event::LifecycleChanged {
        pane_id: pane.id.clone(),
        prev: change.prev,
        new: change.new,
        source: change.source,
        run: change.run_duration,
    })
}
