//! Server paint: a client that draws a pane inside a larger screen of its own (the TUI) lets
//! the server write the pane's changes straight into the client's terminal, at the pane's place
//! on it, so an echo goes program → server → terminal as with tmux, instead of program →
//! server → client → terminal. The client keeps drawing everything from its own model; what the
//! server writes is an early copy of cells the client draws again a moment later.
//!
//! It is asked for on the hand-off socket ([`crate::handoff::socket_path`]), with the client's
//! terminal passed as the descriptor (and its input as a second one, for [`crate::keys`]). The
//! conversation, one line per message:
//!
//! ```text
//!  client                                          server
//!  paint 1 <pane> <col> <row> <cols> <rows>\n
//!    + SCM_RIGHTS [the client's terminal]
//!                                                  ready\n | refused <why>\n (then closes)
//!  -- granted: the server paints the pane's changes into the terminal, in the rectangle --
//!                                                  skipped\n  a change it did not paint;
//!                                                             painting pauses until `resume`
//!  resume\n   (the client redrew the rectangle from its own model: the server takes a fresh
//!              copy of the screen and paints again)
//!  stop\n
//!                                                  stopped\n  nothing is painted after it;
//!                                                             then closes
//!                                                  damaged\n  a paint was cut short (partial
//!                                                             write); the grant is over; the
//!                                                             client redraws its whole screen
//!  EOF (either side) ends the grant (pane exited or closed, server shutting down, client gone).
//! ```
//!
//! `<col> <row>` is the 0-based cell of the terminal where the pane's first cell is drawn,
//! `<cols> <rows>` the size of that area. Each paint is one write: `ESC 7` (the client's cursor
//! and colours saved), per changed span a cursor move and the cells with their full SGR, `CSI m`,
//! `ESC 8` — only cells that changed, only inside the rectangle.

use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::Duration;

use tokio::net::UnixStream;

use crate::handoff::{self, Lines};

/// The protocol version in the request line.
pub const VERSION: u32 = 1;
/// The request's first word.
pub const VERB: &str = "paint";
/// The client's `resume` line.
pub const RESUME: &[u8] = b"resume\n";
/// The client's `stop` line.
pub const STOP: &[u8] = b"stop\n";
/// How long the server has to answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(2);

/// Where the pane's content is on the client's terminal, in cells (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    /// Column of the top-left cell.
    pub col: u16,
    /// Row of the top-left cell.
    pub row: u16,
    /// Width.
    pub cols: u16,
    /// Height.
    pub rows: u16,
}

/// The request line for `pane` drawn at `rect`.
pub fn encode_request(pane: &str, rect: Rect) -> Vec<u8> {
    format!(
        "{VERB} {VERSION} {pane} {} {} {} {}\n",
        rect.col, rect.row, rect.cols, rect.rows
    )
    .into_bytes()
}

/// The pane and rectangle of a request line (without its newline). A rectangle of no cells
/// is refused.
pub fn decode_request(line: &str) -> Result<(String, Rect), String> {
    let words: Vec<&str> = line.split(' ').collect();
    if words.first() != Some(&VERB) {
        return Err(format!("the request must start with `{VERB}`"));
    }
    let version = words.get(1).ok_or("missing version")?;
    if *version != VERSION.to_string() {
        return Err(format!("protocol version {version} is not {VERSION}"));
    }
    let [_, _, pane, col, row, cols, rows] = words[..] else {
        return Err(format!(
            "expected `{VERB} {VERSION} <pane> <col> <row> <cols> <rows>`"
        ));
    };
    if pane.is_empty() {
        return Err("missing pane".into());
    }
    let number = |what: &str, word: &str| {
        word.parse::<u16>()
            .map_err(|_| format!("{what} `{word}` is not a number of cells (0–65535)"))
    };
    let rect = Rect {
        col: number("col", col)?,
        row: number("row", row)?,
        cols: number("cols", cols)?,
        rows: number("rows", rows)?,
    };
    if rect.cols == 0 || rect.rows == 0 {
        return Err("the rectangle must be at least 1×1".into());
    }
    Ok((pane.to_owned(), rect))
}

/// A line from the server after `ready`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    /// A change was not painted; painting is paused until the client sends [`RESUME`].
    Skipped,
    /// The answer to [`STOP`]: nothing is painted after it.
    Stopped,
    /// A paint was cut short: the terminal may show part of one. The grant is over; the
    /// client redraws its whole screen.
    Damaged,
}

