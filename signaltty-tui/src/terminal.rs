//! The outer terminal: raw mode, alternate screen, mouse reporting, bracketed paste, focus
//! reports and (when the terminal speaks the kitty keyboard protocol) its "disambiguate escape
//! codes" and "report event types" flags on the way in — so Shift+Enter, Ctrl+I and Esc arrive
//! distinct, and repeats and releases arrive at all, to be encoded for the pane the way its
//! program asked (`encode::keys`; the keymap acts on presses and repeats only) — and always
//! back out: on a normal
//! exit (the guard's `Drop`), on a panic (a hook that restores before the message is printed)
//! and on SIGTERM/SIGINT/SIGHUP (the runtime restores, then re-raises the signal with its
//! default action so the parent sees the right status).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture, KeyboardEnhancementFlags, PopKeyboardEnhancementFlags,
    PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, execute};
use signaltty_tty::raw_mode;
/// Whether we pushed keyboard enhancement flags (popped again on the way out).
static KEYBOARD_PUSHED: AtomicBool = AtomicBool::new(false);

/// Restores the terminal when dropped.
#[derive(Debug)]
pub struct Guard {
    /// Dropped after [`restore`] ran (it restores first, with our modes; this is then a no-op).
    _raw: raw_mode::RawMode,
}

/// Puts the terminal into the TUI's modes and installs the panic hook. Raw mode is
/// `signaltty_tty::raw_mode`, the same as the CLI's attach; crossterm's own raw-mode switch is
/// not used (its keyboard-protocol query below finds the terminal raw either way).
pub fn enter() -> std::io::Result<Guard> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    // A SIGKILL runs none of our ways out: a guard process restores the terminal then.
    let reset = [
        signaltty_tty::modes::LEAVE_ALT_SCREEN,
        signaltty_tty::modes::RESET_MODES,
    ]
    .concat();
    signaltty_client::term_guard::arm(&reset);
    let raw = raw_mode::RawMode::enter()?;
    execute!(
        std::io::stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste,
        EnableFocusChange,
        cursor::Hide
    )?;
    // Asks the terminal (answered at once by those that speak the protocol; the others answer
    // only the device-attributes query sent with it). crossterm reads the answer from stdin
    // itself: this runs before the runtime's own reader (`input::Reader`) opens the terminal. Flags are pushed, so popping on the way
    // out gives the shell back exactly what it had.
    if matches!(
        crossterm::terminal::supports_keyboard_enhancement(),
        Ok(true)
    ) {
        execute!(
            std::io::stdout(),
            PushKeyboardEnhancementFlags(
                KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES
                    | KeyboardEnhancementFlags::REPORT_EVENT_TYPES
            )
        )?;
        KEYBOARD_PUSHED.store(true, Ordering::SeqCst);
    }
    Ok(Guard { _raw: raw })
}

/// Leaves every mode we entered and puts the saved settings back. Idempotent.
pub fn restore() {
    if raw_mode::restore_with(leave_modes) {
        signaltty_client::term_guard::disarm();
    }
}

/// Our modes off again, written while the terminal is still raw.
fn leave_modes() {
    let mut out = std::io::stdout();
    if KEYBOARD_PUSHED.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    let _ = execute!(
        out,
        DisableMouseCapture,
        DisableBracketedPaste,
        DisableFocusChange,
        LeaveAlternateScreen,
        cursor::Show,
        cursor::SetCursorStyle::DefaultUserShape
    );
    let _ = out.flush();
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Restores the terminal, then dies of `signal` as if we had never caught it.
pub fn reraise(signal: nix::sys::signal::Signal) -> ! {
    use nix::sys::signal::{SigHandler, raise, signal as set_handler};
    restore();
    // SAFETY: installing the default disposition runs no Rust code in the handler; nothing
    // else in this process relies on the handler tokio installed, as we are about to die.
    #[allow(unsafe_code)]
    let _ = unsafe { set_handler(signal, SigHandler::SigDfl) };
    let _ = raise(signal);
    std::process::exit(128 + signal as i32)
}
