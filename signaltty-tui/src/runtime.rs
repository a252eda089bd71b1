//! The runtime: the only part that does I/O. It owns the terminal, the catalog feed, one
//! attachment task per pane and the request tasks, turns what they report into [`Msg`]s for
//! `update`, carries out the [`Effect`]s, and draws.
//!
//! The terminal's input is read in that same `select!`, on this (current-thread) runtime's own
//! reactor, and parsed by our own parser ([`crate::input`]): a key wakes this thread directly,
//! with no reader thread to wake it — or, while the server paints the focused pane and we are
//! in Insert mode, lent to the server, which writes plain keys to the pane itself and hands the
//! rest back ([`lending`]). SIGWINCH is a signal stream of the same `select!`.
//!
//! Idle costs nothing: the loop sleeps in one `select!` on the terminal's input, the feed, the
//! tasks' messages, the signals and — only when armed — the next deadline (a chord timeout, a
//! toast, the once-a-second clock while a "working for…" timer shows) and the next frame. A
//! frame is drawn only when something changed, at most every [`FRAME`], wrapped in synchronized
//! output so the outer terminal never shows half of one, and written with one write(2).
//!
//! When to draw is [`crate::pacing`]'s rule: program output at most once per
//! [`FRAME`], but the echo of typed input at once, in a frame of its own that redraws only the
//! rows of the pane typed into that changed; what to draw is [`crate::frames`]'s (the whole
//! screen when anything but pane output changed, else only the damaged panes' changed rows).

mod attach;
mod direct;
mod fast_paths;
pub mod lending;
mod machines;
pub mod painting;
pub mod requests;
mod sizing;

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::catalog::run_feed;
use crossterm::event::Event;
use signaltty_client::Client;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;

use crate::app::{App, Effect, Msg};
use crate::frames::{Drawn, Frames};
use crate::keymap::Keymap;
pub use crate::pacing::{ECHO_GRACE, FRAME};
use crate::pacing::{Pacer, When};
use crate::update::update;
use fast_paths::FastPaths;
use painting::Redraw;

/// The TUI's frame buffer: the drawer writes a frame into it (its `flush` does nothing), and
/// [`FrameWriter::send`] hands the whole frame to the terminal in one write. Shared with the
/// drawer's backend through an `Rc<RefCell>`, not a mutex: ratatui's backend writes every
/// changed cell in several small writes, and the runtime is one thread.
#[derive(Clone)]
struct FrameWriter(Rc<RefCell<Vec<u8>>>);

impl Write for FrameWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl FrameWriter {
    fn send(&self) {
        let mut frame = self.0.borrow_mut();
        if frame.is_empty() {
            return;
        }
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(&frame);
        let _ = out.flush();
        frame.clear();
    }
}

/// The connection every task uses; replaced when the feed reconnects (a restarted server).
#[derive(Clone)]
pub struct Slot(Arc<Mutex<Option<Client>>>);

impl Slot {
    fn get(&self) -> Option<Client> {
        self.0.lock().ok().and_then(|c| c.clone())
    }

    fn set(&self, client: Client) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(client);
        }
    }
}

/// Options of one run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The server's socket (the default when `None`).
    pub socket: Option<PathBuf>,
    /// The directory whose workspace opens.
    pub start_dir: String,
    /// The keymap.
    pub keymap: Keymap,
    /// The config file's `[fast_paths]`: server painting, lent keys, direct input.
    pub fast_paths: signaltty_config::FastPaths,
}

/// Runs the TUI until Quit. The server must answer first (it is started on demand); if it
/// cannot be reached, the error is returned before the terminal is touched.
pub async fn run(options: Options) -> Result<(), String> {
    // The attach tasks share their pane's direct input with this loop (`attach`): they run
    // on this thread, in a `LocalSet`.
    tokio::task::LocalSet::new()
        .run_until(run_here(options))
        .await
}

