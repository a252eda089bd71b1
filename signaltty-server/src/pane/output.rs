//! The output side of a pane: a future (run in the pane's one task, next to the reaper) that
//! moves bytes from the PTY master into the pane's bounded event channel, and reports the
//! child's exit in order with its output.
//!
//! The master is registered with tokio's reactor, so an idle pane is a parked future: no
//! thread, no CPU and no wake-ups (an OS thread per pane cost ~30 KiB of RSS and a context
//! switch per chunk). When the master is readable the task reads everything available, up to
//! one 64 KiB buffer, and sends it as one chunk: under load the chunks grow, so the consumer
//! pays its per-chunk costs less often; a pass that fills the whole buffer starts a burst (the
//! `burst` module), which reads on a blocking-pool thread until the terminal is quiet. The
//! channel is bounded and the send waits: a slow
//! consumer stops the reader, the terminal's kernel buffer fills, and the child blocks in
//! `write` — backpressure all the way to the producer, and no byte is ever dropped.
//!
//! Ordering: `Exited` is sent exactly once, after every byte the child wrote before it exited
//! (once the reaper has seen the exit, the reader drains what the kernel still buffers — at
//! most about 68 KiB, so the drain is bounded — before sending it). Output after `Exited` can
//! only come from processes that inherited the terminal and outlived the child. The channel
//! closes when the terminal is done (EOF, i.e. EIO from the master, or a hangup) and the exit
//! was reported, or as soon as the consumer drops its receiver.

use std::io;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bytes::Bytes;
use nix::errno::Errno;
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::sync::Notify;

use super::burst::{BurstEnd, read_burst};
use super::pty::PtyEvent;
use super::pty_events::EventSender;
use super::reaper::ExitState;
use super::sys;

/// Size of one read buffer, hence the largest output chunk.
pub const CHUNK_BYTES: usize = 64 * 1024;

/// Buffer for interactive output; a pass that fills it switches to [`CHUNK_BYTES`].
const SMALL_CHUNK_BYTES: usize = 4 * 1024;

/// How many bytes the reader forwards after the exit before reporting it. The kernel buffers
/// at most 64 KiB (flip buffers) + 4 KiB (line discipline) per direction, so this covers all the
/// child left behind while bounding the delay a chatty surviving grandchild could cause.
const DRAIN_AFTER_EXIT_BYTES: usize = 1024 * 1024;

/// Wakes the reader: on exit (from the reaper) and on stop (hangup/drop).
#[derive(Default)]
pub(super) struct Wake {
    notify: Notify,
    stop: AtomicBool,
}

impl Wake {
    /// Makes the reader look at the exit status and the stop flag. A ring while the reader is
    /// busy is kept (one permit) and seen at its next wait.
    pub(super) fn ring(&self) {
        self.notify.notify_one();
    }

    /// Tells the reader to close its master copy and forward no more output. It still reports
    /// the exit.
    pub(super) fn stop(&self) {
        self.stop.store(true, Ordering::Release);
        self.ring();
    }

    pub(super) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }
}

/// What one read pass found.
enum Pass {
    /// Nothing more is available right now.
    Drained,
    /// The buffer filled up; more may be waiting.
    Full,
    /// The terminal is closed on the other side (or broken); the master copy is dropped.
    Eof,
    /// The consumer dropped its receiver.
    ConsumerGone,
}

/// The reader of one pane: a future to run on the runtime (the pane's one task, with the
/// reaper: `Pty::spawn`). `master` must be nonblocking. Must be called within a tokio runtime
/// (the master is registered with its reactor).
pub(super) fn reader(
    master: OwnedFd,
    wake: Arc<Wake>,
    exit: Arc<ExitState>,
    tx: EventSender,
) -> io::Result<impl Future<Output = ()> + Send + 'static> {
    let master = sys::register(master, Interest::READABLE)?;
    let reader = Reader {
        master: Some(master),
        wake,
        exit,
        tx,
        buf: Vec::new(),
        exit_sent: false,
    };
    Ok(reader.run())
}

struct Reader {
    /// The reader's own copy of the master; `None` after EOF or stop.
    master: Option<AsyncFd<OwnedFd>>,
    wake: Arc<Wake>,
    exit: Arc<ExitState>,
    tx: EventSender,
    /// Read buffer, sized to the traffic: empty while idle (an idle pane holds no buffer), a
    /// small one for interactive output, [`CHUNK_BYTES`] while a read fills the small one.
    buf: Vec<u8>,
    exit_sent: bool,
}

impl Reader {
    async fn run(mut self) {
        while self.master.is_some() || !self.exit_sent {
            let master_ready = self.wait().await;
            if self.wake.stopped() {
                self.master = None;
            }
            // One pass per wait, so stop and exit are noticed even under a flood.
            if master_ready {
                match self.pass(Read::Ready).await {
                    Pass::ConsumerGone => return,
                    // A flood: read it on the blocking pool (the `burst` module says why).
                    Pass::Full => match self.burst().await {
                        Some(reader) => self = reader,
                        None => return,
                    },
                    Pass::Drained | Pass::Eof => {}
                }
            }
            if !self.exit_sent
                && let Some(status) = self.exit.status()
            {
                if !self.drain_after_exit().await {
                    return;
                }
                if self.tx.send(PtyEvent::Exited { status }).await.is_err() {
                    return;
                }
                self.exit_sent = true;
            }
        }
    }

