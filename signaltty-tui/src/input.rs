//! The terminal's input, read on the runtime's own reactor and parsed by our own parser: no
//! reader thread, no cross-thread wake-up per key (crossterm's `EventStream` read the terminal
//! on a thread of its own and woke the runtime for every key, on the echo's critical path).
//!
//! [`Reader`] reads stdin through `signaltty_tty::TtyInput` (the terminal reopened
//! non-blocking through `/proc/self/fd/0`, so the shell's description of it stays blocking; a
//! reader thread only when it cannot be reopened) and turns the bytes into crossterm events
//! with [`parse::Parser`], so `update()` and the keymap see what they always saw.
//!
//! The lone-ESC rule: bytes that may begin a longer sequence (an ESC at the end of a read,
//! `ESC [ 1 ;`, half a UTF-8 character) are held; if nothing more arrives within [`ESC_WAIT`]
//! they are settled (a lone ESC is the Esc key). A terminal writes a key's whole sequence in one
//! write, so locally the wait only ever applies to the Esc key itself; over ssh a sequence split
//! between two packets still parses. Under the kitty keyboard protocol (pushed when the outer
//! terminal speaks it) Esc arrives as `CSI 27u` and no wait applies at all.

mod codes;
mod csi;
pub mod parse;

use std::time::Duration;

use crossterm::event::Event;
use signaltty_tty::input::TtyInput;
use tokio::time::Instant;

pub use parse::Parser;

/// How long held bytes wait for the rest of their sequence (tmux's `escape-time` default).
pub const ESC_WAIT: Duration = Duration::from_millis(10);

/// The terminal on stdin, as events.
#[derive(Debug)]
pub struct Reader {
    /// `None` while the keys are lent to the server (`runtime::lending`).
    tty: Option<TtyInput>,
    parser: Parser,
    /// When the held bytes are settled (armed while the parser holds some).
    settle_at: Option<Instant>,
}

impl Reader {
    /// Opens stdin's terminal in the current runtime's reactor.
    pub fn open() -> std::io::Result<Reader> {
        Ok(Reader {
            tty: Some(TtyInput::open_stdin()?),
            parser: Parser::new(),
            settle_at: None,
        })
    }

    /// Whether the terminal could be left to another reader now: read in the reactor (a
    /// reader thread cannot be stopped) and no half sequence held.
    pub fn can_lend(&self) -> bool {
        self.tty.as_ref().is_some_and(TtyInput::is_threadless) && !self.parser.holding()
    }

    /// Stops reading the terminal: its descriptor leaves the reactor, so keys no longer wake
    /// this process. Only when [`Reader::can_lend`].
    pub fn lend(&mut self) {
        if self.can_lend() {
            self.tty = None;
        }
    }

    /// Whether the terminal is lent.
    pub fn lent(&self) -> bool {
        self.tty.is_none()
    }

    /// Reads the terminal again, `back` (bytes the other reader read and did not use) first;
    /// their events.
    pub fn take_back(&mut self, back: &[u8]) -> std::io::Result<Vec<Event>> {
        if self.tty.is_none() {
            self.tty = Some(TtyInput::open_stdin()?);
        }
        let mut events = Vec::new();
        if !back.is_empty() {
            self.parser.feed(back, &mut events);
            self.settle_at = self.parser.holding().then(|| Instant::now() + ESC_WAIT);
        }
        Ok(events)
    }

    /// Waits for input and returns its events (possibly none: a reply, half a sequence);
    /// `None` when the terminal is gone. Pending while the terminal is lent. Cancel-safe: bytes
    /// read are parsed before returning, and held bytes stay held.
    pub async fn read(&mut self) -> Option<Vec<Event>> {
        let Some(tty) = self.tty.as_mut() else {
            return std::future::pending().await;
        };
        let mut events = Vec::new();
        let read = match self.settle_at {
            Some(at) => tokio::select! {
                read = tty.read() => Some(read),
                () = tokio::time::sleep_until(at) => None,
            },
            None => Some(tty.read().await),
        };
        match read {
            Some(Ok(bytes)) if !bytes.is_empty() => self.parser.feed(bytes, &mut events),
            Some(_) => return None,
            None => self.parser.expire(&mut events),
        }
        self.settle_at = self.parser.holding().then(|| Instant::now() + ESC_WAIT);
        Some(events)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::path::Path;

    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use super::*;

    fn key(code: KeyCode) -> Event {
        Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    #[tokio::test]
    async fn keys_typed_on_a_real_terminal_arrive_and_a_lone_esc_waits_only_esc_wait() {
        let pty = nix::pty::openpty(None, None).expect("openpty");
        let path = format!("/proc/self/fd/{}", pty.slave.as_raw_fd());
        let mut reader = Reader {
            tty: Some(TtyInput::reopen(Path::new(&path)).expect("reopen")),
            parser: Parser::new(),
            settle_at: None,
        };
        // The pty's line discipline would turn CR into LF: raw, as the TUI's terminal is.
        let mut attrs = nix::sys::termios::tcgetattr(&pty.slave).expect("tcgetattr");
        nix::sys::termios::cfmakeraw(&mut attrs);
        nix::sys::termios::tcsetattr(&pty.slave, nix::sys::termios::SetArg::TCSANOW, &attrs)
            .expect("tcsetattr");
        let mut master = std::fs::File::from(pty.master);
        let wait = Duration::from_secs(10);
        master.write_all(b"a\x1b[A\r").expect("write");
        let mut got = Vec::new();
        while got.len() < 3 {
            let events = tokio::time::timeout(wait, reader.read())
                .await
                .expect("keys");
            got.extend(events.expect("terminal open"));
        }
        assert_eq!(
            got,
            [
                key(KeyCode::Char('a')),
                key(KeyCode::Up),
                key(KeyCode::Enter)
            ]
        );
        // A lone ESC: nothing at first, Esc once ESC_WAIT passed without more bytes.
        master.write_all(b"\x1b").expect("write");
        let started = std::time::Instant::now();
        let mut got = Vec::new();
        while got.is_empty() {
            let events = tokio::time::timeout(wait, reader.read())
                .await
                .expect("esc");
            got.extend(events.expect("terminal open"));
        }
        assert!(started.elapsed() >= ESC_WAIT);
        assert_eq!(got, [key(KeyCode::Esc)]);
    }
}
