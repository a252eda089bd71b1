//! The input side of a pane: bounded, deadline-limited writes to the PTY master.
//!
//! The writer holds its own nonblocking copy of the master. A write that finds the terminal's
//! input buffer full registers that copy with tokio's reactor (writability only) and parks the
//! calling task on epoll until the child reads, so a child that never reads costs no thread and
//! no CPU, and can only delay its own writers: every other pane, and the runtime, carry on. A
//! dedicated writer thread per pane would do the same with a blocked thread per pane; the
//! reactor already exists, so this is cheaper.
//!
//! The copy is registered only while a write waits: a terminal signals "writable" to epoll
//! every time the child reads its input, so a permanent registration woke the server once more
//! per keystroke for nothing (tmux, through libevent, also polls for writability only with
//! output pending).
//!
//! Writes to one pane are serialised (an async mutex), so two inputs never interleave; a
//! waiting write's deadline includes its time in the queue.

use std::io;
use std::os::fd::OwnedFd;

use nix::errno::Errno;
use tokio::io::Interest;
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
    fd: Mutex<Option<OwnedFd>>,
    /// Cancelled on hangup: in-flight writes return `Closed` at once and release the descriptor.
    closed: CancellationToken,
}

/// What a wait for writability ended with.
enum Ready {
    Writable,
    Closed,
    Exited,
    Elapsed,
    Failed(io::Error),
}

impl Input {
    /// Takes `fd`, a nonblocking master copy.
    pub(super) fn new(fd: OwnedFd) -> Self {
        Self {
            fd: Mutex::new(Some(fd)),
            closed: CancellationToken::new(),
        }
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
        nix::unistd::write(fd, bytes).unwrap_or(0)
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
            match nix::unistd::write(fd, &bytes[written..]) {
                Ok(n) => written += n,
                Err(Errno::EINTR) => {}
                // No process holds the terminal any more.
                Err(Errno::EIO) => return Err(WriteError::Exited),
                Err(Errno::EAGAIN) => {
                    let Some(fd) = guard.take() else {
                        return Err(WriteError::Closed);
                    };
                    let (fd, ready) = self.until_writable(fd, deadline, exit).await;
                    *guard = fd;
                    match ready {
                        Ready::Writable => {}
                        Ready::Closed => return Err(WriteError::Closed),
                        Ready::Exited => return Err(WriteError::Exited),
                        Ready::Elapsed => return Err(WriteError::Timeout { written }),
                        Ready::Failed(source) => return Err(WriteError::Io { written, source }),
                    }
                }
                Err(err) => {
                    return Err(WriteError::Io {
                        written,
                        source: err.into(),
                    });
                }
            }
        }
        Ok(written)
    }

    /// Waits with `fd` registered in the reactor until the terminal takes input again, and
    /// hands the descriptor back unregistered (`None` once the input is closed).
    async fn until_writable(
        &self,
        fd: OwnedFd,
        deadline: Instant,
        exit: &ExitState,
    ) -> (Option<OwnedFd>, Ready) {
        let fd = match sys::register(fd, Interest::WRITABLE) {
            Ok(fd) => fd,
            // The descriptor went with the failed registration; later writes see Closed.
            Err(source) => return (None, Ready::Failed(source)),
        };
        let ready = tokio::select! {
            biased;
            () = self.closed.cancelled() => Ready::Closed,
            _ = exit.wait() => Ready::Exited,
            ready = timeout_at(deadline, fd.writable()) => match ready {
                Ok(Ok(_)) => Ready::Writable,
                Ok(Err(source)) => Ready::Failed(source),
                Err(_elapsed) => Ready::Elapsed,
            },
        };
        match ready {
            // Hung up: drop the descriptor now, as `close` would.
            Ready::Closed => (None, ready),
            _ => (Some(fd.into_inner()), ready),
        }
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
