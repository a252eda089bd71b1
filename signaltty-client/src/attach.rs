//! The attach driver: one pane's terminal over the `Attach` bidirectional stream, as typed
//! events one way and input and sizes the other.
//!
//! [`Attach::start`] sends `Start` (always the first request) and waits for the server's first
//! message, so a bad pane id or a refused attach fails there, before a client touches its
//! terminal. The attach then splits in two halves that can live in different places:
//! [`AttachEvents`] (the server's messages, decoded into [`AttachEvent`]s, payloads moved out of
//! the protobuf without a copy) and [`AttachInput`] (cloneable; typed bytes and size changes).
//!
//! What a client does with the events is its own business: the CLI writes the bytes to its real
//! terminal, the TUI feeds them to a `signaltty_term::Screen`. The contract is the proto's: a
//! Snapshot repaints everything (first, and after every Resync); Output continues from the
//! previous offset without gaps; Exited leaves the stream open until the client goes.
//!
//! Closing the attach (dropping both halves, or every [`AttachInput`]) is the detach; the pane's
//! process lives on.

use signaltty_proto::v1 as pb;
use signaltty_proto::v1::attach_request::{self, Kind as ReqKind};
use signaltty_proto::v1::attach_response::Kind as RespKind;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Streaming;

use crate::client::Client;
use crate::error::ClientError;

/// How many requests (keystroke chunks, resizes) may wait for the connection before
/// [`AttachInput::input`] waits too.
const REQUEST_QUEUE: usize = 64;

/// What the `Start` request says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachStart {
    /// The pane to attach to.
    pub pane_id: String,
    /// This client's width for the pane.
    pub cols: u16,
    /// This client's height for the pane.
    pub rows: u16,
    /// Clear the pane's attention on attach (as `MarkSeen`).
    pub mark_seen: bool,
    /// Watch only: input is refused and this client's size does not count.
    pub read_only: bool,
}

impl AttachStart {
    /// An interactive attach of `pane_id` at `cols`×`rows` that marks the pane seen.
    pub fn new(pane_id: impl Into<String>, cols: u16, rows: u16) -> Self {
        AttachStart {
            pane_id: pane_id.into(),
            cols,
            rows,
            mark_seen: true,
            read_only: false,
        }
    }
}

/// A full repaint of the pane's terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Bytes that, written to a cleared terminal of `cols`×`rows`, reproduce the pane's screen
    /// (alternate screen, colours, cursor position and visibility, modes).
    pub bytes: Vec<u8>,
    /// The output offset the snapshot corresponds to; the next Output continues from here.
    pub offset: u64,
    /// Width.
    pub cols: u16,
    /// Height.
    pub rows: u16,
    /// The cursor, 0-based.
    pub cursor: Cursor,
    /// The pane's title.
    pub title: String,
}

/// A cursor position, 0-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cursor {
    /// Row from the top.
    pub row: u16,
    /// Column from the left.
    pub col: u16,
}

/// One message from the server about the attached pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttachEvent {
    /// Repaint everything: the first event, and after every [`AttachEvent::Resync`].
    Snapshot(Snapshot),
    /// More output, in order, without gaps.
    Output {
        /// The bytes.
        data: Vec<u8>,
        /// The output offset after them.
        end_offset: u64,
    },
    /// The pane's size changed (another client, or `ResizePane`).
    Resized {
        /// New width.
        cols: u16,
        /// New height.
        rows: u16,
    },
    /// This client fell behind and output was skipped; a Snapshot follows at once.
    Resync {
        /// Why, as the server says.
        reason: String,
    },
    /// The pane's process ended (128 + n when killed by signal n). The stream stays open.
    Exited {
        /// The exit code.
        code: i32,
    },
}

impl AttachEvent {
    /// Decodes a server message; `None` for a message this client does not know (a newer
    /// server's), which is skipped.
    pub fn from_proto(message: pb::AttachResponse) -> Option<AttachEvent> {
        Some(match message.kind? {
            RespKind::Snapshot(s) => AttachEvent::Snapshot(Snapshot {
                bytes: s.screen,
                offset: s.output_offset,
                cols: clamp_u16(s.cols),
                rows: clamp_u16(s.rows),
                cursor: Cursor {
                    row: clamp_u16(s.cursor_row),
                    col: clamp_u16(s.cursor_col),
                },
                title: s.title,
            }),
            RespKind::Output(o) => AttachEvent::Output {
                data: o.data,
                end_offset: o.end_offset,
            },
            RespKind::Resized(r) => AttachEvent::Resized {
                cols: clamp_u16(r.cols),
                rows: clamp_u16(r.rows),
            },
            RespKind::Resync(r) => AttachEvent::Resync { reason: r.reason },
            RespKind::Exited(e) => AttachEvent::Exited { code: e.code },
        })
    }
}

fn clamp_u16(value: u32) -> u16 {
    u16::try_from(value).unwrap_or(u16::MAX)
}

/// An attached pane: both halves. Split it with [`Attach::split`] to read events and send input
/// from different places.
#[derive(Debug)]
pub struct Attach {
    /// The server's messages.
    pub events: AttachEvents,
    /// Input and size changes.
    pub input: AttachInput,
}

