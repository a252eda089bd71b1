//! The handle to one pane's terminal and child: the API the pane actor is built on.
//!
//! [`Pty::spawn`] starts the child and returns the handle plus a bounded receiver of
//! [`PtyEvent`]s: output chunks in order, then `Exited` exactly once (see the `output` module's
//! ordering rules), then the channel closes. Behind the handle is one task on tokio's reactor
//! that runs two futures (the reader moves output, the reaper waits on the child's pidfd) and
//! a writer registered with the same reactor; none of them wakes up while the pane is idle, and none holds a
//! thread.
//!
//! The handle is a cheap `Clone` so the actor can run a slow input write or a hangup in a task
//! of its own while it keeps draining output. That matters: a child that echoes its input
//! (`cat`) stops reading input once its output is not being read, so an actor that awaited
//! `write_input` inline while not draining events would deadlock until the write's deadline.
//!
//! Dropping the last handle without [`Pty::hangup`] closes the terminal and sends SIGHUP to the
//! child's process group, but cannot wait to escalate to SIGKILL: close panes with `hangup`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::{Pid, tcgetpgrp};
use std::os::fd::{AsFd, OwnedFd};

use super::input::Input;
use super::output::{Wake, reader};
use super::pty_events;
use super::reaper::{ExitState, reaper};
use super::signal::{PaneSignal, SignalScope};
use super::spawn::{self, PtySize, SpawnError, SpawnSpec, clamp_size};
use super::sys;
use crate::model::ids::PaneId;

pub use super::input::{MAX_INPUT_BYTES, WriteError};
pub use super::output::CHUNK_BYTES;
pub use super::reaper::ExitStatus;

/// Output chunks the event channel holds before the reader blocks (so at most
/// `EVENT_QUEUE_CHUNKS` × [`CHUNK_BYTES`] = 1 MiB is queued per pane).
pub const EVENT_QUEUE_CHUNKS: usize = 16;

/// How long [`Pty::hangup`] lets the child react to SIGHUP before SIGKILL, unless told otherwise.
pub const DEFAULT_HANGUP_GRACE: Duration = Duration::from_secs(2);

/// How long [`Pty::hangup`] waits for the reap after SIGKILL before giving up.
const KILL_REAP_TIMEOUT: Duration = Duration::from_secs(5);

/// What the terminal reports to the pane actor, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PtyEvent {
    /// Bytes the terminal produced: everything available at read time, 1 to [`CHUNK_BYTES`]
    /// bytes, never split or dropped.
    Output {
        /// The raw terminal output.
        bytes: Bytes,
    },
    /// The child has been reaped. Sent exactly once, after all output the child wrote.
    Exited {
        /// How it ended.
        status: ExitStatus,
    },
}

pub use super::pty_events::PtyEvents;

