//! Whether a server still holds a socket: the server keeps an exclusive `flock` on
//! `<socket>.lock` for its whole life (see the server's `listen` module), and a new server
//! refuses to start while it is held. A stopping server stops answering on the socket before it
//! lets go of the lock (it first waits, up to a few seconds, for its clients to hang up), so
//! "nothing answers" is not "a new server can start": `server stop` and the auto-start wait for
//! the lock as well.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::fcntl::{Flock, FlockArg};

/// The lock file beside `socket`.
pub fn lock_path(socket: &Path) -> PathBuf {
    PathBuf::from(format!("{}.lock", socket.display()))
}

/// Who holds a socket's lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockState {
    /// A server (running, starting or stopping) holds it.
    Held,
    /// Nobody: a server may start here.
    Free,
}

/// Looks at the lock without keeping it: a shared lock taken and dropped at once. No lock
/// file (or one we cannot open) counts as free: the server then reports what is wrong itself.
pub fn state(socket: &Path) -> LockState {
    let Ok(file) = File::open(lock_path(socket)) else {
        return LockState::Free;
    };
    match Flock::lock(file, FlockArg::LockSharedNonblock) {
        Ok(_held_and_dropped) => LockState::Free,
        Err(_) => LockState::Held,
    }
}

/// Polls, with a short backoff, until the lock is free or `timeout` passes; true when free.
pub async fn wait_until_free(socket: &Path, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    let mut delay = Duration::from_millis(5);
    loop {
        if state(socket) == LockState::Free {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_millis(100));
    }
}

/// Whether process `pid` still runs (a zombie does not).
fn process_runs(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name, which is in parentheses and may hold any byte.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// Polls until the server that was process `pid` is out of the way: it exited, or nothing
/// answers on the socket and its lock is free. (A client may start a new server on the socket
/// the moment the old one lets go of the lock, so "the lock is free" alone could be missed;
/// the old process's exit cannot.) True when so within `timeout`.
pub async fn wait_until_stopped(socket: &Path, pid: u32, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    let mut delay = Duration::from_millis(5);
    loop {
        if !process_runs(pid)
            || (state(socket) == LockState::Free
                && std::os::unix::net::UnixStream::connect(socket).is_err())
        {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_millis(100));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_runs_and_a_reaped_child_does_not() {
        assert!(process_runs(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().expect("spawn");
        let pid = child.id();
        child.wait().expect("wait");
        assert!(!process_runs(pid));
    }

    #[test]
    fn a_held_lock_is_seen_and_its_release_too() {
        use std::os::unix::fs::OpenOptionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let socket = dir.path().join("s.sock");
        assert_eq!(state(&socket), LockState::Free, "no lock file");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(lock_path(&socket))
            .expect("lock file");
        let held = Flock::lock(file, FlockArg::LockExclusiveNonblock).expect("lock");
        assert_eq!(state(&socket), LockState::Held);
        drop(held);
        assert_eq!(state(&socket), LockState::Free);
    }
}
