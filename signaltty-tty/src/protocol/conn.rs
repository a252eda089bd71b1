//! One side-socket connection: messages out (with descriptors attached) and in (with the
//! descriptors that came with them), a line at a time.

use std::io::{self, IoSlice};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::path::Path;
use std::time::Duration;

use nix::sys::socket::{ControlMessage, MsgFlags, sendmsg};
use tokio::io::Interest;
use tokio::net::UnixStream;

use super::{MAX_LINE, Message, Reply, Request};

/// A connection to or from the side socket.
#[derive(Debug)]
pub struct Conn {
    stream: UnixStream,
    /// Bytes read and not yet returned as a line.
    buf: Vec<u8>,
    /// Descriptors read, each with where in `buf` the line they came with starts.
    fds: Vec<(usize, OwnedFd)>,
}

impl Conn {
    /// A connection over `stream`.
    pub fn new(stream: UnixStream) -> Conn {
        Conn {
            stream,
            buf: Vec::new(),
            fds: Vec::new(),
        }
    }

    /// Connects to the side socket at `path` (the caller checks who listens: [`Conn::stream`]).
    pub async fn connect(path: &Path) -> io::Result<Conn> {
        UnixStream::connect(path).await.map(Conn::new)
    }

    /// The socket, given up (bytes read and not returned are dropped).
    pub fn into_stream(self) -> UnixStream {
        self.stream
    }

    /// The socket (for peer checks).
    pub fn stream(&self) -> &UnixStream {
        &self.stream
    }

    /// Sends `message`, with `fds` attached to its first byte.
    pub async fn send(&self, message: &impl Message, fds: &[BorrowedFd<'_>]) -> io::Result<()> {
        self.send_bytes(&message.encode(), fds).await
    }

    /// Sends `message` only if the socket takes it whole at once (a short line on an idle
    /// socket does); `false` otherwise — the caller then gives the connection up.
    pub fn try_send(&self, message: &impl Message) -> bool {
        let line = message.encode();
        matches!(self.stream.try_write(&line), Ok(n) if n == line.len())
    }

    /// Sends raw `bytes` with `fds` attached: what [`Conn::send`] does, for a line that need
    /// not be a message (tests of what the other side refuses).
    pub async fn send_bytes(&self, bytes: &[u8], fds: &[BorrowedFd<'_>]) -> io::Result<()> {
        let raw: Vec<_> = fds.iter().map(AsRawFd::as_raw_fd).collect();
        let rights = [ControlMessage::ScmRights(&raw)];
        // The descriptors go with the first byte; the rest of a short send is plain data.
        let mut control: &[ControlMessage] = if raw.is_empty() { &[] } else { &rights };
        let mut data = bytes;
        while !data.is_empty() {
            self.stream.writable().await?;
            let sent = self.stream.try_io(Interest::WRITABLE, || {
                let iov = [IoSlice::new(data)];
                let fd = self.stream.as_raw_fd();
                sendmsg::<()>(fd, &iov, control, MsgFlags::MSG_NOSIGNAL, None)
                    .map_err(io::Error::from)
            });
            match sent {
                Ok(n) => {
                    data = &data[n..];
                    control = &[];
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The next message; `None` when the other side hung up. A line that does not parse (or is
    /// not UTF-8, or too long) is an `InvalidData` error saying why. Cancel-safe.
    pub async fn recv<M: Message>(&mut self) -> io::Result<Option<M>> {
        Ok(self.recv_with_fds().await?.map(|(message, _)| message))
    }

    /// [`Conn::recv`], with the descriptors that came with the message's bytes. Every
    /// descriptor the kernel installed is owned here (so closed when dropped), however many the
    /// peer attached (`crate::sys::recv_with_fds`).
    pub async fn recv_with_fds<M: Message>(&mut self) -> io::Result<Option<(M, Vec<OwnedFd>)>> {
        let Some((line, fds)) = self.next_line().await? else {
            return Ok(None);
        };
        let message =
            M::parse(&line).map_err(|why| io::Error::new(io::ErrorKind::InvalidData, why))?;
        Ok(Some((message, fds)))
    }

    /// Opens the conversation: sends `request` with `fds`, waits up to `wait` for `ready`, and
    /// returns the descriptors that came with it. The error says why not (refused, no answer).
    pub async fn ask(
        &mut self,
        request: &Request,
        fds: &[BorrowedFd<'_>],
        wait: Duration,
    ) -> Result<Vec<OwnedFd>, String> {
        let asked = async {
            self.send(request, fds).await.map_err(|e| e.to_string())?;
            match self.recv_with_fds().await {
                Ok(Some((Reply::Ready, fds))) => Ok(fds),
                Ok(Some((Reply::Refused(why), _))) => Err(format!("refused: {why}")),
                Ok(Some((other, _))) => Err(format!("unexpected answer {other:?}")),
                Ok(None) => Err("the server hung up".into()),
                Err(e) => Err(e.to_string()),
            }
        };
        tokio::time::timeout(wait, asked)
            .await
            .map_err(|_| "the server did not answer".to_string())?
    }

    /// The next line, without its newline, and the descriptors that came with it.
    /// Cancel-safe: bytes and descriptors read stay buffered.
    async fn next_line(&mut self) -> io::Result<Option<(String, Vec<OwnedFd>)>> {
        loop {
            if let Some(at) = memchr::memchr(b'\n', &self.buf) {
                let line: Vec<u8> = self.buf.drain(..=at).take(at).collect();
                let (mine, later) = std::mem::take(&mut self.fds)
                    .into_iter()
                    .partition::<Vec<_>, _>(|(start, _)| *start == 0);
                self.fds = later
                    .into_iter()
                    .map(|(start, fd)| (start - (at + 1), fd))
                    .collect();
                let fds = mine.into_iter().map(|(_, fd)| fd).collect();
                return String::from_utf8(line)
                    .map(|line| Some((line, fds)))
                    .map_err(|_| {
                        io::Error::new(io::ErrorKind::InvalidData, "a line is not UTF-8")
                    });
            }
            if self.buf.len() > MAX_LINE {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "a line is too long",
                ));
            }
            self.stream.readable().await?;
            let mut chunk = [0u8; 512];
            let received = self.stream.try_io(Interest::READABLE, || {
                crate::sys::recv_with_fds(self.stream.as_fd(), &mut chunk)
            });
            match received {
                Ok((0, fds)) => {
                    drop(fds);
                    return Ok(None);
                }
                Ok((n, fds)) => {
                    // The kernel ends a read with the part of a send that carried descriptors,
                    // and a sender attaches them to a message's first byte: they belong to the
                    // last line that starts in this read (`buf` holds no whole line here).
                    let start = memchr::memrchr(b'\n', &chunk[..n - 1])
                        .map_or(0, |i| self.buf.len() + i + 1);
                    self.buf.extend_from_slice(&chunk[..n]);
                    self.fds.extend(fds.into_iter().map(|fd| (start, fd)));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
    }
}
