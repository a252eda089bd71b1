//! Raw mode on the person's terminal, and back: the one implementation behind the CLI's attach
//! (`signaltty_client::raw_mode`) and the TUI (`signaltty_tui::terminal`), which each add the
//! escape sequences of their own on top.
//!
//! Invariant: once [`RawMode::enter`] succeeded, the saved settings are put back exactly once,
//! by whichever comes first — the guard's `Drop`, or [`restore_with`] called from a panic hook or
//! a signal path — and a later call is a no-op. The settings are kept process-wide (a process
//! has one terminal to give back) with a descriptor of their own, so a way out that holds no
//! guard can restore them.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Mutex;

use nix::sys::termios::{self, SetArg, Termios};

/// The terminal and its settings before raw mode; `Some` exactly while raw mode is on.
static SAVED: Mutex<Option<Saved>> = Mutex::new(None);

struct Saved {
    tty: OwnedFd,
    termios: Termios,
}

/// Raw mode for as long as the guard lives.
#[derive(Debug)]
#[must_use = "raw mode ends when the guard is dropped"]
pub struct RawMode {
    _private: (),
}

impl RawMode {
    /// Saves the settings of stdin's terminal and switches it to raw mode (no echo, no line
    /// editing, no signals from keys: Ctrl-C and Ctrl-Z become bytes).
    pub fn enter() -> std::io::Result<RawMode> {
        RawMode::enter_on(std::io::stdin().as_fd())
    }

    /// [`RawMode::enter`] on the terminal `tty`. Refused while raw mode is already on.
    pub fn enter_on(tty: BorrowedFd<'_>) -> std::io::Result<RawMode> {
        let mut saved = lock_saved();
        if saved.is_some() {
            return Err(std::io::Error::other("raw mode is already on"));
        }
        let original = termios::tcgetattr(tty)?;
        let mut raw = original.clone();
        termios::cfmakeraw(&mut raw);
        let tty = tty.try_clone_to_owned()?;
        termios::tcsetattr(&tty, SetArg::TCSANOW, &raw)?;
        *saved = Some(Saved {
            tty,
            termios: original,
        });
        Ok(RawMode { _private: () })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        restore();
    }
}

/// Whether raw mode is on (a guard lives and nothing restored the terminal yet).
pub fn is_on() -> bool {
    lock_saved().is_some()
}

/// Puts the saved settings back; false (and nothing done) when raw mode is not on.
pub fn restore() -> bool {
    restore_with(|| {})
}

/// Runs `before` (what must reach the terminal while it is still raw: the resets of a
/// client's modes), then puts the saved settings back once that output is drained
/// (TCSADRAIN). Neither happens when raw mode is not on, so the panic hook, the signal path
/// and the guard may all call it.
pub fn restore_with(before: impl FnOnce()) -> bool {
    let Some(saved) = lock_saved().take() else {
        return false;
    };
    before();
    let _ = termios::tcsetattr(&saved.tty, SetArg::TCSADRAIN, &saved.termios);
    true
}

fn lock_saved() -> std::sync::MutexGuard<'static, Option<Saved>> {
    // A panic while holding this short lock cannot leave the Option half-written.
    SAVED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
