//! Persistence: the server's records survive a restart, its processes do not.
//!
//! What is saved, in `<state_dir>` (0700):
//! - `snapshot.json` (0600): `{"version": 1, "saved_at": …, "state": {workspaces, tabs, panes,
//!   notifications}}` — the model's own serde form, so a field added to a record is saved
//!   without touching this module, and a field missing from an older file takes its
//!   `#[serde(default)]` ([`schema`]).
//! - `history/<pane>.tail` (0600): the last ≈64 KiB of each pane's output as self-contained
//!   SGR-styled lines, so a restored pane shows what it last said ([`tails`]).
//!
//! Invariants:
//! - Never written: pids (a live pane is saved as RESTORED or RESUMABLE), descriptors, decision
//!   waits, and any environment variable outside [`ENV_ALLOW_LIST`] — enforced on the serialized
//!   form, so a later `env` field cannot leak either.
//! - Every write is atomic (temp + fsync + rename + directory fsync): a crash leaves the old
//!   snapshot or the new one, never a torn file ([`file`]).
//! - Saves are debounced: at most one per [`MIN_SAVE_INTERVAL`], and within that interval of any
//!   change; an idle server never wakes up for them ([`saver`]). The final save on shutdown runs
//!   before panes are hung up, so their exits are not recorded as the user's.
//! - Loading refuses a snapshot of a newer schema (the file is left untouched) and moves a corrupt
//!   one aside, starting empty ([`load`]).

pub mod file;
pub mod load;
pub mod resumable;
pub mod saver;
pub mod schema;
pub mod tails;

use std::time::Duration;

pub use load::{LoadError, Loaded, load, lock_state_dir};
pub use saver::{SaveInput, Saver};

/// The snapshot schema this server writes and the newest it reads.
pub const SCHEMA_VERSION: u32 = 1;

/// The snapshot's file name inside the state dir.
pub const SNAPSHOT_FILE: &str = "snapshot.json";

/// The directory of output tails inside the state dir.
pub const HISTORY_DIR: &str = "history";

/// How much of a pane's output its tail keeps, at most.
pub const TAIL_BYTES: usize = 64 * 1024;

/// Environment variables that may be written to disk (agent config locations, never secrets).
pub const ENV_ALLOW_LIST: [&str; 3] = ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "OPENCODE_CONFIG_DIR"];

/// Debounce: at most one snapshot write per interval, and none later than this after a change.
pub const MIN_SAVE_INTERVAL: Duration = Duration::from_secs(2);
