//! Loading the snapshot at start.
//!
//! Outcomes: no file → empty start; a newer schema → [`LoadError::NewerVersion`], the file left
//! untouched (the server refuses to start rather than drop what a newer version saved); a file
//! that is not a valid snapshot (bad JSON, wrong shape, broken invariants) → moved aside to
//! `snapshot.json.corrupt-<unix seconds>`, logged as an error, empty start. Otherwise every pane
//! comes back without a process — RESTORED, RESUMABLE or EXITED — with its tail.

use std::collections::{HashMap, HashSet};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};

use super::schema::{Snapshot, VersionProbe};
use super::tails::TailDir;
use super::{SCHEMA_VERSION, SNAPSHOT_FILE, file, resumable};
use crate::model::ids::PaneId;
use crate::model::state::{Policy, State};

/// Why the server must not start with this state dir.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The snapshot was written by a newer server.
    #[error(
        "{path} was written by a newer signaltty (snapshot schema {found}; this server reads up to {supported}); \
         it was left untouched: upgrade signaltty, or move the file away to start empty"
    )]
    NewerVersion {
        /// The snapshot.
        path: PathBuf,
        /// Its version, as written.
        found: String,
        /// The newest this server reads.
        supported: u32,
    },
    /// Another server (on another socket) uses this state dir.
    #[error(
        "another signaltty server uses the state dir {0}; stop it, or give this one its own --state-dir"
    )]
    InUse(PathBuf),
    /// The snapshot or tails could not be read, or a corrupt snapshot could not be moved aside
    /// (starting anyway would overwrite it).
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The OS error.
        source: io::Error,
    },
}

/// What a start begins with.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The records, every pane without a process.
    pub state: State,
    /// Saved output of each pane that has one (workspaces with tails enabled only).
    pub tails: HashMap<PaneId, Vec<u8>>,
    /// Where a corrupt snapshot was moved, if one was.
    pub moved_aside: Option<PathBuf>,
}

/// Takes `<state_dir>/lock` (an exclusive `flock`, released by the kernel when the server dies)
/// so that two servers on different sockets never write the same snapshot. Hold it for the
/// server's life.
pub fn lock_state_dir(state_dir: &Path) -> Result<Flock<std::fs::File>, LoadError> {
    let path = state_dir.join("lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&path)
        .map_err(|source| LoadError::Io {
            context: format!("opening {}", path.display()),
            source,
        })?;
    Flock::lock(file, FlockArg::LockExclusiveNonblock)
        .map_err(|_| LoadError::InUse(state_dir.to_path_buf()))
}

/// Loads `<state_dir>/snapshot.json` and its tails.
pub fn load(state_dir: &Path, policy: Policy) -> Result<Loaded, LoadError> {
    let path = state_dir.join(SNAPSHOT_FILE);
    let tails = TailDir::new(state_dir);
    let text = match std::fs::read(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // Tails without a snapshot belong to no pane we know, but they are the user's
            // output: set them aside rather than delete them.
            set_tails_aside(&tails, None);
            return Ok(Loaded {
                state: State::new(policy),
                ..Loaded::default()
            });
        }
        Err(source) => {
            return Err(LoadError::Io {
                context: format!("reading {}", path.display()),
                source,
            });
        }
    };
    let snapshot = match parse(&path, &text)? {
        Ok(snapshot) => snapshot,
        Err(why) => {
            let aside = file::move_aside(&path).map_err(|source| LoadError::Io {
                context: format!("moving the corrupt snapshot {} aside", path.display()),
                source,
            })?;
            // The tails belong to the panes of the corrupt snapshot: they go aside with it, so
            // the first save (which removes tails of panes not in the state) cannot delete them.
            set_tails_aside(&tails, Some(&aside));
            tracing::error!(
                snapshot = %path.display(),
                moved_to = %aside.display(),
                "THE SAVED STATE IS CORRUPT ({why}); it was moved aside and the server starts with \
                 no workspaces"
            );
            return Ok(Loaded {
                state: State::new(policy),
                moved_aside: Some(aside),
                ..Loaded::default()
            });
        }
    };
    let mut state = snapshot.state;
    state.set_policy(policy);
    let ids: Vec<PaneId> = state.all_panes().iter().map(|p| p.id.clone()).collect();
    let mut loaded_tails = HashMap::new();
    for id in &ids {
        let Ok(pane) = state.pane_mut(id) else {
            continue;
        };
        resumable::forget_process(pane);
        resumable::interrupted(pane, std::time::SystemTime::now());
        let ws = pane.workspace_id.clone();
        let tails_on = state
            .workspace(&ws)
            .is_ok_and(|w| !w.settings.disable_tails);
        if tails_on {
            match tails.read(id) {
                Ok(tail) if !tail.is_empty() => {
                    loaded_tails.insert(id.clone(), tail);
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(pane = %id, error = %e, "cannot read a saved tail"),
            }
        }
    }
    let keep: HashSet<PaneId> = loaded_tails.keys().cloned().collect();
    if let Err(e) = tails.retain(&keep) {
        tracing::warn!(error = %e, "cannot clean up saved tails");
    }
    tracing::info!(
        workspaces = state.workspaces().len(),
        tabs = state.tab_count(),
        panes = state.pane_count(),
        tails = loaded_tails.len(),
        "restored the saved state"
    );
    Ok(Loaded {
        state,
        tails: loaded_tails,
        moved_aside: None,
    })
}

/// Moves a non-empty `history/` to `history.aside-<stamp>` (the stamp of the snapshot moved
/// aside with it, else the time), so that nothing the state no longer names is deleted.
fn set_tails_aside(tails: &TailDir, snapshot_aside: Option<&Path>) {
    let dir = tails.path();
    let empty = std::fs::read_dir(dir).map_or(true, |mut d| d.next().is_none());
    if empty {
        return;
    }
    let stamp = snapshot_aside
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix(&format!("{SNAPSHOT_FILE}.")))
        .map_or_else(
            || {
                let secs = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                format!("orphaned-{secs}")
            },
            str::to_owned,
        );
    let mut target = dir.with_file_name(format!("{}.{stamp}", super::HISTORY_DIR));
    let mut n = 1;
    while target.exists() {
        target = dir.with_file_name(format!("{}.{stamp}-{n}", super::HISTORY_DIR));
        n += 1;
    }
    match std::fs::rename(dir, &target) {
        Ok(()) => tracing::warn!(
            moved_to = %target.display(),
            "saved output tails of panes not in the state were set aside"
        ),
        Err(e) => tracing::warn!(error = %e, "cannot set saved tails aside"),
    }
}

