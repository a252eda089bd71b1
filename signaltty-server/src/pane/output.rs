//! The output side of a pane: one OS thread per pane that moves bytes from the PTY master into
//! the pane's bounded event channel, and reports the child's exit in order with its output.
//!
//! The thread sleeps in `poll(2)` on the master and a wake pipe with no timeout, so an idle pane
//! costs no CPU and no wake-ups. When the master is readable it reads everything available, up
//! to one 64 KiB buffer, and sends it as one chunk: under load the chunks grow, so the consumer
//! pays its per-chunk costs less often. The channel is bounded and the send blocks: a slow
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
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};

use bytes::Bytes;
use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use tokio::sync::mpsc;

use super::pty::PtyEvent;
use super::reaper::ExitState;

/// Size of one read buffer, hence the largest output chunk.
pub const CHUNK_BYTES: usize = 64 * 1024;

/// How many bytes the reader forwards after the exit before reporting it. The kernel buffers
/// at most 64 KiB (flip buffers) + 4 KiB (line discipline) per direction, so this covers all the
/// child left behind while bounding the delay a chatty surviving grandchild could cause.
const DRAIN_AFTER_EXIT_BYTES: usize = 1024 * 1024;

/// Wakes the reader thread out of `poll`: on exit (from the reaper) and on stop (hangup/drop).
pub(super) struct Wake {
    write: OwnedFd,
    stop: AtomicBool,
}

impl Wake {
    /// A wake handle and the pipe end the reader polls.
    pub(super) fn new() -> io::Result<(Arc<Self>, OwnedFd)> {
        let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)?;
        let wake = Self {
            write,
            stop: AtomicBool::new(false),
        };
        Ok((Arc::new(wake), read))
    }

    /// Makes the reader look at the exit status and the stop flag.
    pub(super) fn ring(&self) {
        // EAGAIN means the pipe already holds unread wake-ups, which is just as good.
        let _ = nix::unistd::write(&self.write, &[1]);
    }

    /// Tells the reader to close its master copy and forward no more output. It still reports
    /// the exit.
    pub(super) fn stop(&self) {
        self.stop.store(true, Ordering::Release);
        self.ring();
    }

    fn stopped(&self) -> bool {
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

/// Starts the reader thread for one pane.
pub(super) fn spawn_reader(
    name: String,
    master: OwnedFd,
    wake_rx: OwnedFd,
    wake: Arc<Wake>,
    exit: Arc<ExitState>,
    tx: mpsc::Sender<PtyEvent>,
) -> io::Result<JoinHandle<()>> {
    let reader = Reader {
        master: Some(master),
        wake_rx,
        wake,
        exit,
        tx,
        buf: Vec::new(),
        exit_sent: false,
    };
    thread::Builder::new()
        .name(name)
        .spawn(move || reader.run())
}

struct Reader {
    /// The reader's own copy of the master, nonblocking; `None` after EOF or stop.
    master: Option<OwnedFd>,
    wake_rx: OwnedFd,
    wake: Arc<Wake>,
    exit: Arc<ExitState>,
    tx: mpsc::Sender<PtyEvent>,
    /// Read buffer, sized to the traffic: empty while idle (an idle pane holds no buffer), a
    /// small one for interactive output, [`CHUNK_BYTES`] while a read fills the small one.
    buf: Vec<u8>,
    exit_sent: bool,
}

/// Buffer for interactive output; a pass that fills it switches to [`CHUNK_BYTES`].
const SMALL_CHUNK_BYTES: usize = 4 * 1024;

impl Reader {
    fn run(mut self) {
        while self.master.is_some() || !self.exit_sent {
            let (master_ready, woken) = match self.wait() {
                Ok(ready) => ready,
                Err(err) => {
                    tracing::error!(%err, "polling a pane's terminal failed; output stops");
                    return;
                }
            };
            if woken {
                self.drain_wake_pipe();
            }
            if self.wake.stopped() {
                self.master = None;
            }
            // One pass per poll, so stop and exit are noticed even under a flood.
            if master_ready && matches!(self.pass(), Pass::ConsumerGone) {
                return;
            }
            if !self.exit_sent
                && let Some(status) = self.exit.status()
            {
                if !self.drain_after_exit() {
                    return;
                }
                if self.tx.blocking_send(PtyEvent::Exited { status }).is_err() {
                    return;
                }
                self.exit_sent = true;
            }
        }
    }

    /// Sleeps until the master or the wake pipe is readable (or hung up).
    fn wait(&self) -> nix::Result<(bool, bool)> {
        let ready = |fd: &PollFd<'_>| fd.any().unwrap_or(true);
        loop {
            let wake = PollFd::new(self.wake_rx.as_fd(), PollFlags::POLLIN);
            let result = match &self.master {
                Some(master) => {
                    let mut fds = [PollFd::new(master.as_fd(), PollFlags::POLLIN), wake];
                    poll(&mut fds, PollTimeout::NONE).map(|_| (ready(&fds[0]), ready(&fds[1])))
                }
                None => {
                    let mut fds = [wake];
                    poll(&mut fds, PollTimeout::NONE).map(|_| (false, ready(&fds[0])))
                }
            };
            match result {
                Err(Errno::EINTR) => continue,
                other => return other,
            }
        }
    }

    fn drain_wake_pipe(&self) {
        let mut sink = [0u8; 64];
        while let Ok(n) = nix::unistd::read(&self.wake_rx, &mut sink) {
            if n == 0 {
                break;
            }
        }
    }

    /// Forwards what the child left in the terminal before it exited. False if the consumer
    /// is gone.
    fn drain_after_exit(&mut self) -> bool {
        let mut forwarded = 0;
        while self.master.is_some() && forwarded < DRAIN_AFTER_EXIT_BYTES {
            match self.pass() {
                Pass::Full => forwarded += CHUNK_BYTES,
                Pass::Drained | Pass::Eof => break,
                Pass::ConsumerGone => return false,
            }
        }
        true
    }

    /// Reads until the master has nothing more or the buffer is full, then sends one chunk.
    fn pass(&mut self) -> Pass {
        let Some(master) = &self.master else {
            return Pass::Eof;
        };
        if self.buf.is_empty() {
            self.buf = vec![0; SMALL_CHUNK_BYTES];
        }
        let mut filled = 0;
        let mut eof = false;
        while filled < self.buf.len() {
            match nix::unistd::read(master, &mut self.buf[filled..]) {
                Ok(0) => {
                    eof = true;
                    break;
                }
                Ok(n) => filled += n,
                Err(Errno::EINTR) => {}
                Err(Errno::EAGAIN) => break,
                // EIO: every slave descriptor is closed (the child and its heirs are gone).
                Err(Errno::EIO) => {
                    eof = true;
                    break;
                }
                Err(err) => {
                    tracing::warn!(%err, "reading a pane's terminal failed; treating as EOF");
                    eof = true;
                    break;
                }
            }
        }
        if filled > 0 {
            let bytes = Bytes::copy_from_slice(&self.buf[..filled]);
            if self.tx.blocking_send(PtyEvent::Output { bytes }).is_err() {
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
