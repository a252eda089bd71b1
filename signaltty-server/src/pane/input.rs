//! The input side of a pane: bounded, deadline-limited writes to the PTY master.
//!
//! The writer holds its own nonblocking copy of the master registered with tokio's reactor
//! (writability only). A write that finds the terminal's input buffer full parks the calling
//! task on epoll until the child reads, so a child that never reads costs no thread and no CPU,
//! and can only delay its own writers: every other pane, and the runtime, carry on. A dedicated
//! writer thread per pane would do the same with a blocked thread per pane; the reactor already
//! exists, so this is cheaper.
//!
//! Writes to one pane are serialised (an async mutex), so two inputs never interleave; a
//! waiting write's deadline includes its time in the queue.

use std::io;
use std::os::fd::OwnedFd;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::sync::Mutex;
use tokio::time::{Instant, timeout_at};
use tokio_util::sync::CancellationToken;

use super::reaper::ExitState;
use super::sys;

/// Largest input accepted in one write; larger ones are refused whole.
pub const MAX_INPUT_BYTES: usize = 1024 * 1024;

/// Why a write to a pane's terminal did not complete.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// Larger than [`MAX_INPUT_BYTES`]; nothing was written.
    #[error("input of {len} bytes exceeds the limit of {max} bytes; nothing was written")]
    TooLarge {
        /// Requested length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The deadline passed with the terminal's input buffer full (a child that does not read).
    #[error("the pane did not take its input before the deadline ({written} bytes written)")]
    Timeout {
        /// Bytes the terminal accepted before the deadline.
        written: usize,
    },
    /// The pane's child has exited.
    #[error("the pane's process has exited")]
    Exited,
    /// The pane's terminal has been hung up.
    #[error("the pane's terminal is closed")]
    Closed,
    /// Any other OS error.
    #[error("writing to the pane failed after {written} bytes: {source}")]
    Io {
        /// Bytes written before the error.
        written: usize,
        /// What the OS said.
        source: io::Error,
    },
}

/// Owns the pane's input descriptor.
pub(super) struct Input {
    fd: Mutex<Option<AsyncFd<OwnedFd>>>,
    /// Cancelled on hangup: in-flight writes return `Closed` at once and release the descriptor.
    closed: CancellationToken,
}

/// What a wait for writability ended with.
enum Ready<G> {
    Writable(G),
    Closed,
    Exited,
    Elapsed,
}

impl Input {
    /// Registers `fd` (a nonblocking master copy) with the current runtime.
    pub(super) fn new(fd: OwnedFd) -> io::Result<Self> {
        Ok(Self {
            fd: Mutex::new(Some(sys::register(fd, Interest::WRITABLE)?)),
            closed: CancellationToken::new(),
        })
    }

    /// Writes what the terminal takes right now without waiting, and returns how much that was
    /// (0 when a write is in progress, the buffer is full, or anything fails: the caller then
    /// queues the rest for [`Input::write`], which reports errors properly).
    pub(super) fn write_now(&self, bytes: &[u8], exit: &ExitState) -> usize {
        if bytes.len() > MAX_INPUT_BYTES || exit.status().is_some() || self.closed.is_cancelled() {
            return 0;
        }
        let Ok(guard) = self.fd.try_lock() else {
            return 0;
        };
        let Some(fd) = guard.as_ref() else {
            return 0;
        };
        // A would-block here leaves the reactor's readiness set; the queued write's `try_io`
        // then sees the same would-block and clears it, so no wake-up is lost.
        nix::unistd::write(fd.get_ref(), bytes).unwrap_or(0)
    }

    /// Writes all of `bytes` or fails at `deadline`; see [`WriteError`].
    pub(super) async fn write(
        &self,
        bytes: &[u8],
        deadline: Instant,
        exit: &ExitState,
    ) -> Result<usize, WriteError> {
        if bytes.len() > MAX_INPUT_BYTES {
            return Err(WriteError::TooLarge {
                len: bytes.len(),
                max: MAX_INPUT_BYTES,
            });
        }
        if exit.status().is_some() {
            return Err(WriteError::Exited);
        }
        let mut guard = tokio::select! {
            biased;
            () = self.closed.cancelled() => return Err(WriteError::Closed),
            guard = timeout_at(deadline, self.fd.lock()) => {
                guard.map_err(|_| WriteError::Timeout { written: 0 })?
            }
        };
        let mut written = 0;
        while written < bytes.len() {
            let Some(fd) = guard.as_ref() else {
                return Err(WriteError::Closed);
            };
            let ready = tokio::select! {
                biased;
                () = self.closed.cancelled() => Ready::Closed,
                _ = exit.wait() => Ready::Exited,
                ready = timeout_at(deadline, fd.writable()) => match ready {
                    Ok(Ok(guard)) => Ready::Writable(guard),
                    Ok(Err(source)) => return Err(WriteError::Io { written, source }),
                    Err(_elapsed) => Ready::Elapsed,
                },
            };
            let mut ready = match ready {
                Ready::Writable(ready) => ready,
                Ready::Closed => {
                    *guard = None;
                    return Err(WriteError::Closed);
                }
                Ready::Exited => return Err(WriteError::Exited),
                Ready::Elapsed => return Err(WriteError::Timeout { written }),
            };
            let attempt = ready.try_io(|fd| {
                nix::unistd::write(fd.get_ref(), &bytes[written..]).map_err(io::Error::from)
            });
            match attempt {
                Ok(Ok(n)) => written += n,
                // EIO: no process holds the terminal any more.
                Ok(Err(err)) if err.raw_os_error() == Some(libc::EIO) => {
                    return Err(WriteError::Exited);
                }
                Ok(Err(err)) if err.kind() == io::ErrorKind::Interrupted => {}
                Ok(Err(source)) => return Err(WriteError::Io { written, source }),
                // The buffer filled up again; `try_io` cleared readiness, so wait once more.
                Err(_would_block) => {}
            }
        }
        Ok(written)
    }

    /// Fails in-flight and future writes with `Closed` and closes the descriptor.
    pub(super) async fn close(&self) {
        self.closed.cancel();
        self.fd.lock().await.take();
    }

    /// The synchronous part of [`Input::close`], for `Drop`.
    pub(super) fn close_now(&mut self) {
        self.closed.cancel();
        self.fd.get_mut().take();
    }
}
