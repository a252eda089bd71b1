//! `Pumped`: a client's terminal (a `PtyChild` running the TUI or `tmux attach`) drained
//! continuously on a thread of its own, counting what the client writes, and typed into on
//! request with each keystroke timed until its echo shows.
//!
//! A client whose panes print all the time must be read all the time: left unread, its terminal
//! fills, the client blocks in write(2), and the next measurement starts behind a backlog that
//! no user's terminal would have let build up. So the thread never stops reading; an echo
//! request is served between reads, and the output read while waiting for an echo is counted
//! like any other.
//!
//! What is counted (see [`Counts`]): bytes; frames, i.e. synchronized-update ends
//! (`ESC [ ? 2026 l`, which the TUI writes after every frame); and write bursts, i.e. reads that
//! follow at least [`BURST_GAP`] of silence — the one frame measure that also applies to a client
//! that does not mark its frames (tmux 3.3 does not).

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::pty::PtyChild;

/// The end of a synchronized update (DEC mode 2026 reset).
const SYNC_END: &[u8] = b"\x1b[?2026l";

/// Silence after which the next read starts a new write burst. Shorter than any frame interval
/// the TUI allows (16.7 ms) and longer than the gap between the write(2) calls of one redraw.
pub const BURST_GAP: Duration = Duration::from_millis(2);

/// How long one idle read waits before looking for a request again.
const POLL: Duration = Duration::from_millis(5);

/// What a client wrote to its terminal so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Bytes.
    pub bytes: u64,
    /// Synchronized-update ends (frames of a client that marks them).
    pub frames: u64,
    /// Write bursts (reads after at least [`BURST_GAP`] of silence).
    pub bursts: u64,
}

impl Counts {
    /// The growth from `earlier` to `self`.
    pub fn since(&self, earlier: &Self) -> Self {
        Self {
            bytes: self.bytes - earlier.bytes,
            frames: self.frames - earlier.frames,
            bursts: self.bursts - earlier.bursts,
        }
    }
}

/// Counts frames and bursts in a stream of reads; a marker split across reads is still found.
#[derive(Debug, Default)]
struct Counter {
    counts: Counts,
    carry: Vec<u8>,
    last_read: Option<Instant>,
}

impl Counter {
    fn feed(&mut self, data: &[u8], at: Instant) {
        self.counts.bytes += data.len() as u64;
        if self
            .last_read
            .is_none_or(|last| at.duration_since(last) >= BURST_GAP)
        {
            self.counts.bursts += 1;
        }
        self.last_read = Some(at);
        self.carry.extend_from_slice(data);
        self.counts.frames += memchr::memmem::find_iter(&self.carry, SYNC_END).count() as u64;
        let keep = SYNC_END.len() - 1;
        let cut = self.carry.len().saturating_sub(keep);
        self.carry.drain(..cut);
        // The tail is shorter than a marker, so no counted marker is counted again; only the
        // part from its last ESC on can begin one.
        if let Some(pos) = memchr::memmem::rfind(&self.carry, b"\x1b") {
            self.carry.drain(..pos);
        } else {
            self.carry.clear();
        }
    }
}

enum Cmd {
    /// Type each keystroke, wait until `awaited[i]` shows, reply with the latencies.
    Echo {
        keys: Vec<Vec<u8>>,
        awaited: Vec<Vec<u8>>,
        reply: Sender<anyhow::Result<Vec<Duration>>>,
    },
    /// Type bytes without waiting for anything.
    Type(Vec<u8>),
}

/// A client terminal being drained on its own thread.
pub struct Pumped {
    cmds: Option<Sender<Cmd>>,
    ready: Receiver<anyhow::Result<()>>,
    counts: Arc<Mutex<Counts>>,
    thread: Option<JoinHandle<()>>,
    pid: u32,
}

impl Pumped {
    /// Starts draining `pty`, first until `ready` shows (see [`Pumped::wait_ready`]); from the
    /// client's first byte, so a pattern drawn at once is not missed. The PTY (and with it the
    /// client) ends when this is dropped.
    pub fn start(pty: PtyChild, ready: &[u8]) -> Self {
        let (tx, rx) = mpsc::channel();
        let (ready_tx, ready_rx) = mpsc::channel();
        let counts = Arc::new(Mutex::new(Counts::default()));
        let pid = pty.pid();
        let shared = counts.clone();
        let ready = ready.to_vec();
        let thread = std::thread::spawn(move || pump(pty, &ready, &ready_tx, &rx, &shared));
        Self {
            cmds: Some(tx),
            ready: ready_rx,
            counts,
            thread: Some(thread),
            pid,
        }
    }