/// Parses a snapshot. The outer error refuses the start; the inner one says why it is corrupt.
fn parse(path: &Path, text: &[u8]) -> Result<Result<Snapshot, String>, LoadError> {
    let probe: VersionProbe = match serde_json::from_slice(text) {
        Ok(probe) => probe,
        // The probe decodes no number but `version` (others are skipped unchecked), so a number
        // out of even f64's range (`1e999`) is the version: newer than anything we know.
        Err(e) if e.to_string().starts_with("number out of range") => {
            return Err(LoadError::NewerVersion {
                path: path.to_path_buf(),
                found: "(a number beyond any integer)".to_owned(),
                supported: SCHEMA_VERSION,
            });
        }
        Err(e) => return Ok(Err(format!("not a snapshot: {e}"))),
    };
    let newer = match (probe.version.as_u64(), probe.version.as_f64()) {
        (Some(v), _) => v > u64::from(SCHEMA_VERSION),
        // Beyond u64 (or written with an exponent): newer if it is above ours at all.
        (None, Some(v)) => v > f64::from(SCHEMA_VERSION),
        (None, None) => false,
    };
    if newer {
        return Err(LoadError::NewerVersion {
            path: path.to_path_buf(),
            found: probe
                .version
                .to_string()
                .chars()
                .take(crate::error::QUOTE_CHARS)
                .collect(),
            supported: SCHEMA_VERSION,
        });
    }
    if probe.version.as_u64().is_none_or(|v| v == 0) {
        return Ok(Err(format!(
            "schema version {} was never written",
            probe.version
        )));
    }
    let snapshot: Snapshot = match serde_json::from_slice(text) {
        Ok(s) => s,
        Err(e) => return Ok(Err(format!("unreadable content: {e}"))),
    };
    if let Err(e) = snapshot.state.check_invariants() {
        return Ok(Err(format!("inconsistent records: {e}")));
    }
    // `check_invariants` walks tabs; a pane no tab shows would be unreachable.
    if snapshot.state.all_panes().len() != snapshot.state.pane_count() {
        return Ok(Err("inconsistent records: panes outside every tab".into()));
    }
    Ok(Ok(snapshot))
}
