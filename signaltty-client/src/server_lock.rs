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

#[cfg(test)]
mod tests {
    use super::*;

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
