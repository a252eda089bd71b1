//! The terminal hand-off: a client that owns a real terminal gives it to the server, which
//! then reads the keys and writes the pane's output itself — one process between a key and its
//! echo, as with tmux, instead of the client's two extra wake-ups and the gRPC stream between.
//!
//! It is a private path between signaltty's own binaries, beside the gRPC API (which stays the
//! API: a client that cannot hand off — another language, a terminal the server cannot open,
//! an older server — attaches over `PaneService.Attach` and loses nothing but speed). The
//! server listens on [`socket_path`] (next to the gRPC socket, same private directory, same
//! 0600 mode and peer-uid check). The conversation, one line per message:
//!
//! ```text
//!  client                                         server
//!  attach 1 <key> <ro> <seen> <pane>\n  + SCM_RIGHTS [stdin, stdout]
//!                                                 ready\n | refused <why>\n (then closes)
//!  (raw mode on, titles pushed)  go\n
//!                                                 (repaints, then keys ⇄ pane output)
//!  resize\n   on SIGWINCH (the server reads the terminal's size itself)
//!  stop\n     on SIGTERM/SIGHUP/…; or just hang up
//!                                                 end detached | end exited <code> |
//!                                                 end closed | end shutdown | end failed <why>\n
//!  (terminal restored, message printed)
//! ```
//!
//! The server never writes to the terminal after `end`, so whatever the client prints then
//! comes after the pane's screen. On `refused` the client attaches over gRPC instead, which
//! reports a real problem (no such pane) with the server's reason.

use std::io::{self, IoSlice};
use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};

use nix::sys::socket::{ControlMessage, MsgFlags, sendmsg};
use tokio::io::Interest;
use tokio::net::UnixStream;

/// The protocol version in the request line.
pub const VERSION: u32 = 1;
/// The longest line either side sends.
pub const MAX_LINE: usize = 4096;

/// The hand-off socket of the server whose gRPC socket is `grpc_socket`.
pub fn socket_path(grpc_socket: &Path) -> PathBuf {
    let mut path = grpc_socket.as_os_str().to_owned();
    path.push(".tty");
    PathBuf::from(path)
}

/// What the client asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The pane's id (already resolved by the client).
    pub pane: String,
    /// Watch only.
    pub read_only: bool,
    /// Clear the pane's attention on attach.
    pub mark_seen: bool,
    /// The byte that detaches.
    pub detach_key: u8,
}

impl Request {
    /// The request line.
    pub fn encode(&self) -> Vec<u8> {
        format!(
            "attach {VERSION} {} {} {} {}\n",
            self.detach_key,
            u8::from(self.read_only),
            u8::from(self.mark_seen),
            self.pane
        )
        .into_bytes()
    }

    /// Parses a request line (without its newline).
    pub fn decode(line: &str) -> Result<Request, String> {
        let mut words = line.splitn(6, ' ');
        let mut next = |what: &str| words.next().ok_or_else(|| format!("missing {what}"));
        if next("verb")? != "attach" {
            return Err("the request must start with `attach`".into());
        }
        let version = next("version")?;
        if version != VERSION.to_string() {
            return Err(format!("protocol version {version} is not {VERSION}"));
        }
        let detach_key = next("detach key")?
            .parse::<u8>()
            .map_err(|_| "the detach key must be a byte".to_string())?;
        let flag = |word: &str| match word {
            "0" => Ok(false),
            "1" => Ok(true),
            _ => Err(format!("`{word}` is not 0 or 1")),
        };
        let read_only = flag(next("read-only flag")?)?;
        let mark_seen = flag(next("mark-seen flag")?)?;
        let pane = next("pane")?.to_owned();
        if pane.is_empty() {
            return Err("missing pane".into());
        }
        Ok(Request {
            pane,
            read_only,
            mark_seen,
            detach_key,
        })
    }
}

/// How a handed-off attach ended, as the server tells the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// The detach key, `stop`, or the client hung up.
    Detached,
    /// The pane's process exited with this code; the terminal shows its final screen.
    Exited(i32),
    /// The pane was closed.
    Closed,
    /// The server is shutting down.
    Shutdown,
    /// The terminal could not be written or read.
    Failed(String),
}

