//! Who is on the other end of a connection: a process outside every pane (the user's shell, the
//! TUI), or a program running inside a pane.
//!
//! At accept the server reads the peer's pid (`SO_PEERCRED`) and walks its ancestry through
//! `/proc/<pid>/stat`. Meeting the child of a live pane puts the peer inside that pane. The walk
//! cannot be escaped by double-forking or `setsid`, because the server is a child subreaper
//! (`orphans.rs`): an orphaned descendant of a pane is re-parented to the server, not to init, so
//! its ancestry still ends at the server. A process whose ancestry reaches the server without
//! passing a live pane's child is therefore one of two things, told apart by its session id:
//! - a child the server process started itself in the server's own session (only in-process test
//!   harnesses do that; the daemon never starts clients) — outside;
//! - a process that left a pane (pane children are session leaders, so anything descended from
//!   one has another session id and no process can join the server's) — *escaped*: inside some
//!   pane, we no longer know which, so it gets the strictest treatment.
//!
//! The pid a peer had at `connect` could be reused by the time we read `/proc` if the peer died;
//! with `SO_PEERPIDFD` (Linux ≥ 6.5) the server checks the peer is still alive after the walk and
//! treats a dead one as escaped. What this does not stop is listed in `docs/security.md`.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::pin::Pin;
use std::task::{Context, Poll};

use signaltty_proto::QuietStream;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::model::ids::PaneId;

/// How far up the tree the walk goes. A chain deeper than this is treated as escaped, so a
/// program cannot hide its pane by forking a very long chain.
const MAX_DEPTH: usize = 1024;

/// Where a connection's process runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Outside every pane: not restricted.
    Outside,
    /// A descendant of this pane's child.
    Pane(PaneId),
    /// Descended from a pane whose identity is lost (it double-forked away, or its pane's child
    /// exited), or could not be identified: treated as inside an unknown pane.
    Escaped,
}

/// What the server knows about a connection's peer; in every request's extensions.
#[derive(Clone, Debug)]
pub struct Peer {
    /// The peer's pid at connect (0 if the kernel did not say).
    pub pid: u32,
    /// Where it runs.
    pub origin: Origin,
    /// `Some(cap)` when the connection was accepted past the connection cap: every call on it
    /// is refused.
    pub over_cap: Option<usize>,
}

impl Peer {
    /// A peer outside every pane (in-process callers, tests).
    pub fn outside() -> Self {
        Peer {
            pid: 0,
            origin: Origin::Outside,
            over_cap: None,
        }
    }
}

/// The `(ppid, session)` of a process, from `/proc/<pid>/stat` (`pid (comm) state ppid pgrp
/// session …`). `comm` may contain spaces and parentheses, so fields are read after the last `)`.
pub fn parse_stat(stat: &str) -> Option<(u32, u32)> {
    let after = &stat[stat.rfind(')')? + 1..];
    let mut fields = after.split_whitespace();
    let _state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    let _pgrp = fields.next()?;
    let session = fields.next()?.parse().ok()?;
    Some((ppid, session))
}

fn stat_of(pid: u32) -> Option<(u32, u32)> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The server's own session id.
fn own_session() -> u32 {
    nix::unistd::getsid(None).map_or(0, |s| s.as_raw() as u32)
}

/// Classifies `pid`. See the module docs for the rules. `pane_among` is given the walked chain
/// (the process, then its ancestors) and names the live pane whose child is the nearest of them,
/// if any: one look at the panes per connection, not one per step, and nothing built that grows
/// with the number of panes (a map of every pane's pid, built per connection, made each CLI call
/// cost more with each pane: 2 ms of server CPU per call at 500 panes, issue 18).
/// `former` is asked only about a chain that ends at init, which would otherwise be outside: it
/// names where such a process came from if an earlier server's pane started it
/// (`lineage.rs`).
pub fn classify(
    pid: u32,
    pane_among: impl FnOnce(&[u32]) -> Option<PaneId>,
    former: impl FnOnce(&[u32]) -> Option<Origin>,
) -> Origin {
    let me = std::process::id();
    if pid == me {
        return Origin::Outside;
    }
    if pid == 0 {
        return Origin::Escaped;
    }
    let (chain, end) = walk(pid, me);
    if let Some(pane) = pane_among(&chain) {
        return Origin::Pane(pane);
    }
    match end {
        // Reached the server: our own child in our own session, or one that left a pane.
        End::Server { session } => {
            if session == own_session() {
                Origin::Outside
            } else {
                Origin::Escaped
            }
        }
        // Outside — unless it came from a pane of a server that has since stopped.
        End::Init => former(&chain).unwrap_or(Origin::Outside),
        // A process that vanished mid-walk (or never was readable) cannot be placed; nor can a
        // chain deeper than any real one.
        End::Lost | End::TooDeep => Origin::Escaped,
    }
}

