//! Server painting (`paint`, `signaltty_tty::protocol`; the server's side: `pane/paint.rs`): a
//! typed key's echo reaches the screen without waiting for this process. We still draw the same
//! cells from our model a moment later; the server's write is an early copy.
//!
//! Two writers share the terminal, so the rules are:
//! - The server writes only inside the rectangle it was given, each paint one write(2) framed
//!   by DECSC/DECRC, so the cursor and colours this process left are untouched; our frames are
//!   blocking writes, and the tty's write lock keeps the two from interleaving.
//! - It is granted only while nothing of ours is drawn over the pane's content: no overlay,
//!   no selection or decision in the pane, no "reconnecting…", a model of exactly the
//!   pane's area ([`target`]). Before a frame that changes that, the grant is stopped and the server's
//!   `stopped` awaited ([`ServerPaint::settle`]), so nothing it paints lands on what the frame
//!   draws; the rectangle is then redrawn from our model.
//! - A cell the server painted and the program changed again without a paint (a big change the
//!   server `skipped`) could stay wrong where our model's old value equals the new one, so a
//!   `skipped` makes us redraw the whole rectangle before the server may `resume`.
//!
//! Refused (older server, no hand-off socket) or switched off (`[fast_paths] server_paint =
//! false`, for A/B measurements and as an escape hatch): the TUI draws everything itself.
//!
//! The grant's request also passes our terminal's input, so that the server can be lent our
//! keys on the same connection ([`super::lending`]); a grant that ends, however it ends, gives
//! the keys back.

use std::os::fd::AsFd as _;
use std::path::PathBuf;
use std::time::Duration;

use crate::geometry::Rect;
use signaltty_tty::protocol::{self, Conn, Notice, Reply, Request};
use tokio::task::JoinHandle;

use crate::app::{App, Link};
use crate::regions::{content, placement};

/// How long the server has to answer a request for a grant.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a frame waits for the server to confirm it stopped painting (it answers in well
/// under a millisecond; a server that does not is dropped, and the rectangle redrawn anyway).
const STOP_WAIT: Duration = Duration::from_millis(200);

/// A pane and where its content is on the terminal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The pane.
    pub pane: String,
    /// Its content area (without the title row).
    pub rect: Rect,
}

/// What the painter must draw again because the server may have painted there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Redraw {
    /// This rectangle.
    Rect(Rect),
    /// The whole screen (a paint was cut short: the terminal's state is unknown).
    All,
}

/// Where the server may paint now: the focused pane of the current tab, when nothing of ours
/// is drawn over its content and its model has exactly its size. `interactive` tells whether the pane is
/// attached for typing (a grant is only worth its cost where keys are echoed).
pub fn target(app: &App, interactive: impl Fn(&str) -> bool) -> Option<Target> {
    if app.overlay.is_some() || matches!(app.link, Link::Reconnecting { .. }) {
        return None;
    }
    let pane = app.focused_pane()?;
    if pane.pending_decision.is_some()
        || app.selection.as_ref().is_some_and(|s| s.pane_id == pane.id)
        || !interactive(&pane.id)
    {
        return None;
    }
    let (_, placement) = placement(app)?;
    let rect = content(placement.rect_of(&pane.id)?);
    let (cols, rows) = app.screens.get(&pane.id)?.view().size();
    // Only while the pane has exactly our size: the server paints the pane's cells, not the
    // marks of the area a smaller pane leaves (`view::unused`); and only then are our keys
    // lent (`lending`), so a key that must tell the server we are active is read by us.
    (rect.width > 0 && rect.height > 0 && cols == rect.width && rows == rect.height).then(|| {
        Target {
            pane: pane.id.clone(),
            rect,
        }
    })
}

struct Granted {
    target: Target,
    conn: Conn,
    /// The server skipped a change: our next frame redraws the rectangle, then it may resume.
    paused: bool,
    /// Whether the server reads our keys (`lend`).
    keys: Keys,
    /// The server gave lent keys back unasked with nothing read (it refuses to read them, or
    /// cannot): not lent again under this grant.
    keys_refused: bool,
}

impl Granted {
    /// A grant just given: painting, our keys ours.
    fn new(target: Target, conn: Conn) -> Granted {
        Granted {
            target,
            conn,
            paused: false,
            keys: Keys::Home,
            keys_refused: false,
        }
    }
}

/// Where our terminal's keys are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keys {
    /// By us.
    Home,
    /// By the server (after `keys`, until its `back`).
    Lent,
    /// By the server, asked to stop (`release` sent, its `back` awaited).
    Recalled,
}

