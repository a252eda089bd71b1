//! `Saver`: writes the snapshot and the tails, debounced, off the async runtime.
//!
//! The task ([`Saver::run`]) sleeps until the store's head seq moves (any recorded change) or a
//! pane produces output (for its tail); then it waits out the rest of [`MIN_SAVE_INTERVAL`]
//! since the previous write and saves. So there is at most one write per interval, no change
//! waits longer than one interval, and an idle server has no timer at all.
//!
//! One save: the state is cloned under the store's lock ([`SaveInput`]), then the tails are
//! rendered (each under its pane's screen lock), serialized and written, all in `spawn_blocking`.
//! The snapshot is rewritten only when the head seq moved, a tail only when its pane's output
//! did. Saves never overlap. [`Saver::save_final`] freezes the saver after one last save, so
//! nothing the shutdown does afterwards (hanging up panes) reaches the disk.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Instant, SystemTime};

use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use super::file::{Durability, write_atomic};
use super::schema::Snapshot;
use super::tails::{TailDir, render};
use super::{MIN_SAVE_INTERVAL, SNAPSHOT_FILE};
use crate::model::ids::PaneId;
use crate::model::state::State;
use crate::pane::actor::PaneHandle;

/// What one save looks at.
#[derive(Debug)]
pub struct SaveInput {
    /// A copy of the records.
    pub state: State,
    /// The store's head seq when it was copied.
    pub head: u64,
    /// The pane actors (live or exited this run), for their tails.
    pub panes: Vec<(PaneId, PaneHandle)>,
}

/// What one save did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SaveReport {
    /// Bytes of snapshot written (0 when it was up to date).
    pub snapshot_bytes: usize,
    /// Tails rewritten.
    pub tails_written: usize,
    /// Tails removed (closed panes, tails disabled).
    pub tails_removed: usize,
}

/// Why a save failed. The next change retries.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// Serializing failed (a bug).
    #[error("serializing the snapshot: {0}")]
    Serialize(#[from] serde_json::Error),
    /// Writing failed (disk full, permissions…).
    #[error("writing {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The blocking task died.
    #[error("the save task failed: {0}")]
    Task(String),
}

/// Handle to the saver. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Saver {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    state_dir: PathBuf,
    activity: Arc<Notify>,
    frozen: AtomicBool,
    written: tokio::sync::Mutex<Written>,
}

/// What is on disk already.
#[derive(Debug, Default)]
struct Written {
    /// Head seq of the snapshot on disk (`None`: not written by this run).
    head: Option<u64>,
    /// Per pane: (pid, output offset) its tail on disk was rendered at. The pid tells a
    /// resumed pane's new process from the old one.
    tails: HashMap<PaneId, (u32, u64)>,
}

impl Saver {
    /// A saver for `state_dir` (which must exist, 0700).
    pub fn new(state_dir: PathBuf) -> Self {
        Saver {
            inner: Arc::new(Inner {
                state_dir,
                activity: Arc::new(Notify::new()),
                frozen: AtomicBool::new(false),
                written: tokio::sync::Mutex::new(Written::default()),
            }),
        }
    }

    /// The signal pane actors poke after output.
    pub fn activity(&self) -> Arc<Notify> {
        Arc::clone(&self.inner.activity)
    }

    /// Saves what changed, unless the saver is frozen.
    pub async fn save(&self, input: SaveInput) -> Result<SaveReport, SaveError> {
        let mut written = self.inner.written.lock().await;
        if self.inner.frozen.load(Ordering::Acquire) {
            return Ok(SaveReport::default());
        }
        self.save_locked(&mut written, input).await
    }

    /// Saves once more and freezes: later saves do nothing.
    pub async fn save_final(&self, input: SaveInput) -> Result<SaveReport, SaveError> {
        self.inner.frozen.store(true, Ordering::Release);
        let mut written = self.inner.written.lock().await;
        self.save_locked(&mut written, input).await
    }