/// Where a walk up the process tree stopped.
#[derive(Debug, PartialEq, Eq)]
enum End {
    /// The last process of the chain is the server's child, in this session.
    Server { session: u32 },
    /// The last process of the chain is a child of init (or of no one).
    Init,
    /// The last process of the chain could not be read.
    Lost,
    /// [`MAX_DEPTH`] processes were walked.
    TooDeep,
}

/// `pid` and its ancestors, nearest first, up to the server's child, init's child, or a process
/// that cannot be read (each included). A pane's child is the server's child, so every pane a
/// process can be in has its child in the chain.
fn walk(pid: u32, me: u32) -> (Vec<u32>, End) {
    let mut chain = Vec::new();
    let mut cur = pid;
    for _ in 0..MAX_DEPTH {
        chain.push(cur);
        let Some((ppid, session)) = stat_of(cur) else {
            return (chain, End::Lost);
        };
        if ppid == me {
            return (chain, End::Server { session });
        }
        if ppid <= 1 {
            return (chain, End::Init);
        }
        cur = ppid;
    }
    (chain, End::TooDeep)
}

/// `SO_PEERPIDFD` (Linux ≥ 6.5): a pidfd for the very process that connected.
const SO_PEERPIDFD: libc::c_int = 77;

/// The peer's pidfd, when the kernel offers one.
#[allow(unsafe_code)]
fn peer_pidfd(sock: &impl AsRawFd) -> Option<OwnedFd> {
    let mut fd: libc::c_int = -1;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `fd` and `len` are valid for writes of the sizes given; the socket is open.
    let rc = unsafe {
        libc::getsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            SO_PEERPIDFD,
            (&raw mut fd).cast(),
            &raw mut len,
        )
    };
    // SAFETY: on success the kernel gave us a new descriptor that nothing else owns.
    (rc == 0 && fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Whether the process behind a pidfd has exited (the pidfd polls readable then).
fn has_exited(pidfd: &OwnedFd) -> bool {
    use std::os::fd::AsFd;
    let mut fds = [nix::poll::PollFd::new(
        pidfd.as_fd(),
        nix::poll::PollFlags::POLLIN,
    )];
    matches!(nix::poll::poll(&mut fds, nix::poll::PollTimeout::ZERO), Ok(n) if n > 0)
}

/// Identifies the peer of an accepted connection.
pub async fn identify<F, Fut>(stream: &tokio::net::UnixStream, classify_pid: &F) -> Peer
where
    F: Fn(u32) -> Fut + ?Sized,
    Fut: std::future::Future<Output = Origin>,
{
    let pid = stream
        .peer_cred()
        .ok()
        .and_then(|c| c.pid())
        .and_then(|p| u32::try_from(p).ok())
        .unwrap_or(0);
    let pidfd = peer_pidfd(stream);
    let mut origin = classify_pid(pid).await;
    // The walk read /proc by pid: if the peer is already gone, that pid may now be someone else's.
    if origin != Origin::Escaped && pidfd.as_ref().is_some_and(has_exited) {
        origin = Origin::Escaped;
    }
    Peer {
        pid,
        origin,
        over_cap: None,
    }
}

/// The HTTP/2 client preface (`PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`) is this long.
const PREFACE_LEN: usize = 24;

/// A server connection with its peer attached: tonic copies [`Peer`] into every request's
/// extensions.
///
/// Until the peer has sent the HTTP/2 preface the connection is *pending*: it does not count
/// as open, and if the preface is not complete by the deadline, reading fails with `TimedOut`
/// and hyper closes the connection. A connection that never speaks otherwise lives for ever
/// (HTTP/2 keepalive starts only after the handshake), and 520 of them locked every client out.
#[derive(Debug)]
pub struct PeerStream {
    inner: QuietStream,
    peer: Peer,
    pending: Option<Pending>,
    /// Counts the connection as open once its preface is in, until it is dropped.
    _slot: Option<crate::listen::ConnectionSlot>,
}

/// A connection's wait for its preface.
#[derive(Debug)]
struct Pending {
    /// Preface bytes still to come.
    left: usize,
    deadline: Pin<Box<tokio::time::Sleep>>,
    connections: crate::listen::Connections,
}

impl PeerStream {
    /// Wraps an accepted stream, pending until `timeout` for its preface.
    pub fn new(
        inner: QuietStream,
        peer: Peer,
        connections: crate::listen::Connections,
        timeout: std::time::Duration,
    ) -> Self {
        PeerStream {
            inner,
            peer,
            pending: Some(Pending {
                left: PREFACE_LEN,
                deadline: Box::pin(tokio::time::sleep(timeout)),
                connections,
            }),
            _slot: None,
        }
    }
}

impl tonic::transport::server::Connected for PeerStream {
    type ConnectInfo = Peer;

    fn connect_info(&self) -> Peer {
        self.peer.clone()
    }
}

impl AsyncRead for PeerStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let read = Pin::new(&mut this.inner).poll_read(cx, buf);
        let Some(pending) = &mut this.pending else {
            return read;
        };
        match read {
            Poll::Ready(Ok(())) => {
                pending.left = pending.left.saturating_sub(buf.filled().len() - before);
                if pending.left == 0 {
                    let (slot, _) = pending.connections.take();
                    this._slot = Some(slot);
                    this.pending = None;
                }
                Poll::Ready(Ok(()))
            }
            Poll::Pending if pending.deadline.as_mut().poll(cx).is_ready() => Poll::Ready(Err(
                io::Error::new(io::ErrorKind::TimedOut, "no HTTP/2 preface in time"),
            )),
            other => other,
        }
    }
}