enum State {
    Off,
    Asking {
        target: Target,
        task: JoinHandle<Result<Conn, String>>,
    },
    On(Granted),
}

/// The grant this TUI holds, if any.
pub struct ServerPaint {
    enabled: bool,
    state: State,
    /// A target the server refused or ended: not asked again until the target changes.
    declined: Option<Target>,
    /// Keys the server read and handed back, for us to read first ([`ServerPaint::take_back`]).
    back: Vec<u8>,
}

impl ServerPaint {
    /// No grant yet; never asks for one unless `enabled` (`[fast_paths] server_paint`).
    pub fn new(enabled: bool) -> ServerPaint {
        ServerPaint {
            enabled,
            state: State::Off,
            declined: None,
            back: Vec::new(),
        }
    }

    /// Brings the grant in line with `want` before a frame is drawn: a grant for anything else
    /// is stopped first — waiting for the server's `stopped` — and its rectangle is returned
    /// for redrawing; then, if `want` is new, the server behind `socket` is asked for it (the
    /// answer comes through [`ServerPaint::next`]; until then the TUI simply draws).
    pub async fn settle(
        &mut self,
        want: Option<Target>,
        socket: impl FnOnce() -> Option<PathBuf>,
    ) -> Option<Redraw> {
        if !self.enabled {
            return None;
        }
        if self.declined.is_some() && self.declined != want {
            self.declined = None;
        }
        let redraw = match std::mem::replace(&mut self.state, State::Off) {
            State::On(granted) if Some(&granted.target) != want.as_ref() => {
                Some(stop(granted, &mut self.back).await)
            }
            State::Asking { target, task } if Some(&target) != want.as_ref() => {
                // It may already be granted: take the answer and stop it, so nothing is
                // painted over what this frame draws.
                match tokio::time::timeout(STOP_WAIT, task).await {
                    Ok(Ok(Ok(conn))) => {
                        Some(stop(Granted::new(target, conn), &mut self.back).await)
                    }
                    // Refused, failed or slow (the task is dropped with its connection): the
                    // server may have painted before it saw us go.
                    _ => Some(Redraw::Rect(target.rect)),
                }
            }
            kept => {
                self.state = kept;
                None
            }
        };
        if let (State::Off, Some(target)) = (&self.state, want)
            && self.declined.as_ref() != Some(&target)
            && let Some(socket) = socket()
        {
            let path = protocol::socket_path(&socket);
            let (pane, rect) = (target.pane.clone(), target.rect);
            let task = tokio::spawn(ask(path, pane, rect));
            self.state = State::Asking { target, task };
        }
        redraw
    }

    /// The next thing the server says (cancel-safe; pending while there is nothing to hear):
    /// what to draw again, if anything.
    pub async fn next(&mut self) -> Option<Redraw> {
        match &mut self.state {
            State::Off => std::future::pending().await,
            State::Asking { target, task } => {
                let answer = task.await;
                let target = target.clone();
                match answer {
                    Ok(Ok(conn)) => self.state = State::On(Granted::new(target, conn)),
                    // Refused (an older server, a pane that cannot be painted): the TUI draws.
                    Ok(Err(_)) => {
                        self.declined = Some(target);
                        self.state = State::Off;
                    }
                    Err(_) => self.state = State::Off,
                }
                None
            }
            State::On(granted) => {
                let rect = granted.target.rect;
                match granted.conn.recv::<Reply>().await {
                    Ok(Some(Reply::Back(back))) => {
                        // Our keys are ours again.
                        granted.keys_refused |= granted.keys == Keys::Lent && back.is_empty();
                        granted.keys = Keys::Home;
                        self.back.extend_from_slice(&back);
                        None
                    }
                    Ok(Some(Reply::Notice(Notice::Skipped))) => {
                        granted.paused = true;
                        Some(Redraw::Rect(rect))
                    }
                    Ok(Some(Reply::Notice(Notice::Damaged))) => {
                        self.end();
                        Some(Redraw::All)
                    }
                    // Ended by the server (the pane exited or closed, shutdown, a refusal) or a
                    // line we do not know: the grant is over.
                    _ => {
                        self.end();
                        Some(Redraw::Rect(rect))
                    }
                }
            }
        }
    }

