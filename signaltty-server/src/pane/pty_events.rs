//! How a pane's reader hands its events to the consumer. Two ways:
//!
//! - [`PtyEvents::recv`]: one by one through the bounded channel (tests and simple consumers).
//! - [`PtyEvents::serve`]: a handler (the pane actor's), called **inline by the reader** (its
//!   task, or its burst thread while a flood lasts — see `burst`) for a small event when
//!   nothing is queued before it, and otherwise by a drain job on tokio's blocking pool that
//!   empties the channel and ends.
//!
//! Why inline: a keystroke's echo then costs no task hop between the PTY read and the attach
//! session. The server runs one async worker (see `main.rs`), so every hop is a context switch
//! on the echo's critical path; with the actor as a task of its own, the echo woke four tasks in
//! a row after the read, one more than tokio runs back to back before it queues and wakes
//! another worker (measured: a futex wake and lock contention before every reply `writev`).
//!
//! Why bursts go to the blocking pool: a large chunk means the child is writing as fast as it
//! can, and parsing is the most expensive thing the server does (≈ 100 MB/s); done on the async
//! worker it would stop the reader, the kernel buffer would fill and the child would stall. On
//! a pool thread it overlaps the next reads, and no other pane or client waits for it. The job
//! ends when the channel is empty, so an idle pane holds no thread.
//!
//! The channel is made when the first event has to go through it (a burst, or any event while
//! nobody serves): tokio allocates a channel's state and its first block of slots up front,
//! ~0.5 KiB that an idle pane, whose output is all inline, never uses (issue 31).
//!
//! Order is kept because the reader is the only producer, there is at most one drain job per
//! pane, and the reader goes inline only once every queued event has been *handled* (the
//! counter drops after the handler returns, not when the event is received).
//!
//! A handler that panics (a bug in the emulator, say) is survived: the panic is caught, logged
//! once per pane, and the next event is handled. Uncaught, it would end the drain job with the
//! `draining` flag set and events counted as queued, and the pane's output would stop for good
//! (its child blocked on a full terminal) over one bad chunk.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering, fence};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use tokio::sync::{Notify, mpsc};

use super::pty::PtyEvent;

/// Output chunks up to this size may be handled inline: what interactive output looks like, and
/// cheap to parse (tens of microseconds at worst).
pub const INLINE_MAX_BYTES: usize = 4 * 1024;

/// Handles one event; called from the reader (its task or burst thread) or a drain job, never
/// two at once.
pub type Handler = Arc<dyn Fn(PtyEvent) + Send + Sync>;

struct Delivery {
    /// The channel's size, for when it is made.
    capacity: usize,
    /// The channel's receiving end from when the sender makes the channel until a consumer
    /// takes it (`recv`); a served consumer's drain jobs use it here.
    rx: Mutex<Option<mpsc::Receiver<Queued>>>,
    /// Rung when the channel is made or the sender is gone (for a `recv` that waits).
    made: Notify,
    /// The sender is gone (`recv` ends when it made no channel).
    sender_gone: AtomicBool,
    /// The consumer dropped its end (before a channel existed to tell the sender so).
    consumer_gone: AtomicBool,
    /// Events sent through the channel and not yet handled.
    queued: AtomicUsize,
    /// Set when the consumer serves; from then on events never wait for a consumer task.
    served: OnceLock<Served>,
    /// A drain job is running (or about to).
    draining: AtomicBool,
    /// The handler has panicked once (logged; later panics are not).
    panicked: AtomicBool,
}

struct Served {
    handler: Handler,
}

