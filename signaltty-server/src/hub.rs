//! `Hub`: the core operations every RPC service calls — validation, the store, and (in
//! `hub/panes.rs`) the pane actors. Services only decode, call one hub method, and encode.
//!
//! A concern that stands alone is a handle that owns its state and holds only what it needs of
//! the rest (`hub.git()`, `hub.persistence()`, `hub.decisions()`, `hub.notifications()`,
//! `hub.arrangement()`, `hub.guard()`, `hub.races()`, `hub.agents()`; see
//! the hub section of `docs/architecture.md`); what stays on `Hub` spans concerns.

pub mod agents;
pub mod arrange;
mod attention;
mod attribution;
pub mod decisions;
pub mod git;
pub mod git_watch;
pub mod guard;
pub mod hibernate;
mod inotify_fd;
pub mod notifications;
pub mod panes;
pub mod persistence;
pub mod race;
pub mod resources;
pub mod resume;
mod saving;
mod screen_watch;
mod shared_hooks;
pub mod spawning;
mod tabs;
mod transcript_watch;
mod turn_watch;
pub mod typing;
pub mod wait;
mod workspaces;
mod worktrees;

use std::sync::Arc;
use std::time::SystemTime;

use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::store::Store;

/// Clonable handle shared by every service.
#[derive(Clone, Debug)]
pub struct Hub {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    store: Store,
    config: Config,
    started_at: SystemTime,
    shutdown: CancellationToken,
    panes: panes::Panes,
    decisions: decisions::Decisions,
    notifications: notifications::Notifications,
    arrangement: arrange::Arrangement,
    guard: guard::Guard,
    agents: agents::Agents,
    hibernation: hibernate::Hibernation,
    connections: crate::listen::Connections,
    git: git::Git,
    persistence: persistence::Persistence,
    spawning: spawning::Spawning,
    races: race::Races,
}

impl Hub {
    /// Builds the hub over a store.
    pub fn new(store: Store, config: Config, shutdown: CancellationToken) -> Self {
        let races = race::Races::new(store.clone(), config.state_dir.clone(), shutdown.clone());
        let git = git::Git::new(store.clone(), &config, shutdown.clone());
        let persistence = persistence::Persistence::new(store.clone(), &config);
        let decisions = decisions::Decisions::new(store.clone(), shutdown.clone());
        let notifications = notifications::Notifications::new(store.clone());
        let arrangement = arrange::Arrangement::new(store.clone());
        let panes = panes::Panes::new(store.clone());
        let guard = guard::Guard::new(store.clone(), config.pane_clients);
        let agents = agents::Agents::new(
            store.clone(),
            config.hook_home.clone(),
            config.answer_policy.clone(),
        );
        Hub {
            inner: Arc::new(Inner {
                store,
                config,
                started_at: SystemTime::now(),
                shutdown,
                panes,
                decisions,
                notifications,
                arrangement,
                guard,
                agents,
                hibernation: hibernate::Hibernation::default(),
                connections: crate::listen::Connections::default(),
                git,
                persistence,
                spawning: spawning::Spawning::default(),
                races,
            }),
        }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// The open-connection count (kept by the listener).
    pub fn connections(&self) -> &crate::listen::Connections {
        &self.inner.connections
    }

    /// The git concern: worktrees, diffs, workspaces' git context and its watcher.
    pub fn git(&self) -> &git::Git {
        &self.inner.git
    }

    /// The persistence concern: the saver, the lineage of pane children, the dormant panes.
    pub fn persistence(&self) -> &persistence::Persistence {
        &self.inner.persistence
    }

    /// The decisions concern: permission hooks waiting for an answer, and the answers.
    pub fn decisions(&self) -> &decisions::Decisions {
        &self.inner.decisions
    }

    /// The notifications concern: Notify, the listing and read marks, NextUnread.
    pub fn notifications(&self) -> &notifications::Notifications {
        &self.inner.notifications
    }

    /// The arrangement concern: focus, order, moves, names, settings and tab layouts.
    pub fn arrangement(&self) -> &arrange::Arrangement {
        &self.inner.arrangement
    }

    /// What a client inside a pane may do: the checks every mutating RPC makes first.
    pub fn guard(&self) -> &guard::Guard {
        &self.inner.guard
    }

    /// The agents concern: our hooks in the agents' configs, and how long a hook may be held.
    pub fn agents(&self) -> &agents::Agents {
        &self.inner.agents
    }

    /// The panes concern (so far): the live pane actors, and what their processes use.
    pub fn panes(&self) -> &panes::Panes {
        &self.inner.panes
    }

    /// The races concern: the race records, waiting on them and comparing their entries.
    pub fn races(&self) -> &race::Races {
        &self.inner.races
    }

    fn spawning(&self) -> &spawning::Spawning {
        &self.inner.spawning
    }

    /// When the server started.
    pub fn started_at(&self) -> SystemTime {
        self.inner.started_at
    }

    /// Cancelled when the server begins to stop.
    pub fn shutdown_token(&self) -> &CancellationToken {
        &self.inner.shutdown
    }
}

impl Hub {
    /// Begins an orderly stop: refuses while processes run unless `force`; announces the stop,
    /// saves the state (before the hangups, so live panes are saved as restorable, not exited),
    /// hangs up every live pane, and cancels the shutdown token (which ends streams and the
    /// server). Returns how many live panes were hung up.
    pub async fn shutdown(&self, force: bool, reason: &str) -> crate::error::Result<usize> {
        let live: Vec<_> = self.store().read(|s| {
            s.all_panes()
                .iter()
                .filter(|p| p.status.is_live())
                .map(|p| p.id.clone())
                .collect()
        });
        if !live.is_empty() && !force {
            return Err(crate::error::Error::PanesAlive(live.len()));
        }
        self.store()
            .publish([crate::model::event::Event::ServerShuttingDown {
                reason: reason.to_owned(),
            }]);
        // Waiting hooks learn it is a shutdown, not their pane exiting.
        self.decisions()
            .waiters()
            .end_all(crate::model::decision::ClearReason::Shutdown);
        self.save_final().await;
        self.end_all_panes().await;
        self.inner.shutdown.cancel();
        Ok(live.len())
    }
}

/// Runs `work` (file-system work, or rendering that takes milliseconds) on the blocking pool:
/// the server has one async worker, and anything slow on it delays every pane's echo.
pub(crate) async fn blocking<T: Send + 'static>(
    what: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> crate::error::Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| crate::error::Error::Internal(format!("{what} task failed: {e}")))
}
