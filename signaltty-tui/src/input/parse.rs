//! The terminal's input bytes as crossterm [`Event`]s: our own parser, fed from the runtime's
//! reactor (see [`super`]), so that `update()` and the keymap see the same events crossterm's
//! reader gave them.
//!
//! What it understands: UTF-8 text; C0 controls (Ctrl-letter, Tab, Enter, Backspace, Ctrl-space,
//! mapped as crossterm maps them in raw mode: LF is Ctrl-J, BS is Ctrl-H, `0x1c..0x1f` are
//! Ctrl-4..7); ESC and Alt-prefixed keys (ESC + key); CSI and SS3 cursor, editing and function
//! keys with modifiers and kitty event types (`CSI 1;5A`, `CSI 5;3~`, `CSI 1;1:3A`, F1–F12 in
//! both forms); kitty's `CSI code[:shifted[:base]];mods[:event][;text]u`; SGR mouse
//! (`CSI < b;x;y M/m`) and urxvt mouse (`CSI b;x;y M`, from terminals without SGR); bracketed
//! paste (`CSI 200~ … CSI 201~`, across any number of reads); focus (`CSI I`/`CSI O`).
//!
//! What it swallows: answers to queries (`CSI ? … u` kitty flags, `CSI ? … c` device
//! attributes, `CSI r;c R` cursor position, other `CSI ?`/`CSI >`/`CSI =` private replies)
//! and every CSI or SS3 sequence it does not know — each dropped whole, never leaked as keys.
//! Strings (DCS, OSC, APC…) are not parsed: the TUI asks nothing that is answered with one, and
//! `ESC P`, `ESC ]`, `ESC _`, `ESC ^`, `ESC X` are what Alt+P, Alt+], … send. `CSI 1;m R` with a modifier (m ≥ 2) is Shift/Ctrl/…+F3,
//! not a cursor report: the TUI never asks for the cursor position once it runs.
//!
//! Split sequences: bytes that may be the start of something longer (an ESC, `ESC [ 1 ;`, the
//! first byte of a UTF-8 character) are held until the rest comes, so a
//! stream split at any points gives the events of the stream whole. A terminal writes a key's
//! sequence in one write, but over ssh it can arrive in two reads; what is held when no more
//! bytes come within [`super::ESC_WAIT`] is settled by [`Parser::expire`]: a lone ESC is the Esc
//! key, `ESC [` and `ESC O` are Alt+`[` and Alt+`O`, anything else held is dropped. A paste
//! never expires: it ends with its end marker.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

use super::codes::{letter_key, mouse_event};

/// The end of a bracketed paste.
const PASTE_END: &[u8] = b"\x1b[201~";
/// A sequence longer than this without its final byte is garbage: dropped.
const MAX_SEQUENCE: usize = 256;

/// The input parser: bytes in, events out. Holds an unfinished sequence between reads.
#[derive(Debug, Default)]
pub struct Parser {
    /// Bytes not yet turned into events (an unfinished sequence at their end).
    held: Vec<u8>,
    /// The text of a bracketed paste in progress.
    paste: Option<Vec<u8>>,
}

/// What one step of parsing found at the start of the bytes.
enum Step {
    /// An event, from this many bytes.
    Event(usize, Event),
    /// This many bytes mean nothing to the TUI (a reply, an unknown sequence): dropped.
    Skip(usize),
    /// A bracketed paste starts after this many bytes.
    PasteStart(usize),
    /// The bytes are the start of something longer.
    Incomplete,
}

impl Parser {
    /// A parser holding nothing.
    pub fn new() -> Parser {
        Parser::default()
    }