    async fn save_locked(
        &self,
        written: &mut Written,
        input: SaveInput,
    ) -> Result<SaveReport, SaveError> {
        let dir = self.inner.state_dir.clone();
        let mut mine = std::mem::take(written);
        let (result, mine) = tokio::task::spawn_blocking(move || {
            let result = save_blocking(&dir, input, &mut mine);
            crate::memory::release_free_heap();
            (result, mine)
        })
        .await
        .map_err(|e| SaveError::Task(e.to_string()))?;
        *written = mine;
        result
    }

    /// The debounced save loop; returns when `stop` is cancelled or the store is gone.
    pub async fn run(
        self,
        mut head: watch::Receiver<u64>,
        collect: impl Fn() -> SaveInput + Send + Sync + 'static,
        stop: CancellationToken,
    ) {
        let collect = Arc::new(collect);
        let mut last_write: Option<Instant> = None;
        loop {
            tokio::select! {
                biased;
                () = stop.cancelled() => return,
                changed = head.changed() => if changed.is_err() { return },
                () = self.inner.activity.notified() => {}
            }
            if let Some(last) = last_write {
                let next = tokio::time::Instant::from_std(last + MIN_SAVE_INTERVAL);
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep_until(next) => {}
                }
            }
            // Anything published from here on wakes the loop again.
            head.borrow_and_update();
            last_write = Some(Instant::now());
            // Copying the state takes about 1 ms per 500 panes: not on the async worker, which
            // then only waits if it needs the store's lock in that time.
            let collect = Arc::clone(&collect);
            let input = match tokio::task::spawn_blocking(move || collect()).await {
                Ok(input) => input,
                Err(e) => {
                    tracing::error!(error = %e, "copying the state to save failed; retrying on the next change");
                    continue;
                }
            };
            match self.save(input).await {
                Ok(report) => tracing::debug!(?report, "saved"),
                Err(e) => {
                    // A full disk fails every save: log the first, then rarely, with a count.
                    static LIMIT: crate::log_limit::SiteLimit = crate::log_limit::SiteLimit::new();
                    if let Some(suppressed) = LIMIT.allow() {
                        tracing::error!(error = %e, suppressed, "saving the state failed; retrying on the next change");
                    }
                }
            }
        }
    }
}

fn save_blocking(
    state_dir: &std::path::Path,
    input: SaveInput,
    written: &mut Written,
) -> Result<SaveReport, SaveError> {
    let mut report = SaveReport::default();
    let tails = TailDir::new(state_dir);
    let tails_on: HashSet<PaneId> = input
        .state
        .workspaces()
        .iter()
        .filter(|w| !w.settings.disable_tails)
        .flat_map(|w| input.state.tabs_of(w))
        .flat_map(|t| t.panes())
        .collect();
    for (id, handle) in &input.panes {
        if !tails_on.contains(id) {
            continue;
        }
        let stamp = (handle.pty().pid(), handle.offset());
        if written.tails.get(id) == Some(&stamp) {
            continue;
        }
        let tail = handle.with_screen(|screen, _| render(screen));
        match tails.write(id, &tail) {
            Ok(()) => {
                written.tails.insert(id.clone(), stamp);
                report.tails_written += 1;
            }
            // A missing tail only costs context on restore; the snapshot matters more.
            Err(e) => {
                // On a full disk this fails for every pane at every save: say it rarely.
                static LIMIT: crate::log_limit::SiteLimit = crate::log_limit::SiteLimit::new();
                if let Some(suppressed) = LIMIT.allow() {
                    tracing::warn!(pane = %id, error = %e, suppressed, "cannot write a pane's tail");
                }
            }
        }
    }
    written.tails.retain(|id, _| tails_on.contains(id));
    match tails.retain(&tails_on) {
        Ok(n) => report.tails_removed = n,
        Err(e) => tracing::warn!(error = %e, "cannot clean up tails"),
    }
    if written.head != Some(input.head) {
        let snapshot = Snapshot::for_save(input.state, SystemTime::now());
        let json = snapshot.to_json()?;
        write_atomic(state_dir, SNAPSHOT_FILE, &json, Durability::Synced).map_err(|source| {
            SaveError::Io {
                path: state_dir.join(SNAPSHOT_FILE),
                source,
            }
        })?;
        written.head = Some(input.head);
        report.snapshot_bytes = json.len();
    }
    Ok(report)
}
