//! `PaneService.Attach`: one task per attached client. It sends a Snapshot first, then Output
//! chunks whose offsets are contiguous, Resized/Exited as they happen, and a Resync + fresh
//! Snapshot when the client fell behind — the offsets and the fresh screen by the session core it
//! shares with the hand-off (`pane/feed.rs`). Input goes to a separate writer task so that a child
//! that stops reading never stops this client's output (a `cat` echoing its input would otherwise
//! deadlock with us).
//!
//! While a client's terminal is painted with the pane's changes (`pane::paint`: the TUI's focused
//! pane), the screen already shows each change as it comes, so output is held until the pane has
//! been quiet for `Config::painted_output_delay` (2 ms), at most [`MAX_HELD`] (a frame), and goes
//! out joined: a typed key's echo is painted without the TUI waking for the same bytes in the
//! middle of the next key's path — nor in the middle of a burst of keys (measured in batches of
//! keys: a fixed 2 ms took the TUI's echo p50 from 1.17–1.19× tmux to 1.05–1.07×, and its p99 from
//! 2–7 ms to tmux's). What is held goes out at once when the painting ends or pauses, and before
//! anything else the stream carries, so the stream's order never changes.

use std::pin::Pin;
use std::time::Duration;

use futures_util::Stream;
use signaltty_proto::v1 as pb;
use tokio::sync::mpsc;
use tokio_stream::StreamExt as _;
use tokio_stream::wrappers::{ReceiverStream, WatchStream};
use tonic::{Response, Status, Streaming};

use super::convert::pane_id;
use crate::error::Error;
use crate::hub::Hub;
use crate::hub::typing::Route;
use crate::model::pane::Size;
use crate::pane::actor::{ClientId, PaneHandle, Subscribed};
use crate::pane::attached::InputQueue;
use crate::pane::feed::{Fed, Feed, until};
use crate::pane::pty::MAX_INPUT_BYTES;

/// The server side of an attach stream.
pub type AttachStream = Pin<Box<dyn Stream<Item = Result<pb::AttachResponse, Status>> + Send>>;

/// How long a client has to send its Start message.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// Output coalesced into one message at most (fewer, larger messages for slow clients).
const MAX_MESSAGE_BYTES: usize = 256 * 1024;

/// Longest output is held while the pane is painted: one frame, so the TUI's own copy of a
/// painted pane is never later than a frame it would have drawn anyway.
const MAX_HELD: Duration = Duration::from_millis(16);

/// Output held back while the pane is painted (see the module's doc).
struct Held {
    data: Vec<u8>,
    end_offset: u64,
    /// When the first chunk came.
    since: tokio::time::Instant,
    until: tokio::time::Instant,
}

impl Held {
    /// Adds a chunk that came at `now` to what `held` holds; it goes out once no chunk came for
    /// `quiet`, at most [`MAX_HELD`] (or `quiet`, if longer) after the first.
    fn add(
        held: &mut Option<Held>,
        data: Vec<u8>,
        end_offset: u64,
        quiet: Duration,
        now: tokio::time::Instant,
    ) -> &Held {
        let h = match held {
            Some(h) => {
                h.data.extend_from_slice(&data);
                h.end_offset = end_offset;
                h
            }
            None => held.insert(Held {
                data,
                end_offset,
                since: now,
                until: now,
            }),
        };
        h.until = (now + quiet).min(h.since + quiet.max(MAX_HELD));
        h
    }

    fn into_output(self) -> pb::attach_response::Kind {
        pb::attach_response::Kind::Output(pb::attach_response::Output {
            data: self.data,
            end_offset: self.end_offset,
        })
    }
}

/// Handles an Attach call.
pub async fn attach(
    hub: Hub,
    origin: crate::peer::Origin,
    mut inbound: Streaming<pb::AttachRequest>,
) -> Result<Response<AttachStream>, Status> {
    let first = tokio::time::timeout(START_TIMEOUT, inbound.message())
        .await
        .map_err(|_| Error::Timeout {
            what: "waiting for the attach Start message".into(),
            written: None,
        })??;
    let Some(pb::AttachRequest {
        kind: Some(pb::attach_request::Kind::Start(start)),
    }) = first
    else {
        return Err(Error::bad("the first attach message must be Start").into());
    };
    let id = pane_id(&start.pane_id)?;
    if !start.read_only {
        // Typing into a pane is writing input: a program in a pane may do it only in its own
        // workspace. Watching (read-only) is not restricted.
        hub.guard().may_control_pane(&origin, &id)?;
    }
    let handle = match hub.panes().handle(&id) {
        Ok(handle) => handle,
        // A restored pane shows its saved tail until it is resumed.
        Err(e) => return super::restored::attach(hub, id, start, inbound).ok_or(e)?,
    };
    if start.mark_seen {
        hub.mark_seen(&id, crate::model::event::ChangeSource::Client)?;
    }
    let (tx, rx) = mpsc::channel(4);
    start_session(hub, handle, &start, inbound, tx);
    Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
}

