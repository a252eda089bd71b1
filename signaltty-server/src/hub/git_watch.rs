//! Keeps workspaces' git context live without polling: one task for the whole server owns one
//! inotify instance watching the git directories of every open workspace's checkout
//! (`git/watch.rs` says which and why directories), and refreshes the workspaces a change
//! concerns. It also refreshes a pane's workspace when the pane reports a new working
//! directory (OSC 7). No timer anywhere: the task sleeps until inotify, a report, or a state
//! change (to re-aim its watches) wakes it.
//!
//! Coalescing: events that arrive while a refresh runs wait in the inotify queue and cause one
//! more refresh after it, so the context always ends up read after the last change. A queue
//! overflow refreshes every watched workspace.

use std::collections::{HashMap, HashSet};
use std::os::fd::AsFd;
use std::path::PathBuf;

use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify, WatchDescriptor};
use tokio::io::unix::AsyncFd;
use tokio::sync::mpsc;
use tokio_util::task::TaskTracker;

use crate::git::watch::{Role, dirs_for};
use crate::model::ids::{PaneId, WorkspaceId};

use super::Hub;

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

/// The sending side, kept by the hub; the receiver waits for [`Hub::start_git_watch`].
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

/// The inotify instance, and a duplicate of its descriptor registered with tokio's reactor for
/// readability (the duplicate shares the open file description, so it is readable exactly when
/// the instance has events).
struct Fd {
    inotify: Inotify,
    ready: AsyncFd<std::os::fd::OwnedFd>,
}

impl Fd {
    fn open() -> std::io::Result<Fd> {
        let inotify = Inotify::init(InitFlags::IN_NONBLOCK | InitFlags::IN_CLOEXEC)?;
        let copy = inotify.as_fd().try_clone_to_owned()?;
        let ready = crate::pane::sys::register(copy, tokio::io::Interest::READABLE)?;
        Ok(Fd { inotify, ready })
    }
}

struct Watched {
    dir: PathBuf,
    role: Role,
    workspaces: HashSet<WorkspaceId>,
}

impl Hub {
    /// Tells the git watcher something (never blocks; dropped once the server stops).
    pub(crate) fn poke_git(&self, poke: Poke) {
        let _ = self.inner.git_pokes.tx.send(poke);
    }

    /// Starts the git watcher on `tasks`; it ends when the server shuts down.
    pub fn start_git_watch(&self, tasks: &TaskTracker) {
        let rx = self
            .inner
            .git_pokes
            .rx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let Some(rx) = rx else { return };
        let hub = self.clone();
        tasks.spawn(async move { hub.watch_git(rx).await });
    }

    async fn watch_git(&self, mut pokes: mpsc::UnboundedReceiver<Poke>) {
        let stop = self.shutdown_token().clone();
        let fd = match Fd::open() {
            Ok(fd) => Some(fd),
            Err(e) => {
                tracing::warn!(error = %e, "no inotify: git context refreshes only on request and on cwd reports");
                None
            }
        };
        let mut head = self.store().watch_head();
        let mut watches: HashMap<WatchDescriptor, Watched> = HashMap::new();
        let mut shown: Vec<(WorkspaceId, Option<PathBuf>)> = Vec::new();
        let mut last_cwd: HashMap<PaneId, PathBuf> = HashMap::new();
        let mut first = true;
        loop {
            let now = self.store().read(|s| {
                s.workspaces()
                    .iter()
                    .map(|w| (w.id.clone(), w.git.repo_root.clone()))
                    .collect::<Vec<_>>()
            });
            if now != shown {
                if let Some(fd) = &fd {
                    self.aim(fd, &mut watches, &now).await;
                }
                if first {
                    // Contexts restored from a snapshot may be stale: read them once.
                    for (id, root) in &now {
                        if root.is_some() {
                            let _ = self.refresh_git(id).await;
                        }
                    }
                }
                shown = now;
            }
            first = false;
            let readable = async {
                match &fd {
                    Some(fd) => fd.ready.readable().await.map(|g| Some((g, &fd.inotify))),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = stop.cancelled() => return,
                changed = head.changed() => {
                    if changed.is_err() {
                        return;
                    }
                }
                poke = pokes.recv() => match poke {
                    None => return,
                    Some(Poke::Cwd { pane, cwd }) => {
                        if last_cwd.get(&pane) != Some(&cwd) {
                            last_cwd.insert(pane.clone(), cwd);
                            let ws = self.store().read(|s| s.pane(&pane).map(|p| p.workspace_id.clone()));
                            if let Ok(ws) = ws {
                                let _ = self.refresh_git(&ws).await;
                            }
                            if last_cwd.len() > 1024 {
                                let live: HashSet<PaneId> = self.store().read(|s| s.all_panes().iter().map(|p| p.id.clone()).collect());
                                last_cwd.retain(|p, _| live.contains(p));
                            }
                        }
                    }
                },
                ready = readable => {
                    let Ok(Some((mut guard, inotify))) = ready else { continue };
                    let events = match inotify.read_events() {
                        Ok(events) => events,
                        Err(nix::errno::Errno::EAGAIN) => {
                            guard.clear_ready();
                            continue;
                        }
                        Err(e) => {
                            tracing::warn!(error = %e, "reading inotify events failed");
                            guard.clear_ready();
                            continue;
                        }
                    };
                    drop(guard);
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
                        let matters = event.name.as_deref().is_some_and(|n| w.role.matters(n));
                        if matters {
                            stale.extend(w.workspaces.iter().cloned());
                            if event.mask.contains(AddWatchFlags::IN_ISDIR) {
                                reaim = true;
                            }
                        }
                    }
                    if reaim {
                        shown.clear();
                    }
                    for id in stale {
                        let _ = self.refresh_git(&id).await;
                    }
                }
            }
        }
    }

    /// Points the watches at the git directories of the workspaces' checkouts.
    async fn aim(
        &self,
        fd: &Fd,
        watches: &mut HashMap<WatchDescriptor, Watched>,
        workspaces: &[(WorkspaceId, Option<PathBuf>)],
    ) {
        let roots: Vec<(WorkspaceId, PathBuf)> = workspaces
            .iter()
            .filter_map(|(id, root)| root.clone().map(|r| (id.clone(), r)))
            .collect();
        // Reading `.git` files and listing refs directories is file-system work.
        let wanted = super::blocking("finding git directories", move || {
            let mut wanted: HashMap<PathBuf, (Role, HashSet<WorkspaceId>)> = HashMap::new();
            for (id, root) in roots {
                for (dir, role) in dirs_for(&root) {
                    wanted
                        .entry(dir)
                        .or_insert_with(|| (role, HashSet::new()))
                        .1
                        .insert(id.clone());
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
        for (dir, (role, ids)) in wanted {
            match inotify.add_watch(&dir, mask) {
                Ok(wd) => {
                    next.insert(
                        wd,
                        Watched {
                            dir,
                            role,
                            workspaces: ids,
                        },
                    );
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
