//! Reaping a pane's child. A future per pane (polled in the pane's one task, next to its reader,
//! but independently of it) sleeps on the child's pidfd in tokio's reactor — so it costs no
//! thread, CPU or wake-up while the child runs — and, once the pidfd says the child
//! has exited, reaps it under the reap lock and publishes the status. Everything that signals the child by pid takes the same lock
//! and checks the status first, so a signal can never reach an unrelated process that was
//! given the same pid after the child was reaped.
//!
//! Reaping is independent of output: a consumer that stops reading never leaves a zombie.

use std::fmt;
use std::io;
use std::sync::Arc;
use std::sync::{Mutex, MutexGuard, PoisonError};

use nix::errno::Errno;
use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid, waitpid};
use nix::unistd::Pid;
use tokio::io::Interest;
use tokio::sync::Notify;

use super::sys;

/// How a pane's child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExitStatus {
    /// It called `exit(code)`.
    Exited {
        /// The exit code, 0–255.
        code: i32,
    },
    /// A signal killed it.
    Signaled {
        /// The signal number.
        signal: i32,
    },
    /// Someone else reaped it, so its status is lost. Only happens if the server ignores SIGCHLD
    /// or calls `waitpid(-1)` somewhere, which it must not.
    Unknown,
}

impl ExitStatus {
    /// The shell convention: the exit code, 128 + the signal number for a killed child, and
    /// -1 when unknown.
    pub fn code(self) -> i32 {
        match self {
            Self::Exited { code } => code,
            Self::Signaled { signal } => 128 + signal,
            Self::Unknown => -1,
        }
    }
}

impl fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Exited { code } => write!(f, "exited with code {code}"),
            Self::Signaled { signal } => match nix::sys::signal::Signal::try_from(*signal) {
                Ok(sig) => write!(f, "killed by {sig}"),
                Err(_) => write!(f, "killed by signal {signal}"),
            },
            Self::Unknown => f.write_str("exit status lost"),
        }
    }
}

/// The child's pid and, once reaped, its status.
pub(super) struct ExitState {
    pid: Pid,
    /// The reap lock: `Some` once reaped.
    status: Mutex<Option<ExitStatus>>,
    /// Wakes async waiters once `status` is set. A `Notify` lives inline: a watch channel
    /// allocated ~350 bytes in every pane for the few that are ever waited on.
    reaped: Notify,
}

impl ExitState {
    pub(super) fn new(pid: Pid) -> Self {
        Self {
            pid,
            status: Mutex::new(None),
            reaped: Notify::new(),
        }
    }

    pub(super) fn pid(&self) -> Pid {
        self.pid
    }

    fn lock(&self) -> MutexGuard<'_, Option<ExitStatus>> {
        // The sections below cannot panic half-way; a poisoned lock still holds a valid value.
        self.status.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The status if the child has been reaped.
    pub(super) fn status(&self) -> Option<ExitStatus> {
        *self.lock()
    }

    /// Runs `f` with the child's pid while holding the reap lock, so the pid still names our
    /// child throughout; `None` if the child has already been reaped.
    pub(super) fn while_unreaped<R>(&self, f: impl FnOnce(Pid) -> R) -> Option<R> {
        let guard = self.lock();
        guard.is_none().then(|| f(self.pid))
    }

    /// Waits (asynchronously) until the child has been reaped.
    pub(super) async fn wait(&self) -> ExitStatus {
        loop {
            let reaped = self.reaped.notified();
            tokio::pin!(reaped);
            // Registered before the status is read, so a reap in between still wakes it.
            reaped.as_mut().enable();
            if let Some(status) = self.status() {
                return status;
            }
            reaped.await;
        }
    }