impl Delivery {
    fn rx(&self) -> MutexGuard<'_, Option<mpsc::Receiver<Queued>>> {
        self.rx.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// An event in the channel. Boxed because tokio allocates a channel's first block of 32 slots
/// when it is created: with the event inline that was 1 KiB in every pane, idle ones included,
/// for a queue that only bursts use (small events go inline, see the module docs).
type Queued = Box<PtyEvent>;

/// Creates the reader's sender and the consumer's receiver, holding up to `capacity` events.
/// Nothing is allocated for the channel itself until an event has to go through it.
pub(super) fn channel(capacity: usize) -> (EventSender, PtyEvents) {
    let delivery = Arc::new(Delivery {
        capacity,
        rx: Mutex::new(None),
        made: Notify::new(),
        sender_gone: AtomicBool::new(false),
        consumer_gone: AtomicBool::new(false),
        queued: AtomicUsize::new(0),
        served: OnceLock::new(),
        draining: AtomicBool::new(false),
        panicked: AtomicBool::new(false),
    });
    (
        EventSender {
            tx: OnceLock::new(),
            delivery: Arc::clone(&delivery),
        },
        PtyEvents { rx: None, delivery },
    )
}

/// The consumer dropped its end.
#[derive(Debug)]
pub(super) struct ConsumerGone;

/// The reader's end.
pub(super) struct EventSender {
    /// Made with the channel, by the first event that goes through it.
    tx: OnceLock<mpsc::Sender<Queued>>,
    delivery: Arc<Delivery>,
}

impl Drop for EventSender {
    fn drop(&mut self) {
        self.delivery.sender_gone.store(true, Ordering::Release);
        self.delivery.made.notify_waiters();
    }
}

impl EventSender {
    /// The channel's sending end, made with the channel on first use.
    fn tx(&self) -> &mpsc::Sender<Queued> {
        self.tx.get_or_init(|| {
            let (tx, rx) = mpsc::channel(self.delivery.capacity);
            *self.delivery.rx() = Some(rx);
            self.delivery.made.notify_waiters();
            tx
        })
    }

    /// Whether the consumer dropped its end.
    fn consumer_gone(&self) -> bool {
        self.delivery.consumer_gone.load(Ordering::Acquire)
            || self.tx.get().is_some_and(mpsc::Sender::is_closed)
    }

    /// Delivers `event`, waiting for room in the channel when it has to go through it. Must be
    /// called within a tokio runtime (a drain job may be started).
    pub(super) async fn send(&self, event: PtyEvent) -> Result<(), ConsumerGone> {
        let Some(event) = self.try_inline(event)? else {
            return Ok(());
        };
        self.delivery.queued.fetch_add(1, Ordering::AcqRel);
        let sent = self.tx().send(Box::new(event)).await.is_ok();
        self.queued(sent)
    }

    /// [`EventSender::send`] for the reader's burst loop on a blocking-pool thread.
    pub(super) fn send_blocking(&self, event: PtyEvent) -> Result<(), ConsumerGone> {
        let Some(event) = self.try_inline(event)? else {
            return Ok(());
        };
        self.delivery.queued.fetch_add(1, Ordering::AcqRel);
        let sent = self.tx().blocking_send(Box::new(event)).is_ok();
        self.queued(sent)
    }

    /// Handles `event` inline when it may be (small, nothing queued, a handler served); hands
    /// it back otherwise.
    fn try_inline(&self, event: PtyEvent) -> Result<Option<PtyEvent>, ConsumerGone> {
        if self.consumer_gone() {
            return Err(ConsumerGone);
        }
        let small = match &event {
            PtyEvent::Output { bytes } => bytes.len() <= INLINE_MAX_BYTES,
            PtyEvent::Exited { .. } => true,
        };
        if let Some(served) = self.delivery.served.get()
            && small
            && self.delivery.queued.load(Ordering::Acquire) == 0
        {
            handle(&self.delivery, served, event);
            return Ok(None);
        }
        Ok(Some(event))
    }

