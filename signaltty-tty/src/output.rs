//! Writing to the terminal on stdout without ever blocking the task that also reads the
//! connection and the keyboard: a backlog of bytes not yet taken by the terminal, written with
//! non-blocking writes.
//!
//! Why: a terminal that reads slower than the pane prints (a slow emulator, a remote link,
//! scroll-lock) used to block the attach task in `write(2)`; it then stopped reading the
//! connection too, and the terminal was fed every byte eventually, however late. With a
//! backlog the caller can see that the terminal is behind ([`TtyOutput::pending`]) and decide
//! to stop feeding it (skip to a fresh screen, as tmux does: `signaltty_client::catch_up`
//! for the CLI, the server's `terminal` module after a hand-off).
//!
//! As with keyboard input (`input`), the terminal is opened again (`/proc/self/fd/1`) so
//! that `O_NONBLOCK` is set on a file description of our own, not on the shell's. The
//! descriptor is *not* kept in the reactor: a terminal reports "writable" each time its reader
//! takes bytes, so a registered descriptor would wake this process after every echo. Only a
//! write that finds the terminal full registers a duplicate for writability, dropped again once
//! the backlog is written (the same idea as `signaltty_proto::QuietStream` for sockets).
//!
//! When the terminal cannot be opened again (after `su` it belongs to another user), writes
//! go to stdout and block, as before: nothing is ever pending then.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

/// The terminal on stdout, written without blocking.
#[derive(Debug)]
pub struct TtyOutput {
    sink: Sink,
    /// Bytes accepted but not yet written; `backlog[done..]` is what is left.
    backlog: Vec<u8>,
    done: usize,
    /// A duplicate of the terminal in the reactor, only while a write waits for room.
    waiter: Option<AsyncFd<File>>,
    /// Bytes the terminal took, in total.
    written: u64,
}

#[derive(Debug)]
enum Sink {
    /// Our own non-blocking description of the terminal.
    NonBlocking(File),
    /// Stdout, blocking (the terminal could not be opened again).
    Blocking,
}

impl TtyOutput {
    /// Opens the terminal on stdout again, non-blocking; falls back to blocking writes on
    /// stdout when it cannot be opened again.
    pub fn open_stdout() -> TtyOutput {
        let sink = match open_for_writing(Path::new("/proc/self/fd/1")) {
            Ok(file) => Sink::NonBlocking(file),
            Err(_) => Sink::Blocking,
        };
        TtyOutput::with_sink(sink)
    }

    /// Opens the terminal at `path` again (`/proc/self/fd/N` names a descriptor this process
    /// holds, such as one handed over by a client), non-blocking. An error when it cannot be
    /// opened again or is not a terminal.
    pub fn reopen(path: &Path) -> io::Result<TtyOutput> {
        Ok(TtyOutput::with_sink(Sink::NonBlocking(open_for_writing(
            path,
        )?)))
    }