    /// Blocks until the child has exited, then reaps it and publishes the status. Must be
    /// called by exactly one thread.
    pub(super) fn reap(&self) -> ExitStatus {
        // Wait without reaping, so the pid stays ours until we hold the lock.
        loop {
            match waitid(
                Id::Pid(self.pid),
                WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT,
            ) {
                Err(Errno::EINTR) => continue,
                Ok(_) => break,
                Err(err) => {
                    tracing::error!(pid = %self.pid, %err, "waiting for a pane's child failed");
                    break;
                }
            }
        }
        let mut guard = self.lock();
        let status = loop {
            match waitpid(self.pid, None) {
                Ok(WaitStatus::Exited(_, code)) => break ExitStatus::Exited { code },
                Ok(WaitStatus::Signaled(_, signal, _)) => {
                    break ExitStatus::Signaled {
                        signal: signal as i32,
                    };
                }
                Err(Errno::EINTR) | Ok(_) => continue,
                Err(err) => {
                    tracing::error!(pid = %self.pid, %err, "reaping a pane's child failed");
                    break ExitStatus::Unknown;
                }
            }
        };
        *guard = Some(status);
        crate::orphans::forget_pane_child(self.pid.as_raw() as u32);
        drop(guard);
        self.reaped.notify_waiters();
        status
    }
}

/// What reaps the child and then calls `on_exit`: a future to run on the runtime (the pane's
/// one task, next to the reader: `Pty::spawn`), or `None` when a thread of its own was started
/// for it instead (no pidfds). Must be called within a tokio runtime.
pub(super) fn reaper(
    state: Arc<ExitState>,
    on_exit: impl FnOnce() + Send + 'static,
) -> io::Result<Option<impl Future<Output = ()> + Send + 'static>> {
    // The pidfd becomes readable when the child exits (and stays so until it is reaped).
    let pidfd = match sys::pidfd_open(state.pid()) {
        Ok(pidfd) => sys::register(pidfd, Interest::READABLE)?,
        // No pidfds here (Linux < 5.3, or a sandbox that filters the call: a seccomp profile,
        // gVisor, valgrind): panes still work, at the cost of a blocked thread each.
        Err(err) if matches!(err.raw_os_error(), Some(libc::ENOSYS | libc::EPERM)) => {
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| {
                tracing::warn!(%err, "pidfd_open is unavailable; each pane's child is reaped on a thread of its own");
            });
            return spawn_thread_reaper(state, on_exit).map(|()| None);
        }
        Err(err) => return Err(err),
    };
    Ok(Some(async move {
        let status = match pidfd.readable().await {
            // The child has exited: this returns at once.
            Ok(_) => state.reap(),
            Err(err) => {
                tracing::error!(pid = %state.pid(), %err, "watching a pane's child failed");
                // Wait for the exit on the blocking pool, never on a runtime worker.
                let waiter = Arc::clone(&state);
                match tokio::task::spawn_blocking(move || waiter.reap()).await {
                    Ok(status) => status,
                    Err(_) => return,
                }
            }
        };
        tracing::debug!(pid = %state.pid(), %status, "pane child reaped");
        on_exit();
    }))
}

/// Reaps the child on a thread of its own (the fallback without pidfds), then calls `on_exit`.
fn spawn_thread_reaper(
    state: Arc<ExitState>,
    on_exit: impl FnOnce() + Send + 'static,
) -> io::Result<()> {
    std::thread::Builder::new()
        .name("pane-reaper".into())
        .spawn(move || {
            let status = state.reap();
            tracing::debug!(pid = %state.pid(), %status, "pane child reaped");
            on_exit();
        })
        .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[expect(
        clippy::zombie_processes,
        reason = "the reaper under test waits for the child, not `Child`"
    )]
    fn the_thread_fallback_reaps_and_reports_the_exit() {
        let child = std::process::Command::new("sh")
            .args(["-c", "exit 7"])
            .spawn()
            .expect("sh runs");
        let pid = Pid::from_raw(i32::try_from(child.id()).expect("pid fits"));
        let state = Arc::new(ExitState::new(pid));
        let (tx, rx) = std::sync::mpsc::channel();
        spawn_thread_reaper(Arc::clone(&state), move || {
            let _ = tx.send(());
        })
        .expect("thread starts");
        rx.recv_timeout(std::time::Duration::from_secs(10))
            .expect("on_exit called");
        assert_eq!(state.status(), Some(ExitStatus::Exited { code: 7 }));
    }
}