    /// The client's pid.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// What the client wrote so far.
    pub fn counts(&self) -> Counts {
        *self.counts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Types `bytes`.
    pub fn type_bytes(&self, bytes: &[u8]) -> anyhow::Result<()> {
        self.send(Cmd::Type(bytes.to_vec()))
    }

    /// Waits (blocking) until the client has shown the `ready` pattern given to `start`.
    pub fn wait_ready(&self) -> anyhow::Result<()> {
        self.ready.recv().context("the pump thread ended")?
    }

    /// Types each key and times it until the key's echo — `awaited(key)` — shows (blocking).
    pub fn echo(
        &self,
        keys: &[Vec<u8>],
        awaited: impl Fn(&[u8]) -> Vec<u8>,
    ) -> anyhow::Result<Vec<Duration>> {
        let (reply, answer) = mpsc::channel();
        let awaited = keys.iter().map(|k| awaited(k)).collect();
        self.send(Cmd::Echo {
            keys: keys.to_vec(),
            awaited,
            reply,
        })?;
        answer.recv().context("the pump thread ended")?
    }

    fn send(&self, cmd: Cmd) -> anyhow::Result<()> {
        self.cmds
            .as_ref()
            .context("stopped")?
            .send(cmd)
            .ok()
            .context("the pump thread ended (the client's terminal closed)")
    }
}

impl Drop for Pumped {
    fn drop(&mut self) {
        // Closing the channel ends the thread at its next poll; it drops the PTY, which ends
        // the client.
        self.cmds = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn pump(
    mut pty: PtyChild,
    ready: &[u8],
    ready_tx: &Sender<anyhow::Result<()>>,
    cmds: &Receiver<Cmd>,
    counts: &Mutex<Counts>,
) {
    let mut counter = Counter::default();
    let shown = read_until(&mut pty, ready, &mut counter, counts);
    let failed = shown.is_err();
    let _ = ready_tx.send(shown);
    if failed {
        return;
    }
    loop {
        match cmds.try_recv() {
            Ok(cmd) => {
                if serve(&mut pty, cmd, &mut counter, counts).is_err() {
                    return;
                }
                continue;
            }
            Err(mpsc::TryRecvError::Disconnected) => return,
            Err(mpsc::TryRecvError::Empty) => {}
        }
        match pty.read_within(Instant::now() + POLL) {
            Ok(Some(data)) => {
                counter.feed(data, Instant::now());
                *counts.lock().unwrap_or_else(PoisonError::into_inner) = counter.counts;
            }
            Ok(None) => {}
            // The client ended: requests now fail with "the pump thread ended".
            Err(_) => return,
        }
    }
}

/// Carries out one request; `Err` when the terminal is gone (the pump stops).
fn serve(
    pty: &mut PtyChild,
    cmd: Cmd,
    counter: &mut Counter,
    counts: &Mutex<Counts>,
) -> Result<(), ()> {
    let deadline = || Instant::now() + Duration::from_secs(120);
    match cmd {
        Cmd::Type(bytes) => pty.write_all(&bytes, deadline()).map_err(drop),
        Cmd::Echo {
            keys,
            awaited,
            reply,
        } => {
            let mut latencies = Vec::with_capacity(keys.len());
            let mut result = Ok(());
            for (i, (key, awaited)) in keys.iter().zip(&awaited).enumerate() {
                let start = Instant::now();
                result = pty
                    .write_all(key, deadline())
                    .and_then(|()| read_until(pty, awaited, counter, counts))
                    .map_err(|e| e.context(format!("key {} of {}", i + 1, keys.len())));
                if result.is_err() {
                    break;
                }
                latencies.push(start.elapsed());
            }
            let _ = reply.send(result.map(|()| latencies));
            Ok(())
        }
    }
}

/// Reads (counting) until `pattern` shows, for at most two minutes.
fn read_until(
    pty: &mut PtyChild,
    pattern: &[u8],
    counter: &mut Counter,
    counts: &Mutex<Counts>,
) -> anyhow::Result<()> {
    let finder = memchr::memmem::Finder::new(pattern);
    let keep = pattern.len().saturating_sub(1);
    let mut seen: Vec<u8> = Vec::new();
    // The end of what the client wrote, for the error when the pattern never comes.
    let mut tail: Vec<u8> = Vec::new();
    let limit = Instant::now() + Duration::from_secs(120);
    loop {
        let Some(data) = pty.read_within(limit)? else {
            bail!(
                "timed out waiting for {:?}; the client last wrote {:?}",
                String::from_utf8_lossy(pattern),
                String::from_utf8_lossy(&tail)
            );
        };
        counter.feed(data, Instant::now());
        tail.extend_from_slice(data);
        let cut = tail.len().saturating_sub(600);
        tail.drain(..cut);
        seen.extend_from_slice(data);
        *counts.lock().unwrap_or_else(PoisonError::into_inner) = counter.counts;
        if finder.find(&seen).is_some() {
            return Ok(());
        }
        let cut = seen.len().saturating_sub(keep);
        seen.drain(..cut);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_frames_split_across_reads_once() {
        let t = Instant::now();
        let mut c = Counter::default();
        c.feed(b"ab\x1b[?2026h xx \x1b[?20", t);
        c.feed(b"26l", t);
        c.feed(
            b"\x1b[?2026h y \x1b[?2026l\x1b[?2026l",
            t + Duration::from_millis(1),
        );
        assert_eq!(c.counts.frames, 3);
        assert_eq!(c.counts.bursts, 1);
        c.feed(b"z", t + Duration::from_millis(10));
        assert_eq!(c.counts.bursts, 2);
        assert_eq!(c.counts.frames, 3);
    }
}
