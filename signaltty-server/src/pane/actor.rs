//! The pane actor: the one owner of a pane's terminal model and fan-out. Each output chunk is fed
//! to the OSC scanner and the [`Screen`], advances the output offset, and is broadcast to
//! attached clients — all under one short lock, so a client that takes a snapshot and subscribes
//! under the same lock gets exactly the bytes after it. The actor has no task of its own: small
//! chunks are handled inline by the PTY's reader task, bursts by a job on the blocking pool (the
//! `pty_events` module says why).
//!
//! Clients never slow the PTY: the broadcast is bounded and never waits; a client that falls
//! behind gets `Lagged` on its next receive and re-synchronises from a fresh snapshot. An idle
//! pane costs no wake-ups (no timers, no task).
//!
//! Size: every attached, non-read-only client reports its size, and its activity (attaching,
//! typing, an activity ping); the pane's size follows the `[server] window_size` rule over them
//! (`super::sizing`: the client active last by default, like tmux's `window-size latest`). With
//! no such client the last size stays.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use tokio::sync::{Notify, broadcast, watch};

use super::lazy_watch::LazyWatch;

use super::notify_limit::NotifyLimit;
use super::paint::{GrantId, Grants};
use super::pty::{Pty, PtyEvent, PtyEvents};
use super::sizing::{Clients, WindowSize};
use crate::model::ids::PaneId;
use crate::model::pane::Size;
use crate::term::{HistoryLimits, OscScanner, Screen, ScreenSnapshot, TermEvent};

/// Chunks a client may fall behind before it is resynchronised (each up to 64 KiB).
pub const FANOUT_CHUNKS: usize = 64;

/// One piece of output as clients see it.
#[derive(Clone, Debug)]
pub struct Chunk {
    /// The bytes.
    pub data: Bytes,
    /// Offset after them.
    pub end_offset: u64,
}

/// What the actor tells the rest of the server (title changes, notifications, exit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Report {
    /// The program set a title, a notification or rang the bell.
    Term(TermEvent),
    /// The child exited with this code (128+n for signal n), after all its output.
    Exited {
        /// Exit code.
        code: i32,
    },
}

/// Receives the actor's reports. Called from the PTY's reader task or a blocking-pool thread;
/// must be quick and must not block.
pub type Reporter = Arc<dyn Fn(&PaneId, Report) + Send + Sync>;

/// Optional parts of starting an actor ([`PaneHandle::start_with`]).
#[derive(Clone, Debug)]
pub struct StartOptions {
    /// Bytes fed to the screen before the process's first output, without advancing the output
    /// offset: a resumed pane's saved tail, so it still shows what it last said.
    pub prelude: Bytes,
    /// Poked (never waited on here) after each output chunk, so that the snapshot saver can write
    /// output tails without polling. One shared `Notify` serves every pane.
    pub activity: Option<Arc<Notify>>,
    /// With a paint grant, each chunk is painted before the attach streams are woken with it
    /// (`Config::paint_first`; off: sent first, as without a grant — for A/B runs).
    pub paint_first: bool,
}

impl Default for StartOptions {
    fn default() -> Self {
        StartOptions {
            prelude: Bytes::new(),
            activity: None,
            paint_first: true,
        }
    }
}

/// Identifies one attached client of a pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClientId(u64);

impl ClientId {
    /// An id for the sizing module's tests.
    #[cfg(test)]
    pub(super) fn for_tests(n: u64) -> ClientId {
        ClientId(n)
    }
}

struct Model {
    screen: Screen,
    /// Finds titles and notifications in the raw output (before the screen sees it).
    scanner: OscScanner,
    notify_limit: NotifyLimit,
    offset: u64,
    /// Made by the first client or paint grant: most panes never have one, and inline this was
    /// ~120 bytes of every idle pane (issue 31).
    attached: Option<Box<Attached>>,
    next_client: u64,
    /// Output to attached clients. Made by the first subscriber and dropped at the first output
    /// nobody receives: a broadcast channel allocates all its slots up front (~4.5 KiB for 64
    /// chunks), and most panes have no client most of the time (issue 18: memory per pane).
    fanout: Option<broadcast::Sender<Chunk>>,
}

