//! Skipping to a fresh screen when the client's terminal falls behind (as tmux does), for a
//! client that writes a pane's output to a real terminal (the CLI's `attach`).
//!
//! The pane may print faster than the terminal reads (a slow emulator, a remote link). Writing
//! every byte then only makes the terminal show old output ever later. Instead:
//!
//! ```text
//!  Live ──backlog > limit──▶ Behind ──terminal took everything──▶ Fetching ──Snapshot──▶ Live
//!   │ writes Output           drops the unwritten backlog          Output is queued      repaint,
//!   │ (from `position` on)    and Output, queues CAN (aborts a     (a Resync's Snapshot  then the
//!   │                         sequence cut in the middle)          on the stream also    queued Output
//!   │                                                              completes it)         after it
//! ```
//!
//! The fresh screen is a Snapshot the server renders from its model of the pane: either one
//! fetched on a second, read-only attach ([`fetch_snapshot`]: it leaves the pane's size and
//! attention alone) or the one that follows a server-side Resync on the main stream. Its offset
//! says where the pane's output stood; Output already covered by it is dropped and Output that
//! straddles it is cut, so the terminal ends on the exact final screen. The catch-up is pure state
//! (no I/O): the caller writes the [`Piece`]s it returns and reports how much is still pending.

use crate::attach::{AttachStart, Snapshot};
use crate::client::Client;
use crate::error::ClientError;

/// Output queued while a snapshot is being fetched is capped (the server resyncs a reader that
/// falls further behind anyway); past this it starts over from Behind.
const QUEUE_LIMIT: usize = 8 * 1024 * 1024;

/// A backlog never counts as "behind" below this many bytes.
const MIN_LIMIT: usize = 64 * 1024;

/// What the caller writes to its terminal, in order.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece {
    /// A repaint: the terminal's parser and modes must be reset before it (the
    /// `raw_mode::repaint_prefix`) unless it is the attach's first message.
    Repaint {
        /// The snapshot's bytes.
        bytes: Vec<u8>,
        /// The attach's first snapshot (written to the terminal as it is).
        first: bool,
    },
    /// Pane output, in order.
    Output(Vec<u8>),
}

/// Where the catch-up stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatchUpState {
    /// Every byte is written.
    Live,
    /// The terminal is behind: output is dropped until it has taken what was written.
    Behind,
    /// A fresh screen was asked for (`generation`); output waits for it.
    Fetching {
        /// Which request; an older one's answer is ignored.
        generation: u64,
    },
}

/// The skip-to-a-fresh-screen state machine (see the module docs).
#[derive(Debug)]
pub struct CatchUp {
    state: CatchUpState,
    /// The output offset the terminal's screen stands at (or will, once the pending bytes
    /// are written); `None` before the first snapshot.
    position: Option<u64>,
    /// The backlog, in bytes, above which the terminal is behind.
    limit: usize,
    /// Output received while Fetching: (data, end offset).
    queued: Vec<(Vec<u8>, u64)>,
    queued_bytes: usize,
    generation: u64,
    /// Repaints written after the first one (fetched or resynced).
    repaints: u64,
    /// Output bytes received and not written.
    skipped: u64,
}

impl CatchUp {
    /// A catch-up for a terminal of `cols`×`rows`: behind once the backlog exceeds eight bytes a
    /// cell (a few screens' worth), at least 64 KiB.
    pub fn new(cols: u16, rows: u16) -> CatchUp {
        let mut catch_up = CatchUp {
            state: CatchUpState::Live,
            position: None,
            limit: 0,
            queued: Vec::new(),
            queued_bytes: 0,
            generation: 0,
            repaints: 0,
            skipped: 0,
        };
        catch_up.resize(cols, rows);
        catch_up
    }

    /// The current state.
    pub fn state(&self) -> CatchUpState {
        self.state
    }

    /// Repaints after the first (each one a skip to a fresh screen).
    pub fn repaints(&self) -> u64 {
        self.repaints
    }