impl End {
    /// The `end …` line.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            End::Detached => "end detached\n".into(),
            End::Exited(code) => format!("end exited {code}\n"),
            End::Closed => "end closed\n".into(),
            End::Shutdown => "end shutdown\n".into(),
            End::Failed(why) => format!("end failed {}\n", one_line(why)),
        }
        .into_bytes()
    }
}

/// A line from the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The attach can go ahead: switch the terminal to raw mode and send `go`.
    Ready,
    /// The server will not take the terminal (attach over gRPC instead).
    Refused(String),
    /// The attach is over.
    End(End),
}

impl Reply {
    /// Parses a line from the server (without its newline).
    pub fn decode(line: &str) -> Result<Reply, String> {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        Ok(match (word, rest) {
            ("ready", "") => Reply::Ready,
            ("refused", why) => Reply::Refused(why.to_owned()),
            ("end", "detached") => Reply::End(End::Detached),
            ("end", "closed") => Reply::End(End::Closed),
            ("end", "shutdown") => Reply::End(End::Shutdown),
            ("end", rest) if rest.starts_with("exited ") => Reply::End(End::Exited(
                rest["exited ".len()..]
                    .parse()
                    .map_err(|_| format!("bad exit code in `{line}`"))?,
            )),
            ("end", rest) if rest.starts_with("failed ") => {
                Reply::End(End::Failed(rest["failed ".len()..].to_owned()))
            }
            _ => return Err(format!("unknown reply `{line}`")),
        })
    }

    /// `refused <why>`.
    pub fn refused(why: &str) -> Vec<u8> {
        format!("refused {}\n", one_line(why)).into_bytes()
    }
}

/// The client's `go` line.
pub const GO: &[u8] = b"go\n";
/// The client's `resize` line.
pub const RESIZE: &[u8] = b"resize\n";
/// The client's `stop` line.
pub const STOP: &[u8] = b"stop\n";
/// The server's `ready` line.
pub const READY: &[u8] = b"ready\n";

fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

