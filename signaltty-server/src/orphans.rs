//! The server as a child subreaper (`PR_SET_CHILD_SUBREAPER`), and the reaping that comes with it.
//!
//! Why: `peer.rs` tells a program inside a pane from the user's shell by its ancestry. Without a
//! subreaper, a program in a pane could double-fork (or `setsid` and let its parent exit) and be
//! re-parented to init, looking like any other process of the user. As a subreaper, the server
//! inherits every orphaned descendant instead, so the ancestry of anything started in a pane ends
//! at the server for the rest of its life.
//!
//! The cost: those orphans become our children, and their exits must be reaped or they stay
//! zombies. A pane's own child is reaped by its pane reaper (`pane/reaper.rs`, `waitpid(pid)`), and
//! the server's other children (git, tests' clients) by whoever started them, so this reaper must
//! never take one of theirs: it reaps only zombie children that are (a) not registered as a pane
//! child and (b) in a session other than the server's — every pane descendant is, since pane
//! children are session leaders, while `std::process::Command` children stay in ours. Spawning a
//! pane holds [`spawning`] across fork and registration, and a scan holds it exclusively, so a
//! child that dies before it is registered is never mistaken for an orphan.

use std::collections::HashSet;
use std::sync::{Mutex, PoisonError, RwLock, RwLockReadGuard};

/// Pane children: reaped by their pane reaper, never here.
static PANE_CHILDREN: Mutex<Option<HashSet<u32>>> = Mutex::new(None);
/// Held shared while a pane's child is forked and registered, exclusively while scanning.
static SPAWNING: RwLock<()> = RwLock::new(());

/// Held while starting a pane's child until [`register_pane_child`].
pub fn spawning() -> RwLockReadGuard<'static, ()> {
    SPAWNING.read().unwrap_or_else(PoisonError::into_inner)
}

/// Marks `pid` as a pane child (reaped by its pane reaper).
pub fn register_pane_child(pid: u32) {
    PANE_CHILDREN
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashSet::new)
        .insert(pid);
}

/// Forgets `pid` once its pane reaper has reaped it (the number may be reused by an orphan).
pub fn forget_pane_child(pid: u32) {
    if let Some(set) = PANE_CHILDREN
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_mut()
    {
        set.remove(&pid);
    }
}

fn is_pane_child(pid: u32) -> bool {
    PANE_CHILDREN
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .is_some_and(|s| s.contains(&pid))
}

/// Makes this process a child subreaper. Returns whether it worked (it does on Linux ≥ 3.4).
#[allow(unsafe_code)]
pub fn become_subreaper() -> bool {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes one integer argument and touches no memory.
    let rc = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) };
    rc == 0
}

/// `(state, ppid, session)` from `/proc/<pid>/stat`.
fn state_ppid_session(stat: &str) -> Option<(char, u32, u32)> {
    let after = &stat[stat.rfind(')')? + 1..];
    let mut fields = after.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let _pgrp = fields.next()?;
    let session = fields.next()?.parse().ok()?;
    Some((state, ppid, session))
}

/// Reaps every zombie orphan we inherited. Returns how many.
pub fn reap_orphans() -> usize {
    let _scan = SPAWNING.write().unwrap_or_else(PoisonError::into_inner);
    let me = std::process::id();
    let my_session = nix::unistd::getsid(None).map_or(0, |s| s.as_raw() as u32);
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut reaped = 0;
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((state, ppid, session)) = state_ppid_session(&stat) else {
            continue;
        };
        if ppid != me || state != 'Z' || session == my_session || is_pane_child(pid) {
            continue;
        }
        let target = nix::unistd::Pid::from_raw(pid as i32);
        if nix::sys::wait::waitpid(target, Some(nix::sys::wait::WaitPidFlag::WNOHANG)).is_ok() {
            reaped += 1;
        }
    }
    reaped
}

/// Makes the server a subreaper and reaps inherited orphans on every SIGCHLD until `stop`.
pub fn start(stop: tokio_util::sync::CancellationToken) {
    if !become_subreaper() {
        tracing::warn!(
            "cannot become a child subreaper; a program that double-forks out of a pane is no longer recognised as coming from a pane"
        );
        return;
    }
    let mut sigchld = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::child()) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "cannot watch SIGCHLD; orphans from panes stay zombies");
            return;
        }
    };
    tokio::spawn(async move {
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                got = sigchld.recv() => if got.is_none() { return },
            }
            let _ = tokio::task::spawn_blocking(reap_orphans).await;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_gives_state_ppid_and_session() {
        assert_eq!(
            state_ppid_session("42 (a) b) Z 7 42 40 0"),
            Some(('Z', 7, 40))
        );
        assert_eq!(state_ppid_session("42 (a) Z 7"), None);
    }
}