/// Why an operation on a pane's terminal failed.
#[derive(Debug, thiserror::Error)]
pub enum PtyError {
    /// The child has exited (or, for a group, no process is left in it).
    #[error("the pane's process has exited")]
    Exited,
    /// The terminal has been hung up.
    #[error("the pane's terminal is closed")]
    Closed,
    /// The OS refused.
    #[error("{0}")]
    Os(#[from] Errno),
    /// Reading `/proc` failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// How [`Pty::hangup`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HangupOutcome {
    /// The child exited on its own or after SIGHUP, within the grace period (survivors in its
    /// group may have needed SIGKILL).
    Exited {
        /// Its status.
        status: ExitStatus,
    },
    /// The child outlived the grace period and was killed with SIGKILL.
    Killed {
        /// Its status.
        status: ExitStatus,
    },
    /// Not even SIGKILL got it reaped in time (stuck in the kernel); the reaper task will
    /// still reap it whenever it dies.
    Unresponsive,
}

/// A running (or exited) child on its own pseudo-terminal. Cheap to clone; the terminal is
/// closed when [`Pty::hangup`] is called or the last clone is dropped.
#[derive(Clone)]
pub struct Pty(Arc<Inner>);

struct Inner {
    pane: PaneId,
    tty: PathBuf,
    exit: Arc<ExitState>,
    wake: Arc<Wake>,
    /// Master copy for ioctls; `None` once closed.
    control: Mutex<Control>,
    input: Input,
}

struct Control {
    master: Option<OwnedFd>,
    size: PtySize,
}

impl Pty {
    /// Validates `spec` and starts its program on a new terminal, with `SIGNALTTY_PANE=pane`
    /// and `SIGNALTTY_SOCKET=socket` in its environment. Must be called within a tokio runtime.
    /// Blocks for fork+exec (exec failures are reported here, with nothing left behind).
    pub fn spawn(
        pane: PaneId,
        socket: &Path,
        spec: &SpawnSpec,
    ) -> Result<(Pty, PtyEvents), SpawnError> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(SpawnError::NoRuntime);
        }
        // Fork and registration under the orphan reaper's lock (`orphans.rs`): a child that dies
        // at once is still known as a pane child, never reaped as an orphan.
        let spawning = crate::orphans::spawning();
        let started = spawn::start(&pane, socket, spec)?;
        let mut child = started.child;
        crate::orphans::register_pane_child(child.id());
        drop(spawning);
        let pid = Pid::from_raw(child.id() as i32);
        let exit = Arc::new(ExitState::new(pid));
        // The child runs from here on: a failure below must kill and reap it.
        let setup = |what: &'static str| move |source| SpawnError::Setup { what, source };
        let wake = Arc::new(Wake::default());
        let parts = (|| -> Result<_, SpawnError> {
            let reader_fd = started.master.try_clone().map_err(setup("terminal"))?;
            let input = Input::new(started.master.try_clone().map_err(setup("terminal"))?);
            let (tx, rx) = pty_events::channel(EVENT_QUEUE_CHUNKS);
            let reading = reader(reader_fd, Arc::clone(&wake), Arc::clone(&exit), tx)
                .map_err(setup("reader"))?;
            let wake_on_exit = Arc::clone(&wake);
            let reaping =
                reaper(Arc::clone(&exit), move || wake_on_exit.ring()).map_err(setup("reaper"))?;
            Ok((input, rx, reading, reaping))
        })();
        let (input, rx, reading, reaping) = match parts {
            Ok(parts) => parts,
            Err(err) => {
                // Nothing was spawned yet: dropping the futures unregisters their descriptors.
                let _ = child.kill();
                let _ = child.wait();
                crate::orphans::forget_pane_child(child.id());
                return Err(err);
            }
        };
        // One task per pane runs both: a task's header and scheduling state cost as much as
        // the reaper's future itself (issue 31: memory per idle pane). `join` polls each
        // future on its own, so the reaper still reaps while the reader waits for its consumer.
        // A combinator, not `join!` in an `async` block: the block kept the two futures twice
        // (once captured, once in the join), which cost more than the second task saved.
        tokio::spawn(futures_util::future::join(
            reading,
            futures_util::future::OptionFuture::from(reaping),
        ));
        // The reaper owns the wait from now on; std's `Child` neither waits nor kills on drop.
        drop(child);