impl AsyncWrite for PeerStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_read_after_the_last_parenthesis() {
        assert_eq!(parse_stat("42 (sh) S 7 42 40 0 -1"), Some((7, 40)));
        assert_eq!(parse_stat("42 (a b) c) (d) R 9 1 3 0"), Some((9, 3)));
        assert_eq!(parse_stat("42 (sh"), None);
        assert_eq!(parse_stat("42 (sh) S 7 1"), None);
    }

    #[test]
    fn our_own_child_in_our_session_is_outside_and_a_pane_child_is_inside() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep");
        let pid = child.id();
        let mut seen = Vec::new();
        let origin = classify(
            pid,
            |chain| {
                seen = chain.to_vec();
                None
            },
            |_| None,
        );
        assert_eq!(origin, Origin::Outside);
        // The chain is the child alone: its parent is us.
        assert_eq!(seen, vec![pid]);
        let pane = PaneId::new();
        let found = pane.clone();
        let origin = classify(
            pid,
            move |chain| chain.contains(&pid).then_some(found),
            |_| None,
        );
        assert_eq!(origin, Origin::Pane(pane));
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(
            classify(std::process::id(), |_| None, |_| None),
            Origin::Outside
        );
    }

    #[test]
    fn the_walk_from_a_grandchild_names_it_then_its_parent() {
        let family = Grandchild::start();
        let (sleep, sh) = (family.pid, family.parent());
        let (chain, end) = walk(sleep, std::process::id());
        assert_eq!(chain, vec![sleep, sh]);
        assert_eq!(
            end,
            End::Server {
                session: own_session()
            }
        );
        // A pane whose child is sh holds sleep too.
        let (pane, sh_pid) = (PaneId::new(), sh);
        let found = pane.clone();
        let origin = classify(
            sleep,
            move |chain| chain.contains(&sh_pid).then_some(found),
            |_| None,
        );
        assert_eq!(origin, Origin::Pane(pane));
    }

    /// A grandchild of the test: `sh` (our child) starts `sleep` and waits for it; both are
    /// ended on drop.
    pub(crate) struct Grandchild {
        /// The sleep's pid.
        pub(crate) pid: u32,
        sh: std::process::Child,
    }

    impl Grandchild {
        pub(crate) fn start() -> Grandchild {
            let mut sh = std::process::Command::new("sh")
                .args(["-c", "sleep 30 & echo $!; wait"])
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("sh");
            let mut line = String::new();
            let stdout = sh.stdout.take().expect("stdout");
            std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)
                .expect("read");
            let pid = line.trim().parse().expect("pid");
            Grandchild { pid, sh }
        }

        /// The sh's pid (the grandchild's parent, our child).
        pub(crate) fn parent(&self) -> u32 {
            self.sh.id()
        }
    }

    impl Drop for Grandchild {
        fn drop(&mut self) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(self.pid as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
            let _ = self.sh.wait();
        }
    }

    #[test]
    fn a_process_that_cannot_be_read_is_escaped() {
        // Pid numbers wrap far below this on Linux (pid_max ≤ 2^22).
        assert_eq!(classify(u32::MAX - 1, |_| None, |_| None), Origin::Escaped);
    }
}
