//! Direct input for one attach session: typed bytes written by this process to the pane's PTY
//! master, which the server hands over on request (`input`, `signaltty_tty::protocol`), instead of going
//! up the gRPC stream — a key then reaches the program without waking the server.
//!
//! One path per attach session keeps the order of what was typed: from the moment the
//! descriptor is received every byte goes to it, until it is given up (a write error, the
//! pane's `Exited`, the stream's end); what it had not taken yet (its backlog) is then sent over
//! gRPC first, ahead of anything typed later. Writes never block the runtime: what the pane
//! does not take at once waits in a backlog, written as it reads (the descriptor is in the
//! reactor only while bytes wait). Asked for on every (re)attach of an interactive pane; a
//! refusal (an older server, a restored pane, no hand-off socket, `[fast_paths] direct_input`
//! off) leaves input on gRPC, as before.

use std::path::Path;
use std::time::Duration;

use signaltty_tty::output::TtyOutput;
use signaltty_tty::protocol::{self, Conn, Request};

/// Most bytes waiting for a pane that does not read; more is dropped (as the server's own
/// input queue does when a pane stops reading), so a stuck pane never grows the TUI.
const MAX_BACKLOG: usize = 1024 * 1024;
/// How long the server has to answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(2);

/// The pane's input, written by us.
pub struct Direct {
    out: TtyOutput,
}

impl Direct {
    /// Asks the server behind `socket` for `pane`'s input; `None` when refused.
    pub async fn request(socket: &Path, pane: &str) -> Option<Direct> {
        let path = protocol::socket_path(socket);
        let mut conn = Conn::connect(&path).await.ok()?;
        signaltty_client::trust::check_peer(conn.stream(), &path).ok()?;
        let request = Request::Input {
            pane: pane.to_owned(),
        };
        let fds = conn.ask(&request, &[], ANSWER_TIMEOUT).await.ok()?;
        // The master, sharing the server's non-blocking description: refused if it is not
        // non-blocking, its flags never changed.
        let [master]: [_; 1] = fds.try_into().ok()?;
        let out = TtyOutput::shared_nonblocking(master).ok()?;
        Some(Direct { out })
    }

    /// Writes `data` now, or queues what the pane does not take. `Err` when the descriptor
    /// failed: give it up (`give_up`) and send the rest over gRPC.
    pub fn write(&mut self, data: &[u8]) -> Result<(), ()> {
        if self.out.pending() + data.len() > MAX_BACKLOG {
            // The pane stopped reading and the backlog is full: typing on is pointless.
            return Ok(());
        }
        self.out.push(data).map_err(|_| ())
    }

    /// Bytes waiting for the pane.
    pub fn pending(&self) -> usize {
        self.out.pending()
    }

    /// Waits until the pane takes more of the backlog (cancel-safe); `Err` when the
    /// descriptor failed.
    pub async fn flush_some(&mut self) -> Result<(), ()> {
        self.out.flush_some().await.map_err(|_| ())
    }

    /// Stops writing directly (the descriptor is closed): what the pane had not taken, to go
    /// over gRPC in order.
    pub fn give_up(mut self) -> Vec<u8> {
        self.out.take_backlog()
    }
}
