//! A paint grant's connection (`paint` on the side socket, `signaltty_tty::protocol`; what the
//! pane actor paints: `pane/paint.rs`).
//!
//! Who gets a grant: a peer of our uid (`listen`), for a live pane, with the checks of a
//! **read-only** `Attach` (painting shows output and types nothing, so the placement rule that
//! guards typing does not apply, exactly as for watching over gRPC). The descriptor must be one
//! terminal; it is opened again through `/proc/self/fd/N` so that `O_NONBLOCK` is set on a
//! description of our own, never on the client's. A grant holds a connection slot
//! (`max_connections`) for its life, like a hand-off.
//!
//! This task owns the connection: `resume` takes a fresh copy, `stop` ends the grant (removed under
//! the model's lock, so nothing is painted after `stopped`), and the actor's notices (`skipped`,
//! `damaged`) are forwarded. The pane's exit or closing, the server's shutdown and the client
//! hanging up end the grant and close the connection.
//!
//! A request with a second descriptor (the client's terminal input) may also ask us to read its
//! keys (`lend` … `back`, [`super::lent`]); the reading ends with the grant. A line that does not
//! parse or belong is refused, and ends the grant.

use std::os::fd::OwnedFd;

use signaltty_tty::protocol::{Conn, Notice, Rect, Reply, Request};
use tokio::sync::mpsc;

use crate::hub::Hub;
use crate::model::ids::PaneId;
use crate::pane::actor::PaneHandle;
use crate::peer::Origin;

use super::dispatch::{refuse, unexpected};
use super::lent::{self, Lent};

/// Serves a `paint` request for `pane` at `rect` (the terminal's descriptors `fds`) on `conn`
/// from `origin`, until the grant ends.
pub async fn serve(
    hub: &Hub,
    origin: &Origin,
    mut conn: Conn,
    pane: &str,
    rect: Rect,
    fds: Vec<OwnedFd>,
) {
    let Prepared { handle, out, input } = match prepare(hub, pane, fds) {
        Ok(prepared) => prepared,
        Err(why) => return refuse(&conn, &why).await,
    };
    if conn.send(&Reply::Ready, &[]).await.is_err() {
        return;
    }
    let conn = &mut conn;
    let (notices_tx, mut notices) = mpsc::unbounded_channel();
    let id = handle.add_paint(out, rect, notices_tx);
    let mut exit = handle.watch_exit();
    let mut closed = handle.watch_closed();
    let shutdown = hub.shutdown_token().clone();
    // The client's keys while we read them.
    let mut reading: Option<Lent> = None;
    loop {
        if exit.borrow().is_some() || *closed.borrow() {
            break;
        }
        tokio::select! {
            biased;
            () = shutdown.cancelled() => break,
            changed = exit.changed() => if changed.is_err() { break },
            changed = closed.changed() => if changed.is_err() { break },
            read = lent::next(&mut reading) => {
                let back = match &reading {
                    Some(lent) => lent.pass(hub, &read, &handle).await,
                    None => None,
                };
                if let Some(back) = back {
                    reading = None;
                    if send_back(conn, back).await.is_err() {
                        break;
                    }
                }
            }
            notice = notices.recv() => match notice {
                Some(Notice::Damaged) => {
                    // The actor already dropped the grant.
                    let _ = give_back(conn, &mut reading).await;
                    let _ = conn.send(&Reply::Notice(Notice::Damaged), &[]).await;
                    return;
                }
                Some(notice) => {
                    if conn.send(&Reply::Notice(notice), &[]).await.is_err() {
                        break;
                    }
                }
                None => break,
            },
            received = conn.recv::<Request>() => match received {
                Ok(Some(Request::Resume)) => {
                    if !handle.resume_paint(id) {
                        break;
                    }
                }
                Ok(Some(Request::Release)) => {
                    if give_back(conn, &mut reading).await.is_err() {
                        break;
                    }
                }
                Ok(Some(Request::Lend { excluded })) => {
                    let opened = input
                        .as_ref()
                        .filter(|_| reading.is_none() && may_type(hub, origin, &handle))
                        .and_then(|input| Lent::open(input, excluded).ok());
                    // Refused (not ours to type into, no terminal input, already reading): an
                    // empty `back` at once, and the client reads its keys itself.
                    let refused = opened.is_none();
                    reading = reading.or(opened);
                    if refused && send_back(conn, Vec::new()).await.is_err() {
                        break;
                    }
                }
                Ok(Some(Request::Stop)) => {
                    let _ = give_back(conn, &mut reading).await;
                    handle.remove_paint(id);
                    let _ = conn.send(&Reply::Notice(Notice::Stopped), &[]).await;
                    return;
                }
                // A hang-up ends the grant; a line that does not parse or belong is refused.
                received => {
                    let expected = "`resume`, `lend`, `release` or `stop`";
                    if let Some(why) = unexpected(received, expected) {
                        let _ = give_back(conn, &mut reading).await;
                        handle.remove_paint(id);
                        refuse(conn, &why).await;
                        return;
                    }
                    break;
                }
            },
        }
    }
    handle.remove_paint(id);
}

/// Stops reading the client's keys, if we were, and says so (`back`: nothing was left over,
/// every read is passed on or handed back at once).
async fn give_back(conn: &Conn, reading: &mut Option<Lent>) -> std::io::Result<()> {
    if reading.take().is_some() {
        send_back(conn, Vec::new()).await?;
    }
    Ok(())
}

/// Hands `bytes` back to the client (`back`): we no longer read its keys.
async fn send_back(conn: &Conn, bytes: Vec<u8>) -> std::io::Result<()> {
    conn.send(&Reply::Back(bytes), &[]).await
}

/// Whether the grant's holder may type into the pane (the rule of a typing `Attach`).
fn may_type(hub: &Hub, origin: &Origin, handle: &PaneHandle) -> bool {
    hub.guard().may_control_pane(origin, handle.id()).is_ok()
}

/// A grant's request, checked.
struct Prepared {
    handle: PaneHandle,
    /// The terminal, opened again for writing.
    out: std::fs::File,
    /// The terminal's input, when the client sent it (for `keys`).
    input: Option<OwnedFd>,
}

/// The checks of a read-only attach, then the terminal opened again for writing; the error is
/// the `refused` line's text.
fn prepare(hub: &Hub, pane: &str, fds: Vec<OwnedFd>) -> Result<Prepared, String> {
    let id = PaneId::parse(pane).ok_or_else(|| format!("`{pane}` is not a pane id"))?;
    // A restored pane (its saved tail) has no live screen to paint from.
    let handle = hub.panes().handle(&id).map_err(|e| e.to_string())?;
    if handle.exit_code().is_some() {
        return Err(format!("pane {pane} has exited: nothing more to paint"));
    }
    let mut fds = fds.into_iter();
    let (Some(tty), input, None) = (fds.next(), fds.next(), fds.next()) else {
        return Err(
            "send the terminal's descriptor (and, to have keys read, its input): one or two"
                .to_string(),
        );
    };
    for fd in std::iter::once(&tty).chain(input.as_ref()) {
        if !nix::unistd::isatty(fd).unwrap_or(false) {
            return Err("the descriptor is not a terminal".into());
        }
    }
    let out = signaltty_tty::output::open_for_writing(&super::session::fd_path(&tty))
        .map_err(|e| format!("cannot open the terminal for writing: {e}"))?;
    Ok(Prepared { handle, out, input })
}
