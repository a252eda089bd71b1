//! Processes that came from a pane of an earlier server: placement that outlives the server.
//!
//! Placement (`peer.rs`) finds a peer's pane by walking its ancestry up to a live pane's child;
//! the server, a child subreaper, inherits whatever escapes a pane, so an escaped process still
//! ends its walk at the server. That link dies with the server: when a server stops (killed, or
//! simply restarted by the user), a daemon a pane planted is re-parented to init, and to the next
//! server its ancestry looks like the user's own shell — outside every pane, unrestricted. A pane
//! program could gain every right by killing the server, or by waiting for the next restart.
//!
//! So what a server spawned outlives it, in `<state dir>/lineage` (0600): one line per pane child,
//! `<pid> <start time> <pane id>`. A pane's child is a session leader, so its pid is the id of
//! the session every descendant stays in unless it calls `setsid`. A session id cannot be
//! reused while any process is still in that session (the kernel keeps the number), so a
//! process in a recorded session came from that pane — checked against the leader's start time
//! when the leader still lives, in case its pid was reused after the whole session ended.
//!
//! A process that also left the session (`setsid`) is caught by its environment: every pane's
//! program starts with `SIGNALTTY_PANE` set, and descendants inherit it. A process whose
//! ancestry carries it is treated as escaped (not as the pane it names: the value can be forged,
//! and a forged name must never buy another pane's rights). Only a process that both left the
//! session and scrubbed its environment before the server stopped is not recognised;
//! `docs/security.md` says so.
//!
//! The file is appended to at each spawn (one short line) and pruned at start: an entry whose
//! session has no live process left is dropped.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::model::ids::PaneId;
use crate::peer::Origin;

/// The file's name in the state dir.
const FILE: &str = "lineage";

/// The environment variable every pane's program starts with.
const PANE_VAR: &[u8] = b"SIGNALTTY_PANE=";

/// A pane child of this or an earlier server.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Former {
    /// The child's start time (clock ticks since boot, `/proc/<pid>/stat` field 22).
    start: u64,
    pane: PaneId,
}

/// The sessions of every pane child this server or an earlier one on the same state dir spawned.
#[derive(Debug)]
pub struct Lineage {
    path: PathBuf,
    /// By session id (= the pane child's pid).
    sessions: Mutex<HashMap<u32, Former>>,
}

impl Lineage {
    /// Reads `<state_dir>/lineage`, keeps the entries whose session still has a live process and
    /// writes the file back pruned. A missing or unreadable file is an empty lineage.
    pub fn open(state_dir: &Path) -> Lineage {
        let path = state_dir.join(FILE);
        let mut sessions = std::fs::read_to_string(&path)
            .map(|text| parse(&text))
            .unwrap_or_default();
        if !sessions.is_empty() {
            let live = live_sessions();
            sessions.retain(|sid, _| live.contains(sid));
            if let Err(e) = rewrite(&path, &sessions) {
                tracing::warn!("cannot rewrite {}: {e}", path.display());
            }
        }
        Lineage {
            path,
            sessions: Mutex::new(sessions),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u32, Former>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records that `pid`, just started, is pane `pane`'s child. Blocking I/O: call it where the
    /// spawn already blocks (the spawning thread).
    pub fn record(&self, pid: u32, pane: &PaneId) {
        let Some(start) = start_time(pid) else {
            return;
        };
        let former = Former {
            start,
            pane: pane.clone(),
        };
        let line = format!("{pid} {start} {pane}\n");
        self.lock().insert(pid, former);
        let written = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .mode_0600()
            .open(&self.path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            tracing::warn!("cannot record pane {pane} in {}: {e}", self.path.display());
        }
    }

    /// Where a process whose ancestry ends at init (nearest first: `chain`) came from, if from
    /// a pane at all: `Pane(id)` when one of them is in a recorded pane's session and that pane
    /// still exists (`exists`), `Escaped` when its pane is gone or the chain carries a pane's
    /// environment; `None` for a process that never was in a pane.
    pub fn origin_of(&self, chain: &[u32], exists: impl Fn(&PaneId) -> bool) -> Option<Origin> {
        let sessions = self.lock().clone();
        for &pid in chain {
            let Some(sid) = session_of(pid) else {
                continue;
            };
            let Some(former) = sessions.get(&sid) else {
                continue;
            };
            // The leader gone: its session still holds this process, so the number is the
            // pane's. The leader alive: it must be the very process recorded.
            if start_time(sid).is_none_or(|start| start == former.start) {
                return Some(if exists(&former.pane) {
                    Origin::Pane(former.pane.clone())
                } else {
                    Origin::Escaped
                });
            }
        }
        chain
            .iter()
            .any(|&pid| carries_pane_env(pid))
            .then_some(Origin::Escaped)
    }
}

/// `OpenOptions::mode(0o600)` under a name that reads at the call.
trait Private {
    fn mode_0600(&mut self) -> &mut Self;
}

impl Private for std::fs::OpenOptions {
    fn mode_0600(&mut self) -> &mut Self {
        std::os::unix::fs::OpenOptionsExt::mode(self, 0o600)
    }
}

fn parse(text: &str) -> HashMap<u32, Former> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let pid = fields.next()?.parse().ok()?;
            let start = fields.next()?.parse().ok()?;
            let pane = PaneId::parse(fields.next()?)?;
            Some((pid, Former { start, pane }))
        })
        .collect()
}

