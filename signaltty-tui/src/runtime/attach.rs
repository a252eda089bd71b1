//! One task per attached pane, on `signaltty-client`'s attach driver. What the server sends
//! becomes [`PaneEvent`]s; keystrokes and sizes go up the same stream. A dropped stream is
//! retried with backoff (the server may be restarting) until the task is stopped; every
//! (re)attach starts with a Snapshot, so the model is whole again at once. An interactive
//! attach asks the server for the pane's input after each (re)attach and types into it
//! directly while it has it (`direct`), the gRPC stream carrying output and sizes only.
//!
//! The direct input is shared with the runtime's loop (the tasks run on the loop's thread, in
//! a `LocalSet`): a key is written to the pane by the loop itself, in the same turn it was
//! read, when nothing typed before it still waits (no byte in this task's channel, no
//! backlog) — a key then costs no hop to this task. Otherwise it goes through the channel,
//! behind what waits, and this task writes it.
//!
//! Several clients may show the pane: typing tells the server this client is active (a key
//! into a pane another client sized, or the first after a pause: [`super::sizing`]), and keys
//! typed into a pane that does not have our size wait here until the server's resize comes
//! (at most [`HOLD`]), so the program gets them at our size.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Instant;

use signaltty_client::{AttachEvent, AttachInput, AttachStart, Backoff, Client};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::Slot;
use super::direct::Direct;
use super::sizing::{HOLD, PING_AFTER_IDLE, Sizing};
use crate::app::{Attachment, Msg, PaneEvent};

enum Cmd {
    Input(Vec<u8>),
    Resize(u16, u16),
    /// The loop left a backlog in the direct input: flush it.
    Flush,
    /// Tell the server we are active (typing after a pause).
    Ping,
    /// A key into a pane that does not have our size: tell the server we are active, and hold
    /// this and what follows until it has (at most [`HOLD`]).
    Activate(Vec<u8>),
}

/// The pane's direct input while this attachment has it, shared by the task (which asks for
/// it, flushes its backlog and gives it up) and the loop (which types into it).
type SharedDirect = Rc<RefCell<Option<Direct>>>;

/// A running attachment.
pub struct Handle {
    cmds: mpsc::UnboundedSender<Cmd>,
    task: JoinHandle<()>,
    interactive: bool,
    direct: SharedDirect,
    /// Inputs sent to the task and not yet written by it: while any waits, keys queue behind.
    queued: Rc<Cell<usize>>,
    /// The size we asked for and the pane's, as the task last heard.
    sizing: Rc<Cell<Sizing>>,
    /// When a key was last typed here.
    last_typed: Cell<Option<Instant>>,
}

impl Handle {
    /// Whether input may go up this stream.
    pub fn interactive(&self) -> bool {
        self.interactive
    }

    /// Types `bytes`: straight into the pane's direct input when nothing typed before waits,
    /// else through the task, in order.
    pub fn input(&self, bytes: Vec<u8>) {
        let now = Instant::now();
        let idle = self
            .last_typed
            .replace(Some(now))
            .is_none_or(|at| now.duration_since(at) >= PING_AFTER_IDLE);
        if self.sizing.get().hold() {
            self.queued.set(self.queued.get() + 1);
            let _ = self.cmds.send(Cmd::Activate(bytes));
            return;
        }
        if idle {
            let _ = self.cmds.send(Cmd::Ping);
        }
        if self.queued.get() == 0
            && let Ok(mut slot) = self.direct.try_borrow_mut()
            && let Some(direct) = slot.as_mut()
            && direct.pending() == 0
            && direct.write(&bytes).is_ok()
        {
            if direct.pending() > 0 {
                let _ = self.cmds.send(Cmd::Flush);
            }
            return;
        }
        // A failed write is tried again by the task, which then gives direct input up and
        // sends the bytes over gRPC.
        self.queued.set(self.queued.get() + 1);
        let _ = self.cmds.send(Cmd::Input(bytes));
    }

    /// Whether everything typed so far is in the pane already (direct input held and idle):
    /// only then may another writer (the server reading our keys) type into it without
    /// overtaking us.
    pub fn typed_all(&self) -> bool {
        self.queued.get() == 0
            && self
                .direct
                .try_borrow()
                .is_ok_and(|slot| slot.as_ref().is_some_and(|d| d.pending() == 0))
    }

    /// Reports a new size.
    pub fn resize(&self, cols: u16, rows: u16) {
        let _ = self.cmds.send(Cmd::Resize(cols, rows));
    }

