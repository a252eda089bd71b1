//! Direct input: a client that shows a pane (the TUI) asks the server for the pane's input —
//! a descriptor of the pane's PTY master — and writes typed bytes to it itself, so a key's way
//! to the program skips the server (one process wake-up and the gRPC stream fewer). Output
//! still comes over the client's `PaneService.Attach` stream; only input takes this path.
//!
//! It is asked for on the hand-off socket ([`crate::handoff::socket_path`]: 0600, same private
//! directory as the gRPC socket, peer uid checked, the peer placed in or outside a pane like a
//! gRPC caller). The conversation:
//!
//! ```text
//!  client                          server
//!  input 1 <pane>\n
//!                                  ready\n + SCM_RIGHTS [the pane's PTY master]
//!                                  | refused <why>\n          (then closes either way)
//! ```
//!
//! The server answers `ready` only after the checks a typing `Attach` passes: the pane id, the
//! placement rule (`may_control_pane`: a program inside a pane may type only into its own
//! workspace), and a live pane (a restored pane has no terminal; an exited one takes no input).
//!
//! What the descriptor is, and what holding it means:
//! - It shares the server's **file description**, so its flags are the server's: it is
//!   already non-blocking and must stay so (the server reads output from the same description
//!   in its reactor). [`request`] refuses a descriptor that is not non-blocking and never
//!   changes its flags ([`crate::output::TtyOutput::shared_nonblocking`]).
//! - A master can be read too: a holder could read the pane's output (racing the server for
//!   it). Only a process of the same uid that may already type into the pane gets one, and such
//!   a process can already ptrace the server itself; the descriptor adds no authority.
//! - It keeps the PTY open while held. The server still ends a closed pane's processes (SIGHUP
//!   to its group, then SIGKILL), and the client drops the descriptor when its attach ends.
//! - It outlives the pane's program: writing after the program exited succeeds into a terminal
//!   nobody reads (no `EIO` on Linux), so a client must stop using it at the pane's `Exited`
//!   (the TUI does, and goes back to gRPC, where the server refuses input to an exited pane).
//!
//! The server tracks nothing on typed input today (no activity, no seen mark, no agent state:
//! `pane/attached.rs::InputQueue` only writes), so nothing is lost by not seeing it.

use std::io;
use std::os::fd::OwnedFd;
use std::time::Duration;

use tokio::net::UnixStream;

use crate::handoff::{self, Lines};
use crate::output::TtyOutput;

/// The protocol version in the request line.
pub const VERSION: u32 = 1;
/// The request's first word: the hand-off server tells the two requests apart by it.
pub const VERB: &str = "input";
/// How long the server has to answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(2);

/// The request line for `pane`.
pub fn encode_request(pane: &str) -> Vec<u8> {
    format!("{VERB} {VERSION} {pane}\n").into_bytes()
}

/// The pane named by a request line (without its newline).
pub fn decode_request(line: &str) -> Result<String, String> {
    let mut words = line.splitn(3, ' ');
    if words.next() != Some(VERB) {
        return Err(format!("the request must start with `{VERB}`"));
    }
    let version = words.next().ok_or("missing version")?;
    if version != VERSION.to_string() {
        return Err(format!("protocol version {version} is not {VERSION}"));
    }
    match words.next() {
        Some(pane) if !pane.is_empty() && !pane.contains(' ') => Ok(pane.to_owned()),
        _ => Err("missing pane".into()),
    }
}

/// Asks the server on `stream` (connected to [`crate::handoff::socket_path`], its peer
/// checked by the caller) for `pane`'s input. The error says why not (refused, no answer, a
/// descriptor that is not non-blocking …); the caller types over gRPC then. The descriptor
/// arrives close-on-exec (`MSG_CMSG_CLOEXEC`).
pub async fn request(stream: &UnixStream, pane: &str) -> Result<TtyOutput, String> {
    let asked = async {
        handoff::write_all(stream, &encode_request(pane))
            .await
            .map_err(|e| e.to_string())?;
        let mut buf = [0u8; handoff::MAX_LINE];
        let (n, fds) = handoff::recv_with_fds(stream, &mut buf)
            .await
            .map_err(|e| e.to_string())?;
        let mut lines = Lines::with(&buf[..n]);
        handoff::read_answer(&mut lines, stream).await?;
        one_fd(fds)
    };
    let fd = tokio::time::timeout(ANSWER_TIMEOUT, asked)
        .await
        .map_err(|_| "the server did not answer".to_string())??;
    TtyOutput::shared_nonblocking(fd).map_err(|e: io::Error| e.to_string())
}

fn one_fd(fds: Vec<OwnedFd>) -> Result<OwnedFd, String> {
    let [fd]: [OwnedFd; 1] = fds
        .try_into()
        .map_err(|_| "the answer did not carry one descriptor".to_string())?;
    Ok(fd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip_and_bad_ones_say_why() {
        let line = String::from_utf8(encode_request("pane_01")).expect("utf-8");
        assert_eq!(decode_request(line.trim_end()), Ok("pane_01".to_owned()));
        assert!(decode_request("input 2 pane_01").is_err());
        assert!(decode_request("input 1").is_err());
        assert!(decode_request("input 1 ").is_err());
        assert!(decode_request("input 1 a b").is_err());
        assert!(decode_request("attach 1 pane_01").is_err());
    }
}