    /// Output bytes received and not written to the terminal.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// The terminal is size `cols`×`rows` now.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.limit = (usize::from(cols) * usize::from(rows) * 8).max(MIN_LIMIT);
    }

    /// A Snapshot on the attach stream (the first, or one after a Resync).
    pub fn snapshot(&mut self, snapshot: Snapshot) -> Vec<Piece> {
        let first = self.position.is_none();
        match self.state {
            // Older than the screen that will be fetched once the terminal caught up.
            CatchUpState::Behind => {
                self.skip(snapshot.bytes.len() as u64);
                Vec::new()
            }
            CatchUpState::Live | CatchUpState::Fetching { .. } => self.complete(snapshot, first),
        }
    }

    /// Output on the attach stream: the bytes to write now (none while behind).
    pub fn output(&mut self, data: Vec<u8>, end_offset: u64) -> Vec<Piece> {
        match self.state {
            CatchUpState::Live => self
                .cut(data, end_offset)
                .map(Piece::Output)
                .into_iter()
                .collect(),
            CatchUpState::Behind => {
                self.skip(data.len() as u64);
                Vec::new()
            }
            CatchUpState::Fetching { .. } => {
                self.queued_bytes += data.len();
                self.queued.push((data, end_offset));
                if self.queued_bytes > QUEUE_LIMIT {
                    self.fall_behind();
                }
                Vec::new()
            }
        }
    }

    /// After writing: `pending` bytes are still waiting for the terminal. Returns true when
    /// the terminal just fell behind: the caller drops its unwritten backlog (counted here as
    /// skipped) and queues `signaltty_tty::modes::CANCEL`.
    pub fn wrote(&mut self, pending: usize) -> bool {
        if self.state == CatchUpState::Live && pending > self.limit {
            self.skip(pending as u64);
            self.fall_behind();
            return true;
        }
        false
    }

    /// Once the terminal took everything (`pending == 0`) while behind: the generation of the
    /// snapshot to fetch now (then [`CatchUp::fetched`] with it).
    pub fn want_snapshot(&mut self, pending: usize) -> Option<u64> {
        if self.state != CatchUpState::Behind || pending > 0 {
            return None;
        }
        self.generation += 1;
        self.state = CatchUpState::Fetching {
            generation: self.generation,
        };
        Some(self.generation)
    }

    /// The answer to the fetch of `generation`: a fresh screen, or an error (the pane closed,
    /// the connection went), after which output is written again as it comes (the main stream
    /// reports the end, or a later Resync repaints).
    pub fn fetched(
        &mut self,
        generation: u64,
        result: Result<Snapshot, ClientError>,
    ) -> Vec<Piece> {
        if self.state != (CatchUpState::Fetching { generation }) {
            return Vec::new();
        }
        match result {
            Ok(snapshot) => self.complete(snapshot, false),
            Err(_) => {
                self.state = CatchUpState::Live;
                self.take_queued()
            }
        }
    }

    fn skip(&mut self, bytes: u64) {
        self.skipped = self.skipped.saturating_add(bytes);
    }

    fn fall_behind(&mut self) {
        self.state = CatchUpState::Behind;
        self.skip(self.queued_bytes as u64);
        self.queued.clear();
        self.queued_bytes = 0;
    }

    /// The repaint, then the queued output it does not already cover; Live again.
    fn complete(&mut self, snapshot: Snapshot, first: bool) -> Vec<Piece> {
        self.state = CatchUpState::Live;
        self.position = Some(snapshot.offset);
        if !first {
            self.repaints += 1;
        }
        let mut pieces = vec![Piece::Repaint {
            bytes: snapshot.bytes,
            first,
        }];
        pieces.extend(self.take_queued());
        pieces
    }

    /// The output queued while fetching, less what the terminal's screen already covers.
    fn take_queued(&mut self) -> Vec<Piece> {
        self.queued_bytes = 0;
        std::mem::take(&mut self.queued)
            .into_iter()
            .filter_map(|(data, end)| self.cut(data, end).map(Piece::Output))
            .collect()
    }

    /// The part of `data` (ending at `end_offset`) past `position`; advances it.
    fn cut(&mut self, mut data: Vec<u8>, end_offset: u64) -> Option<Vec<u8>> {
        let position = self.position.unwrap_or(0);
        if end_offset <= position {
            self.skip(data.len() as u64);
            return None;
        }
        let start = end_offset.saturating_sub(data.len() as u64);
        if start < position {
            let covered = usize::try_from(position - start).unwrap_or(data.len());
            self.skip(covered as u64);
            data.drain(..covered.min(data.len()));
        }
        self.position = Some(end_offset);
        Some(data)
    }
}

/// A fresh screen of `pane` over a second, read-only attach on the same connection: it leaves
/// the pane's size and attention alone and ends when the snapshot arrived.
pub async fn fetch_snapshot(
    client: &Client,
    pane_id: &str,
    cols: u16,
    rows: u16,
) -> Result<Snapshot, ClientError> {
    let start = AttachStart {
        read_only: true,
        mark_seen: false,
        ..AttachStart::new(pane_id, cols, rows)
    };
    let (mut events, _input) = client.attach(start).await?.split();
    match events.next().await? {
        Some(crate::AttachEvent::Snapshot(snapshot)) => Ok(snapshot),
        _ => Err(ClientError::Disconnected {
            detail: "the server's first attach message was not a snapshot".into(),
        }),
    }
}

#[cfg(test)]
#[path = "catch_up_tests.rs"]
mod tests;
