//! Reading the keyboard without a thread: the terminal on stdin, reopened non-blocking and read
//! from the async task that sends the keys on.
//!
//! Why reopen: `O_NONBLOCK` belongs to an open file description, which stdin shares with the
//! shell that started us; setting it on fd 0 would leave the shell's terminal non-blocking after
//! we exit (or crash). Opening the same terminal device again (`/proc/self/fd/0`) gives a
//! description of our own. It is registered with tokio's reactor for readability only, so a
//! keystroke wakes the task that forwards it: no reader thread, no channel hop between them, and
//! one reused buffer.
//!
//! When the terminal cannot be opened again (after `su`, the terminal device still belongs to
//! the first user), stdin is read on a thread that hands chunks over a channel instead, as the
//! CLI always did before.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::sync::mpsc;

/// Bytes read per wake-up; a paste larger than this arrives in several reads.
const READ_BUFFER: usize = 4096;

/// The terminal on stdin, readable from async code.
#[derive(Debug)]
pub struct TtyInput {
    source: Source,
    buf: Vec<u8>,
}

#[derive(Debug)]
enum Source {
    /// Our own non-blocking description of the terminal, in the reactor.
    Reactor(AsyncFd<File>),
    /// A thread blocked in `read(0)`, sending what it reads.
    Thread(mpsc::Receiver<Vec<u8>>),
}

impl TtyInput {
    /// Opens the terminal on stdin again, non-blocking, and registers it with the current tokio
    /// runtime; falls back to a reader thread when it cannot be opened again.
    pub fn open_stdin() -> io::Result<TtyInput> {
        let source = match open_nonblocking(Path::new("/proc/self/fd/0")) {
            Ok(tty) => Source::Reactor(tty),
            Err(_) => Source::Thread(spawn_stdin_reader()),
        };
        Ok(TtyInput {
            source,
            buf: vec![0; READ_BUFFER],
        })
    }

    /// Opens the terminal at `path` again (`/proc/self/fd/N` names a descriptor this process
    /// holds, such as one handed over by a client), non-blocking, in the reactor. No thread
    /// fallback: an error when it cannot be opened again or is not a terminal.
    pub fn reopen(path: &Path) -> io::Result<TtyInput> {
        Ok(TtyInput {
            source: Source::Reactor(open_nonblocking(path)?),
            buf: vec![0; READ_BUFFER],
        })
    }

    /// Reads at most `n` bytes at a time (at least 1), e.g. so that what is read always fits a
    /// protocol line.
    pub fn reading_at_most(mut self, n: usize) -> TtyInput {
        self.buf.truncate(n.max(1));
        self
    }

    /// True when keys are read in the reactor (no thread).
    pub fn is_threadless(&self) -> bool {
        matches!(self.source, Source::Reactor(_))
    }

    /// Waits for input and returns what is there; an empty slice when the terminal is gone
    /// (hung up, or stdin closed). Cancel-safe: nothing is consumed until it is returned.
    pub async fn read(&mut self) -> io::Result<&[u8]> {
        match &mut self.source {
            Source::Reactor(tty) => {
                let n = loop {
                    let mut guard = tty.readable().await?;
                    match guard.try_io(|tty| tty.get_ref().read(&mut self.buf)) {
                        // A read that did not fill the buffer took all the terminal had: the
                        // next read waits in the reactor instead of paying a read(2) that only
                        // says EAGAIN. Keys typed meanwhile set a newer readiness, kept.
                        Ok(Ok(n)) if n > 0 && n < self.buf.len() => {
                            guard.clear_ready();
                            break n;
                        }
                        Ok(Ok(n)) => break n,
                        // A hung-up terminal reads as EIO.
                        Ok(Err(e)) if e.raw_os_error() == Some(libc::EIO) => break 0,
                        Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                        Ok(Err(e)) => return Err(e),
                        Err(_would_block) => {}
                    }
                };
                Ok(&self.buf[..n])
            }
            Source::Thread(chunks) => {
                self.buf = chunks.recv().await.unwrap_or_default();
                Ok(&self.buf)
            }
        }
    }
}

/// Opens the terminal at `path` again, non-blocking, in the reactor.
fn open_nonblocking(path: &Path) -> io::Result<AsyncFd<File>> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)?;
    if !nix::unistd::isatty(&file).unwrap_or(false) {
        return Err(io::ErrorKind::Unsupported.into());
    }
    crate::sys::register_file(file, Interest::READABLE)
}

/// Reads stdin on a plain thread (a blocking read cannot be cancelled; the thread simply dies
/// with the process) and hands chunks to the async side. The receiver yields `None` at EOF.
fn spawn_stdin_reader() -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel(16);
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buf = [0u8; READ_BUFFER];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.blocking_send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    rx
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[tokio::test]
    async fn keys_typed_on_a_terminal_are_read_without_making_its_fd_non_blocking() {
        let pty = nix::pty::openpty(None, None).expect("openpty");
        let path = format!("/proc/self/fd/{}", pty.slave.as_raw_fd());
        let mut input = TtyInput {
            source: Source::Reactor(open_nonblocking(Path::new(&path)).expect("reopen")),
            buf: vec![0; READ_BUFFER],
        };
        assert!(input.is_threadless());
        // A line: the terminal is in canonical mode, as a fresh one is.
        nix::unistd::write(&pty.master, b"ab\n").expect("type");
        let mut got = Vec::new();
        while got.len() < 3 {
            let chunk = tokio::time::timeout(std::time::Duration::from_secs(10), input.read())
                .await
                .expect("keys arrive")
                .expect("read");
            got.extend_from_slice(chunk);
        }
        assert_eq!(got, b"ab\n");
        // The description we were given (the shell's stdin, here the slave) stays blocking.
        let flags = nix::fcntl::fcntl(&pty.slave, nix::fcntl::FcntlArg::F_GETFL).expect("flags");
        assert_eq!(flags & libc::O_NONBLOCK, 0);
    }

    #[tokio::test]
    async fn a_hung_up_terminal_reads_as_the_end() {
        let pty = nix::pty::openpty(None, None).expect("openpty");
        let path = format!("/proc/self/fd/{}", pty.slave.as_raw_fd());
        let mut input = TtyInput {
            source: Source::Reactor(open_nonblocking(Path::new(&path)).expect("reopen")),
            buf: vec![0; READ_BUFFER],
        };
        drop(pty.master);
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(10), input.read())
            .await
            .expect("the hang-up is seen")
            .expect("read");
        assert!(chunk.is_empty());
    }
}