/// Sends `data` with the descriptors `fds` attached (SCM_RIGHTS), all of it.
pub async fn send_with_fds(stream: &UnixStream, data: &[u8], fds: &[RawFd]) -> io::Result<()> {
    let sent = loop {
        stream.writable().await?;
        match stream.try_io(Interest::WRITABLE, || {
            sendmsg::<()>(
                stream.as_raw_fd(),
                &[IoSlice::new(data)],
                &[ControlMessage::ScmRights(fds)],
                MsgFlags::MSG_NOSIGNAL,
                None,
            )
            .map_err(io::Error::from)
        }) {
            Ok(n) => break n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    };
    // The descriptors went with the first byte; the rest of a short send is plain data.
    write_all(stream, &data[sent..]).await
}

/// Receives up to `buf.len()` bytes and the descriptors sent with them.
///
/// Every descriptor the kernel installed is returned (and so closed when dropped), however many
/// the peer attached: the control buffer has room for the kernel's per-message maximum, and even
/// a truncated control message is walked (see [`crate::sys::recv_with_fds`]). A peer that
/// attaches more than a request takes cannot leave descriptors open in the receiver.
pub async fn recv_with_fds(
    stream: &UnixStream,
    buf: &mut [u8],
) -> io::Result<(usize, Vec<OwnedFd>)> {
    loop {
        stream.readable().await?;
        let received = stream.try_io(Interest::READABLE, || {
            crate::sys::recv_with_fds(stream.as_fd(), buf)
        });
        match received {
            Ok(got) => return Ok(got),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
}

/// Writes all of `data` to `stream`.
pub async fn write_all(stream: &UnixStream, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        stream.writable().await?;
        match stream.try_write(data) {
            Ok(n) => data = &data[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Reads the server's answer to a request (`direct`, `paint`): `Ok` on `ready`, else why not.
pub async fn read_answer(lines: &mut Lines, stream: &UnixStream) -> Result<(), String> {
    let line = lines
        .next(stream)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the server hung up")?;
    match Reply::decode(&line) {
        Ok(Reply::Ready) => Ok(()),
        Ok(Reply::Refused(why)) => Err(format!("refused: {why}")),
        _ => Err(format!("unexpected answer `{line}`")),
    }
}

/// Lines read from a stream, at most [`MAX_LINE`] bytes each.
#[derive(Debug, Default)]
pub struct Lines {
    buf: Vec<u8>,
}

impl Lines {
    /// Lines, with `already` (bytes read with the descriptors) in front.
    pub fn with(already: &[u8]) -> Lines {
        Lines {
            buf: already.to_vec(),
        }
    }

    /// The next line (without its newline); `None` when the other side hung up.
    /// Cancel-safe: bytes read stay buffered.
    pub async fn next(&mut self, stream: &UnixStream) -> io::Result<Option<String>> {
        loop {
            if let Some(at) = memchr::memchr(b'\n', &self.buf) {
                let line: Vec<u8> = self.buf.drain(..=at).take(at).collect();
                return String::from_utf8(line).map(Some).map_err(|_| {
                    io::Error::new(io::ErrorKind::InvalidData, "a line is not UTF-8")
                });
            }
            if self.buf.len() > MAX_LINE {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "a line is too long",
                ));
            }
            stream.readable().await?;
            let mut chunk = [0u8; 512];
            match stream.try_read(&mut chunk) {
                Ok(0) => return Ok(None),
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_replies_round_trip() {
        let request = Request {
            pane: "pane_01 with space".into(),
            read_only: true,
            mark_seen: false,
            detach_key: 0x1c,
        };
        let line = String::from_utf8(request.encode()).expect("utf-8");
        assert_eq!(Request::decode(line.trim_end()), Ok(request));
        for end in [
            End::Detached,
            End::Exited(-3),
            End::Closed,
            End::Shutdown,
            End::Failed("no\nway".into()),
        ] {
            let line = String::from_utf8(end.encode()).expect("utf-8");
            let expected = match &end {
                End::Failed(_) => End::Failed("no way".into()),
                other => other.clone(),
            };
            assert_eq!(Reply::decode(line.trim_end()), Ok(Reply::End(expected)));
        }
        assert_eq!(Reply::decode("ready"), Ok(Reply::Ready));
        assert_eq!(
            Reply::decode("refused no such pane"),
            Ok(Reply::Refused("no such pane".into()))
        );
    }

    #[test]
    fn bad_requests_say_what_is_wrong() {
        assert!(Request::decode("attach 2 28 0 1 p").is_err());
        assert!(Request::decode("attach 1 300 0 1 p").is_err());
        assert!(Request::decode("attach 1 28 0 2 p").is_err());
        assert!(Request::decode("attach 1 28 0 1").is_err());
        assert!(Request::decode("detach 1 28 0 1 p").is_err());
        assert!(Reply::decode("end exited x").is_err());
    }

    #[tokio::test]
    async fn descriptors_travel_with_the_request() {
        let (a, b) = UnixStream::pair().expect("pair");
        let pty = nix::pty::openpty(None, None).expect("openpty");
        let request = Request {
            pane: "pane_1".into(),
            read_only: false,
            mark_seen: true,
            detach_key: 0x1c,
        };
        send_with_fds(&a, &request.encode(), &[pty.slave.as_raw_fd()])
            .await
            .expect("send");
        write_all(&a, GO).await.expect("go");
        let mut buf = [0u8; MAX_LINE];
        let (n, fds) = recv_with_fds(&b, &mut buf).await.expect("recv");
        assert_eq!(fds.len(), 1);
        assert!(nix::unistd::isatty(&fds[0]).expect("isatty"));
        let mut lines = Lines::with(&buf[..n]);
        let first = lines.next(&b).await.expect("line").expect("some");
        assert_eq!(Request::decode(&first), Ok(request));
        assert_eq!(lines.next(&b).await.expect("line").as_deref(), Some("go"));
        drop(a);
        assert_eq!(lines.next(&b).await.expect("eof"), None);
    }
}