/// What a pane keeps for its attached clients and painted terminals.
#[derive(Default)]
struct Attached {
    clients: Clients,
    /// The rule the clients' sizes are combined by (the server's `window_size`, given at join).
    rule: WindowSize,
    /// Client terminals painted after each chunk (`super::paint`).
    paints: Grants,
}

impl Model {
    fn attached(&mut self) -> &mut Attached {
        self.attached.get_or_insert_default()
    }

    /// Whether a client terminal is painted after each chunk.
    fn painting(&self) -> bool {
        self.attached.as_ref().is_some_and(|a| !a.paints.is_empty())
    }
}

struct Shared {
    id: PaneId,
    pty: Pty,
    model: Mutex<Model>,
    size: LazyWatch<Size>,
    exit: LazyWatch<Option<i32>>,
    /// Set when the pane is closed: attached clients are detached.
    closed: LazyWatch<bool>,
    /// Milliseconds since the epoch of the last output (0 = none yet).
    last_activity_ms: AtomicU64,
    /// See [`StartOptions::activity`].
    activity: Option<Arc<Notify>>,
    /// See [`StartOptions::paint_first`].
    paint_first: bool,
    /// Set while answers to the program's queries wait for its input (see [`answer`]).
    answering: Arc<AtomicBool>,
    /// Whether a client's terminal is painted with each change now (a grant that is not
    /// paused): its attach streams may then be sent output a little late (`rpc::attach`).
    painted: AtomicBool,
    /// Rung when `painted` turns false: what was held back goes out at once.
    unpainted: Notify,
    /// The client active last (`ClientId`'s number, 0 for none), kept with the model's
    /// clients: a key of the client that already is the latest costs no lock.
    latest: AtomicU64,
}

/// Handle to a pane's actor. Cheap to clone.
#[derive(Clone)]
pub struct PaneHandle {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for PaneHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaneHandle")
            .field("id", &self.shared.id)
            .finish_non_exhaustive()
    }
}

/// A client's view at the moment it (re)subscribed.
#[derive(Debug)]
pub struct Subscribed {
    /// The screen to repaint.
    pub snapshot: ScreenSnapshot,
    /// Offset of that screen.
    pub offset: u64,
    /// The chunks after it.
    pub chunks: broadcast::Receiver<Chunk>,
}

impl PaneHandle {
    /// Starts the actor for a freshly spawned PTY.
    pub fn start(
        id: PaneId,
        pty: Pty,
        events: PtyEvents,
        size: Size,
        limits: HistoryLimits,
        report: Reporter,
    ) -> Self {
        Self::start_with(
            id,
            pty,
            events,
            size,
            limits,
            report,
            StartOptions::default(),
        )
    }

    /// [`PaneHandle::start`] with a prelude and an activity signal.
    pub fn start_with(
        id: PaneId,
        pty: Pty,
        events: PtyEvents,
        size: Size,
        limits: HistoryLimits,
        report: Reporter,
        options: StartOptions,
    ) -> Self {
        let mut screen = Screen::with_history_limits(size.cols, size.rows, limits);
        // Fed before serving starts, so no output can come before it. What the old program asked
        // its terminal is not this one's to answer.
        screen.feed(&options.prelude);
        let _ = screen.take_replies();
        let shared = Arc::new(Shared {
            id,
            pty,
            model: Mutex::new(Model {
                screen,
                scanner: OscScanner::new(),
                notify_limit: NotifyLimit::new(Instant::now()),
                offset: 0,
                attached: None,
                next_client: 1,
                fanout: None,
            }),
            size: LazyWatch::new(size),
            exit: LazyWatch::new(None),
            closed: LazyWatch::new(false),
            last_activity_ms: AtomicU64::new(0),
            activity: options.activity,
            paint_first: options.paint_first,
            answering: Arc::new(AtomicBool::new(false)),
            painted: AtomicBool::new(false),
            unpainted: Notify::new(),
            latest: AtomicU64::new(0),
        });
        serve(Arc::clone(&shared), events, report);
        PaneHandle { shared }
    }