fn rewrite(path: &Path, sessions: &HashMap<u32, Former>) -> std::io::Result<()> {
    let text: String = sessions
        .iter()
        .map(|(pid, f)| format!("{pid} {} {}\n", f.start, f.pane))
        .collect();
    let tmp = path.with_extension("tmp");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode_0600()
        .open(&tmp)?;
    file.write_all(text.as_bytes())?;
    std::fs::rename(&tmp, path)
}

/// The fields of `/proc/<pid>/stat` after `comm` (which may hold spaces and parentheses), so
/// index 0 is field 3 (`state`).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    Some(after.split_whitespace().map(str::to_owned).collect())
}

/// Field 6, the session id.
fn session_of(pid: u32) -> Option<u32> {
    stat_fields(pid)?.get(3)?.parse().ok()
}

/// Field 22, the start time in clock ticks since boot.
fn start_time(pid: u32) -> Option<u64> {
    stat_fields(pid)?.get(19)?.parse().ok()
}

/// The session id of every live process.
fn live_sessions() -> HashSet<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return HashSet::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(session_of)
        .collect()
}

/// Whether `pid` started with `SIGNALTTY_PANE` in its environment (unreadable: no).
fn carries_pane_env(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|&b| b == 0).any(|var| var.starts_with(PANE_VAR)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_junk_is_skipped() {
        let pane = PaneId::new();
        let text = format!("12 345 {pane}\nnonsense\n7 x {pane}\n13 1 not-a-pane\n");
        let parsed = parse(&text);
        assert_eq!(parsed.len(), 1);
        assert_eq!(parsed[&12], Former { start: 345, pane });
    }

    #[test]
    fn our_own_session_is_found_and_a_dead_entry_is_pruned() {
        let dir = tempfile::tempdir().expect("tempdir");
        let me = std::process::id();
        let sid = session_of(me).expect("our session");
        let pane = PaneId::new();
        // Our session's leader, recorded with its real start time (or, when the leader is gone,
        // any): this process is in that session.
        let start = start_time(sid).unwrap_or(0);
        std::fs::write(
            dir.path().join(FILE),
            format!(
                "{sid} {start} {pane}\n{} 1 {}\n",
                u32::MAX - 1,
                PaneId::new()
            ),
        )
        .expect("write");
        let lineage = Lineage::open(dir.path());
        assert_eq!(lineage.lock().len(), 1, "the dead session is pruned");
        let kept = std::fs::read_to_string(dir.path().join(FILE)).expect("read");
        assert_eq!(kept.lines().count(), 1);
        let found = pane.clone();
        assert_eq!(
            lineage.origin_of(&[me], |p| *p == found),
            Some(Origin::Pane(pane))
        );
        assert_eq!(lineage.origin_of(&[me], |_| false), Some(Origin::Escaped));
    }

    #[test]
    fn a_reused_leader_pid_is_not_the_pane() {
        let dir = tempfile::tempdir().expect("tempdir");
        let me = std::process::id();
        let sid = session_of(me).expect("our session");
        if start_time(sid).is_none() {
            return; // our session's leader is gone: nothing to compare here.
        }
        std::fs::write(
            dir.path().join(FILE),
            format!("{sid} 1 {}\n", PaneId::new()),
        )
        .expect("write");
        let lineage = Lineage::open(dir.path());
        // Not the recorded start time: the pid is someone else's now. (The test process itself
        // may carry SIGNALTTY_PANE when run inside a pane; then it is escaped by environment.)
        let expected = carries_pane_env(me).then_some(Origin::Escaped);
        assert_eq!(lineage.origin_of(&[me], |_| true), expected);
    }

    #[test]
    fn the_environment_marks_a_process_from_a_pane() {
        // Until a program has printed, its exec may not have set up its environment yet (the
        // parent of a vfork-style spawn resumes before that).
        let mut child = std::process::Command::new("sh")
            .args(["-c", "echo up; read never"])
            .env("SIGNALTTY_PANE", "pane_anything")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("sh");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("stdout");
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line).expect("read");
        let dir = tempfile::tempdir().expect("tempdir");
        let lineage = Lineage::open(dir.path());
        assert_eq!(
            lineage.origin_of(&[child.id()], |_| true),
            Some(Origin::Escaped)
        );
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    fn a_recorded_spawn_is_written_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let lineage = Lineage::open(dir.path());
        lineage.record(std::process::id(), &PaneId::new());
        let meta = std::fs::metadata(dir.path().join(FILE)).expect("written");
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    }
}