impl Attach {
    /// Sends `Start` and waits for the server's first message (a Snapshot), which the first
    /// [`AttachEvents::next`] returns. Errors here (no such pane, the server gone) leave
    /// nothing behind.
    pub async fn start(client: &Client, start: AttachStart) -> Result<Attach, ClientError> {
        let (requests, outgoing) = mpsc::channel::<pb::AttachRequest>(REQUEST_QUEUE);
        let input = AttachInput { requests };
        let first = attach_request::Start {
            pane_id: start.pane_id,
            cols: start.cols.into(),
            rows: start.rows.into(),
            mark_seen: start.mark_seen,
            read_only: start.read_only,
        };
        input.send(ReqKind::Start(first)).await;
        let stream = client
            .panes()
            .attach(ReceiverStream::new(outgoing))
            .await?
            .into_inner();
        let mut events = AttachEvents {
            first: None,
            stream: Some(stream),
        };
        let first = events
            .next()
            .await?
            .ok_or_else(|| ClientError::Disconnected {
                detail: "the server closed the attach before its first message".into(),
            })?;
        events.first = Some(first);
        Ok(Attach { events, input })
    }

    /// The two halves.
    pub fn split(self) -> (AttachEvents, AttachInput) {
        (self.events, self.input)
    }
}

/// The server's messages for an attached pane.
#[derive(Debug)]
pub struct AttachEvents {
    /// The first message, received by [`Attach::start`] and not yet handed out.
    first: Option<AttachEvent>,
    /// `None` once the stream ended.
    stream: Option<Streaming<pb::AttachResponse>>,
}

impl AttachEvents {
    /// The next event; `Ok(None)` when the server ended the stream (the pane was closed, or the
    /// server shut down). Cancel-safe: usable in `tokio::select!`.
    pub async fn next(&mut self) -> Result<Option<AttachEvent>, ClientError> {
        if let Some(first) = self.first.take() {
            return Ok(Some(first));
        }
        let Some(stream) = self.stream.as_mut() else {
            return Ok(None);
        };
        loop {
            match stream.message().await {
                Ok(Some(message)) => {
                    if let Some(event) = AttachEvent::from_proto(message) {
                        return Ok(Some(event));
                    }
                }
                Ok(None) => {
                    self.stream = None;
                    return Ok(None);
                }
                Err(status) => {
                    self.stream = None;
                    return Err(status.into());
                }
            }
        }
    }
}

/// Sends typed bytes and size changes to an attached pane. Cheap to clone; the attach ends
/// (detach) when every clone and the events half are dropped.
#[derive(Debug, Clone)]
pub struct AttachInput {
    requests: mpsc::Sender<pb::AttachRequest>,
}

impl AttachInput {
    /// Sends bytes typed by the user (at most 1 MiB per call; the server refuses more). Waits
    /// only when `REQUEST_QUEUE` (64) requests are already waiting for the connection.
    pub async fn input(&self, data: Vec<u8>) {
        if !data.is_empty() {
            self.send(ReqKind::Input(attach_request::Input { data }))
                .await;
        }
    }

    /// Tells the server this client is active without typing (an empty Input): under
    /// `window_size = "latest"` the pane takes this client's size.
    pub async fn activity(&self) {
        self.send(ReqKind::Input(attach_request::Input { data: Vec::new() }))
            .await;
    }

    /// Reports this client's new size for the pane.
    pub async fn resize(&self, cols: u16, rows: u16) {
        let resize = attach_request::Resize {
            cols: cols.into(),
            rows: rows.into(),
        };
        self.send(ReqKind::Resize(resize)).await;
    }

    async fn send(&self, kind: ReqKind) {
        // A closed channel means the stream is over; the events half reports why.
        let _ = self
            .requests
            .send(pb::AttachRequest { kind: Some(kind) })
            .await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_decode_with_cursor_and_size() {
        let message = pb::AttachResponse {
            kind: Some(RespKind::Snapshot(pb::attach_response::Snapshot {
                screen: b"\x1b[Hhi".to_vec(),
                output_offset: 42,
                cols: 80,
                rows: 24,
                cursor_row: 3,
                cursor_col: 7,
                title: "sh".into(),
            })),
        };
        let Some(AttachEvent::Snapshot(s)) = AttachEvent::from_proto(message) else {
            panic!("a snapshot")
        };
        assert_eq!(s.bytes, b"\x1b[Hhi");
        assert_eq!((s.offset, s.cols, s.rows), (42, 80, 24));
        assert_eq!(s.cursor, Cursor { row: 3, col: 7 });
        assert_eq!(s.title, "sh");
    }

    #[test]
    fn every_kind_decodes_and_unknown_messages_are_skipped() {
        use pb::attach_response as r;
        let decode = |kind| AttachEvent::from_proto(pb::AttachResponse { kind: Some(kind) });
        let output = r::Output {
            data: b"x".to_vec(),
            end_offset: 9,
        };
        let data = b"x".to_vec();
        let output_event = AttachEvent::Output {
            data,
            end_offset: 9,
        };
        assert_eq!(decode(RespKind::Output(output)), Some(output_event));
        let resized = r::Resized {
            cols: 100_000,
            rows: 5,
        };
        let (cols, rows) = (u16::MAX, 5);
        assert_eq!(
            decode(RespKind::Resized(resized)),
            Some(AttachEvent::Resized { cols, rows })
        );
        let exited = r::Exited { code: 130 };
        assert_eq!(
            decode(RespKind::Exited(exited)),
            Some(AttachEvent::Exited { code: 130 })
        );
        let reason = "lagged".to_owned();
        let resync = r::Resync {
            reason: reason.clone(),
        };
        assert_eq!(
            decode(RespKind::Resync(resync)),
            Some(AttachEvent::Resync { reason })
        );
        assert_eq!(
            AttachEvent::from_proto(pb::AttachResponse { kind: None }),
            None
        );
    }
}