impl Notice {
    /// The line (with its newline).
    pub fn encode(self) -> &'static [u8] {
        match self {
            Notice::Skipped => b"skipped\n",
            Notice::Stopped => b"stopped\n",
            Notice::Damaged => b"damaged\n",
        }
    }

    /// Parses a line from the server (without its newline).
    pub fn decode(line: &str) -> Result<Notice, String> {
        match line {
            "skipped" => Ok(Notice::Skipped),
            "stopped" => Ok(Notice::Stopped),
            "damaged" => Ok(Notice::Damaged),
            _ => Err(format!("unknown notice `{line}`")),
        }
    }
}

/// Asks the server on `stream` (connected to [`crate::handoff::socket_path`]) to paint `pane`
/// into `terminal` at `rect`; waits for `ready`. With `input` (the terminal's input), the
/// server may later be asked to read the keys ([`crate::keys`]). The error says why not
/// (refused, no answer). The [`Lines`] returned hold what came after `ready` (a notice may
/// follow it in the same read): read the later notices with them.
pub async fn request(
    stream: &UnixStream,
    pane: &str,
    rect: Rect,
    terminal: BorrowedFd<'_>,
    input: Option<BorrowedFd<'_>>,
) -> Result<Lines, String> {
    let asked = async {
        let fds: Vec<_> = std::iter::once(terminal)
            .chain(input)
            .map(|fd| fd.as_raw_fd())
            .collect();
        handoff::send_with_fds(stream, &encode_request(pane, rect), &fds)
            .await
            .map_err(|e| e.to_string())?;
        let mut lines = Lines::default();
        handoff::read_answer(&mut lines, stream).await?;
        Ok(lines)
    };
    tokio::time::timeout(ANSWER_TIMEOUT, asked)
        .await
        .map_err(|_| "the server did not answer".to_string())?
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECT: Rect = Rect {
        col: 7,
        row: 3,
        cols: 80,
        rows: 24,
    };

    #[test]
    fn requests_round_trip() {
        let line = String::from_utf8(encode_request("pane_01", RECT)).expect("utf-8");
        assert_eq!(line, "paint 1 pane_01 7 3 80 24\n");
        assert_eq!(
            decode_request(line.trim_end()),
            Ok(("pane_01".to_owned(), RECT))
        );
    }

    #[test]
    fn bad_requests_say_what_is_wrong() {
        let says = |line: &str, what: &str| {
            let why = decode_request(line).expect_err(line);
            assert!(why.contains(what), "{line:?}: {why:?} should say {what:?}");
        };
        says("paint 2 p 0 0 1 1", "version");
        says("paint 1 p 0 0 1", "expected");
        says("paint 1 p 0 0 1 1 9", "expected");
        says("paint 1  0 0 1 1", "missing pane");
        says("paint 1 p x 0 1 1", "col");
        says("paint 1 p 0 0 70000 1", "cols");
        says("paint 1 p 0 0 -1 1", "cols");
        says("paint 1 p 0 0 0 5", "1×1");
        says("paint 1 p 0 0 5 0", "1×1");
        says("input 1 p", "must start");
        says("", "must start");
    }

    #[test]
    fn notices_round_trip() {
        for notice in [Notice::Skipped, Notice::Stopped, Notice::Damaged] {
            let line = std::str::from_utf8(notice.encode()).expect("utf-8");
            assert_eq!(Notice::decode(line.trim_end()), Ok(notice));
        }
        assert!(Notice::decode("ready").is_err());
        assert_eq!(RESUME, b"resume\n");
        assert_eq!(STOP, b"stop\n");
    }

    #[tokio::test]
    async fn a_request_carries_the_terminal_and_waits_for_ready() {
        let (client, server) = UnixStream::pair().expect("pair");
        let pty = nix::pty::openpty(None, None).expect("openpty");
        let serve = async {
            let mut buf = [0u8; handoff::MAX_LINE];
            let (n, fds) = handoff::recv_with_fds(&server, &mut buf)
                .await
                .expect("recv");
            assert_eq!(fds.len(), 1);
            assert!(nix::unistd::isatty(&fds[0]).expect("isatty"));
            let line = std::str::from_utf8(&buf[..n]).expect("utf-8");
            assert_eq!(
                decode_request(line.trim_end()),
                Ok(("pane_9".to_owned(), RECT))
            );
            // A notice right behind `ready` (one read) is kept for the client.
            handoff::write_all(&server, b"ready\nskipped\n")
                .await
                .expect("ready");
        };
        let (asked, ()) = tokio::join!(
            request(
                &client,
                "pane_9",
                RECT,
                std::os::fd::AsFd::as_fd(&pty.slave),
                None
            ),
            serve
        );
        let mut lines = asked.expect("granted");
        let next = lines.next(&client).await.expect("read").expect("a line");
        assert_eq!(Notice::decode(&next), Ok(Notice::Skipped));
    }
}
