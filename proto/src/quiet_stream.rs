//! `QuietStream`: the Unix stream every signaltty connection runs on, server and client side. It
//! asks epoll for writability only while a write waits.
//!
//! Why: tokio registers a socket for readable *and* writable events, edge-triggered, for its
//! whole life. A Unix socket reports "writable" every time the peer reads from it, so each
//! message woke the sender once more after it was received: the client when the server read a
//! keystroke, the server when the client read the echo. On a keystroke's path that wake-up is
//! not free: the woken client has nothing to do, yet it preempts the server on its CPU between
//! reading the key and writing it to the terminal (`perf sched` showed it on every key typed at a
//! person's pace). tmux avoids it the same way: libevent watches for writability only with output
//! pending.
//!
//! So the socket is registered for readability only, writes go straight to it, and only a write
//! that finds the socket buffer full registers a duplicate of the descriptor for writability,
//! waits, and drops that registration once the write went through.

use std::io::{self, IoSlice, Read, Write};
use std::net::Shutdown;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};

/// A connected Unix stream registered with tokio for readability only. See the module docs.
#[derive(Debug)]
pub struct QuietStream {
    io: AsyncFd<UnixStream>,
    /// A duplicate of the socket registered for writability, while a write waits.
    waiter: Option<AsyncFd<OwnedFd>>,
}

impl QuietStream {
    /// Takes over a tokio stream (its registration with tokio is dropped). Must be called within a
    /// tokio runtime.
    pub fn from_tokio(stream: tokio::net::UnixStream) -> io::Result<Self> {
        let stream = stream.into_std()?;
        stream.set_nonblocking(true)?;
        Ok(Self {
            io: register(stream, Interest::READABLE)?,
            waiter: None,
        })
    }

    /// Runs `write` until the socket takes some bytes, waiting for writability only when it is
    /// full.
    fn poll_write_with(
        &mut self,
        cx: &mut Context<'_>,
        mut write: impl FnMut(&UnixStream) -> io::Result<usize>,
    ) -> Poll<io::Result<usize>> {
        if self.waiter.is_none() {
            match write(self.io.get_ref()) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    let fd = self.io.get_ref().as_fd().try_clone_to_owned()?;
                    self.waiter = Some(register(fd, Interest::WRITABLE)?);
                }
                done => return Poll::Ready(done),
            }
        }
        let Some(waiter) = self.waiter.as_mut() else {
            unreachable!("registered above");
        };
        let stream = self.io.get_ref();
        let done = loop {
            let mut guard = ready!(waiter.poll_write_ready(cx))?;
            // `try_io` clears the readiness only if this attempt would block, so a wake-up that
            // arrives meanwhile is not lost.
            if let Ok(done) = guard.try_io(|_| write(stream)) {
                break done;
            }
        };
        self.waiter = None;
        Poll::Ready(done)
    }
}

/// Registers an owned descriptor with the current tokio reactor for `interest` only.
#[allow(unsafe_code)]
fn register<T: AsRawFd>(owner: T, interest: Interest) -> io::Result<AsyncFd<T>> {
    // SAFETY: `owner` (a `UnixStream` or an `OwnedFd`) owns its descriptor and moves into the
    // `AsyncFd`, so the descriptor stays open and `as_raw_fd` keeps returning the same number,
    // for the same file description, until the `AsyncFd` is dropped; nothing else closes it.
    unsafe { AsyncFd::register_with_interest(owner, interest) }.map_err(io::Error::from)
}

/// The server needs nothing from a connection beyond its bytes: the peer's uid was checked at
/// accept.
impl tonic::transport::server::Connected for QuietStream {
    type ConnectInfo = ();

    fn connect_info(&self) -> Self::ConnectInfo {}
}

impl AsyncRead for QuietStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            let mut guard = ready!(this.io.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            let room = unfilled.len();
            match guard.try_io(|io| io.get_ref().read(unfilled)) {
                Ok(Ok(n)) => {
                    // A read that did not fill the buffer emptied the socket: forget the
                    // readiness now, so the caller's next read waits in the reactor instead of
                    // paying a `recvfrom` that only says EAGAIN (one syscall less per message;
                    // tokio's own streams do the same). A message arriving meanwhile set a newer
                    // readiness, which this does not clear.
                    if n > 0 && n < room {
                        guard.clear_ready();
                    }
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                Err(_would_block) => {}
            }
        }
    }
}

impl AsyncWrite for QuietStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .poll_write_with(cx, |mut stream| stream.write(buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .poll_write_with(cx, |mut stream| stream.write_vectored(bufs))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Writes go straight to the socket; nothing is buffered here.
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.io.get_ref().shutdown(Shutdown::Write))
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    fn pair() -> (QuietStream, QuietStream) {
        let (a, b) = tokio::net::UnixStream::pair().expect("socketpair");
        (
            QuietStream::from_tokio(a).expect("wrap"),
            QuietStream::from_tokio(b).expect("wrap"),
        )
    }

    #[tokio::test]
    async fn bytes_go_both_ways_and_shutdown_ends_the_peer_read() {
        let (mut a, mut b) = pair();
        a.write_all(b"ping").await.unwrap();
        let mut got = [0u8; 4];
        b.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"ping");
        b.write_all(b"pong").await.unwrap();
        a.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"pong");
        a.shutdown().await.unwrap();
        let mut rest = Vec::new();
        assert_eq!(b.read_to_end(&mut rest).await.unwrap(), 0);
    }

    /// A write larger than the socket buffer waits for the reader (through the writability
    /// registration) and arrives whole, in order.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_write_that_fills_the_socket_waits_for_the_reader() {
        let (mut a, mut b) = pair();
        let sent: Vec<u8> = (0..8 * 1024 * 1024u32).map(|i| (i % 251) as u8).collect();
        let expected = sent.clone();
        let writer = tokio::spawn(async move {
            a.write_all(&sent).await.unwrap();
            a.shutdown().await.unwrap();
            a.waiter.is_none()
        });
        let mut got = Vec::new();
        b.read_to_end(&mut got).await.unwrap();
        assert!(got == expected, "bytes lost or reordered");
        assert!(
            writer.await.unwrap(),
            "the writability registration outlived the write"
        );
    }

    #[tokio::test]
    async fn vectored_writes_send_every_slice() {
        let (mut a, mut b) = pair();
        let slices = [
            IoSlice::new(b"ab"),
            IoSlice::new(b"cd"),
            IoSlice::new(b"ef"),
        ];
        let n = a.write_vectored(&slices).await.unwrap();
        assert_eq!(n, 6);
        let mut got = [0u8; 6];
        b.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"abcdef");
    }
}