    /// Writes to `fd`, a descriptor whose file description is shared with another process
    /// and already non-blocking (a pane's input handed over by the server: `direct`). Its
    /// flags are never changed here — clearing `O_NONBLOCK` would clear it for the server's
    /// reader too — so a description that is not non-blocking is refused.
    pub fn shared_nonblocking(fd: std::os::fd::OwnedFd) -> io::Result<TtyOutput> {
        let flags =
            nix::fcntl::fcntl(&fd, nix::fcntl::FcntlArg::F_GETFL).map_err(io::Error::from)?;
        if flags & libc::O_NONBLOCK == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the descriptor is not non-blocking",
            ));
        }
        Ok(TtyOutput::with_sink(Sink::NonBlocking(File::from(fd))))
    }

    /// Takes the bytes not yet written (the backlog is empty afterwards), to send them another
    /// way in the same order.
    pub fn take_backlog(&mut self) -> Vec<u8> {
        let mut backlog = std::mem::take(&mut self.backlog);
        backlog.drain(..self.done);
        self.done = 0;
        self.waiter = None;
        backlog
    }

    fn with_sink(sink: Sink) -> TtyOutput {
        TtyOutput {
            sink,
            backlog: Vec::new(),
            done: 0,
            waiter: None,
            written: 0,
        }
    }

    /// True when writes never block the caller (the terminal was opened again).
    pub fn is_non_blocking(&self) -> bool {
        matches!(self.sink, Sink::NonBlocking(_))
    }

    /// Queues `data` and writes as much of the backlog as the terminal takes now.
    pub fn push(&mut self, data: &[u8]) -> io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        match &self.sink {
            Sink::Blocking => {
                let mut stdout = io::stdout().lock();
                stdout.write_all(data)?;
                stdout.flush()?;
                self.written += data.len() as u64;
                Ok(())
            }
            Sink::NonBlocking(file) => {
                if self.pending() > 0 {
                    self.backlog.extend_from_slice(data);
                    return self.write_now().map(|_| ());
                }
                // Nothing waiting: write straight from `data`, keep only what the terminal
                // did not take (no copy of what passes at once, the common case).
                let mut done = 0;
                while done < data.len() {
                    match (&*file).write(&data[done..]) {
                        Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                        Ok(n) => done += n,
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                self.written += done as u64;
                self.backlog.clear();
                self.done = 0;
                self.backlog.extend_from_slice(&data[done..]);
                Ok(())
            }
        }
    }

    /// Forgets the backlog (the terminal is too far behind for it to matter); returns how many
    /// bytes were dropped. The terminal may have been cut in the middle of a sequence.
    pub fn discard(&mut self) -> usize {
        let dropped = self.pending();
        self.backlog.clear();
        self.done = 0;
        dropped
    }

    /// Bytes accepted but not yet taken by the terminal.
    pub fn pending(&self) -> usize {
        self.backlog.len() - self.done
    }

    /// Bytes the terminal took so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Waits until the terminal takes more of the backlog and writes what it takes; returns at
    /// once when nothing is pending. Cancel-safe (usable in `tokio::select!`): bytes are only
    /// counted as written once `write(2)` took them.
    pub async fn flush_some(&mut self) -> io::Result<()> {
        loop {
            if self.pending() == 0 {
                self.waiter = None;
                return Ok(());
            }
            let Sink::NonBlocking(file) = &self.sink else {
                return Ok(());
            };
            if self.waiter.is_none() {
                let dup = file.try_clone()?;
                self.waiter = Some(crate::sys::register_file(dup, Interest::WRITABLE)?);
            }
            if let Some(waiter) = &self.waiter {
                let mut ready = waiter.writable().await?;
                ready.clear_ready();
            }
            if self.write_now()? > 0 {
                if self.pending() == 0 {
                    self.waiter = None;
                }
                return Ok(());
            }
        }
    }

    /// Writes until the terminal is full or the backlog is empty; the bytes written.
    fn write_now(&mut self) -> io::Result<usize> {
        let Sink::NonBlocking(file) = &self.sink else {
            return Ok(0);
        };
        let mut total = 0;
        while self.done < self.backlog.len() {
            match (&*file).write(&self.backlog[self.done..]) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    self.done += n;
                    total += n;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.written += total as u64;
        if self.done == self.backlog.len() {
            self.backlog.clear();
            self.done = 0;
        } else if self.done > 64 * 1024 && self.done > self.backlog.len() / 2 {
            // Keep the backlog from growing at its front forever.
            self.backlog.drain(..self.done);
            self.done = 0;
        }
        Ok(total)
    }
}

/// Opens the terminal at `path` again for writing, non-blocking.
/// Opens the terminal at `path` again for writing: a description of our own, non-blocking,
/// close-on-exec, never our controlling terminal. An error when it is not a terminal (a pipe or
/// a file is refused: `Unsupported`).
pub fn open_for_writing(path: &Path) -> io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)?;
    // Only a terminal: a pipe or a file on stdout is written the ordinary way.
    if !nix::unistd::isatty(file.as_fd()).unwrap_or(false) {
        return Err(io::ErrorKind::Unsupported.into());
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;
    use std::time::Duration;

    fn on_pty() -> (nix::pty::OpenptyResult, TtyOutput) {
        let pty = nix::pty::openpty(None, None).expect("openpty");
        // Raw, so that the bytes read back are the bytes written (no ONLCR).
        let mut t = nix::sys::termios::tcgetattr(&pty.slave).expect("tcgetattr");
        nix::sys::termios::cfmakeraw(&mut t);
        nix::sys::termios::tcsetattr(&pty.slave, nix::sys::termios::SetArg::TCSANOW, &t)
            .expect("raw");
        let path = format!("/proc/self/fd/{}", pty.slave.as_raw_fd());
        let out = TtyOutput::with_sink(Sink::NonBlocking(
            open_for_writing(Path::new(&path)).expect("open"),
        ));
        (pty, out)
    }

    #[tokio::test]
    async fn a_terminal_that_is_not_read_fills_up_and_the_rest_waits_in_the_backlog() {
        let (pty, mut out) = on_pty();
        assert!(out.is_non_blocking());
        out.push(b"hello").expect("push");
        assert_eq!(out.pending(), 0, "a small write goes straight through");
        // Far more than a terminal buffers: the push returns at once with a backlog.
        let big = vec![b'x'; 4 * 1024 * 1024];
        out.push(&big).expect("push");
        assert!(out.pending() > 0, "the terminal is full");
        let backlog = out.pending();
        // A reader on the other side drains it; the backlog is then written to the end.
        let master = pty.master;
        let reader = std::thread::spawn(move || {
            let mut master = File::from(master);
            let mut got = 0usize;
            let mut buf = vec![0u8; 65536];
            while got < 5 + 4 * 1024 * 1024 {
                let n = std::io::Read::read(&mut master, &mut buf).expect("read");
                got += n;
            }
            got
        });
        while out.pending() > 0 {
            tokio::time::timeout(Duration::from_secs(30), out.flush_some())
                .await
                .expect("the reader makes room")
                .expect("write");
        }
        assert!(backlog > 0);
        assert_eq!(out.written(), 5 + 4 * 1024 * 1024);
        assert_eq!(reader.join().expect("reader"), 5 + 4 * 1024 * 1024);
        assert!(out.waiter.is_none(), "out of the reactor once caught up");
    }
}