    fn model(&self) -> MutexGuard<'_, Model> {
        lock(&self.shared.model)
    }

    /// The pane's id.
    pub fn id(&self) -> &PaneId {
        &self.shared.id
    }

    /// The PTY (input, signals, resize, hangup).
    pub fn pty(&self) -> &Pty {
        &self.shared.pty
    }

    /// Total output bytes so far.
    pub fn offset(&self) -> u64 {
        self.model().offset
    }

    /// When the pane last produced output.
    pub fn last_activity(&self) -> Option<SystemTime> {
        match self.shared.last_activity_ms.load(Ordering::Relaxed) {
            0 => None,
            ms => Some(UNIX_EPOCH + Duration::from_millis(ms)),
        }
    }

    /// Snapshot + subscription, atomically with respect to output.
    pub fn subscribe(&self) -> Subscribed {
        let mut model = self.model();
        let chunks = model
            .fanout
            .get_or_insert_with(|| broadcast::channel(FANOUT_CHUNKS).0)
            .subscribe();
        Subscribed {
            snapshot: model.screen.snapshot(),
            offset: model.offset,
            chunks,
        }
    }

    /// Runs `f` over the screen (captures).
    pub fn with_screen<R>(&self, f: impl FnOnce(&Screen, u64) -> R) -> R {
        let model = self.model();
        f(&model.screen, model.offset)
    }

    /// The title the program set, if any.
    pub fn title(&self) -> Option<String> {
        self.model().screen.title().map(str::to_owned)
    }

    /// Paints this pane's changes into a client's terminal `out` (non-blocking) at `rect`
    /// from now on (`super::paint`); `notices` hears of skips and a damaged terminal.
    pub fn add_paint(
        &self,
        out: std::fs::File,
        rect: signaltty_tty::protocol::Rect,
        notices: tokio::sync::mpsc::UnboundedSender<signaltty_tty::protocol::Notice>,
    ) -> GrantId {
        let model = &mut *self.model();
        let view = model.screen.view();
        let id = model
            .attached
            .get_or_insert_default()
            .paints
            .add(view, out, rect, notices);
        self.shared.note_painted(model);
        id
    }

    /// The client redrew the pane: paint again from a fresh copy. False once the grant is gone.
    pub fn resume_paint(&self, id: GrantId) -> bool {
        let model = &mut *self.model();
        let view = model.screen.view();
        let resumed = model
            .attached
            .as_mut()
            .is_some_and(|a| a.paints.resume(id, view));
        self.shared.note_painted(model);
        resumed
    }

    /// Ends a grant; nothing is painted for it once this returns.
    pub fn remove_paint(&self, id: GrantId) -> bool {
        let mut model = self.model();
        let removed = model.attached.as_mut().is_some_and(|a| a.paints.remove(id));
        self.shared.note_painted(&model);
        removed
    }

    /// Whether a client's terminal is painted with this pane's changes as they come (a live
    /// grant): the terminal shows output before any attach stream carries it.
    pub fn painted(&self) -> bool {
        self.shared.painted.load(Ordering::Acquire)
    }

    /// Completes once [`PaneHandle::painted`] turns false after this call.
    pub fn unpainted(&self) -> tokio::sync::futures::Notified<'_> {
        self.shared.unpainted.notified()
    }

    /// Watches the pane's size.
    pub fn watch_size(&self) -> watch::Receiver<Size> {
        self.shared.size.subscribe()
    }

    /// Watches for the exit code.
    pub fn watch_exit(&self) -> watch::Receiver<Option<i32>> {
        self.shared.exit.subscribe()
    }

    /// Watches for the pane being closed.
    pub fn watch_closed(&self) -> watch::Receiver<bool> {
        self.shared.closed.subscribe()
    }

    /// Marks the pane closed: attached clients are detached.
    pub fn mark_closed(&self) {
        self.shared.closed.set(true);
    }

    /// The exit code once the child exited.
    pub fn exit_code(&self) -> Option<i32> {
        self.shared.exit.get()
    }

    /// Registers an attached client; `size` is `None` for read-only clients. `rule` is the
    /// server's `window_size`. Attaching counts as activity. Returns the id and the pane's size
    /// after arbitration when it changed.
    pub fn join(&self, size: Option<Size>, rule: WindowSize) -> (ClientId, Option<Size>) {
        let mut model = self.model();
        let id = ClientId(model.next_client);
        model.next_client += 1;
        let attached = model.attached();
        attached.rule = rule;
        attached.clients.join(id, size);
        let changed = self.arbitrate(&mut model);
        (id, changed)
    }

    /// A client's new size.
    pub fn client_resized(&self, client: ClientId, size: Size) -> Option<Size> {
        let mut model = self.model();
        if !model.attached().clients.resize(client, size) {
            return None;
        }
        self.arbitrate(&mut model)
    }

    /// A client typed or pinged: under `latest` the pane takes its size.
    pub fn client_active(&self, client: ClientId) -> Option<Size> {
        if self.shared.latest.load(Ordering::Relaxed) == client.0 {
            return None;
        }
        let mut model = self.model();
        if !model.attached().clients.touch(client) {
            return None;
        }
        self.arbitrate(&mut model)
    }

    /// A client detached; the last size stays when it was the last one.
    pub fn leave(&self, client: ClientId) -> Option<Size> {
        let mut model = self.model();
        model.attached().clients.leave(client);
        self.arbitrate(&mut model)
    }

    /// Sets the size explicitly (ResizePane). Returns the size applied when it changed.
    pub fn resize(&self, size: Size) -> Option<Size> {
        let mut model = self.model();
        self.apply_size(&mut model, size)
    }

    /// The size the rule makes of the attached, size-reporting clients; applies it when it
    /// differs.
    fn arbitrate(&self, model: &mut Model) -> Option<Size> {
        let attached = model.attached();
        let latest = attached.clients.latest().map_or(0, |id| id.0);
        self.shared.latest.store(latest, Ordering::Relaxed);
        let size = attached.clients.effective(attached.rule)?;
        self.apply_size(model, size)
    }

    fn apply_size(&self, model: &mut Model, size: Size) -> Option<Size> {
        if self.shared.size.get() == size {
            return None;
        }
        model.screen.resize(size.cols, size.rows);
        // An exited child has no terminal to resize; the screen still follows.
        let _ = self.shared.pty.resize(size.cols, size.rows);
        self.shared.size.set(size);
        Some(size)
    }
}

