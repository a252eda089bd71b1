//! Reading a flooding pane off the async worker. When a read pass fills the whole 64 KiB buffer
//! the child is writing as fast as we read; the reader then hands its descriptor to a
//! blocking-pool thread that keeps reading (waiting in `poll(2)` between reads) until the
//! terminal has been quiet for [`BURST_IDLE`], and then hands it back to the reactor.
//!
//! Why: the server has one async worker (see `main.rs`). Reading a flood there — 4 KiB per
//! `read(2)` from the tty layer, sixteen calls per chunk — competed with every other pane's
//! keystrokes: with a `yes` flood in one pane, echo in another took 2.3 ms at the median against
//! tmux's 0.8 ms (and 120–280 ms at p99 before the reader yielded between passes). On its own
//! thread the flood costs the worker only its clients' messages. Parsing still happens on the
//! drain job (`pty_events`), so reading and parsing overlap as before.

use std::os::fd::{AsFd, OwnedFd};
use std::time::Duration;

use bytes::Bytes;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

use super::output::{Step, Wake, read_once};
use super::pty::PtyEvent;
use super::pty_events::{ConsumerGone, EventSender};
use super::reaper::ExitState;

/// How long a burst waits for more output before giving the terminal back to the reactor.
const BURST_IDLE: Duration = Duration::from_millis(10);

/// How a burst ended.
pub(super) enum BurstEnd {
    /// The terminal went quiet, or the reader was rung (stop or exit): back to the async loop,
    /// which sees why.
    Quiet,
    /// The terminal is closed (EOF).
    Eof,
    /// The consumer is gone.
    ConsumerGone,
}

/// Reads `master` until it is quiet, closed or the reader is rung, sending a chunk whenever
/// `buf` is full or the terminal has nothing more at the moment. `rung` is what ends a burst
/// early: the reader's stop, and the child's exit once the reaper has seen it while
/// `exit_pending` (it is still to be reported, by the async loop, after the remaining output).
/// Blocks: run it on the blocking pool.
pub(super) fn read_burst(
    master: &OwnedFd,
    buf: &mut [u8],
    tx: &EventSender,
    rung: (&Wake, &ExitState, bool),
) -> BurstEnd {
    let (wake, exit, exit_pending) = rung;
    let mut filled = 0;
    loop {
        // Stop and a pending exit are the async loop's business (it drains and reports in
        // order); checked per read, so a flood cannot hold them off.
        if filled == 0 && (wake.stopped() || (exit_pending && exit.status().is_some())) {
            return BurstEnd::Quiet;
        }
        let step = read_once(master, &mut buf[filled..]);
        if let Step::Got(n) = step {
            filled += n;
            if filled < buf.len() {
                continue;
            }
        }
        if filled > 0 {
            let bytes = Bytes::copy_from_slice(&buf[..filled]);
            filled = 0;
            if let Err(ConsumerGone) = tx.send_blocking(PtyEvent::Output { bytes }) {
                return BurstEnd::ConsumerGone;
            }
        }
        match step {
            Step::Eof => return BurstEnd::Eof,
            // The buffer filled up: read on at once.
            Step::Got(_) => {}
            Step::Dry => {
                if !readable_soon(master) {
                    return BurstEnd::Quiet;
                }
            }
        }
    }
}

/// Waits up to [`BURST_IDLE`] for the terminal to have output (or to close).
fn readable_soon(master: &OwnedFd) -> bool {
    let mut fds = [PollFd::new(master.as_fd(), PollFlags::POLLIN)];
    let timeout = PollTimeout::try_from(BURST_IDLE).unwrap_or(PollTimeout::ZERO);
    // EINTR and the like: let the async loop look again.
    matches!(poll(&mut fds, timeout), Ok(n) if n > 0)
}