    /// Ends the attachment.
    pub fn stop(self) {
        self.task.abort();
    }
}

/// Starts attaching to `pane_id`; its input goes straight to the pane when `direct_input`
/// (`[fast_paths] direct_input`) and the server hands it over.
pub fn start(
    slot: Slot,
    pane_id: String,
    how: Attachment,
    direct_input: bool,
    tx: mpsc::UnboundedSender<Msg>,
) -> Handle {
    let (cmds, mut rx) = mpsc::unbounded_channel();
    let interactive = matches!(how, Attachment::Interactive { .. });
    let direct: SharedDirect = Rc::new(RefCell::new(None));
    let queued = Rc::new(Cell::new(0));
    let sizing = Rc::new(Cell::new(Sizing::default()));
    let shared = Shared {
        direct: Rc::clone(&direct),
        queued: Rc::clone(&queued),
        sizing: Rc::clone(&sizing),
        direct_input,
    };
    let task = tokio::task::spawn_local(async move {
        let (cols, rows, read_only) = match how {
            Attachment::Interactive { cols, rows } => (cols, rows, false),
            Attachment::Watching => (80, 24, true),
        };
        let mut size = (cols, rows);
        let mut backoff = Backoff::new();
        loop {
            let reason = match slot.get() {
                Some(client) => match session(
                    &client,
                    &pane_id,
                    &mut size,
                    read_only,
                    &mut rx,
                    &tx,
                    &mut backoff,
                    &shared,
                )
                .await
                {
                    Ok(()) => return,
                    Err(reason) => reason,
                },
                None => "not connected".to_owned(),
            };
            let dropped = Msg::Pane {
                pane_id: pane_id.clone(),
                event: PaneEvent::Dropped(reason),
            };
            if tx.send(dropped).is_err() {
                return;
            }
            tokio::time::sleep(backoff.next_delay()).await;
        }
    });
    Handle {
        cmds,
        task,
        interactive,
        direct,
        queued,
        sizing,
        last_typed: Cell::new(None),
    }
}

/// What the task shares with its [`Handle`].
struct Shared {
    direct: SharedDirect,
    queued: Rc<Cell<usize>>,
    sizing: Rc<Cell<Sizing>>,
    /// Ask for direct input (`[fast_paths] direct_input`).
    direct_input: bool,
}

impl Shared {
    fn update_sizing(&self, f: impl FnOnce(&mut Sizing)) {
        let mut sizing = self.sizing.get();
        f(&mut sizing);
        self.sizing.set(sizing);
    }
}

/// Keys waiting for the pane to have our size.
struct Held {
    until: Instant,
    keys: Vec<Vec<u8>>,
}