    /// After an event was counted and `sent` into the channel (or not: the consumer is gone):
    /// makes sure a drain job will handle it.
    fn queued(&self, sent: bool) -> Result<(), ConsumerGone> {
        if !sent {
            self.delivery.queued.fetch_sub(1, Ordering::AcqRel);
            return Err(ConsumerGone);
        }
        // Pairs with the fence in `serve`: of an event queued while the consumer starts serving,
        // at least one side sees the other and starts the drain.
        fence(Ordering::SeqCst);
        if self.delivery.served.get().is_some() {
            start_drain(&self.delivery);
        }
        Ok(())
    }
}

/// Calls the handler, surviving a panic in it (see the module docs).
fn handle(delivery: &Delivery, served: &Served, event: PtyEvent) {
    // Unwind safety: the handler's state is behind its own lock, which ignores poisoning and
    // holds a usable model (the pane actor's `lock`).
    if catch_unwind(AssertUnwindSafe(|| (served.handler)(event))).is_err()
        && !delivery.panicked.swap(true, Ordering::Relaxed)
    {
        tracing::error!("a pane's output handler panicked (a bug); the pane carries on");
    }
}

/// Starts a drain job unless one is running; the running one then sees the new event.
fn start_drain(delivery: &Arc<Delivery>) {
    if !delivery.draining.swap(true, Ordering::SeqCst) {
        let delivery = Arc::clone(delivery);
        tokio::task::spawn_blocking(move || drain(&delivery));
    }
}

/// Handles queued events until the channel is empty.
fn drain(delivery: &Delivery) {
    let Some(served) = delivery.served.get() else {
        return;
    };
    let mut rx = delivery.rx();
    let Some(rx) = rx.as_mut() else {
        // No channel, so nothing was queued (a job started by `serve` for nothing).
        delivery.draining.store(false, Ordering::SeqCst);
        return;
    };
    loop {
        while let Ok(event) = rx.try_recv() {
            handle(delivery, served, *event);
            delivery.queued.fetch_sub(1, Ordering::Release);
        }
        delivery.draining.store(false, Ordering::SeqCst);
        // An event sent after the last `try_recv` whose sender still saw `draining` set is
        // ours to handle; if a new job was started for it instead, that one will.
        if rx.is_empty() || delivery.draining.swap(true, Ordering::SeqCst) {
            return;
        }
    }
}

/// The consumer's end: output chunks in order, then `Exited` once, then the end (see the
/// `output` module). Either [`PtyEvents::recv`] them one by one, or [`PtyEvents::serve`] a
/// handler.
pub struct PtyEvents {
    /// The channel's receiving end once `recv` took it from the `Delivery`.
    rx: Option<mpsc::Receiver<Queued>>,
    delivery: Arc<Delivery>,
}

impl Drop for PtyEvents {
    fn drop(&mut self) {
        // Served: the handler consumes for good. Else the reader must learn that nobody will
        // read, channel or not (an unmade channel has no receiver to drop).
        if self.delivery.served.get().is_none() {
            self.delivery.consumer_gone.store(true, Ordering::Release);
            *self.delivery.rx() = None;
        }
    }
}

impl std::fmt::Debug for PtyEvents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PtyEvents").finish_non_exhaustive()
    }
}

impl PtyEvents {
    /// The next event; `None` once the terminal is done and the exit was reported.
    pub async fn recv(&mut self) -> Option<PtyEvent> {
        loop {
            if self.rx.is_none() {
                self.rx = self.delivery.rx().take();
            }
            if let Some(rx) = &mut self.rx {
                let event = rx.recv().await?;
                self.delivery.queued.fetch_sub(1, Ordering::AcqRel);
                return Some(*event);
            }
            // No channel yet: wait until the sender makes one or is gone.
            let made = self.delivery.made.notified();
            tokio::pin!(made);
            // Registered before looking again, so a ring in between still wakes it.
            made.as_mut().enable();
            if self.delivery.rx().is_some() {
                continue;
            }
            if self.delivery.sender_gone.load(Ordering::Acquire) {
                return None;
            }
            made.await;
        }
    }

