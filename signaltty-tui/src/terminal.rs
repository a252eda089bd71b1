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
use std::os::fd::AsFd;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture, KeyboardEnhancementFlags, PopKeyboardEnhancementFlags,
    PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, execute};
use nix::sys::termios;

/// The terminal settings found at start, restored on every way out.
static SAVED: OnceLock<libc::termios> = OnceLock::new();
/// Whether the terminal is currently in our modes (restoring twice must be harmless).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Whether we pushed keyboard enhancement flags (popped again on the way out).
static KEYBOARD_PUSHED: AtomicBool = AtomicBool::new(false);

/// Restores the terminal when dropped.
#[derive(Debug)]
pub struct Guard(());

/// Puts the terminal into the TUI's modes and installs the panic hook.
pub fn enter() -> std::io::Result<Guard> {
    let stdin = std::io::stdin();
    if let Ok(saved) = termios::tcgetattr(stdin.as_fd()) {
        let _ = SAVED.set(libc::termios::from(saved));
    }
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
    crossterm::terminal::enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
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
    Ok(Guard(()))
}

/// Leaves every mode we entered and puts the saved settings back. Idempotent.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
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
    let _ = crossterm::terminal::disable_raw_mode();
    if let Some(saved) = SAVED.get() {
        let saved = termios::Termios::from(*saved);
        let _ = termios::tcsetattr(std::io::stdin().as_fd(), termios::SetArg::TCSANOW, &saved);
    }
    signaltty_client::term_guard::disarm();
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
