//! One handed-over terminal showing one pane until the detach key, the client's `stop` or
//! hang-up, the pane's exit (once its final screen is shown), the pane closing or shutdown.
//!
//! The same rules as an attach over gRPC plus what the CLI did with its terminal: the terminal
//! is given a repaint first; output is written without blocking, less the queries the server
//! answers for the pane (`QueryFilter`); when the terminal falls behind the pane (its backlog
//! passes a few screens), the backlog is dropped, CAN ends whatever sequence it cut, the pane's
//! subscription is let go, and once the terminal took everything a fresh subscription repaints
//! it — so a slow terminal never shows old output late and still ends on the exact screen. Keys
//! go to the pane in order (`InputQueue`), cut at the detach key. At the end the modes the
//! pane's output switched on are reset and the client is told how it ended; nothing is written
//! to the terminal after that.
//!
//! While the pane has another size than the terminal (another client sizes it: `[server]
//! window_size`), output does not go through as it is: the terminal gets frames drawn from the
//! pane's screen instead, at most one per [`FRAME`] (`super::fitted`: the top-left part, the
//! unused area marked `·`). Typing makes this terminal the active client, which under `latest`
//! gives the pane its size; once the sizes agree again a repaint hands over to plain output.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::time::Duration;

use signaltty_term::QueryFilter;
use signaltty_tty::input::TtyInput;
use signaltty_tty::modes::{CANCEL, ModeTracker};
use signaltty_tty::output::TtyOutput;
use signaltty_tty::protocol::{Conn, End, HandOff, Reply, Request};
use tokio_stream::StreamExt as _;
use tokio_stream::wrappers::WatchStream;

use crate::hub::Hub;
use crate::hub::typing::Route;
use crate::model::event::ChangeSource;
use crate::model::ids::PaneId;
use crate::model::pane::Size;
use crate::pane::actor::{PaneHandle, Subscribed};
use crate::pane::attached::InputQueue;
use crate::pane::feed::{Fed, Feed, until};
use crate::peer::Origin;

use super::dispatch::{START_TIMEOUT, refuse, unexpected};

/// Output joined into one terminal write at most. Small enough that a flooding pane's
/// terminal write (and the kernel's line-discipline pass over it, in a kworker on one of the
/// two CPUs) stays short, so a quiet pane's echo is not held behind it: 256 KiB gave echo p99
/// with another pane flooding 4.2–15 ms (1/5 runs ≤ tmux), 32 KiB 2.7–16 ms (4/5), with plain
/// throughput through the hand-off no worse (quick runs, same machine, back to back).
const MAX_WRITE_BYTES: usize = 32 * 1024;
/// A backlog never counts as "behind" below this many bytes.
const MIN_BEHIND_BYTES: usize = 64 * 1024;
/// How long the last bytes (the mode resets) may take to reach a terminal that is not reading.
const FINAL_FLUSH: Duration = Duration::from_secs(2);
/// Shortest time between two frames drawn for a terminal of another size than its pane.
const FRAME: Duration = Duration::from_millis(16);

/// Serves a hand-off (`asked`, with the terminal's descriptors `fds`) on `conn`: `ready`, the
/// client's `go`, then the session until it ends, and how it ended.
pub async fn serve(hub: &Hub, origin: &Origin, mut conn: Conn, asked: HandOff, fds: Vec<OwnedFd>) {
    let prepared = match prepare(hub, origin, asked, fds) {
        Ok(prepared) => prepared,
        Err(why) => return refuse(&conn, &why).await,
    };
    if conn.send(&Reply::Ready, &[]).await.is_err() {
        return;
    }
    // The client switches its terminal to raw mode between `ready` and `go`.
    match tokio::time::timeout(START_TIMEOUT, conn.recv::<Request>()).await {
        Ok(Ok(Some(Request::Go))) => {}
        Ok(received) => {
            if let Some(why) = unexpected(received, "`go`") {
                refuse(&conn, &why).await;
            }
            return;
        }
        Err(_) => return,
    }
    let end = prepared.run(hub, &mut conn).await;
    let _ = conn.send(&end, &[]).await;
}

/// A request checked and its terminal opened, before anything was written to it.
struct Prepared {
    request: HandOff,
    handle: PaneHandle,
    keys: TtyInput,
    out: TtyOutput,
    /// The client's terminal (for its size).
    tty: OwnedFd,
}

/// Checks the request as `PaneService.Attach` would and opens the terminal; the error is the
/// `refused` line's text (the client then attaches over gRPC, which reports a real problem with
/// the server's reason and code).
fn prepare(
    hub: &Hub,
    origin: &Origin,
    request: HandOff,
    fds: Vec<OwnedFd>,
) -> Result<Prepared, String> {
    let [tty_in, tty_out]: [OwnedFd; 2] = fds
        .try_into()
        .map_err(|_| "send the terminal's input and output descriptors, two".to_string())?;
    let id = PaneId::parse(&request.pane)
        .ok_or_else(|| format!("`{}` is not a pane id", request.pane))?;
    if !request.read_only {
        hub.guard()
            .may_control_pane(origin, &id)
            .map_err(|e| e.to_string())?;
    }
    // A restored pane (its saved tail) is shown over gRPC.
    let handle = hub.panes().handle(&id).map_err(|e| e.to_string())?;
    let keys = TtyInput::reopen(&fd_path(&tty_in))
        .map_err(|e| format!("cannot open the terminal for reading: {e}"))?;
    let out = TtyOutput::reopen(&fd_path(&tty_out))
        .map_err(|e| format!("cannot open the terminal for writing: {e}"))?;
    Ok(Prepared {
        request,
        handle,
        keys,
        out,
        tty: tty_out,
    })
}