    /// Parses `bytes` (after whatever was held), appending the complete events to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
        if let Some(paste) = &mut self.paste {
            let from = paste.len().saturating_sub(PASTE_END.len() - 1);
            paste.extend_from_slice(bytes);
            self.end_paste(from, out);
            return;
        }
        self.held.extend_from_slice(bytes);
        self.parse_held(out);
    }

    /// True when bytes are held that [`Parser::expire`] would settle (not a paste).
    pub fn holding(&self) -> bool {
        self.paste.is_none() && !self.held.is_empty()
    }

    /// Settles what is held after no more bytes came: a lone ESC is Esc, `ESC [` / `ESC O` are
    /// Alt+`[` / Alt+`O`, anything else is dropped. A paste in progress is kept.
    pub fn expire(&mut self, out: &mut Vec<Event>) {
        if self.paste.is_some() {
            return;
        }
        match self.held.as_slice() {
            [0x1b] => out.push(key(KeyCode::Esc, KeyModifiers::NONE)),
            [0x1b, c @ (b'[' | b'O')] => {
                out.push(key(KeyCode::Char(char::from(*c)), KeyModifiers::ALT));
            }
            _ => {}
        }
        self.held.clear();
    }

    fn parse_held(&mut self, out: &mut Vec<Event>) {
        let mut at = 0;
        while at < self.held.len() {
            match step(&self.held[at..]) {
                Step::Event(n, event) => {
                    out.push(event);
                    at += n;
                }
                Step::Skip(n) => at += n.max(1),
                Step::PasteStart(n) => {
                    at += n;
                    let rest = self.held.split_off(at);
                    self.held.clear();
                    self.paste = Some(rest);
                    self.end_paste(0, out);
                    return;
                }
                Step::Incomplete => break,
            }
        }
        self.held.drain(..at);
    }

    /// Ends the paste in progress if its end marker (searched from `from`) has come; what
    /// follows the marker is parsed as keys.
    fn end_paste(&mut self, from: usize, out: &mut Vec<Event>) {
        let Some(paste) = &mut self.paste else {
            return;
        };
        let Some(end) = find(&paste[from..], PASTE_END).map(|i| i + from) else {
            return;
        };
        let rest = paste.split_off(end + PASTE_END.len());
        paste.truncate(end);
        out.push(Event::Paste(String::from_utf8_lossy(paste).into_owned()));
        self.paste = None;
        self.held = rest;
        self.parse_held(out);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn key(code: KeyCode, modifiers: KeyModifiers) -> Event {
    Event::Key(KeyEvent::new(code, modifiers))
}

/// One event (or skip) from the start of `b` (never empty).
fn step(b: &[u8]) -> Step {
    match b[0] {
        0x1b => escape(b),
        _ => plain(b),
    }
}

/// A byte that does not start an escape: a control, DEL or a UTF-8 character.
fn plain(b: &[u8]) -> Step {
    let ctrl = KeyModifiers::CONTROL;
    let event = |code| Step::Event(1, key(code, KeyModifiers::NONE));
    match b[0] {
        b'\r' => event(KeyCode::Enter),
        b'\t' => event(KeyCode::Tab),
        0x7f => event(KeyCode::Backspace),
        0x00 => Step::Event(1, key(KeyCode::Char(' '), ctrl)),
        c @ 0x01..=0x1a => Step::Event(1, key(KeyCode::Char(char::from(c - 1 + b'a')), ctrl)),
        c @ 0x1c..=0x1f => Step::Event(1, key(KeyCode::Char(char::from(c - 0x1c + b'4')), ctrl)),
        _ => utf8(b),
    }
}

/// A UTF-8 character; an invalid byte is skipped alone.
fn utf8(b: &[u8]) -> Step {
    let width = match b[0] {
        0x20..=0x7e => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return Step::Skip(1),
    };
    let have = width.min(b.len());
    // Continuation bytes only: a wrong one ends the character early (it is skipped).
    if b[1..have].iter().any(|&c| c & 0xc0 != 0x80) {
        return Step::Skip(1);
    }
    if have < width {
        return Step::Incomplete;
    }
    match std::str::from_utf8(&b[..width])
        .ok()
        .and_then(|s| s.chars().next())
    {
        Some(c) => Step::Event(width, key(KeyCode::Char(c), KeyModifiers::NONE)),
        None => Step::Skip(1),
    }
}

/// Something starting with ESC.
fn escape(b: &[u8]) -> Step {
    let Some(&next) = b.get(1) else {
        return Step::Incomplete;
    };
    match next {
        b'[' => csi(b),
        b'O' => ss3(b),
        // ESC ESC: the first is the Esc key; the second starts afresh.
        0x1b => Step::Event(1, key(KeyCode::Esc, KeyModifiers::NONE)),
        _ => match plain(&b[1..]) {
            Step::Event(n, Event::Key(mut k)) => {
                k.modifiers |= KeyModifiers::ALT;
                Step::Event(n + 1, Event::Key(k))
            }
            Step::Incomplete => Step::Incomplete,
            // ESC followed by an invalid byte: the ESC alone is dropped, the byte after it
            // starts afresh (and is skipped in turn).
            _ => Step::Skip(1),
        },
    }
}

/// `ESC O x`: SS3 cursor keys and F1–F4.
fn ss3(b: &[u8]) -> Step {
    let Some(&last) = b.get(2) else {
        return Step::Incomplete;
    };
    match letter_key(last) {
        Some(code) => Step::Event(3, key(code, KeyModifiers::NONE)),
        None => Step::Skip(3),
    }
}

/// `ESC [ params intermediates final`.
fn csi(b: &[u8]) -> Step {
    // X10 mouse: `CSI M` and three raw bytes.
    if b.get(2) == Some(&b'M') {
        return if b.len() < 6 {
            Step::Incomplete
        } else {
            x10_mouse(&b[3..6]).map_or(Step::Skip(6), |e| Step::Event(6, e))
        };
    }
    let mut i = 2;
    let mut intermediates = false;
    while i < b.len() {
        match b[i] {
            0x30..=0x3f if !intermediates => i += 1,
            0x20..=0x2f => {
                intermediates = true;
                i += 1;
            }
            last @ 0x40..=0x7e => {
                let n = i + 1;
                if intermediates {
                    return Step::Skip(n);
                }
                return match super::csi::sequence(&b[2..i], last) {
                    super::csi::Found::Event(e) => Step::Event(n, e),
                    super::csi::Found::PasteStart => Step::PasteStart(n),
                    super::csi::Found::Nothing => Step::Skip(n),
                };
            }
            // Not part of a CSI: what was read so far is dropped; this byte starts afresh.
            _ => return Step::Skip(i),
        }
        if i > MAX_SEQUENCE {
            return Step::Skip(i);
        }
    }
    Step::Incomplete
}

fn x10_mouse(raw: &[u8]) -> Option<Event> {
    let cb = raw[0].checked_sub(32)?;
    let x = u16::from(raw[1].checked_sub(33)?);
    let y = u16::from(raw[2].checked_sub(33)?);
    // X10 reports releases as button 3, without saying which.
    let release = cb & 0b11 == 3 && cb & (32 | 64) == 0;
    mouse_event(u16::from(cb), x, y, release)
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