fn lock(model: &Mutex<Model>) -> MutexGuard<'_, Model> {
    // The model is only mutated by short, panic-free sections; a poisoned lock still holds a
    // usable screen, and refusing to serve the pane would be worse.
    model.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    /// Brings `painted` in line with the grants (called under the model's lock after each
    /// change of them).
    fn note_painted(&self, model: &Model) {
        let live = model.attached.as_ref().is_some_and(|a| a.paints.live());
        if self.painted.swap(live, Ordering::AcqRel) && !live {
            self.unpainted.notify_waiters();
        }
    }
}

/// Hands the pane's events to [`on_event`]: interactive output inline in the PTY's reader task,
/// bursts on the blocking pool (see the `pty_events` module).
fn serve(shared: Arc<Shared>, events: PtyEvents, report: Reporter) {
    events.serve(Arc::new(move |event| on_event(&shared, &report, event)));
}

fn on_event(shared: &Shared, report: &Reporter, event: PtyEvent) {
    match event {
        PtyEvent::Output { bytes } => on_output(shared, report, &bytes),
        PtyEvent::Exited { status } => {
            let code = status.code();
            shared.exit.set(Some(code));
            report(&shared.id, Report::Exited { code });
        }
    }
}

fn on_output(shared: &Shared, report: &Reporter, bytes: &Bytes) {
    let (term_events, dropped, replies) = {
        let mut model = lock(&shared.model);
        let mut term_events = model.scanner.scan(bytes);
        model.offset += bytes.len() as u64;
        let end_offset = model.offset;
        // Clients are woken with the bytes before the screen parses them, not after — unless a
        // client's terminal is painted from the screen (`super::paint`): then the paint goes
        // first, and waking the attach streams (a futex wake of another worker, the gRPC
        // encoding behind it) comes after it instead of in the echo's way. Sending and feeding
        // under one lock keeps snapshot + subscribe exact either way.
        let painting = model.painting();
        let paint_first = painting && shared.paint_first;
        if !paint_first {
            fan_out(&mut model, bytes, end_offset);
        }
        model.screen.feed(bytes);
        if painting {
            // Under the lock that `remove_paint` takes: nothing is painted after a grant ends.
            let model = &mut *model;
            if let Some(attached) = &mut model.attached {
                attached.paints.paint(model.screen.view(), bytes.len());
            }
            shared.note_painted(model);
        }
        if paint_first {
            fan_out(&mut model, bytes, end_offset);
        }
        let replies = model.screen.take_replies();
        let before = model.notify_limit.dropped();
        let now = Instant::now();
        term_events
            .retain(|e| !matches!(e, TermEvent::Notify { .. }) || model.notify_limit.admit(now));
        let after = model.notify_limit.dropped();
        // One line per power of two, so a flood cannot flood the log either.
        let crossed = after > before && (before == 0 || after.ilog2() > before.ilog2());
        (term_events, crossed.then_some(after), replies)
    };
    if !replies.is_empty() {
        answer(shared, replies);
    }
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    shared.last_activity_ms.store(now_ms, Ordering::Relaxed);
    if let Some(activity) = &shared.activity {
        activity.notify_one();
    }
    if let Some(dropped) = dropped {
        tracing::warn!(pane = %shared.id, dropped, "pane raises notifications too fast; dropping");
    }
    for e in term_events {
        report(&shared.id, Report::Term(e));
    }
}