/// Our descriptor as a path: opening it again gives a description of our own, so
/// `O_NONBLOCK` never reaches the shell's.
pub(super) fn fd_path(fd: &OwnedFd) -> PathBuf {
    PathBuf::from(format!("/proc/self/fd/{}", fd.as_raw_fd()))
}

impl Prepared {
    /// The session; its answer is how it ended (`end …`), or `refused` for a line that does not
    /// belong to a hand-off.
    async fn run(self, hub: &Hub, conn: &mut Conn) -> Reply {
        let Prepared {
            request,
            handle,
            mut keys,
            out,
            tty,
        } = self;
        if request.mark_seen {
            let _ = hub.mark_seen(handle.id(), ChangeSource::Client);
        }
        let (cols, rows) = signaltty_tty::window_size(&tty).unwrap_or((80, 24));
        let size = (!request.read_only).then(|| Size::clamped(cols.into(), rows.into()));
        let (client, changed) = handle.join(size, hub.config().window_size);
        if let Some(size) = changed {
            hub.record_size(handle.id(), size);
        }
        let input = InputQueue::start(&handle);
        let mut view = View::new(out, cols, rows);
        let mut feed = Feed::new(&handle, MAX_WRITE_BYTES);
        if let Some(sub) = feed.current() {
            view.repaint(sub, true);
        }
        let mut exits = WatchStream::new(handle.watch_exit());
        // The pane's size (its current one first), against the terminal's.
        let mut pane_sizes = WatchStream::new(handle.watch_size());
        let mut term_size = (cols, rows);
        let mut fitted = Fitted::default();
        let mut closed_rx = handle.watch_closed();
        let closed = closed_rx.changed();
        let shutdown = hub.shutdown_token().clone();
        let cancelled = shutdown.cancelled();
        tokio::pin!(closed, cancelled);
        let mut exited: Option<i32> = None;
        let end = loop {
            // Caught up after falling behind (and the pause is over): a fresh screen.
            if !fitted.on
                && let Some(fresh) = feed.fresh(&handle, view.out.pending() == 0)
            {
                view.repaint(fresh, false);
            }
            if let Some(code) = exited
                && view.out.pending() == 0
                && feed.drained()
            {
                break Reply::End(End::Exited(code));
            }
            if let Some(failed) = view.failed.take() {
                break Reply::End(End::Failed(failed));
            }
            tokio::select! {
                biased;
                _ = &mut closed => break Reply::End(End::Closed),
                () = &mut cancelled => break Reply::End(End::Shutdown),
                Some(code) = exits.next(), if exited.is_none() => exited = code,
                () = until(feed.pause_ends()) => feed.paused(),
                Some(size) = pane_sizes.next() => {
                    fitted.pane = Some((size.cols, size.rows));
                    fitted.settle(term_size, &handle, &mut view, &mut feed);
                }
                () = until(fitted.draw_at) => {
                    fitted.draw(term_size, &handle, &mut view);
                }
                received = conn.recv::<Request>() => match received {
                    Ok(Some(Request::Resize)) => {
                        if let Some((cols, rows)) = signaltty_tty::window_size(&tty) {
                            view.resize(cols, rows);
                            term_size = (cols, rows);
                            if !request.read_only
                                && let Some(size) = handle.client_resized(client, Size::clamped(cols.into(), rows.into()))
                            {
                                hub.record_size(handle.id(), size);
                            }
                            fitted.settle(term_size, &handle, &mut view, &mut feed);
                        }
                    }
                    // `stop` or a hang-up: the client wants its terminal back.
                    Ok(Some(Request::Stop)) => break Reply::End(End::Detached),
                    received => break unexpected(received, "`resize` or `stop`")
                        .map_or(Reply::End(End::Detached), Reply::Refused),
                },
                typed = keys.read() => match typed {
                    // The terminal hung up: nothing more can be typed.
                    Ok([]) | Err(_) => break Reply::End(End::Detached),
                    Ok(bytes) => {
                        let (forward, detach) = signaltty_tty::split_at_detach(bytes, request.detach_key);
                        if !request.read_only && !forward.is_empty() {
                            let route = Route::Attached { client, queue: &input };
                            let _ = hub.type_keys(&handle, forward, route).await;
                        }
                        if detach {
                            break Reply::End(End::Detached);
                        }
                    }
                },
                flushed = view.out.flush_some(), if view.out.pending() > 0 => {
                    if let Err(e) = flushed {
                        break Reply::End(End::Failed(format!("cannot write to the terminal: {e}")));
                    }
                }
                fed = feed.next() => match fed {
                    // The next frame shows it (a frame is drawn from the screen: a lag loses
                    // nothing but needs the changes again).
                    _ if fitted.on => {
                        fitted.changed();
                        if feed.behind() {
                            feed.resubscribe(&handle);
                        }
                    }
                    Fed::Output { data, .. } => {
                        view.output(data);
                        if feed.behind() || view.behind() {
                            view.fall_behind();
                            feed.fall_behind();
                        }
                    }
                    Fed::Behind => view.fall_behind(),
                    // The terminal's output is over; the exit (or closing) follows.
                    Fed::Closed => {}
                },
            }
        };
        view.finish().await;
        if let Some(size) = handle.leave(client) {
            hub.record_size(handle.id(), size);
        }
        end
    }
}

