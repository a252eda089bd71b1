//! Direct input (`input` on the side socket, `signaltty_tty::protocol`).
//!
//! Who gets it: a peer of our uid (`listen`), placed like a gRPC caller, that may type into the
//! pane (`may_control_pane`, the same rule as a typing `Attach`), for a live pane (not restored,
//! not exited, not hung up). There is no read-only variant: asking is asking to type. What the
//! holder can do beyond typing (read the pane's output from the master, keep the PTY open) and why
//! that adds nothing a same-uid process could not already do (ptrace the server) is in
//! `docs/security.md`. The copy shares the server's file description (non-blocking); the client
//! never changes its flags.
//!
//! What the server does not see: the typed bytes. It tracks nothing on them today
//! (`pane/attached.rs::InputQueue` only writes; no activity, seen mark or agent state comes from
//! input), so nothing it reports changes.

use std::os::fd::{AsFd, OwnedFd};

use signaltty_tty::protocol::{Conn, Reply};

use crate::hub::Hub;
use crate::model::ids::PaneId;
use crate::peer::Origin;

/// Answers an `input` request for `pane`: the master with `ready`, or `refused <why>`.
pub async fn serve(hub: &Hub, origin: &Origin, conn: &Conn, pane: &str) {
    match input_copy(hub, origin, pane) {
        Ok(master) => {
            let _ = conn.send(&Reply::Ready, &[master.as_fd()]).await;
        }
        Err(why) => super::dispatch::refuse(conn, &why).await,
    }
}

/// The checks of a typing attach, then a copy of the pane's master.
fn input_copy(hub: &Hub, origin: &Origin, pane: &str) -> Result<OwnedFd, String> {
    let id = PaneId::parse(pane).ok_or_else(|| format!("`{pane}` is not a pane id"))?;
    hub.guard()
        .may_control_pane(origin, &id)
        .map_err(|e| e.to_string())?;
    // A restored pane (its saved tail) has no terminal to type into.
    let handle = hub.panes().handle(&id).map_err(|e| e.to_string())?;
    handle.pty().input_copy().map_err(|e| e.to_string())
}