/// Sends a chunk to the attached clients. A lagging receiver finds out on its next receive.
fn fan_out(model: &mut Model, bytes: &Bytes, end_offset: u64) {
    if let Some(fanout) = &model.fanout
        && fanout
            .send(Chunk {
                data: bytes.clone(),
                end_offset,
            })
            .is_err()
    {
        // Every client has gone: free the channel's slots until the next one attaches.
        model.fanout = None;
    }
}

/// Writes the terminal's answers to the program's queries (`Screen::take_replies`) to its
/// input, as a terminal does. Usually the input takes them at once; when it is busy (a client's
/// write in progress) or full, the rest follows on the runtime with a deadline. While such a
/// write waits, further answers are dropped, as a terminal whose input is full would lose them,
/// so a program that floods queries and never reads holds at most one pending answer.
fn answer(shared: &Shared, replies: Vec<u8>) {
    /// How long an answer may wait for a program that does not read its input.
    const ANSWER_DEADLINE: Duration = Duration::from_secs(5);
    if shared.answering.load(Ordering::Acquire) {
        return;
    }
    let written = shared.pty.write_input_now(&replies);
    if written == replies.len() {
        return;
    }
    // The reader runs on the runtime or its blocking pool, so a handle is there; without one
    // (nothing else in this server) the answer is dropped.
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    shared.answering.store(true, Ordering::Release);
    let (pty, answering) = (shared.pty.clone(), Arc::clone(&shared.answering));
    runtime.spawn(async move {
        let deadline = std::time::Instant::now() + ANSWER_DEADLINE;
        if let Err(e) = pty.write_input(&replies[written..], deadline).await {
            tracing::debug!(pane = %pty.pane(), error = %e, "answer to a terminal query not delivered");
        }
        answering.store(false, Ordering::Release);
    });
}
