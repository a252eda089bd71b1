//! Keeps workspaces' git context live without polling: one task for the whole server owns one
//! inotify instance watching the git directories of every open workspace's checkout
//! (`git/watch.rs` says which and why directories), and refreshes the workspaces a change
//! concerns, and announces `WorktreeChanged` when a repository's linked worktrees come, go,
//! lock or move — also when `git worktree add/remove` runs in a pane. It also refreshes a
//! pane's workspace when the pane reports a new working directory (OSC 7), and when a pane stops
//! working (its lifecycle leaves `working`, or its process exits): editing files touches
//! nothing under `.git`, and an agent's turn ending is when its edits are done. No timer
//! anywhere: the task sleeps until inotify, a report, or an event on the bus (a state change
//! re-aims its watches) wakes it.
//!
//! Coalescing: events that arrive while a refresh runs wait in the inotify queue and cause one
//! more refresh after it, so the context always ends up read after the last change. A queue
//! overflow refreshes every watched workspace.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use nix::sys::inotify::{AddWatchFlags, WatchDescriptor};
use tokio::sync::mpsc;
use tokio_util::task::TaskTracker;

use crate::git::watch::{Change, Role, dirs_for};
use crate::model::event::Event;
use crate::model::ids::{PaneId, WorkspaceId};
use crate::model::lifecycle::Lifecycle;

use super::git::Git;
use super::inotify_fd::InotifyFd;

/// What other parts of the server tell the watcher.
#[derive(Debug)]
pub enum Poke {
    /// A pane reported its working directory (OSC 7).
    Cwd {
        /// The pane.
        pane: PaneId,
        /// Where it is now.
        cwd: PathBuf,
    },
}

/// The sending side, kept by the git handle; the receiver waits for [`Git::start_watch`].
#[derive(Debug)]
pub struct Pokes {
    tx: mpsc::UnboundedSender<Poke>,
    rx: std::sync::Mutex<Option<mpsc::UnboundedReceiver<Poke>>>,
}

impl Default for Pokes {
    fn default() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        Pokes {
            tx,
            rx: std::sync::Mutex::new(Some(rx)),
        }
    }
}

struct Watched {
    dir: PathBuf,
    roles: Vec<Role>,
    /// Workspaces whose checkout uses the directory.
    workspaces: HashSet<WorkspaceId>,
    /// The repository's main checkout (for `WorktreeChanged`).
    main: PathBuf,
}

/// The pane whose turn or process ended, from an event on the bus.
fn stopped_working(event: &Event) -> Option<&PaneId> {
    match event {
        Event::LifecycleChanged {
            pane_id,
            prev: Lifecycle::Working,
            ..
        }
        | Event::PaneExited { pane_id, .. } => Some(pane_id),
        _ => None,
    }
}

impl Git {
    /// Tells the git watcher something (never blocks; dropped once the server stops).
    pub(crate) fn poke(&self, poke: Poke) {
        let _ = self.pokes().tx.send(poke);
    }

    /// Starts the git watcher on `tasks`; it ends when the server shuts down.
    pub fn start_watch(&self, tasks: &TaskTracker) {
        let rx = self
            .pokes()
            .rx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let Some(rx) = rx else { return };
        let git = self.clone();
        tasks.spawn(async move { git.watch(rx).await });
    }