    /// Reads a flood on a blocking-pool thread until the terminal is quiet; the descriptor is
    /// out of the reactor meanwhile (its readiness would wake the worker for every piece of
    /// output). `None` when the consumer is gone (or the burst job panicked).
    async fn burst(mut self) -> Option<Self> {
        let Some(master) = self.master.take() else {
            return Some(self);
        };
        let master = master.into_inner();
        let (mut reader, master, end) = tokio::task::spawn_blocking(move || {
            let exit_pending = !self.exit_sent;
            let end = read_burst(
                &master,
                &mut self.buf,
                &self.tx,
                (&self.wake, &self.exit, exit_pending),
            );
            (self, master, end)
        })
        .await
        .ok()?;
        match end {
            BurstEnd::ConsumerGone => return None,
            BurstEnd::Eof => {}
            BurstEnd::Quiet => match sys::register(master, Interest::READABLE) {
                Ok(master) => reader.master = Some(master),
                Err(err) => {
                    tracing::warn!(%err, "re-registering a pane's terminal failed; treating as EOF");
                }
            },
        }
        Some(reader)
    }

    /// Waits until the master is readable (true) or the reader is rung (false).
    async fn wait(&self) -> bool {
        let Some(master) = &self.master else {
            self.wake.notify.notified().await;
            return false;
        };
        tokio::select! {
            biased;
            () = self.wake.notify.notified() => false,
            // An error from the reactor is treated as readable: the read then reports it.
            _ = master.readable() => true,
        }
    }

    /// Forwards what the child left in the terminal before it exited. False if the consumer
    /// is gone.
    async fn drain_after_exit(&mut self) -> bool {
        let mut forwarded = 0;
        while self.master.is_some() && forwarded < DRAIN_AFTER_EXIT_BYTES {
            match self.pass(Read::Now).await {
                Pass::Full => forwarded += CHUNK_BYTES,
                Pass::Drained | Pass::Eof => break,
                Pass::ConsumerGone => return false,
            }
        }
        true
    }

    /// Reads until the master has nothing more or the buffer is full, then sends one chunk.
    async fn pass(&mut self, how: Read) -> Pass {
        let Some(master) = &self.master else {
            return Pass::Eof;
        };
        if self.buf.is_empty() {
            self.buf = vec![0; SMALL_CHUNK_BYTES];
        }
        let (filled, eof) = read_available(master, &mut self.buf, how).await;
        if filled > 0 {
            let bytes = Bytes::copy_from_slice(&self.buf[..filled]);
            if self.tx.send(PtyEvent::Output { bytes }).await.is_err() {
                self.master = None;
                return Pass::ConsumerGone;
            }
        }
        let full = filled == self.buf.len();
        if full && self.buf.len() < CHUNK_BYTES {
            // A burst: read in large chunks until it ends.
            self.buf = vec![0; CHUNK_BYTES];
        } else if !full && filled < SMALL_CHUNK_BYTES {
            // Quiet again: give the memory back until the next output.
            self.buf = Vec::new();
        }
        if eof {
            self.master = None;
            Pass::Eof
        } else if full {
            Pass::Full
        } else {
            Pass::Drained
        }
    }
}

/// How a pass reads.
#[derive(Clone, Copy)]
enum Read {
    /// The reactor said the master is readable: read under its readiness, clearing it when the
    /// master runs dry so the next wait sleeps until new output.
    Ready,
    /// Take whatever the kernel holds right now without waiting and without touching the
    /// readiness (after the exit, when there may be nothing left to read).
    Now,
}

/// What one `read(2)` on the master means.
pub(super) enum Step {
    Got(usize),
    Dry,
    Eof,
}

pub(super) fn read_once(master: &OwnedFd, buf: &mut [u8]) -> Step {
    loop {
        return match nix::unistd::read(master, buf) {
            Ok(0) => Step::Eof,
            Ok(n) => Step::Got(n),
            Err(Errno::EINTR) => continue,
            Err(Errno::EAGAIN) => Step::Dry,
            // EIO: every slave descriptor is closed (the child and its heirs are gone).
            Err(Errno::EIO) => Step::Eof,
            Err(err) => {
                tracing::warn!(%err, "reading a pane's terminal failed; treating as EOF");
                Step::Eof
            }
        };
    }
}

/// Reads into `buf` until it is full, the master has nothing more or the terminal is closed.
/// Returns (bytes read, EOF).
async fn read_available(master: &AsyncFd<OwnedFd>, buf: &mut [u8], how: Read) -> (usize, bool) {
    let mut guard = match how {
        Read::Now => None,
        Read::Ready => match master.readable().await {
            Ok(guard) => Some(guard),
            Err(err) => {
                tracing::warn!(%err, "polling a pane's terminal failed; treating as EOF");
                return (0, true);
            }
        },
    };
    let mut filled = 0;
    while filled < buf.len() {
        let rest = &mut buf[filled..];
        let step = match &mut guard {
            None => read_once(master.get_ref(), rest),
            // `try_io` clears the readiness when the read would block, so the next wait sleeps.
            Some(guard) => guard
                .try_io(|fd| match read_once(fd.get_ref(), rest) {
                    Step::Dry => Err(io::ErrorKind::WouldBlock.into()),
                    step => Ok(step),
                })
                .map_or(Step::Dry, |step| step.unwrap_or(Step::Eof)),
        };
        match step {
            Step::Got(n) => filled += n,
            Step::Dry => break,
            Step::Eof => return (filled, true),
        }
    }
    (filled, false)
}
