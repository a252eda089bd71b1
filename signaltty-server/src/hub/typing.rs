//! How a typed key reaches a pane's PTY: [`Hub::type_keys`], the one function every route that
//! goes through the server calls, so what typing does besides writing (the client becomes the
//! active one for the pane's size, a hibernated agent wakes) happens the same way whatever
//! carried the key:
//!
//! - **gRPC `Attach` `Input`** (`rpc/attach.rs`) and **a hand-off's terminal**
//!   (`terminal/session.rs`): [`Route::Attached`] — the client becomes active, then the keys
//!   are written in order behind what it typed before ([`InputQueue`]: at once when nothing
//!   waits, else by its writer task, never blocking the session); keys into a hibernated
//!   agent wake it and go to the woken one.
//! - **Lent keys** (`terminal/lent.rs`): [`Route::Lent`] — only what the pane takes at once
//!   (`write_input_now`, which yields to a write already queued); the caller hands the rest
//!   back to the client, which sends it another way.
//! - **`WriteInput`** (`rpc/pane.rs` through [`Hub::write_input`]): [`Route::Call`] — waits
//!   for the pane up to a deadline and says how much it took.
//! - **Direct input** is the one route that does not pass here: the client holds a copy of
//!   the pane's master and writes it itself (`terminal/direct.rs`). It is given only to a
//!   client that may type into the pane, and nothing the server tracks depends on typed bytes
//!   beyond the activity ping, which the TUI sends over its attach stream
//!   (`signaltty-tui/src/runtime/sizing.rs`).

use std::time::Instant;

use crate::pane::actor::{ClientId, PaneHandle};
use crate::pane::attached::InputQueue;
use crate::pane::pty::WriteError;

use super::Hub;

/// What carried the keys, and so how they are written.
pub enum Route<'a> {
    /// An attached client's keys (gRPC `Attach`, a hand-off's terminal).
    Attached {
        /// The client, made the pane's active one.
        client: ClientId,
        /// Its keys waiting for the pane.
        queue: &'a InputQueue,
    },
    /// Keys the server read from a lent terminal: only what the pane takes now.
    Lent,
    /// A `WriteInput` call: all of it by `deadline`, or an error.
    Call {
        /// When to give up.
        deadline: Instant,
    },
}

impl Hub {
    /// Types `keys` into `handle`'s pane by `route`; how many bytes the pane took (or, for an
    /// attached client, took or queued). An empty `keys` from an attached client is an
    /// activity ping: it only makes the client active.
    pub async fn type_keys(
        &self,
        handle: &PaneHandle,
        keys: &[u8],
        route: Route<'_>,
    ) -> Result<usize, WriteError> {
        match route {
            Route::Attached { client, queue } => {
                // Typing makes this client the active one: under `window_size = "latest"` the
                // pane takes its size (`pane::sizing`).
                if let Some(size) = handle.client_active(client) {
                    self.record_size(handle.id(), size);
                }
                if keys.is_empty() {
                    return Ok(0);
                }
                if handle.exit_code().is_some() && self.takes_typing_while_asleep(handle.id()) {
                    // Typing into a hibernated agent wakes it (hub/hibernate.rs); the attached
                    // client is let go when the woken process replaces the old one.
                    self.type_while_asleep(handle.id(), keys.to_vec());
                } else {
                    queue.send(handle, keys.to_vec());
                }
                Ok(keys.len())
            }
            Route::Lent => {
                let mut written = 0;
                while written < keys.len() {
                    match handle.pty().write_input_now(&keys[written..]) {
                        0 => break,
                        n => written += n,
                    }
                }
                Ok(written)
            }
            Route::Call { deadline } => handle.pty().write_input(keys, deadline).await,
        }
    }
}
