//! The modes a pane's program switches on in the terminal that shows it, and how to put them
//! back.
//!
//! The program keeps running in its pane after the terminal stops showing it, so it will never
//! switch its modes off for us: whoever wrote its output resets them ([`RESET_MODES`], harmless
//! when a mode was never set), leaves the alternate screen if the output entered it (tracked
//! by [`ModeTracker`]; sent only then, since on the normal screen it may restore a stale saved
//! cursor) and restores the titles saved by [`PUSH_TITLE`]. A repaint written over a terminal
//! that was showing the pane (after skipped output) starts with the same resets
//! ([`ModeTracker::repaint_prefix`]).

/// Mode resets that are harmless when the mode was never set, each back to the terminal's
/// power-on value: modifyOtherKeys off, then SGR reset; cursor visible and of the default shape;
/// mouse reporting off (all encodings), focus events off, bracketed paste off, synchronized
/// output off; normal cursor keys and keypad; insert mode off, autowrap on, origin mode off,
/// no scroll region (these two home the cursor, which is parked after); ASCII in G0 and G0
/// selected; the kitty keyboard protocol's current flags cleared (the pane may have pushed
/// them; terminals without the protocol ignore it).
pub const RESET_MODES: &[u8] = b"\x1b[>4;0m\x1b[0m\x1b[?25h\x1b[0 q\
\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?1016l\x1b[?1004l\x1b[?2004l\x1b[?2026l\
\x1b[?1l\x1b>\x1b[4l\x1b[?7h\x1b[?6l\x1b[r\x1b(B\x0f\x1b[=0;1u";
/// Saves the terminal's window and icon titles on its title stack (XTWINOPS 22), so that the
/// titles the pane's program sets can be undone ([`POP_TITLE`]); terminals without the stack
/// ignore both.
pub const PUSH_TITLE: &[u8] = b"\x1b[22;0t";
/// Restores the titles saved by [`PUSH_TITLE`] (XTWINOPS 23).
pub const POP_TITLE: &[u8] = b"\x1b[23;0t";
/// Leaving the alternate screen.
pub const LEAVE_ALT_SCREEN: &[u8] = b"\x1b[?1049l";
/// CAN: ends any escape sequence the terminal is in the middle of (a dropped backlog may have
/// been cut anywhere), so what follows is read from the start.
pub const CANCEL: &[u8] = b"\x18";
/// Parks the cursor on the last line, so the shell's prompt comes after the pane's screen.
pub const PARK_CURSOR: &[u8] = b"\x1b[999;1H\r\n";

/// Follows the bytes written to a terminal to know whether they switched it to the alternate
/// screen (`CSI ? 1049 h`, `? 1047 h`, `? 47 h` and their `l` forms), across chunk boundaries.
#[derive(Debug, Default)]
pub struct ModeTracker {
    state: ScanState,
    params: Vec<u8>,
    alt_screen: bool,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum ScanState {
    #[default]
    Ground,
    Escape,
    CsiStart,
    PrivateParams,
}

impl ModeTracker {
    /// Feeds bytes written to the terminal.
    pub fn observe(&mut self, data: &[u8]) {
        let mut data = data;
        loop {
            // Text between sequences cannot change a mode: skip to the next ESC at once.
            if self.state == ScanState::Ground {
                let Some(at) = memchr::memchr(0x1b, data) else {
                    return;
                };
                data = &data[at..];
            }
            let Some((&byte, rest)) = data.split_first() else {
                return;
            };
            data = rest;
            self.state = match (self.state, byte) {
                (_, 0x1b) => ScanState::Escape,
                (ScanState::Escape, b'[') => ScanState::CsiStart,
                (ScanState::CsiStart, b'?') => {
                    self.params.clear();
                    ScanState::PrivateParams
                }
                (ScanState::PrivateParams, b'0'..=b'9' | b';') if self.params.len() < 32 => {
                    self.params.push(byte);
                    ScanState::PrivateParams
                }
                (ScanState::PrivateParams, b'h' | b'l') => {
                    let alt = self
                        .params
                        .split(|&b| b == b';')
                        .any(|p| matches!(p, b"1049" | b"1047" | b"47"));
                    if alt {
                        self.alt_screen = byte == b'h';
                    }
                    ScanState::Ground
                }
                _ => ScanState::Ground,
            };
        }
    }

    /// Whether the terminal is on the alternate screen, as far as the output said.
    pub fn alt_screen(&self) -> bool {
        self.alt_screen
    }

    /// What goes before a repaint written to a terminal that was showing the pane (a resync,
    /// or a skip to a fresh screen): CAN (ends a sequence cut in the middle by skipped output),
    /// the alternate screen left if the output entered it, and every mode reset — the repaint
    /// expects a fresh terminal and sets again only what the pane has on. The tracker starts
    /// over from the normal screen.
    pub fn repaint_prefix(&mut self) -> Vec<u8> {
        let mut prefix = CANCEL.to_vec();
        if std::mem::take(&mut self.alt_screen) {
            prefix.extend_from_slice(LEAVE_ALT_SCREEN);
        }
        prefix.extend_from_slice(RESET_MODES);
        self.state = ScanState::Ground;
        prefix
    }

    /// What puts the terminal back when it stops showing the pane: the alternate screen left
    /// if the output entered it, and every mode reset. (The titles are popped by whoever
    /// pushed them: the client that owns the terminal.)
    pub fn restore_sequence(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        if std::mem::take(&mut self.alt_screen) {
            out.extend_from_slice(LEAVE_ALT_SCREEN);
        }
        out.extend_from_slice(RESET_MODES);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracker_follows_alt_screen_across_chunks() {
        let mut t = ModeTracker::default();
        t.observe(b"hello\x1b[?10");
        assert!(!t.alt_screen());
        t.observe(b"49h more");
        assert!(t.alt_screen());
        t.observe(b"\x1b[?25;1049l");
        assert!(!t.alt_screen());
        t.observe(b"\x1b[?47h");
        assert!(t.alt_screen());
        t.observe(b"\x1b[?1000h");
        assert!(t.alt_screen(), "other private modes change nothing");
    }

    #[test]
    fn a_repaint_leaves_the_alternate_screen_only_when_it_was_entered() {
        let mut t = ModeTracker::default();
        assert!(!contains(&t.repaint_prefix(), LEAVE_ALT_SCREEN));
        t.observe(b"\x1b[?1049h");
        let prefix = t.repaint_prefix();
        assert!(prefix.starts_with(CANCEL) && contains(&prefix, LEAVE_ALT_SCREEN));
        assert!(!t.alt_screen(), "the repaint starts from the normal screen");
        t.observe(b"\x1b[?1049h");
        let restore = t.restore_sequence();
        assert!(contains(&restore, LEAVE_ALT_SCREEN) && restore.ends_with(RESET_MODES));
    }

    fn contains(hay: &[u8], needle: &[u8]) -> bool {
        hay.windows(needle.len()).any(|w| w == needle)
    }
}
