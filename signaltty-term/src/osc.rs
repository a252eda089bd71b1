//! `OscScanner`: an incremental scanner over a pane's raw output that reports titles,
//! notifications (OSC 9, OSC 99, OSC 777) and bells, independently of the screen model.
//!
//! It sits on the hot path (every PTY chunk), so in the common case — a chunk with no ESC or BEL —
//! it costs one `memchr2` pass and allocates nothing. Framing rules (BEHAVIOUR.md
//! "Notifications"): a sequence starts with `ESC ]` and ends with BEL or ST (`ESC \`); a sequence
//! split across chunks is carried over up to [`MAX_OSC_BYTES`] of payload, a longer one is
//! discarded through its terminator (and that terminator is not a bell); a new `ESC ]` before the
//! terminator drops the earlier sequence. As in terminals, CAN/SUB or ESC followed by anything
//! other than `\`/`]` abort the sequence. Every text in an event has been through
//! [`sanitize`](super::sanitize::sanitize).

use super::sanitize::{BODY_MAX_CHARS, TITLE_MAX_CHARS, sanitize};

/// Longest OSC payload (bytes between `ESC ]` and the terminator) that is carried across chunks
/// and interpreted; longer ones (clipboard copies, images) are dropped.
pub const MAX_OSC_BYTES: usize = 8 * 1024;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;
const CAN: u8 = 0x18;
const SUB: u8 = 0x1a;

/// Something a program asked of its terminal that the server cares about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TermEvent {
    /// OSC 0/1/2: a new window title (sanitized, non-empty, ≤ 200 chars).
    Title(String),
    /// OSC 9/99/777: a desktop notification (sanitized; title ≤ 200 chars, body ≤ 2000).
    Notify {
        /// The notification title, when the sequence carried one.
        title: Option<String>,
        /// The notification text; may be empty only when a title is present.
        body: String,
    },
    /// A BEL outside any sequence. Consecutive bells within one chunk are reported once.
    Bell,
    /// OSC 7 (`file://host/path`, sent by shells at each prompt): the program's working
    /// directory, percent-decoded. The host is not checked: a consumer treats it as a hint.
    Cwd(std::path::PathBuf),
}

/// Where the scanner stands between two bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Plain output.
    Ground,
    /// Saw ESC in plain output (possibly as the last byte of a chunk).
    Escape,
    /// Inside an OSC, collecting its payload into `carry`.
    Osc,
    /// Inside an OSC and just saw ESC: `\` terminates, `]` restarts, anything else aborts.
    OscEscape,
    /// Inside an OSC that outgrew [`MAX_OSC_BYTES`]: skipping to its terminator.
    Discard,
    /// Skipping an overlong OSC and just saw ESC.
    DiscardEscape,
}

/// Incremental OSC/BEL scanner; feed it every output chunk in order.
#[derive(Debug)]
pub struct OscScanner {
    state: State,
    /// Payload of the OSC being collected (never more than [`MAX_OSC_BYTES`]).
    carry: Vec<u8>,
    /// A kitty OSC 99 notification announced in parts (`d=0`), waiting for its last part.
    kitty_pending: Option<KittyPending>,
}

impl Default for OscScanner {
    fn default() -> Self {
        Self::new()
    }
}

impl OscScanner {
    /// A scanner at the start of a stream.
    pub fn new() -> Self {
        Self {
            state: State::Ground,
            carry: Vec::new(),
            kitty_pending: None,
        }
    }

