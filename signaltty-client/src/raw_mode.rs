//! The local terminal while a client owns it: raw mode in, everything back out. Raw mode itself
//! is `signaltty_tty::raw_mode` (shared with the TUI); this adds the attach's own resets.
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

use std::io::{IsTerminal, Write};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use signaltty_tty::modes::{self, LEAVE_ALT_SCREEN, POP_TITLE, PUSH_TITLE, RESET_MODES};
use signaltty_tty::raw_mode as raw;

use crate::error::ClientError;

/// Whether the pane's output left our terminal on the alternate screen.
static ALT_SCREEN: AtomicBool = AtomicBool::new(false);
static PANIC_HOOK: Once = Once::new();

/// The pane's modes as our terminal saw them: [`ModeTracker::observe`] what is written, and
/// the guard (or the panic hook) leaves the alternate screen if the output entered it.
#[derive(Debug, Default)]
pub struct ModeTracker(modes::ModeTracker);

impl ModeTracker {
    /// Feeds bytes written to the terminal.
    pub fn observe(&mut self, data: &[u8]) {
        self.0.observe(data);
        ALT_SCREEN.store(self.0.alt_screen(), Ordering::SeqCst);
    }

    /// Whether the terminal is on the alternate screen, as far as the output said.
    pub fn alt_screen(&self) -> bool {
        self.0.alt_screen()
    }

    /// What goes before a repaint written to a terminal that was showing the pane (see
    /// [`modes::ModeTracker::repaint_prefix`]).
    pub fn repaint_prefix(&mut self) -> Vec<u8> {
        ALT_SCREEN.store(false, Ordering::SeqCst);
        self.0.repaint_prefix()
    }
}

/// Raw mode on stdin for as long as the guard lives.
#[derive(Debug)]
pub struct RawMode {
    /// Dropped after [`restore`] ran (it restores first, with the resets; this is then a no-op).
    _raw: raw::RawMode,
}

impl RawMode {
    /// Saves the terminal settings of stdin and switches it to raw mode (no echo, no line
    /// editing, no signals from keys: Ctrl-C and Ctrl-Z become bytes for the pane).
    pub fn enter() -> Result<RawMode, ClientError> {
        if !std::io::stdin().is_terminal() {
            return Err(ClientError::NotATerminal(
                "stdin is not a terminal".to_owned(),
            ));
        }
        install_panic_hook();
        // Should this process be killed outright, a guard puts the terminal back (its saved
        // settings are read now, before raw mode). Its alternate screen is left blindly then.
        let reset = [LEAVE_ALT_SCREEN, RESET_MODES, POP_TITLE].concat();
        crate::term_guard::arm(&reset);
        ALT_SCREEN.store(false, Ordering::SeqCst);
        let guard = raw::RawMode::enter().map_err(|e| {
            crate::term_guard::disarm();
            ClientError::Io {
                context: "cannot switch the terminal to raw mode".into(),
                source: e,
            }
        })?;
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(PUSH_TITLE).and_then(|()| stdout.flush());
        Ok(RawMode { _raw: guard })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        restore();
    }
}

/// The terminal may be on the alternate screen without our knowing (someone else wrote to it:
/// the server, during a hand-off, and it vanished without saying how it left the terminal):
/// the restore leaves the alternate screen too.
pub fn assume_alt_screen() {
    ALT_SCREEN.store(true, Ordering::SeqCst);
}

/// Puts the terminal back as it was, if raw mode is on; a no-op otherwise (so it is safe to call
/// from both the guard and the panic hook).
pub fn restore() {
    let restored = raw::restore_with(|| {
        let mut stdout = std::io::stdout().lock();
        if ALT_SCREEN.swap(false, Ordering::SeqCst) {
            let _ = stdout.write_all(LEAVE_ALT_SCREEN);
        }
        let _ = stdout.write_all(RESET_MODES);
        let _ = stdout.write_all(POP_TITLE);
        let _ = stdout.flush();
    });
    if restored {
        crate::term_guard::disarm();
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restore_without_raw_mode_is_a_no_op() {
        restore();
        assert!(!raw::is_on());
    }
}
