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
    tty: TtyInput,
    parser: Parser,
    /// When the held bytes are settled (armed while the parser holds some).
    settle_at: Option<Instant>,
}

impl Reader {
    /// Opens stdin's terminal in the current runtime's reactor.
    pub fn open() -> std::io::Result<Reader> {
        Ok(Reader {
            tty: TtyInput::open_stdin()?,
            parser: Parser::new(),
            settle_at: None,
        })
    }

    /// Waits for input and returns its events (possibly none: a reply, half a sequence);
    /// `None` when the terminal is gone. Cancel-safe: bytes read are parsed before returning,
    /// and held bytes stay held.
    pub async fn read(&mut self) -> Option<Vec<Event>> {
        let mut events = Vec::new();
        let read = match self.settle_at {
            Some(at) => tokio::select! {
                read = self.tty.read() => Some(read),
                () = tokio::time::sleep_until(at) => None,
            },
            None => Some(self.tty.read().await),
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