async fn run_here(options: Options) -> Result<(), String> {
    let target = crate::conn::target(options.socket.as_deref());
    let first = crate::conn::connect(&target).await?;
    let slot = Slot(Arc::new(Mutex::new(Some(first))));

    let guard = crate::terminal::enter().map_err(|e| format!("cannot set up the terminal: {e}"))?;
    let frames = FrameWriter(Rc::new(RefCell::new(Vec::with_capacity(1 << 16))));
    let mut drawer = Frames::new(frames.clone());
    let size = crossterm::terminal::size().unwrap_or((80, 24));
    let mut app = App::new(options.keymap, size, options.start_dir);
    let zoom_file = crate::zoom_file::path();
    if let Some(path) = &zoom_file {
        app.zoomed = crate::zoom_file::load(path);
    }

    let (feed_tx, mut feed_rx) = mpsc::unbounded_channel();
    let feed_slot = slot.clone();
    let feed_target = target.clone();
    let feed = tokio::spawn(run_feed(
        move || {
            let slot = feed_slot.clone();
            let target = feed_target.clone();
            async move {
                let client = crate::conn::connect(&target).await?;
                let channel = client.channel();
                slot.set(client);
                Ok::<_, String>(channel)
            }
        },
        feed_tx,
    ));
    let (msg_tx, mut msg_rx) = mpsc::unbounded_channel::<Msg>();
    let machines = tokio::spawn(machines::run(slot.clone(), msg_tx.clone()));
    let mut attachments: HashMap<String, attach::Handle> = HashMap::new();
    // After `terminal::enter`: its keyboard-protocol query reads the answer from stdin itself.
    let mut input =
        crate::input::Reader::open().map_err(|e| format!("cannot read the terminal: {e}"))?;
    let mut queued: VecDeque<Msg> = VecDeque::new();
    let mut sigwinch = signal(SignalKind::window_change()).map_err(|e| e.to_string())?;
    let mut sigterm = signal(SignalKind::terminate()).map_err(|e| e.to_string())?;
    let mut sigint = signal(SignalKind::interrupt()).map_err(|e| e.to_string())?;
    let mut sighup = signal(SignalKind::hangup()).map_err(|e| e.to_string())?;
    let mut pacer = Pacer::new();
    let fast_paths = options.fast_paths;
    let mut fast = FastPaths::new(&app, &fast_paths);
    let direct = fast_paths.direct_input;

    // Where our keys are read: by us, or lent to the server while it paints the pane typed
    // into; what it handed back is read first.
    while let Ok(events) = fast.settle_keys(&app, queued.is_empty(), &attachments, &mut input) {
        queued.extend(events.into_iter().map(to_msg));
        let now = Instant::now();
        let deadline = app.deadline(now);
        let frame_at = match pacer.when_panes(app.dirty, !app.damaged.is_empty(), now) {
            When::Never => None,
            When::Now => Some(now),
            When::At(at) => Some(at),
        };
        // The rest of a read that held several events (typed ahead, or a paste's keys).
        let msg = if let Some(msg) = queued.pop_front() {
            msg
        } else {
            tokio::select! {
                biased;
                _ = sigterm.recv() => crate::terminal::reraise(nix::sys::signal::Signal::SIGTERM),
                _ = sigint.recv() => crate::terminal::reraise(nix::sys::signal::Signal::SIGINT),
                _ = sighup.recv() => crate::terminal::reraise(nix::sys::signal::Signal::SIGHUP),
                events = input.read() => match events {
                    Some(events) => {
                        queued.extend(events.into_iter().map(to_msg));
                        match queued.pop_front() {
                            Some(msg) => msg,
                            None => continue,
                        }
                    }
                    // The terminal is gone: nothing more to show.
                    None => break,
                },
                redraw = fast.next() => {
                    if let Some(redraw) = redraw {
                        forget(&mut drawer, &mut app, redraw);
                    }
                    continue;
                }
                _ = sigwinch.recv() => {
                    let (cols, rows) = signaltty_tty::window_size(std::io::stdout())
                        .or_else(|| crossterm::terminal::size().ok())
                        .unwrap_or(app.size);
                    Msg::Resize(cols, rows)
                }
                Some(feed) = feed_rx.recv() => Msg::Feed(feed),
                Some(msg) = msg_rx.recv() => msg,
                () = sleep_until(frame_at), if frame_at.is_some() => {
                    let mut drawing = Drawing { drawer: &mut drawer, frames: &frames, pacer: &mut pacer, fast: &mut fast };
                    drawing.draw(&mut app, &attachments, &slot).await;
                    continue;
                }
                () = sleep_until(deadline), if deadline.is_some() => Msg::Tick,
            }
        };
        // A key's release (kitty event types) has no echo to wait for.
        let typed = match &msg {
            Msg::Key(key) => key.kind != crossterm::event::KeyEventKind::Release,
            Msg::Paste(_) => true,
            _ => false,
        };
        note_output(&mut pacer, &msg);
        let effects = update(&mut app, msg, Instant::now());
        if typed {
            let input = effects.iter().find_map(|e| match e {
                Effect::Input { pane_id, .. } => Some(pane_id.as_str()),
                _ => None,
            });
            // The echo in a pane the server paints is on the screen before we hear of it
            // (and the server sends it to us a little late, so as not to race the next key):
            // our frame of it is paced like any output.
            if let Some(pane_id) = input
                && fast.painting() != Some(pane_id)
            {
                pacer.typed(pane_id, Instant::now());
            }
        }
        // A key's own effects go out first: its bytes reach the pane before the output
        // already waiting is applied and drawn.
        carry_out_all(effects, &mut app, &slot, &msg_tx, &mut attachments, direct);
        // Take whatever else is already waiting before drawing: a flood of output costs one
        // frame, not one per chunk.
        let mut effects = Vec::new();
        while let Ok(msg) = msg_rx.try_recv() {
            note_output(&mut pacer, &msg);
            effects.extend(update(&mut app, msg, Instant::now()));
        }
        carry_out_all(effects, &mut app, &slot, &msg_tx, &mut attachments, direct);
        if std::mem::take(&mut app.redraw_all) {
            forget(&mut drawer, &mut app, Redraw::All);
        }
        if app.quit {
            break;
        }
        if pacer.when_panes(app.dirty, !app.damaged.is_empty(), Instant::now()) == When::Now {
            let mut drawing = Drawing {
                drawer: &mut drawer,
                frames: &frames,
                pacer: &mut pacer,
                fast: &mut fast,
            };
            drawing.draw(&mut app, &attachments, &slot).await;
        }
    }
    // Zoom is this client's own: kept for the next start (a failure costs only the zoom).
    if let Some(path) = &zoom_file {
        let _ = crate::zoom_file::save(path, &app.zoomed);
    }
    // Nothing may be painted into the terminal once it is given back.
    fast.end().await;
    feed.abort();
    machines.abort();
    for (_, handle) in attachments.drain() {
        handle.stop();
    }
    drop(drawer);
    drop(guard);
    Ok(())
}