    /// The pane whose changes the server paints now (a grant that is not paused): its echo
    /// is on the screen before our model has it, so our frame for it need not hurry.
    pub fn painting(&self) -> Option<&str> {
        match &self.state {
            State::On(granted) if !granted.paused => Some(&granted.target.pane),
            _ => None,
        }
    }

    /// Lends our keys to the server (`lend`, never taking the characters in `excluded`): only with a
    /// grant that paints, and only once the caller stopped reading the terminal. False when not
    /// lent (the caller reads on).
    pub fn lend_keys(&mut self, excluded: &str) -> bool {
        let State::On(granted) = &mut self.state else {
            return false;
        };
        if granted.paused || granted.keys != Keys::Home || granted.keys_refused {
            return false;
        }
        let lend = Request::Lend {
            excluded: excluded.to_owned(),
        };
        if granted.conn.try_send(&lend) {
            granted.keys = Keys::Lent;
            true
        } else {
            self.end();
            false
        }
    }

    /// Asks the server for our keys back (`release`); they are home once its `back` came
    /// ([`ServerPaint::keys_lent`] turns false).
    pub fn recall_keys(&mut self) {
        let State::On(granted) = &mut self.state else {
            return;
        };
        if granted.keys != Keys::Lent {
            return;
        }
        if granted.conn.try_send(&Request::Release) {
            granted.keys = Keys::Recalled;
        } else {
            self.end();
        }
    }

    /// Whether the server reads our keys (lent, or recalled and not back yet).
    pub fn keys_lent(&self) -> bool {
        matches!(&self.state, State::On(granted) if granted.keys != Keys::Home)
    }

    /// The keys the server handed back since the last call: read them before the terminal.
    pub fn take_back(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.back)
    }

    /// Called after each frame is handed to the terminal: a paused grant's rectangle has been
    /// redrawn from our model, so the server may paint again.
    pub fn frame_sent(&mut self) {
        let State::On(granted) = &mut self.state else {
            return;
        };
        if !granted.paused {
            return;
        }
        granted.paused = false;
        if !granted.conn.try_send(&Request::Resume) {
            self.end();
        }
    }

    /// The grant ends on the server's side; not asked again for the same target.
    fn end(&mut self) {
        if let State::On(granted) = std::mem::replace(&mut self.state, State::Off) {
            self.declined = Some(granted.target);
        }
    }
}

/// Connects to the side socket and asks for a grant of `rect` for `pane` on our terminal (its
/// input sent too, to lend keys on the same connection). The sends are non-blocking
/// ([`Conn::try_send`]): an idle socket takes a short line at once, and one that does not ends
/// the grant (the server, seeing the end, stops).
async fn ask(path: PathBuf, pane: String, rect: Rect) -> Result<Conn, String> {
    let mut conn = Conn::connect(&path).await.map_err(|e| e.to_string())?;
    signaltty_client::trust::check_peer(conn.stream(), &path).map_err(|e| e.to_string())?;
    let request = Request::Paint {
        pane,
        rect: protocol::Rect {
            col: rect.x,
            row: rect.y,
            cols: rect.width,
            rows: rect.height,
        },
    };
    let (terminal, input) = (std::io::stdout(), std::io::stdin());
    conn.ask(&request, &[terminal.as_fd(), input.as_fd()], ANSWER_TIMEOUT)
        .await?;
    Ok(conn)
}

/// Stops a grant and waits (bounded) until the server says nothing more will be painted; keys
/// it handed back on the way are added to `back`.
async fn stop(mut granted: Granted, back: &mut Vec<u8>) -> Redraw {
    let rect = granted.target.rect;
    let stopped = async {
        granted.conn.send(&Request::Stop, &[]).await.ok()?;
        loop {
            match granted.conn.recv::<Reply>().await {
                Ok(Some(Reply::Back(keys))) => back.extend_from_slice(&keys),
                Ok(Some(Reply::Notice(Notice::Stopped))) => return Some(Redraw::Rect(rect)),
                Ok(Some(Reply::Notice(Notice::Damaged))) => return Some(Redraw::All),
                // A `skipped` sent before it saw our stop: the redraw covers it.
                Ok(Some(_)) => {}
                // Ended meanwhile (or a line we do not know): nothing more will come either.
                Ok(None) | Err(_) => return Some(Redraw::Rect(rect)),
            }
        }
    };
    tokio::time::timeout(STOP_WAIT, stopped)
        .await
        .ok()
        .flatten()
        .unwrap_or(Redraw::Rect(rect))
}

#[cfg(test)]
#[path = "painting_tests.rs"]
mod tests;