    async fn watch(&self, mut pokes: mpsc::UnboundedReceiver<Poke>) {
        let stop = self.shutdown_token().clone();
        let fd = match InotifyFd::open() {
            Ok(fd) => Some(fd),
            Err(e) => {
                tracing::warn!(error = %e, "no inotify: git context refreshes only on request and on cwd reports");
                None
            }
        };
        let mut bus = self.store().subscribe(None).live;
        let mut watches: HashMap<WatchDescriptor, Watched> = HashMap::new();
        let mut shown: Vec<(WorkspaceId, Option<PathBuf>)> = Vec::new();
        let mut last_cwd: HashMap<PaneId, PathBuf> = HashMap::new();
        let mut first = true;
        // Repositories whose worktree list changed, announced once the watches are re-aimed (so
        // a worktree that appeared is watched before the news goes out: its later changes
        // cannot fall between the announcement and the watch).
        let mut worktrees_changed: HashSet<PathBuf> = HashSet::new();
        loop {
            let now = self.store().read(|s| {
                s.workspaces()
                    .iter()
                    .map(|w| (w.id.clone(), w.git.repo_root.clone()))
                    .collect::<Vec<_>>()
            });
            if now != shown {
                // Repositories of closed workspaces are not kept.
                let cwds: Vec<PathBuf> = self
                    .store()
                    .read(|s| s.workspaces().iter().map(|w| w.cwd.clone()).collect());
                self.repos().retain(&cwds);
                if let Some(fd) = &fd {
                    self.aim(fd, &mut watches, &now).await;
                }
                if first {
                    // Contexts restored from a snapshot may be stale: read them once.
                    for (id, root) in &now {
                        if root.is_some() {
                            let _ = self.refresh(id).await;
                        }
                    }
                }
                shown = now;
            }
            first = false;
            if !worktrees_changed.is_empty() {
                self.store().publish(
                    worktrees_changed
                        .drain()
                        .map(|repo_root| Event::WorktreeChanged { repo_root }),
                );
            }
            let batch = async {
                match &fd {
                    Some(fd) => fd.next_batch().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = stop.cancelled() => return,
                received = bus.recv() => {
                    let mut quiet: HashSet<PaneId> = HashSet::new();
                    match received {
                        Ok(e) => quiet.extend(stopped_working(&e.event).cloned()),
                        // Missed events: the loop re-reads the workspaces anyway.
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                    }
                    // Panes that stop together (a burst of events) cost one refresh per workspace.
                    while let Ok(e) = bus.try_recv() {
                        quiet.extend(stopped_working(&e.event).cloned());
                    }
                    if !quiet.is_empty() {
                        let stale: HashSet<WorkspaceId> = self.store().read(|s| {
                            quiet.iter().filter_map(|p| s.pane(p).ok().map(|p| p.workspace_id.clone())).collect()
                        });
                        for id in stale {
                            let _ = self.refresh(&id).await;
                        }
                    }
                }
                poke = pokes.recv() => match poke {
                    None => return,
                    Some(Poke::Cwd { pane, cwd }) => {
                        if last_cwd.get(&pane) != Some(&cwd) {
                            last_cwd.insert(pane.clone(), cwd);
                            let ws = self.store().read(|s| s.pane(&pane).map(|p| p.workspace_id.clone()));
                            if let Ok(ws) = ws {
                                let _ = self.refresh(&ws).await;
                            }
                            if last_cwd.len() > 1024 {
                                let live: HashSet<PaneId> = self.store().read(|s| s.all_panes().iter().map(|p| p.id.clone()).collect());
                                last_cwd.retain(|p, _| live.contains(p));
                            }
                        }
                    }
                },
                batch = batch => {
                    let events = match batch {
                        Ok(events) => events,
                        Err(e) => {
                            tracing::warn!(error = %e, "reading inotify events failed");
                            continue;
                        }
                    };
                    let mut stale: HashSet<WorkspaceId> = HashSet::new();
                    let mut reaim = false;
                    for event in events {
                        if event.mask.contains(AddWatchFlags::IN_Q_OVERFLOW) {
                            stale.extend(watches.values().flat_map(|w| w.workspaces.iter().cloned()));
                            continue;
                        }
                        let Some(w) = watches.get(&event.wd) else { continue };
                        if event.mask.contains(AddWatchFlags::IN_IGNORED) {
                            // The directory went away (e.g. a removed worktree).
                            reaim = true;
                            continue;
                        }
                        let Some(name) = event.name.as_deref() else { continue };
                        let mut matters = false;
                        for change in w.roles.iter().filter_map(|r| r.change(name)) {
                            matters = true;
                            match change {
                                Change::Context => stale.extend(w.workspaces.iter().cloned()),
                                Change::Worktrees => {
                                    worktrees_changed.insert(w.main.clone());
                                }
                            }
                        }
                        if matters && event.mask.contains(AddWatchFlags::IN_ISDIR) {
                            reaim = true;
                        }
                    }
                    if reaim || !worktrees_changed.is_empty() {
                        // Also re-aims for a worktree list change: the loop's top announces it.
                        shown.clear();
                    }
                    for id in stale {
                        // HEAD, the index or refs changed: the next read opens the repository
                        // afresh (its configuration may have changed in the same burst).
                        if let Ok(cwd) = self.store().read(|s| s.workspace(&id).map(|w| w.cwd.clone())) {
                            self.repos().forget(&cwd);
                        }
                        let _ = self.refresh(&id).await;
                    }
                }
            }
        }
    }

    /// Points the watches at the git directories of the workspaces' checkouts.
    async fn aim(
        &self,
        fd: &InotifyFd,
        watches: &mut HashMap<WatchDescriptor, Watched>,
        workspaces: &[(WorkspaceId, Option<PathBuf>)],
    ) {
        let roots: Vec<(WorkspaceId, PathBuf)> = workspaces
            .iter()
            .filter_map(|(id, root)| root.clone().map(|r| (id.clone(), r)))
            .collect();
        // Reading `.git` files and listing refs directories is file-system work.
        let wanted = super::blocking("finding git directories", move || {
            let mut wanted: HashMap<PathBuf, Watched> = HashMap::new();
            for (id, root) in roots {
                let found = dirs_for(&root);
                for (dir, role) in found.dirs {
                    let w = wanted.entry(dir.clone()).or_insert_with(|| Watched {
                        dir,
                        roles: Vec::new(),
                        workspaces: HashSet::new(),
                        main: found.main.clone(),
                    });
                    if !w.roles.contains(&role) {
                        w.roles.push(role);
                    }
                    w.workspaces.insert(id.clone());
                }
            }
            wanted
        })
        .await
        .unwrap_or_default();
        let inotify = &fd.inotify;
        let mut next: HashMap<WatchDescriptor, Watched> = HashMap::new();
        let mask = AddWatchFlags::IN_MOVED_TO
            | AddWatchFlags::IN_MOVED_FROM
            | AddWatchFlags::IN_CLOSE_WRITE
            | AddWatchFlags::IN_CREATE
            | AddWatchFlags::IN_DELETE
            | AddWatchFlags::IN_ONLYDIR;
        for (dir, watched) in wanted {
            match inotify.add_watch(&dir, mask) {
                Ok(wd) => {
                    next.insert(wd, watched);
                }
                Err(e) => {
                    tracing::debug!(dir = %dir.display(), error = %e, "cannot watch a git directory");
                }
            }
        }
        for (wd, old) in watches.drain() {
            if !next.contains_key(&wd) {
                let _ = inotify.rm_watch(wd);
                tracing::trace!(dir = %old.dir.display(), "stopped watching");
            }
        }
        *watches = next;
    }
}