/// Tells the pacer about output of a pane (the echo of typed input is drawn at once).
fn note_output(pacer: &mut Pacer, msg: &Msg) {
    if let Msg::Pane {
        pane_id,
        event: crate::app::PaneEvent::Output(_),
    } = msg
    {
        pacer.output(pane_id, Instant::now());
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// The message of an input event. Releases go on too (`update` sends them only to a pane that
/// asked for event types; the keymap never sees them).
fn to_msg(event: Event) -> Msg {
    match event {
        Event::Key(key) => Msg::Key(key),
        Event::Mouse(mouse) => Msg::Mouse(mouse),
        Event::Paste(text) => Msg::Paste(text),
        Event::Resize(cols, rows) => Msg::Resize(cols, rows),
        Event::FocusGained => Msg::FocusGained,
        Event::FocusLost => Msg::FocusLost,
    }
}

/// What a frame is drawn with.
struct Drawing<'a> {
    drawer: &'a mut Frames<FrameWriter>,
    frames: &'a FrameWriter,
    pacer: &'a mut Pacer,
    fast: &'a mut FastPaths,
}

impl Drawing<'_> {
    /// Settles the server's painting grant with what this frame shows (stopping it first
    /// when the frame draws over the pane, [`painting`]), then draws.
    async fn draw(
        &mut self,
        app: &mut App,
        attachments: &HashMap<String, attach::Handle>,
        slot: &Slot,
    ) {
        let socket = || slot.get().map(|c| c.socket().to_path_buf());
        if let Some(redraw) = self.fast.before_frame(app, attachments, socket).await {
            forget(self.drawer, app, redraw);
        }
        draw(self.drawer, self.frames, app, self.pacer);
        self.fast.frame_sent();
    }
}

/// Makes the next frame redraw what the server may have painted.
fn forget(drawer: &mut Frames<FrameWriter>, app: &mut App, redraw: Redraw) {
    match redraw {
        Redraw::Rect(rect) => drawer.forget(rect),
        Redraw::All => drawer.forget_all(),
    }
    app.dirty = true;
}