    /// Has `handler` called for every event from now on, in order, from the reader's task or a
    /// drain job on the blocking pool (see the module docs) — so it must be quick for small
    /// events and must not block on async work. Must be called within a tokio runtime.
    pub fn serve(mut self, handler: Handler) {
        let delivery = Arc::clone(&self.delivery);
        if let Some(rx) = self.rx.take() {
            *delivery.rx() = Some(rx);
        }
        if delivery.served.set(Served { handler }).is_err() {
            unreachable!("`serve` consumes the only `PtyEvents`");
        }
        fence(Ordering::SeqCst);
        // Events queued before now are handled first: the reader goes inline only when none is.
        if delivery.queued.load(Ordering::Acquire) > 0 {
            start_drain(&delivery);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::thread::ThreadId;
    use std::time::Duration;

    use bytes::Bytes;

    use super::*;

    /// What a handler saw: each output's first byte and the thread it ran on.
    type Log = mpsc::UnboundedReceiver<(u8, ThreadId)>;

    fn recording() -> (Handler, Log) {
        let (tx, rx) = mpsc::unbounded_channel();
        let handler: Handler = Arc::new(move |event| {
            if let PtyEvent::Output { bytes } = event {
                let _ = tx.send((bytes[0], std::thread::current().id()));
            }
        });
        (handler, rx)
    }

    fn output(tag: u8, len: usize) -> PtyEvent {
        PtyEvent::Output {
            bytes: Bytes::from(vec![tag; len]),
        }
    }

    /// The next `n` events handled (a drain job runs on another thread).
    async fn next(log: &mut Log, n: usize) -> Vec<(u8, ThreadId)> {
        let mut seen = Vec::new();
        while seen.len() < n {
            match tokio::time::timeout(Duration::from_secs(10), log.recv()).await {
                Ok(Some(event)) => seen.push(event),
                _ => panic!("only {} of {n} events handled", seen.len()),
            }
        }
        seen
    }

    #[tokio::test]
    async fn small_events_are_handled_inline_and_bursts_off_the_reader() {
        let (tx, rx) = channel(16);
        let (handler, mut log) = recording();
        rx.serve(handler);
        let here = std::thread::current().id();

        assert!(tx.send(output(1, 10)).await.is_ok());
        // Inline: handled before `send` returned, on this thread.
        assert_eq!(log.try_recv().ok(), Some((1, here)));
        assert!(tx.send(output(2, INLINE_MAX_BYTES + 1)).await.is_ok());
        let seen = next(&mut log, 1).await;
        assert_eq!(seen[0].0, 2);
        assert_ne!(seen[0].1, here, "a burst was parsed on the reader's thread");
    }

    #[tokio::test]
    async fn order_holds_across_inline_and_queued_events() {
        let (tx, rx) = channel(4);
        let (handler, mut log) = recording();
        rx.serve(handler);
        // Bursts and keystrokes interleaved, more than the channel holds: a small event after a
        // burst must not overtake it, whichever way each one goes.
        let mut sent = Vec::new();
        for tag in 0..200u8 {
            let len = if tag % 3 == 0 {
                INLINE_MAX_BYTES * 2
            } else {
                1
            };
            sent.push(tag);
            assert!(tx.send(output(tag, len)).await.is_ok());
        }
        let tags: Vec<u8> = next(&mut log, sent.len())
            .await
            .iter()
            .map(|e| e.0)
            .collect();
        assert_eq!(tags, sent);
    }

    #[tokio::test]
    async fn events_queued_before_serving_come_first() {
        let (tx, rx) = channel(8);
        assert!(tx.send(output(1, 1)).await.is_ok());
        assert!(tx.send(output(2, 1)).await.is_ok());
        let (handler, mut log) = recording();
        rx.serve(handler);
        assert!(tx.send(output(3, 1)).await.is_ok());
        let tags: Vec<u8> = next(&mut log, 3).await.iter().map(|e| e.0).collect();
        assert_eq!(tags, [1, 2, 3]);
    }

    #[tokio::test]
    async fn a_panicking_handler_does_not_stop_later_events_inline_or_queued() {
        let (tx, rx) = channel(4);
        let (record, mut log) = recording();
        rx.serve(Arc::new(move |event| {
            if let PtyEvent::Output { bytes } = &event
                && bytes[0] % 10 == 0
            {
                panic!("a bug on chunk {}", bytes[0]);
            }
            record(event);
        }));
        let mut expected = Vec::new();
        for tag in 0..60u8 {
            // Every 10th chunk panics, in turn inline (small) and on a drain job (large).
            let len = if tag % 20 == 0 {
                INLINE_MAX_BYTES * 2
            } else {
                1
            };
            assert!(tx.send(output(tag, len)).await.is_ok());
            if tag % 10 != 0 {
                expected.push(tag);
            }
        }
        let tags: Vec<u8> = next(&mut log, expected.len())
            .await
            .iter()
            .map(|e| e.0)
            .collect();
        assert_eq!(tags, expected);
    }

    #[tokio::test]
    async fn a_dropped_receiver_is_reported_to_the_reader() {
        let (tx, mut rx) = channel(8);
        assert!(tx.send(output(1, 1)).await.is_ok());
        assert!(matches!(rx.recv().await, Some(PtyEvent::Output { .. })));
        drop(rx);
        assert!(tx.send(output(2, 1)).await.is_err());
    }
}