        let inner = Inner {
            pane,
            tty: started.tty,
            exit,
            wake,
            control: Mutex::new(Control {
                master: Some(started.master),
                size: started.size,
            }),
            input,
        };
        Ok((Pty(Arc::new(inner)), rx))
    }

    /// The pane this terminal belongs to.
    pub fn pane(&self) -> &PaneId {
        &self.0.pane
    }

    /// The child's pid (also its process group and session id).
    pub fn pid(&self) -> u32 {
        self.0.exit.pid().as_raw() as u32
    }

    /// The slave's path, e.g. `/dev/pts/3`.
    pub fn tty(&self) -> &Path {
        &self.0.tty
    }

    /// The current terminal size.
    pub fn size(&self) -> PtySize {
        self.control().size
    }

    /// The exit status once the child has been reaped.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        self.0.exit.status()
    }

    /// Waits until the child has been reaped. The same status is also delivered as
    /// [`PtyEvent::Exited`], in order with the output.
    pub async fn wait_exit(&self) -> ExitStatus {
        self.0.exit.wait().await
    }

    fn control(&self) -> MutexGuard<'_, Control> {
        // Sections under this lock are single syscalls; a poisoned value is still valid.
        self.0
            .control
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Sets the terminal size (clamped to the allowed range) and returns the size applied. The
    /// kernel sends SIGWINCH to the foreground process group if the size changed.
    pub fn resize(&self, cols: u16, rows: u16) -> Result<PtySize, PtyError> {
        let size = clamp_size(cols, rows);
        let mut control = self.control();
        let master = control.master.as_ref().ok_or(PtyError::Closed)?;
        sys::set_window_size(master.as_fd(), size)?;
        control.size = size;
        Ok(size)
    }

    /// A copy of the master for a client that writes the pane's input itself
    /// (`terminal/direct.rs`): the same file description (non-blocking, shared with the reader),
    /// close-on-exec. `Closed` after a hangup, `Exited` once the child was reaped.
    pub fn input_copy(&self) -> Result<OwnedFd, PtyError> {
        if self.0.exit.status().is_some() {
            return Err(PtyError::Exited);
        }
        let control = self.control();
        let master = control.master.as_ref().ok_or(PtyError::Closed)?;
        Ok(master.try_clone()?)
    }

    /// Writes as much of `bytes` as the terminal takes without waiting; see `Input::write_now`.
    pub fn write_input_now(&self, bytes: &[u8]) -> usize {
        self.0.input.write_now(bytes, &self.0.exit)
    }

    /// Writes `bytes` to the terminal as if typed, all of it or an error by `deadline`. At most
    /// [`MAX_INPUT_BYTES`]. Never blocks a thread: a child that does not read only makes this
    /// future wait, and other panes are unaffected. Concurrent writes to one pane are queued.
    pub async fn write_input(
        &self,
        bytes: &[u8],
        deadline: std::time::Instant,
    ) -> Result<usize, WriteError> {
        let deadline = tokio::time::Instant::from_std(deadline);
        self.0.input.write(bytes, deadline, &self.0.exit).await
    }

    /// Sends an allow-listed signal. `Child` is refused once the child has been reaped (its pid
    /// may belong to someone else by then). `Group` still reaches survivors of the child's
    /// group after it exited: a process group id cannot be reused while any member lives.
    pub fn signal(&self, signal: PaneSignal, scope: SignalScope) -> Result<(), PtyError> {
        let sig = signal.to_nix();
        match scope {
            SignalScope::Child => self
                .0
                .exit
                .while_unreaped(|pid| kill(pid, sig))
                .ok_or(PtyError::Exited)?
                .map_err(PtyError::from),
            SignalScope::Group => signal_group(self.0.exit.pid(), sig),
            SignalScope::Foreground => {
                let group = {
                    let control = self.control();
                    let master = control.master.as_ref().ok_or(PtyError::Closed)?;
                    tcgetpgrp(master)?
                };
                signal_group(group, sig)
            }
        }
    }

    /// The child's working directory, from `/proc/<pid>/cwd`.
    pub fn cwd(&self) -> Result<PathBuf, PtyError> {
        let path = format!("/proc/{}/cwd", self.0.exit.pid());
        self.0
            .exit
            .while_unreaped(|_| std::fs::read_link(path))
            .ok_or(PtyError::Exited)?
            .map_err(PtyError::from)
    }

    /// The terminal's foreground process group (the child itself, or the job a shell runs).
    pub fn foreground_process_group(&self) -> Option<u32> {
        let control = self.control();
        let master = control.master.as_ref()?;
        let group = tcgetpgrp(master).ok()?.as_raw();
        (group > 0).then_some(group as u32)
    }

    /// Closes the pane like a terminal window being closed: SIGHUP (and SIGCONT, so stopped
    /// jobs see it) to the child's process group, the master closed (no more output; input
    /// fails with `Closed`), then SIGKILL to the group once `grace` has passed if the child, or
    /// anything left in its group, is still there. Only this future waits (at most `grace` plus
    /// a few seconds); run it in its own task if the caller must carry on. The `Exited` event
    /// still arrives on the event channel.
    ///
    /// Processes that left the group (an interactive shell's jobs) are not chased; an
    /// interactive shell forwards SIGHUP to its jobs itself.
    pub async fn hangup(&self, grace: Duration) -> HangupOutcome {
        let pid = self.0.exit.pid();
        let deadline = tokio::time::Instant::now() + grace;
        // Signal 0 probes whether any member is left; a group id is not reused while one is.
        let group_alive = || killpg(pid, None).is_ok();
        if group_alive() {
            let _ = killpg(pid, Signal::SIGHUP);
            let _ = killpg(pid, Signal::SIGCONT);
        }
        self.0.wake.stop();
        self.control().master = None;
        self.0.input.close().await;
        match tokio::time::timeout_at(deadline, self.wait_exit()).await {
            Ok(status) => {
                // The child is gone; give what it left in its group the rest of the grace.
                if group_alive() {
                    tokio::time::sleep_until(deadline).await;
                    if group_alive() {
                        let _ = killpg(pid, Signal::SIGKILL);
                    }
                }
                HangupOutcome::Exited { status }
            }
            Err(_) => {
                let _ = killpg(pid, Signal::SIGKILL);
                match tokio::time::timeout(KILL_REAP_TIMEOUT, self.wait_exit()).await {
                    Ok(status) => HangupOutcome::Killed { status },
                    Err(_) => HangupOutcome::Unresponsive,
                }
            }
        }
    }
}

fn signal_group(group: Pid, sig: Signal) -> Result<(), PtyError> {
    match killpg(group, sig) {
        Err(Errno::ESRCH) => Err(PtyError::Exited),
        other => other.map_err(PtyError::from),
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // As in `hangup`: the group, even after the child exited, for what it left behind.
        let _ = killpg(self.exit.pid(), Signal::SIGHUP);
        let _ = killpg(self.exit.pid(), Signal::SIGCONT);
        self.wake.stop();
        self.input.close_now();
        // The control master closes with `self`; with the reader's and writer's copies gone,
        // that closes the terminal.
    }
}

impl std::fmt::Debug for Pty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pty")
            .field("pane", &self.0.pane)
            .field("pid", &self.pid())
            .field("tty", &self.0.tty)
            .field("exit", &self.exit_status())
            .finish()
    }
}
