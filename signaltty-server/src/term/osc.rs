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
        Self { state: State::Ground, carry: Vec::new(), kitty_pending: None }
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
                    let run = rest.iter().position(|&b| matches!(b, BEL | ESC | CAN | SUB));
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
                    match rest.iter().position(|&b| matches!(b, BEL | ESC | CAN | SUB)) {
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
            _ => KittyPending { id: meta.id.clone(), title: None, body: None },
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
        let mut meta = Self { id: None, part: KittyPart::Body, done: true, base64: false };
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
    let title = title.map(|t| sanitize(t, TITLE_MAX_CHARS)).filter(|t| !t.is_empty());
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
mod tests {
    use super::*;

    fn scan(bytes: &[u8]) -> Vec<TermEvent> {
        OscScanner::new().scan(bytes)
    }

    fn note(title: Option<&str>, body: &str) -> TermEvent {
        TermEvent::Notify { title: title.map(str::to_owned), body: body.to_owned() }
    }

    fn title(t: &str) -> TermEvent {
        TermEvent::Title(t.to_owned())
    }

    #[test]
    fn plain_output_yields_nothing() {
        assert_eq!(scan(b"hello world\r\n\x1b[31mred\x1b[0m\n"), vec![]);
    }

    #[test]
    fn titles_from_osc_0_1_2() {
        assert_eq!(scan(b"\x1b]0;zero\x07"), vec![title("zero")]);
        assert_eq!(scan(b"\x1b]1;one\x1b\\"), vec![title("one")]);
        assert_eq!(scan(b"\x1b]2;two; with semicolon\x07"), vec![title("two; with semicolon")]);
        assert_eq!(scan(b"\x1b]2;\x07"), vec![], "an empty title is ignored");
        assert_eq!(scan(b"\x1b]2; \x01\x7f \x07"), vec![], "a title empty after sanitizing is ignored");
    }

    #[test]
    fn osc_9_notifies_and_ignores_progress() {
        assert_eq!(scan(b"\x1b]9;Build done\x07"), vec![note(None, "Build done")]);
        assert_eq!(scan(b"\x1b]9;a;b\x1b\\"), vec![note(None, "a;b")]);
        assert_eq!(scan(b"\x1b]9;4;1;50\x07"), vec![]);
        assert_eq!(scan(b"\x1b]9;4\x07"), vec![]);
        assert_eq!(scan(b"\x1b]9;\x07"), vec![], "an empty body is ignored");
        assert_eq!(scan(b"\x1b]9\x07"), vec![], "no `;` at all is ignored");
    }

    #[test]
    fn osc_777_needs_all_three_parts() {
        assert_eq!(scan(b"\x1b]777;notify;Title;Body; with ;\x07"), vec![note(Some("Title"), "Body; with ;")]);
        assert_eq!(scan(b"\x1b]777;notify;Title\x07"), vec![]);
        assert_eq!(scan(b"\x1b]777;notify\x07"), vec![]);
        assert_eq!(scan(b"\x1b]777;other;Title;Body\x07"), vec![]);
        assert_eq!(scan(b"\x1b]777;notify;;Body\x07"), vec![note(None, "Body")]);
        assert_eq!(scan(b"\x1b]777;notify;Only title;\x07"), vec![note(Some("Only title"), "")]);
        assert_eq!(scan(b"\x1b]777;notify;;\x07"), vec![]);
    }

    #[test]
    fn osc_99_kitty_forms() {
        assert_eq!(scan(b"\x1b]99;;Hello world\x1b\\"), vec![note(None, "Hello world")]);
        assert_eq!(scan(b"\x1b]99;i=1:p=body;Text\x1b\\"), vec![note(None, "Text")]);
        assert_eq!(scan(b"\x1b]99;p=title;Only a title\x1b\\"), vec![note(Some("Only a title"), "")]);
        assert_eq!(scan(b"\x1b]99;a=focus;The body\x07"), vec![note(None, "The body")], "no p= means body");
        assert_eq!(scan(b"\x1b]99;plain; text\x07"), vec![note(None, "plain; text")], "no metadata markers");
        assert_eq!(scan(b"\x1b]99;just a body\x07"), vec![note(None, "just a body")]);
        assert_eq!(scan(b"\x1b]99;i=1:p=close;\x1b\\"), vec![]);
        assert_eq!(scan(b"\x1b]99;e=1;SGVsbG8=\x1b\\"), vec![]);
    }

    #[test]
    fn osc_99_kitty_parts_are_assembled() {
        let mut s = OscScanner::new();
        assert_eq!(s.scan(b"\x1b]99;i=7:d=0:p=title;Build\x1b\\"), vec![]);
        assert_eq!(s.scan(b"\x1b]99;i=7:p=body;All green\x1b\\"), vec![note(Some("Build"), "All green")]);
        // A different id replaces the pending part rather than merging with it.
        assert_eq!(s.scan(b"\x1b]99;i=8:d=0:p=title;Lost\x1b\\"), vec![]);
        assert_eq!(s.scan(b"\x1b]99;i=9:p=body;Fresh\x1b\\"), vec![note(None, "Fresh")]);
    }

    #[test]
    fn bel_outside_osc_is_a_bell_and_terminators_are_not() {
        assert_eq!(scan(b"ding\x07"), vec![TermEvent::Bell]);
        assert_eq!(scan(b"\x07\x07\x07"), vec![TermEvent::Bell], "consecutive bells coalesce");
        assert_eq!(
            scan(b"\x07\x1b]9;x\x07\x07"),
            vec![TermEvent::Bell, note(None, "x"), TermEvent::Bell],
            "bells separated by another event are kept in order"
        );
        assert_eq!(scan(b"\x1b]8;;http://example.com\x07link\x1b]8;;\x07"), vec![]);
        assert_eq!(scan(b"\x1b\x07"), vec![TermEvent::Bell], "ESC BEL still rings");
    }

    #[test]
    fn esc_backslash_and_bel_both_terminate() {
        let a = scan(b"\x1b]9;same\x07");
        let b = scan(b"\x1b]9;same\x1b\\");
        assert_eq!(a, b);
        assert_eq!(a, vec![note(None, "same")]);
    }

    #[test]
    fn new_osc_drops_the_unterminated_one() {
        assert_eq!(scan(b"\x1b]9;first\x1b]9;second\x07"), vec![note(None, "second")]);
        assert_eq!(scan(b"\x1b]9;aborted\x1b[31mtext\x07"), vec![TermEvent::Bell]);
        assert_eq!(scan(b"\x1b]9;cancelled\x18\x07"), vec![TermEvent::Bell]);
    }

    #[test]
    fn split_at_every_byte_boundary() {
        let stream: &[u8] = b"a\x07b\x1b]0;T1\x1b\\c\x1b]777;notify;Ti;Bo\x07\x1b]99;p=title;K\x1b\\\x1b]9;n\x07d\x07";
        let expected =
            vec![TermEvent::Bell, title("T1"), note(Some("Ti"), "Bo"), note(Some("K"), ""), note(None, "n"), TermEvent::Bell];
        assert_eq!(scan(stream), expected);
        for cut in 0..=stream.len() {
            let mut s = OscScanner::new();
            let mut got = s.scan(&stream[..cut]);
            got.extend(s.scan(&stream[cut..]));
            assert_eq!(got, expected, "split at {cut}");
        }
        // And one byte at a time.
        let mut s = OscScanner::new();
        let got: Vec<_> = stream.iter().flat_map(|b| s.scan(std::slice::from_ref(b))).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn long_sequences_are_carried_up_to_the_limit() {
        let body = "x".repeat(MAX_OSC_BYTES - 2);
        let seq = format!("\x1b]9;{body}\x07");
        let mut s = OscScanner::new();
        let mut got = Vec::new();
        for chunk in seq.as_bytes().chunks(1000) {
            got.extend(s.scan(chunk));
        }
        let expected = sanitize(&body, BODY_MAX_CHARS);
        assert_eq!(got, vec![note(None, &expected)]);
    }

    #[test]
    fn overlong_sequences_are_dropped_with_their_terminator() {
        for terminator in [&b"\x07"[..], b"\x1b\\"] {
            let mut s = OscScanner::new();
            let mut seq = b"\x1b]52;c;".to_vec();
            seq.extend(std::iter::repeat_n(b'A', MAX_OSC_BYTES * 4));
            seq.extend_from_slice(terminator);
            seq.extend_from_slice(b"after\x1b]9;next\x07");
            let mut got = Vec::new();
            for chunk in seq.chunks(3000) {
                got.extend(s.scan(chunk));
            }
            assert_eq!(got, vec![note(None, "next")]);
            assert!(s.carry.capacity() <= MAX_OSC_BYTES, "carry stays bounded");
        }
        // An overlong OSC 9 is not reported even though it is a notification.
        let mut seq = b"\x1b]9;".to_vec();
        seq.extend(std::iter::repeat_n(b'B', MAX_OSC_BYTES + 1));
        seq.push(BEL);
        assert_eq!(scan(&seq), vec![]);
    }

    #[test]
    fn notification_text_is_sanitized() {
        assert_eq!(
            scan("\x1b]777;notify;\u{9b}1mBold\u{9b}0m;line\r\nnext\x08!\x07".as_bytes()),
            vec![note(Some("Bold"), "line\nnext!")]
        );
        let long = format!("\x1b]0;{}\x07", "t".repeat(500));
        assert_eq!(scan(long.as_bytes()), vec![title(&"t".repeat(TITLE_MAX_CHARS))]);
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        assert_eq!(scan(b"\x1b]9;bad \xff byte\x07"), vec![note(None, "bad \u{fffd} byte")]);
    }
}