/// One stream's life. `Ok` when the TUI is gone; `Err` with the reason when the stream failed.
#[allow(clippy::too_many_arguments)] // one call site; a struct would only rename them
async fn session(
    client: &Client,
    pane_id: &str,
    size: &mut (u16, u16),
    read_only: bool,
    cmds: &mut mpsc::UnboundedReceiver<Cmd>,
    tx: &mpsc::UnboundedSender<Msg>,
    backoff: &mut Backoff,
    shared: &Shared,
) -> Result<(), String> {
    let start = AttachStart {
        pane_id: pane_id.to_owned(),
        cols: size.0,
        rows: size.1,
        mark_seen: false,
        read_only,
    };
    let direct = &shared.direct;
    // A new stream: what the last one had is gone (given up when it ended).
    direct.borrow_mut().take();
    shared.sizing.set(Sizing::new(*size));
    let mut held: Option<Held> = None;
    let (mut events, input) = client
        .attach(start)
        .await
        .map_err(|e| e.to_string())?
        .split();
    // Asked after the stream opened: a pane that does not exist is reported by gRPC.
    if !read_only && shared.direct_input {
        let asked = Direct::request(client.socket(), pane_id).await;
        *direct.borrow_mut() = asked;
    }
    loop {
        if held.is_some() && shared.sizing.get().ours() {
            release(held.take(), direct, &input, shared).await;
        }
        let hold_until = held.as_ref().map(|h| h.until);
        tokio::select! {
            flushed = flush_direct(direct) => if flushed.is_err() {
                fall_back(direct, &input, &[]).await;
            },
            () = tokio::time::sleep_until(hold_until.unwrap_or_else(Instant::now).into()),
                if hold_until.is_some() => {
                // The size did not come: do not wait for it again.
                shared.update_sizing(Sizing::give_up);
                release(held.take(), direct, &input, shared).await;
            }
            event = events.next() => {
                let event = match event {
                    Ok(Some(event)) => event,
                    Ok(None) => return Err("the pane's stream ended".into()),
                    Err(err) => return Err(err.to_string()),
                };
                let event = match event {
                    AttachEvent::Snapshot(s) => {
                        backoff.reset();
                        shared.update_sizing(|z| z.pane = Some((s.cols, s.rows)));
                        PaneEvent::Snapshot { screen: s.bytes, cols: s.cols, rows: s.rows }
                    }
                    AttachEvent::Output { data, .. } => PaneEvent::Output(data),
                    AttachEvent::Resized { cols, rows } => {
                        shared.update_sizing(|z| z.pane = Some((cols, rows)));
                        PaneEvent::Resized { cols, rows }
                    }
                    AttachEvent::Exited { code } => {
                        // The master outlives the program (writes then go nowhere): type over
                        // gRPC again, where the server refuses input to an exited pane.
                        fall_back(direct, &input, &[]).await;
                        PaneEvent::Exited(code)
                    }
                    AttachEvent::Resync { .. } => continue,
                };
                if tx.send(Msg::Pane { pane_id: pane_id.to_owned(), event }).is_err() {
                    return Ok(());
                }
            }
            cmd = cmds.recv() => match cmd {
                None => return Ok(()),
                Some(Cmd::Input(data)) => match held.as_mut() {
                    // Behind the keys that wait for our size.
                    Some(h) => h.keys.push(data),
                    None => {
                        if !read_only {
                            type_in(direct, &input, data).await;
                        }
                        shared.queued.set(shared.queued.get().saturating_sub(1));
                    }
                },
                Some(Cmd::Activate(data)) if read_only => {
                    drop(data);
                    shared.queued.set(shared.queued.get().saturating_sub(1));
                }
                Some(_) if read_only => {}
                Some(Cmd::Flush) => {}
                Some(Cmd::Ping) => input.activity().await,
                Some(Cmd::Activate(data)) => {
                    input.activity().await;
                    held.get_or_insert_with(|| Held { until: Instant::now() + HOLD, keys: Vec::new() })
                        .keys
                        .push(data);
                }
                Some(Cmd::Resize(c, r)) => {
                    *size = (c, r);
                    shared.update_sizing(|z| z.asked = (c, r));
                    input.resize(c, r).await;
                }
            },
        }
    }
}

/// Types `data` into the pane: direct input while we have it, else over gRPC.
async fn type_in(direct: &RefCell<Option<Direct>>, input: &AttachInput, data: Vec<u8>) {
    let written = direct.borrow_mut().as_mut().map(|d| d.write(&data));
    match written {
        Some(Ok(())) => {}
        Some(Err(())) => fall_back(direct, input, &data).await,
        None => input.input(data).await,
    }
}

/// Types the keys that waited, in order.
async fn release(
    held: Option<Held>,
    direct: &RefCell<Option<Direct>>,
    input: &AttachInput,
    shared: &Shared,
) {
    for data in held.into_iter().flat_map(|h| h.keys) {
        type_in(direct, input, data).await;
        shared.queued.set(shared.queued.get().saturating_sub(1));
    }
}

/// Until direct input's backlog moved on (or failed); never without a backlog. While it waits
/// it holds the direct input, so the loop queues keys behind the backlog.
// Held across the wait on purpose: every other use of the cell is a `try_borrow_mut` (the
// loop) or runs in this task's `select!` handlers, after this future was dropped.
#[allow(clippy::await_holding_refcell_ref)]
async fn flush_direct(direct: &RefCell<Option<Direct>>) -> Result<(), ()> {
    let waiting = direct.borrow().as_ref().is_some_and(|d| d.pending() > 0);
    if !waiting {
        return std::future::pending().await;
    }
    let mut slot = direct.borrow_mut();
    match slot.as_mut() {
        Some(d) => d.flush_some().await,
        None => Ok(()),
    }
}

/// Gives direct input up: what it had not written, then `failed` (a piece whose write failed,
/// resent whole), go over gRPC ahead of anything typed later.
async fn fall_back(direct: &RefCell<Option<Direct>>, input: &AttachInput, failed: &[u8]) {
    let given_up = direct.borrow_mut().take();
    if let Some(d) = given_up {
        let mut rest = d.give_up();
        rest.extend_from_slice(failed);
        if !rest.is_empty() {
            input.input(rest).await;
        }
    }
}