    /// Scans the next chunk of output and returns the events it completes, in stream order.
    pub fn scan(&mut self, bytes: &[u8]) -> Vec<TermEvent> {
        let mut events = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            match self.state {
                State::Ground => match memchr::memchr2(ESC, BEL, &bytes[i..]) {
                    None => break,
                    Some(at) => {
                        i += at;
                        if bytes[i] == BEL {
                            push_bell(&mut events);
                        } else {
                            self.state = State::Escape;
                        }
                        i += 1;
                    }
                },
                State::Escape => {
                    // Anything but `]` leaves the byte to be looked at again as plain output
                    // (it may be a BEL or another ESC).
                    if bytes[i] == b']' {
                        self.begin_osc();
                        i += 1;
                    } else {
                        self.state = State::Ground;
                    }
                }
                State::Osc => {
                    let rest = &bytes[i..];
                    let run = rest
                        .iter()
                        .position(|&b| matches!(b, BEL | ESC | CAN | SUB));
                    let payload = &rest[..run.unwrap_or(rest.len())];
                    i += payload.len();
                    if self.carry.len() + payload.len() > MAX_OSC_BYTES {
                        // Too long to be anything we interpret; the Discard state finds the end.
                        self.carry.clear();
                        self.state = State::Discard;
                        continue;
                    }
                    self.carry_extend(payload);
                    if let Some(run) = run {
                        match rest[run] {
                            BEL => self.finish_osc(&mut events),
                            ESC => self.state = State::OscEscape,
                            _ => self.abort_osc(),
                        }
                        i += 1;
                    }
                }
                State::OscEscape => match bytes[i] {
                    b'\\' => {
                        self.finish_osc(&mut events);
                        i += 1;
                    }
                    b']' => {
                        self.begin_osc();
                        i += 1;
                    }
                    // Aborted; the byte is looked at again as plain output.
                    _ => self.abort_osc(),
                },
                State::Discard => {
                    let rest = &bytes[i..];
                    match rest
                        .iter()
                        .position(|&b| matches!(b, BEL | ESC | CAN | SUB))
                    {
                        None => i = bytes.len(),
                        Some(at) => {
                            self.state = match rest[at] {
                                ESC => State::DiscardEscape,
                                // The terminator of a dropped sequence is not a bell.
                                _ => State::Ground,
                            };
                            i += at + 1;
                        }
                    }
                }
                State::DiscardEscape => match bytes[i] {
                    b'\\' => {
                        self.state = State::Ground;
                        i += 1;
                    }
                    b']' => {
                        self.begin_osc();
                        i += 1;
                    }
                    _ => self.state = State::Ground,
                },
            }
        }
        events
    }

    /// Appends to the carry, growing its allocation at most to [`MAX_OSC_BYTES`].
    fn carry_extend(&mut self, payload: &[u8]) {
        let needed = self.carry.len() + payload.len();
        if needed > self.carry.capacity() {
            let target = needed.max(self.carry.capacity() * 2).min(MAX_OSC_BYTES);
            self.carry.reserve_exact(target - self.carry.len());
        }
        self.carry.extend_from_slice(payload);
    }

    fn begin_osc(&mut self) {
        self.carry.clear();
        self.state = State::Osc;
    }

    fn abort_osc(&mut self) {
        self.carry.clear();
        self.state = State::Ground;
    }

    fn finish_osc(&mut self, events: &mut Vec<TermEvent>) {
        self.state = State::Ground;
        let payload = std::mem::take(&mut self.carry);
        if let Some(event) = self.interpret(&payload) {
            events.push(event);
        }
        // Keep the allocation for the next sequence.
        self.carry = payload;
        self.carry.clear();
    }

    /// Turns a complete OSC payload into an event, or `None` for everything we ignore.
    fn interpret(&mut self, payload: &[u8]) -> Option<TermEvent> {
        let split = memchr::memchr(b';', payload)?;
        let (code, text) = (&payload[..split], &payload[split + 1..]);
        match code {
            b"0" | b"1" | b"2" => {
                let title = sanitize(&String::from_utf8_lossy(text), TITLE_MAX_CHARS);
                (!title.is_empty()).then_some(TermEvent::Title(title))
            }
            b"9" => {
                // ConEmu's progress report `9;4;state;percent` is not a notification.
                if text == b"4" || text.starts_with(b"4;") {
                    return None;
                }
                notify(None, &String::from_utf8_lossy(text))
            }
            b"7" => cwd_from_url(text).map(TermEvent::Cwd),
            b"99" => self.kitty(&String::from_utf8_lossy(text)),
            b"777" => {
                let text = String::from_utf8_lossy(text);
                let mut parts = text.splitn(3, ';');
                match (parts.next(), parts.next(), parts.next()) {
                    (Some("notify"), Some(title), Some(body)) => notify(Some(title), body),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// OSC 99 (kitty): `metadata;payload` when the part before the first `;` is empty or holds
    /// `=`/`:`; otherwise the whole text is the body.
    fn kitty(&mut self, text: &str) -> Option<TermEvent> {
        let Some((head, payload)) = text
            .split_once(';')
            .filter(|(head, _)| head.is_empty() || head.contains(['=', ':']))
        else {
            return notify(None, text);
        };
        let meta = KittyMeta::parse(head);
        if meta.base64 {
            // Base64 payloads (`e=1`) are not decoded; showing them raw would be noise.
            return None;
        }
        let mut pending = match self.kitty_pending.take() {
            Some(pending) if pending.id == meta.id => pending,
            _ => KittyPending {
                id: meta.id.clone(),
                title: None,
                body: None,
            },
        };
        match meta.part {
            KittyPart::Title => pending.title = Some(payload.to_owned()),
            KittyPart::Body => pending.body = Some(payload.to_owned()),
            KittyPart::Other => return None,
        }
        if !meta.done && meta.id.is_some() {
            self.kitty_pending = Some(pending);
            return None;
        }
        match (pending.title, pending.body) {
            (title, Some(body)) => notify(title.as_deref(), &body),
            (Some(title), None) => notify(Some(&title), ""),
            (None, None) => None,
        }
    }
}

/// A multi-part kitty notification being assembled; only the latest id is kept, so memory stays
/// bounded by two payloads.
#[derive(Debug)]
struct KittyPending {
    id: Option<String>,
    title: Option<String>,
    body: Option<String>,
}

/// Which part of a kitty notification a payload is (`p=`).
enum KittyPart {
    Title,
    Body,
    /// `close`, `icon`, `?`, buttons… — nothing we show.
    Other,
}

/// The colon-separated `key=value` metadata of an OSC 99 sequence.
struct KittyMeta {
    id: Option<String>,
    part: KittyPart,
    done: bool,
    base64: bool,
}

impl KittyMeta {
    fn parse(head: &str) -> Self {
        let mut meta = Self {
            id: None,
            part: KittyPart::Body,
            done: true,
            base64: false,
        };
        for pair in head.split(':') {
            match pair.split_once('=') {
                Some(("i", id)) => meta.id = Some(id.to_owned()),
                Some(("p", "title")) => meta.part = KittyPart::Title,
                Some(("p", "body")) => meta.part = KittyPart::Body,
                Some(("p", _)) => meta.part = KittyPart::Other,
                Some(("d", done)) => meta.done = done != "0",
                Some(("e", encoded)) => meta.base64 = encoded == "1",
                _ => {}
            }
        }
        meta
    }
}

/// A sanitized notification, or `None` when nothing readable is left.
fn notify(title: Option<&str>, body: &str) -> Option<TermEvent> {
    let title = title
        .map(|t| sanitize(t, TITLE_MAX_CHARS))
        .filter(|t| !t.is_empty());
    let body = sanitize(body, BODY_MAX_CHARS);
    if body.is_empty() && title.is_none() {
        return None;
    }
    Some(TermEvent::Notify { title, body })
}

fn push_bell(events: &mut Vec<TermEvent>) {
    if events.last() != Some(&TermEvent::Bell) {
        events.push(TermEvent::Bell);
    }
}

#[cfg(test)]
#[path = "osc_tests.rs"]
mod tests;

/// The path of an OSC 7 `file://host/path` URL, percent-decoded; `None` for anything else.
fn cwd_from_url(text: &[u8]) -> Option<std::path::PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let rest = text.strip_prefix(b"file://")?;
    let path = &rest[memchr::memchr(b'/', rest)?..];
    let mut out = Vec::with_capacity(path.len());
    let mut i = 0;
    while i < path.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            path[i],
            path.get(i + 1).copied().and_then(hex),
            path.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    (!out.contains(&0)).then(|| std::path::PathBuf::from(std::ffi::OsString::from_vec(out)))
}