/// The sender of an attach stream.
pub(super) type AttachSender = mpsc::Sender<Result<pb::AttachResponse, Status>>;

/// Joins the pane's clients and runs the session on its own task.
pub(super) fn start_session(
    hub: Hub,
    handle: PaneHandle,
    start: &pb::attach_request::Start,
    inbound: Streaming<pb::AttachRequest>,
    tx: AttachSender,
) {
    let size = (!start.read_only).then(|| Size::clamped(start.cols, start.rows));
    let (client, changed) = handle.join(size, hub.config().window_size);
    if let Some(size) = changed {
        hub.record_size(handle.id(), size);
    }
    let session = Session {
        hub,
        handle,
        client,
        read_only: start.read_only,
        tx,
    };
    tokio::spawn(session.run(inbound));
}

struct Session {
    hub: Hub,
    handle: PaneHandle,
    client: ClientId,
    read_only: bool,
    tx: mpsc::Sender<Result<pb::AttachResponse, Status>>,
}

fn msg(kind: pb::attach_response::Kind) -> Result<pb::AttachResponse, Status> {
    Ok(pb::AttachResponse { kind: Some(kind) })
}

impl Session {
    async fn send(&self, kind: pb::attach_response::Kind) -> bool {
        self.tx.send(msg(kind)).await.is_ok()
    }

    async fn send_snapshot(&self, sub: &Subscribed) -> bool {
        let s = &sub.snapshot;
        let title = self.handle.title().unwrap_or_default();
        self.send(pb::attach_response::Kind::Snapshot(
            pb::attach_response::Snapshot {
                screen: s.repaint.clone(),
                output_offset: sub.offset,
                cols: u32::from(s.cols),
                rows: u32::from(s.rows),
                cursor_row: u32::from(s.cursor_row),
                cursor_col: u32::from(s.cursor_col),
                title,
            },
        ))
        .await
    }

    async fn run(self, mut inbound: Streaming<pb::AttachRequest>) {
        let input = InputQueue::start(&self.handle);
        let mut feed = Feed::new(&self.handle, MAX_MESSAGE_BYTES);
        let mut exit_rx = self.handle.watch_exit();
        let exited = *exit_rx.borrow_and_update();
        // The rare events wait on futures and streams that live as long as the session: a
        // `select!` over fresh `changed()` futures registered and dropped a waiter on every
        // source at each pass, several passes per keystroke.
        let mut sizes = WatchStream::from_changes(self.handle.watch_size());
        let mut exits = WatchStream::from_changes(exit_rx);
        let mut closed_rx = self.handle.watch_closed();
        let closed = closed_rx.changed();
        let shutdown = self.hub.shutdown_token().clone();
        let cancelled = shutdown.cancelled();
        tokio::pin!(closed, cancelled);
        let mut alive = match feed.current() {
            Some(sub) => self.send_snapshot(sub).await,
            None => true,
        };
        if let Some(code) = exited {
            alive &= self
                .send(pb::attach_response::Kind::Exited(
                    pb::attach_response::Exited { code },
                ))
                .await;
        }
        let mut held: Option<Held> = None;
        while alive {
            // Behind, the pause over: a Resync and a fresh Snapshot (the stream's channel is
            // its backlog: a send waits for the client).
            if let Some(fresh) = feed.fresh(&self.handle, true) {
                alive = self.resync(fresh).await;
                continue;
            }
            let unpainted = self.handle.unpainted();
            if held.is_some() && !self.handle.painted() {
                alive = self.release(&mut held).await;
                continue;
            }
            let held_until = held.as_ref().map(|h| h.until);
            // Biased: the endings first (they are rare and cheap to poll, and must not wait
            // behind a flood of output), then typing, then output.
            tokio::select! {
                biased;
                _ = &mut closed => {
                    self.release_now(&mut held);
                    break;
                }
                () = &mut cancelled => {
                    self.release_now(&mut held);
                    break;
                }
                () = unpainted, if held.is_some() => {
                    alive = self.release(&mut held).await;
                }
                () = until(held_until) => {
                    alive = self.release(&mut held).await;
                }
                Some(size) = sizes.next() => {
                    alive = self.release(&mut held).await
                        && self.send(pb::attach_response::Kind::Resized(pb::attach_response::Resized {
                            cols: u32::from(size.cols), rows: u32::from(size.rows),
                        })).await;
                }
                Some(exited) = exits.next() => {
                    alive = self.release(&mut held).await;
                    if alive && let Some(code) = exited {
                        alive = self.send(pb::attach_response::Kind::Exited(pb::attach_response::Exited { code })).await;
                    }
                }
                request = inbound.message() => match request {
                    Ok(Some(req)) => if let Err(refused) = self.on_request(req, &input).await {
                        // An explicit error the client sees, then the stream ends.
                        let _ = self.tx.send(Err(refused)).await;
                        break;
                    },
                    Ok(None) => break,
                    Err(status) => {
                        let _ = self.tx.send(Err(super::edge::inbound_error(status))).await;
                        break;
                    }
                },
                () = until(feed.pause_ends()) => feed.paused(),
                fed = feed.next() => match fed {
                    Fed::Output { data, end_offset } => {
                        let delay = self.hub.config().painted_output_delay;
                        let now = tokio::time::Instant::now();
                        let full = Held::add(&mut held, data, end_offset, delay, now).data.len() >= MAX_MESSAGE_BYTES;
                        if feed.behind() || full || delay.is_zero() || !self.handle.painted() {
                            alive = self.release(&mut held).await;
                        }
                    }
                    Fed::Behind => {
                        tracing::debug!("attached client lagged; resyncing");
                        alive = self.release(&mut held).await;
                    }
                    Fed::Closed => break,
                },
            }
        }
        if let Some(size) = self.handle.leave(self.client) {
            self.hub.record_size(self.handle.id(), size);
        }
    }

