//! What every attached client of a pane shares, whatever it writes to (a gRPC stream, or a
//! terminal handed over by the client: the `terminal` module): typed input written in order
//! without ever blocking the client's task on a child that stops reading ([`InputQueue`]). Its
//! output: `super::feed`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::actor::PaneHandle;

/// Deadline for one piece of typed input.
const INPUT_DEADLINE: Duration = Duration::from_secs(5);

/// Typed input of one client, in order. A keystroke is written at once from the session task
/// when nothing is queued before it (the common case: one hop less between a key and its echo);
/// otherwise, or for what the terminal did not take, it goes to the writer task, so a child
/// that stops reading never stops the session.
pub struct InputQueue {
    tx: mpsc::Sender<Vec<u8>>,
    /// Pieces queued or being written by the writer task.
    pending: Arc<AtomicUsize>,
}

impl InputQueue {
    /// Starts the writer task of one client's typed input to `handle`'s pane.
    pub fn start(handle: &PaneHandle) -> InputQueue {
        let (tx, mut rx) = mpsc::channel::<Vec<u8>>(256);
        let pending = Arc::new(AtomicUsize::new(0));
        let pty = handle.pty().clone();
        let done = pending.clone();
        tokio::spawn(async move {
            while let Some(data) = rx.recv().await {
                if let Err(e) = pty
                    .write_input(&data, Instant::now() + INPUT_DEADLINE)
                    .await
                {
                    tracing::debug!(error = %e, "attach input not written");
                }
                done.fetch_sub(1, Ordering::Release);
            }
        });
        InputQueue { tx, pending }
    }

    /// Queues `data` for the pane; written at once when nothing waits before it.
    pub fn send(&self, handle: &PaneHandle, mut data: Vec<u8>) {
        if self.pending.load(Ordering::Acquire) == 0 {
            let written = handle.pty().write_input_now(&data);
            if written == data.len() {
                return;
            }
            data.drain(..written);
        }
        self.pending.fetch_add(1, Ordering::AcqRel);
        if self.tx.try_send(data).is_err() {
            self.pending.fetch_sub(1, Ordering::AcqRel);
            // The child is not reading and the queue is full: typing on is pointless.
            static LIMIT: crate::log_limit::SiteLimit = crate::log_limit::SiteLimit::new();
            if let Some(suppressed) = LIMIT.allow() {
                tracing::warn!(pane = %handle.id(), suppressed, "attach input dropped: pane not reading");
            }
        }
    }
}
