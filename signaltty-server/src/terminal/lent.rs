//! Lent keys within a paint grant (`lend` … `back`; what and why: `signaltty_tty::lend`).
//!
//! Who gets it: the grant's holder, if it may type into the pane (`may_control_pane`, the rule of a
//! typing `Attach`; painting alone is granted like a read-only one). The terminal is opened again
//! through `/proc/self/fd/N`, so `O_NONBLOCK` is set on a description of our own; it is in the
//! reactor only while we read it (between `lend` and `back`), so a TUI reading its own keys never
//! wakes us.
//!
//! What we take is only what the TUI would have sent unchanged (`lend::taken`: plain bytes its
//! bindings do not use, for a program that did not ask for every key as an escape code), and only
//! what the pane takes at once (`Hub::type_keys`, `Route::Lent`: it also yields to a write already
//! queued): everything else is handed back in order, so the pane sees the keys exactly as if the
//! TUI had read them all. Like direct input, the typed bytes change nothing we track.

use std::io;
use std::os::fd::OwnedFd;

use signaltty_tty::input::TtyInput;
use signaltty_tty::lend;

use crate::hub::Hub;
use crate::hub::typing::Route;
use crate::pane::actor::PaneHandle;

/// The client's terminal, read by us.
pub struct Lent {
    input: TtyInput,
    excluded: String,
}

impl Lent {
    /// Opens the client's terminal input `source` for reading; the characters in `excluded`
    /// are always handed back.
    pub fn open(source: &OwnedFd, excluded: String) -> io::Result<Lent> {
        let input = TtyInput::reopen(&super::session::fd_path(source))?;
        let input = input.reading_at_most(lend::READ_MAX);
        Ok(Lent { input, excluded })
    }

    /// Writes the keys at the start of `read` that are the pane's to it; the rest, if any, is
    /// the client's (`Some`, possibly empty when nothing is left but reading must stop).
    pub async fn pass(&self, hub: &Hub, read: &[u8], pane: &PaneHandle) -> Option<Vec<u8>> {
        if read.is_empty() {
            // The terminal is gone: nothing more to read.
            return Some(Vec::new());
        }
        let flags = pane.with_screen(|screen, _| {
            screen
                .view()
                .keyboard()
                .kitty_flags(usize::from(screen.alternate_screen()))
        });
        let take = lend::taken(read, &self.excluded, flags);
        let written = hub
            .type_keys(pane, &read[..take], Route::Lent)
            .await
            .unwrap_or(0);
        (written < read.len()).then(|| read[written..].to_vec())
    }
}

/// The next read of `lent` (empty when the terminal is gone); pending while there is none.
/// Cancel-safe.
pub async fn next(lent: &mut Option<Lent>) -> Vec<u8> {
    match lent {
        Some(lent) => lent
            .input
            .read()
            .await
            .map(<[u8]>::to_vec)
            .unwrap_or_default(),
        None => std::future::pending().await,
    }
}
