//! The side socket's one dispatcher: reads a connection's opening request
//! (`signaltty_tty::protocol::Request`) and hands the connection to what serves it — a
//! hand-off ([`super::session`]), direct input ([`super::direct`]) or a paint grant
//! ([`super::paint`]). A line that does not parse, or a request that does not open a
//! connection, is answered `refused <why>`, as is a connection over the cap.

use std::io::ErrorKind;
use std::time::Duration;

use signaltty_tty::protocol::{Conn, Reply, Request};
use tokio::net::UnixStream;

use crate::hub::Hub;
use crate::peer::Origin;

/// How long a client has for its opening request (and, in a hand-off, for `go`).
pub(super) const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves one side-socket connection; `over_cap` (the cap) when it is one connection too many,
/// refused once its request is read (the client then tries gRPC, which says the same).
pub async fn handle(hub: Hub, origin: Origin, stream: UnixStream, over_cap: Option<usize>) {
    let mut conn = Conn::new(stream);
    let (request, fds) =
        match tokio::time::timeout(START_TIMEOUT, conn.recv_with_fds::<Request>()).await {
            Ok(Ok(Some(received))) => received,
            Ok(Err(e)) if e.kind() == ErrorKind::InvalidData => {
                return refuse(&conn, &e.to_string()).await;
            }
            _ => return,
        };
    if let Some(cap) = over_cap {
        let why = format!(
            "TOO_MANY_CONNECTIONS: {}",
            crate::listen::over_cap_message(cap)
        );
        return refuse(&conn, &why).await;
    }
    match request {
        Request::HandOff(asked) => super::session::serve(&hub, &origin, conn, asked, fds).await,
        Request::Input { pane } => super::direct::serve(&hub, &origin, &conn, &pane).await,
        Request::Paint { pane, rect } => {
            super::paint::serve(&hub, &origin, conn, &pane, rect, fds).await;
        }
        other => refuse(&conn, &out_of_place(&other, "`attach`, `input` or `paint`")).await,
    }
}

/// Answers `refused <why>`; the caller then ends the connection.
pub(super) async fn refuse(conn: &Conn, why: &str) {
    let _ = conn.send(&Reply::Refused(why.to_owned()), &[]).await;
}

/// Why `request` is refused where only `expected` may come.
pub(super) fn out_of_place(request: &Request, expected: &str) -> String {
    let line = String::from_utf8_lossy(&signaltty_tty::protocol::Message::encode(request))
        .trim_end()
        .to_owned();
    format!("`{line}` does not belong here: expected {expected}")
}

/// What to answer a line read in the middle of a conversation that is not `expected`:
/// `Some(why)` for a line that does not parse or does not belong (refused), `None` for a
/// hang-up or a broken connection (nothing to answer).
pub(super) fn unexpected(
    received: std::io::Result<Option<Request>>,
    expected: &str,
) -> Option<String> {
    match received {
        Ok(Some(request)) => Some(out_of_place(&request, expected)),
        Err(e) if e.kind() == ErrorKind::InvalidData => Some(e.to_string()),
        Ok(None) | Err(_) => None,
    }
}