    /// Sends the output held back, if any.
    async fn release(&self, held: &mut Option<Held>) -> bool {
        match held.take() {
            Some(h) => self.send(h.into_output()).await,
            None => true,
        }
    }

    /// Sends the output held back if the stream has room now: the stream is ending (the pane
    /// closed, the server shuts down), and a client that does not read must not hold that up.
    fn release_now(&self, held: &mut Option<Held>) {
        if let Some(h) = held.take() {
            let _ = self.tx.try_send(msg(h.into_output()));
        }
    }

    async fn resync(&self, sub: &Subscribed) -> bool {
        self.send(pb::attach_response::Kind::Resync(
            pb::attach_response::Resync {
                reason: "client fell behind the pane's output; repainting".into(),
            },
        ))
        .await
            && self.send_snapshot(sub).await
    }

    /// Handles one message after Start; an `Err` ends the stream with that status.
    async fn on_request(&self, req: pb::AttachRequest, input: &InputQueue) -> Result<(), Status> {
        match req.kind {
            Some(pb::attach_request::Kind::Input(i)) => {
                if self.read_only {
                    return Err(Error::bad(
                        "this client attached read-only and cannot type; attach again without --read-only to send input",
                    )
                    .into());
                } else if i.data.len() > MAX_INPUT_BYTES {
                    return Err(Error::InputTooLarge {
                        len: i.data.len(),
                        max: MAX_INPUT_BYTES,
                    }
                    .into());
                }
                // Typing, or an empty Input (an activity ping): `Hub::type_keys`.
                let route = Route::Attached {
                    client: self.client,
                    queue: input,
                };
                let _ = self.hub.type_keys(&self.handle, &i.data, route).await;
            }
            Some(pb::attach_request::Kind::Resize(r)) => {
                if !self.read_only
                    && let Some(size) = self
                        .handle
                        .client_resized(self.client, Size::clamped(r.cols, r.rows))
                {
                    self.hub.record_size(self.handle.id(), size);
                }
            }
            Some(pb::attach_request::Kind::Start(_)) => {
                return Err(Error::bad(
                    "this attach stream has already started; send Start once, then Input and Resize",
                )
                .into());
            }
            None => {
                return Err(Error::bad(
                    "an attach message must carry Input, Resize or (first) Start",
                )
                .into());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_output_goes_out_once_the_pane_is_quiet_and_at_most_a_frame_after_the_first_chunk() {
        let start = tokio::time::Instant::now();
        let ms = |n: u64| start + Duration::from_millis(n);
        let quiet = Duration::from_millis(2);
        let mut held = None;
        assert_eq!(
            Held::add(&mut held, b"a".to_vec(), 1, quiet, ms(0)).until,
            ms(2)
        );
        // Each chunk within the quiet time pushes it on...
        assert_eq!(
            Held::add(&mut held, b"b".to_vec(), 2, quiet, ms(1)).until,
            ms(3)
        );
        // ...up to a frame after the first.
        for at in 2..=20 {
            Held::add(&mut held, vec![b'c'], 2 + at, quiet, ms(at));
        }
        let h = held.take().expect("held");
        assert_eq!(h.until, ms(16));
        assert_eq!(h.data.len(), 21);
        assert_eq!(h.end_offset, 22);
        // A quiet time longer than a frame is its own bound.
        let hour = Duration::from_secs(3600);
        Held::add(&mut held, b"x".to_vec(), 1, hour, ms(0));
        let until = Held::add(&mut held, b"y".to_vec(), 2, hour, ms(30)).until;
        assert_eq!(until, ms(0) + hour);
    }
}