/// Draws the frame the pacer asked for and hands it to the terminal: the echo's pane alone
/// when nothing else is dirty, else everything (the damaged panes' changed rows, or the whole
/// screen when anything else changed).
fn draw(drawer: &mut Frames<FrameWriter>, frames: &FrameWriter, app: &mut App, pacer: &mut Pacer) {
    // The frame buffer takes every write: drawing cannot fail.
    let echo = pacer.echo_pane().map(str::to_owned);
    match &echo {
        Some(pane) if !app.dirty => {
            let drawn = if app.damaged.remove(pane) {
                drawer.panes(app, [pane.as_str()]).unwrap_or(Drawn::Full)
            } else {
                Drawn::Panes
            };
            if drawn == Drawn::Panes {
                pacer.echo_drawn();
                frames.send();
                return;
            }
            // The drawer drew the whole screen: nothing is left, as below.
        }
        _ if app.dirty => {
            let _ = drawer.full(app);
        }
        _ => {
            let damaged = std::mem::take(&mut app.damaged);
            let _ = drawer.panes(app, damaged.iter().map(String::as_str));
        }
    }
    // Nothing is left to draw. A frame drawn for pane output alone (even one the drawer drew
    // whole) only takes the slot: a key's echo still awaited is drawn at once when it comes,
    // not at the next slot.
    if app.dirty {
        pacer.drawn(Instant::now());
    } else {
        pacer.paced(Instant::now());
        if echo.is_some() {
            pacer.echo_drawn();
        }
    }
    app.dirty = false;
    app.damaged.clear();
    frames.send();
}

/// Carries out `effects` in order; Quit is noted in the app.
fn carry_out_all(
    effects: Vec<Effect>,
    app: &mut App,
    slot: &Slot,
    tx: &mpsc::UnboundedSender<Msg>,
    attachments: &mut HashMap<String, attach::Handle>,
    direct_input: bool,
) {
    for effect in effects {
        if effect == Effect::Quit {
            app.quit = true;
            continue;
        }
        if effect == Effect::Redraw {
            app.redraw_all = true;
            continue;
        }
        carry_out(effect, app, slot, tx, attachments, direct_input);
    }
}

fn carry_out(
    effect: Effect,
    app: &App,
    slot: &Slot,
    tx: &mpsc::UnboundedSender<Msg>,
    attachments: &mut HashMap<String, attach::Handle>,
    direct_input: bool,
) {
    match effect {
        Effect::Attach { pane_id, how } => {
            if let Some(old) = attachments.remove(&pane_id) {
                old.stop();
            }
            let handle =
                attach::start(slot.clone(), pane_id.clone(), how, direct_input, tx.clone());
            attachments.insert(pane_id, handle);
        }
        Effect::ResizeAttached {
            pane_id,
            cols,
            rows,
        } => {
            if let Some(handle) = attachments.get(&pane_id) {
                handle.resize(cols, rows);
            }
        }
        Effect::Detach(pane_id) => {
            if let Some(handle) = attachments.remove(&pane_id) {
                handle.stop();
            }
        }
        Effect::Input { pane_id, bytes } => match attachments.get(&pane_id) {
            Some(handle) if handle.interactive() => handle.input(bytes),
            _ => requests::start(
                crate::app::Request::WriteInput { pane_id, bytes },
                app,
                slot.clone(),
                tx.clone(),
            ),
        },
        Effect::Request(request) => requests::start(request, app, slot.clone(), tx.clone()),
        Effect::Copy(text) => {
            let mut out = std::io::stdout();
            let _ = write!(out, "\x1b]52;c;{}\x07", base64(text.as_bytes()));
            let _ = out.flush();
        }
        Effect::Outer(bytes) => {
            let mut out = std::io::stdout();
            let _ = out.write_all(&bytes);
            let _ = out.flush();
        }
        Effect::Quit | Effect::Redraw => {}
    }
}

/// Standard base64 (for OSC 52), small enough not to need a crate.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_the_standard_alphabet() {
        assert_eq!(super::base64(b""), "");
        assert_eq!(super::base64(b"f"), "Zg==");
        assert_eq!(super::base64(b"fo"), "Zm8=");
        assert_eq!(super::base64(b"foo"), "Zm9v");
        assert_eq!(super::base64(b"foobar"), "Zm9vYmFy");
    }
}
