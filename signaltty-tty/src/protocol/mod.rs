//! The side socket's protocol: every message between a signaltty client and the server on
//! `<socket>.tty` ([`socket_path`]), defined once. A client opens a connection with one of three
//! requests and the server answers `ready` or `refused <why>`; what follows depends on the
//! request. Each message is one line of text; descriptors travel with a message by
//! `SCM_RIGHTS`, attached and taken by [`Conn`] and nothing else. Both ends are signaltty's own
//! binaries and ship together: the gRPC API stays the API, and a client that cannot use this
//! path (another language, an older server) attaches over `PaneService.Attach` and loses
//! nothing but speed.
//!
//! The socket is 0600 in the gRPC socket's private directory; the server checks the peer's uid
//! and places it (in a pane or outside) like a gRPC caller.
//!
//! # Glossary
//!
//! These words mean one thing each, in every crate:
//! - **hand-off**: `signaltty attach` gives its whole terminal to the server, which reads the
//!   keys and writes the pane's output itself until the attach ends ([`Request::HandOff`]).
//! - **direct input**: a client that shows a pane over gRPC gets a copy of the pane's PTY master
//!   and writes typed bytes to it itself ([`Request::Input`]).
//! - **paint**: the server writes a pane's changed cells into a client's terminal at the pane's
//!   rectangle, an early copy of what the client draws a moment later ([`Request::Paint`], a
//!   *grant*). The client's own drawing is "draw" or "frame", never "paint".
//! - **lend** (lent keys): within a grant, the server reads the client's terminal itself and
//!   writes the plain keys to the pane ([`Request::Lend`]), handing back the rest
//!   ([`Reply::Back`]); policy in [`crate::lend`]. "Keys" alone means typed bytes.
//! - **pacing**: when the client draws a frame after output came (the TUI's frame clock); how
//!   the server keeps up with a slow terminal is "falling behind", not pacing.
//!
//! # The conversations
//!
//! ```text
//!  client                                            server
//!  -- hand-off --
//!  attach 1 <key> <ro> <seen> <pane>  + [stdin, stdout]
//!                                                    ready | refused <why>  (then closes)
//!  (raw mode on)  go
//!                                                    (repaints, then keys ⇄ pane output)
//!  resize   (SIGWINCH: the server reads the size)
//!  stop     (or hang up)
//!                                                    end detached | end exited <code> |
//!                                                    end closed | end shutdown | end failed <why>
//!  -- direct input --
//!  input 1 <pane>
//!                                                    ready + [the pane's PTY master] | refused
//!  -- paint --
//!  paint 1 <pane> <col> <row> <cols> <rows>  + [terminal] or [terminal, its input]
//!                                                    ready | refused <why>
//!                                                    skipped  (a change not painted: paused)
//!  resume   (the client redrew the rectangle)
//!  lend [<hex>]   read my keys, never the characters listed (UTF-8, hex)
//!                                                    back [<hex>]  (stopped reading; these bytes
//!                                                      were read, not written: the client's)
//!  release  (answered by the `back` of the current `lend`, or by none if it was sent)
//!  stop
//!                                                    stopped  (nothing painted after it)
//!                                                    damaged  (a paint was cut short: the grant
//!                                                      is over, the client redraws everything)
//! ```
//!
//! The server never writes to the terminal after `end` or `stopped`. A line the server cannot
//! parse, or one that does not belong where it came, is answered `refused <why>` and the
//! connection ends (a hand-off first gives the terminal back). Exactly one `back` answers each
//! `lend`; a refused `lend` is an empty `back` at once. `<col> <row>` is the 0-based cell where
//! the pane's first cell is drawn; each paint is one write framed by `ESC 7` … `ESC 8`.

mod conn;
mod reply;
mod request;

use std::path::{Path, PathBuf};

pub use conn::Conn;
pub use reply::{End, Notice, Reply};
pub use request::{HandOff, Rect, Request};

/// The version word of the opening requests.
pub const VERSION: u32 = 1;
/// The longest line either side sends.
pub const MAX_LINE: usize = 4096;
/// Most bytes a `lend` lists or a `back` hands back (the server reads at most this many keys at
/// once, so a `back` always fits a line).
pub const MAX_BYTES: usize = 1024;

/// The side socket of the server whose gRPC socket is `grpc_socket`.
pub fn socket_path(grpc_socket: &Path) -> PathBuf {
    let mut path = grpc_socket.as_os_str().to_owned();
    path.push(".tty");
    PathBuf::from(path)
}

/// A message: one line, encoded and parsed here only.
pub trait Message: Sized {
    /// The line, with its newline.
    fn encode(&self) -> Vec<u8>;
    /// Parses a line (without its newline); the error says what is wrong with it.
    fn parse(line: &str) -> Result<Self, String>;
}

/// `text` on one line (a reason loses its line breaks).
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

/// `word`, then ` <hex of bytes>` when there are any.
fn hex_line(word: &str, bytes: &[u8]) -> Vec<u8> {
    let mut out = word.as_bytes().to_vec();
    if !bytes.is_empty() {
        out.push(b' ');
        for b in bytes {
            out.extend_from_slice(format!("{b:02x}").as_bytes());
        }
    }
    out.push(b'\n');
    out
}

/// The bytes after `word` (`rest`: what followed it, `None` when the line was the word alone).
fn hex_bytes(word: &str, rest: Option<&str>) -> Result<Vec<u8>, String> {
    let Some(hex) = rest else {
        return Ok(Vec::new());
    };
    if hex.len() % 2 != 0 || hex.len() > 2 * MAX_BYTES {
        return Err(format!(
            "`{word}` takes pairs of hex digits, at most {MAX_BYTES} bytes"
        ));
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| {
            hex.get(i..i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .ok_or_else(|| format!("`{word}`: `{hex}` is not hex"))
        })
        .collect()
}

#[cfg(test)]
mod tests;
