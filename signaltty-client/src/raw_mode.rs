//! The local terminal while a client owns it: raw mode in, everything back out.
//!
//! Invariant: once [`RawMode::enter`] succeeded, the saved terminal settings are restored exactly
//! once, whatever ends the attach — the guard's `Drop` (normal exit, error, lost server, a signal
//! turned into a normal return by the caller) or the panic hook installed here. Restoring also
//! undoes the modes the pane's program may have switched on in our terminal (mouse reporting,
//! bracketed paste, hidden cursor, the alternate screen, keyboard protocols, autowrap, scroll
//! region…: `RESET_MODES`) and the titles it set (`PUSH_TITLE`), since the program is still
//! running in the pane and will never switch them off for us.
//!
//! Nothing else is entered: no alternate screen of our own, no clearing (the CLI's attach lets
//! the server's first Snapshot repaint the screen; a full-screen client enters what it needs
//! after this guard and leaves it before).

use std::io::Write;
use std::sync::Mutex;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use nix::sys::termios::{self, SetArg, Termios};

use crate::error::ClientError;

/// The settings to put back; `Some` exactly while raw mode is on.
static SAVED: Mutex<Option<Termios>> = Mutex::new(None);
/// Whether the pane's output left our terminal on the alternate screen.
static ALT_SCREEN: AtomicBool = AtomicBool::new(false);
static PANIC_HOOK: Once = Once::new();

/// Mode resets that are harmless when the mode was never set, each back to the terminal's
/// power-on value: modifyOtherKeys off, then SGR reset; cursor visible and of the default shape;
/// mouse reporting off (all encodings), focus events off, bracketed paste off, synchronized
/// output off; normal cursor keys and keypad; insert mode off, autowrap on, origin mode off,
/// no scroll region (these two home the cursor, which is parked after); ASCII in G0 and G0
/// selected; the kitty keyboard protocol's current flags cleared (the pane may have pushed
/// them; terminals without the protocol ignore it).
const RESET_MODES: &[u8] = b"\x1b[>4;0m\x1b[0m\x1b[?25h\x1b[0 q\
\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?1016l\x1b[?1004l\x1b[?2004l\x1b[?2026l\
\x1b[?1l\x1b>\x1b[4l\x1b[?7h\x1b[?6l\x1b[r\x1b(B\x0f\x1b[=0;1u";
/// Saves the terminal's window and icon titles on its title stack (XTWINOPS 22), so that the
/// titles the pane's program sets can be undone ([`POP_TITLE`]); terminals without the stack
/// ignore both.
const PUSH_TITLE: &[u8] = b"\x1b[22;0t";
/// Restores the titles saved by [`PUSH_TITLE`] (XTWINOPS 23).
const POP_TITLE: &[u8] = b"\x1b[23;0t";
/// Leaving the alternate screen; only sent when the program entered it, since on the normal
/// screen it may also restore a stale saved cursor position.
const LEAVE_ALT_SCREEN: &[u8] = b"\x1b[?1049l";

/// What goes before a repaint written to a terminal that was showing the pane (a Resync, or a
/// skip to a fresh screen): CAN (ends an escape sequence cut in the middle by skipped output),
/// the alternate screen left if the output entered it, and every mode reset to its power-on
/// value (`RESET_MODES`) — the repaint expects a fresh terminal and sets again only what the
/// pane has on, so a scroll region or a mode the skipped output turned off must not survive.
pub fn repaint_prefix() -> Vec<u8> {
    let mut prefix = b"\x18".to_vec();
    if ALT_SCREEN.swap(false, Ordering::SeqCst) {
        prefix.extend_from_slice(LEAVE_ALT_SCREEN);
    }
    prefix.extend_from_slice(RESET_MODES);
    prefix
}

/// Raw mode on stdin for as long as the guard lives.
#[derive(Debug)]
pub struct RawMode {
    _private: (),
}

impl RawMode {
    /// Saves the terminal settings of stdin and switches it to raw mode (no echo, no line
    /// editing, no signals from keys: Ctrl-C and Ctrl-Z become bytes for the pane).
    pub fn enter() -> Result<RawMode, ClientError> {
        let stdin = std::io::stdin();
        let original = termios::tcgetattr(&stdin)
            .map_err(|e| ClientError::NotATerminal(format!("stdin is not a terminal: {e}")))?;
        let mut raw = original.clone();
        termios::cfmakeraw(&mut raw);
        install_panic_hook();
        ALT_SCREEN.store(false, Ordering::SeqCst);
        *lock_saved() = Some(original);
        if let Err(e) = termios::tcsetattr(&stdin, SetArg::TCSANOW, &raw) {
            lock_saved().take();
            return Err(ClientError::Io {
                context: "cannot switch the terminal to raw mode".into(),
                source: e.into(),
            });
        }
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(PUSH_TITLE).and_then(|()| stdout.flush());
        Ok(RawMode { _private: () })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal back as it was, if raw mode is on; a no-op otherwise (so it is safe to call
/// from both the guard and the panic hook).
pub fn restore() {
    let Some(original) = lock_saved().take() else {
        return;
    };
    let mut stdout = std::io::stdout().lock();
    if ALT_SCREEN.swap(false, Ordering::SeqCst) {
        let _ = stdout.write_all(LEAVE_ALT_SCREEN);
    }
    let _ = stdout.write_all(RESET_MODES);
    let _ = stdout.write_all(POP_TITLE);
    let _ = stdout.flush();
    // TCSADRAIN: our resets reach the terminal before cooked mode returns.
    let _ = termios::tcsetattr(std::io::stdin(), SetArg::TCSADRAIN, &original);
}

fn lock_saved() -> std::sync::MutexGuard<'static, Option<Termios>> {
    // A panic while holding this short lock cannot leave the Option half-written.
    SAVED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn install_panic_hook() {
    PANIC_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // Restore first, so the panic message lands on a sane terminal.
            restore();
            previous(info);
        }));
    });
}

/// Follows the pane's output to know whether it switched our terminal to the alternate screen
/// (`CSI ? 1049 h`, `? 1047 h`, `? 47 h` and their `l` forms), across chunk boundaries.
#[derive(Debug, Default)]
pub struct ModeTracker {
    state: ScanState,
    params: Vec<u8>,
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
                    let on = byte == b'h';
                    let alt = self
                        .params
                        .split(|&b| b == b';')
                        .any(|p| matches!(p, b"1049" | b"1047" | b"47"));
                    if alt {
                        ALT_SCREEN.store(on, Ordering::SeqCst);
                    }
                    ScanState::Ground
                }
                _ => ScanState::Ground,
            };
        }
    }

    /// Whether the terminal is on the alternate screen, as far as the output said.
    pub fn alt_screen(&self) -> bool {
        ALT_SCREEN.load(Ordering::SeqCst)
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
        ALT_SCREEN.store(false, Ordering::SeqCst);
    }

    #[test]
    fn restore_without_raw_mode_is_a_no_op() {
        restore();
        assert!(lock_saved().is_none());
    }
}