/// Frames for a terminal of another size than its pane (see the module's doc).
#[derive(Default)]
struct Fitted {
    /// Frames are drawn (the sizes differ).
    on: bool,
    /// The pane's size, once its watch told.
    pane: Option<(u16, u16)>,
    /// When the next frame is due.
    draw_at: Option<tokio::time::Instant>,
    /// When the last one was drawn.
    drawn: Option<tokio::time::Instant>,
}

impl Fitted {
    /// Starts or ends drawing frames after either size changed.
    fn settle(&mut self, term: (u16, u16), handle: &PaneHandle, view: &mut View, feed: &mut Feed) {
        let on = self.pane.is_some_and(|pane| pane != term);
        if on {
            if !self.on {
                // What plain output had not written yet is not worth writing now.
                view.fall_behind();
                if feed.behind() {
                    feed.resubscribe(handle);
                }
            }
            self.on = true;
            self.draw_at = Some(tokio::time::Instant::now());
        } else if self.on {
            self.on = false;
            self.draw_at = None;
            // Plain output again, from a fresh screen.
            view.repaint(feed.resubscribe(handle), false);
        }
    }

    /// The pane's screen changed: a frame at the next slot.
    fn changed(&mut self) {
        if self.draw_at.is_none() {
            let now = tokio::time::Instant::now();
            self.draw_at = Some(self.drawn.map_or(now, |at| (at + FRAME).max(now)));
        }
    }

    fn draw(&mut self, term: (u16, u16), handle: &PaneHandle, view: &mut View) {
        self.draw_at = None;
        self.drawn = Some(tokio::time::Instant::now());
        let mut frame = Vec::new();
        handle.with_screen(|screen, _| super::fitted::frame(screen.view(), term, &mut frame));
        view.push(&frame);
    }
}

/// What the terminal is being given, and how far behind it is.
struct View {
    out: TtyOutput,
    modes: ModeTracker,
    queries: QueryFilter,
    /// The backlog, in bytes, above which the terminal is behind.
    limit: usize,
    /// A write failed; the session ends with this.
    failed: Option<String>,
}

impl View {
    fn new(out: TtyOutput, cols: u16, rows: u16) -> View {
        let mut view = View {
            out,
            modes: ModeTracker::default(),
            queries: QueryFilter::default(),
            limit: 0,
            failed: None,
        };
        view.resize(cols, rows);
        view
    }

    /// A few screens' worth: eight bytes a cell, at least 64 KiB.
    fn resize(&mut self, cols: u16, rows: u16) {
        self.limit = (usize::from(cols) * usize::from(rows) * 8).max(MIN_BEHIND_BYTES);
    }

    fn push(&mut self, bytes: &[u8]) {
        if self.failed.is_none()
            && let Err(e) = self.out.push(bytes)
        {
            self.failed = Some(format!("cannot write to the terminal: {e}"));
        }
    }

    /// The screen of `sub`; over a terminal that showed the pane, after the mode resets.
    fn repaint(&mut self, sub: &Subscribed, first: bool) {
        self.queries.reset();
        if !first {
            let prefix = self.modes.repaint_prefix();
            self.push(&prefix);
        }
        let repaint = &sub.snapshot.repaint;
        self.modes.observe(repaint);
        self.push(repaint);
    }

    fn output(&mut self, data: Vec<u8>) {
        let data = self.queries.filter_owned(data);
        self.modes.observe(&data);
        self.push(&data);
    }

    fn behind(&self) -> bool {
        self.out.pending() > self.limit
    }

    /// What the terminal has not taken is not worth writing any more.
    fn fall_behind(&mut self) {
        self.out.discard();
        self.push(CANCEL);
    }

    /// Resets what the pane's output switched on and gives the terminal a bounded time to take
    /// it (a terminal nobody reads must not hold the session).
    async fn finish(&mut self) {
        if self.out.pending() > 0 {
            self.fall_behind();
        }
        let restore = self.modes.restore_sequence();
        self.push(&restore);
        let _ = tokio::time::timeout(FINAL_FLUSH, async {
            while self.out.pending() > 0 {
                if self.out.flush_some().await.is_err() {
                    break;
                }
            }
        })
        .await;
    }
}
