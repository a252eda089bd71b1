//! Reading the keyboard without a thread: the terminal on stdin, reopened non-blocking and read
//! from the async task that sends the keys on.
//!
//! Why reopen: `O_NONBLOCK` belongs to an open file description, which stdin shares with the
//! shell that started us; setting it on fd 0 would leave the shell's terminal non-blocking after
//! we exit (or crash). Opening the same terminal device again (`/proc/self/fd/0`) gives a
//! description of our own. It is registered with tokio's reactor for readability only, so a
//! keystroke wakes the task that forwards it: no reader thread, no channel hop between them, and
//! one reused buffer.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

/// Bytes read per wake-up; a paste larger than this arrives in several reads.
const READ_BUFFER: usize = 4096;

/// The terminal on stdin, readable from async code.
#[derive(Debug)]
pub struct TtyInput {
    tty: AsyncFd<File>,
    buf: Box<[u8]>,
}

impl TtyInput {
    /// Opens the terminal on stdin again, non-blocking, and registers it with the current tokio
    /// runtime.
    pub fn open_stdin() -> io::Result<TtyInput> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
            .open("/proc/self/fd/0")?;
        Ok(TtyInput {
            tty: crate::sys::register_file(file, Interest::READABLE)?,
            buf: vec![0; READ_BUFFER].into_boxed_slice(),
        })
    }

    /// Waits for input and returns what is there; an empty slice when the terminal is gone
    /// (hung up). Cancel-safe: nothing is read until the terminal is readable.
    pub async fn read(&mut self) -> io::Result<&[u8]> {
        let n = loop {
            let mut guard = self.tty.readable().await?;
            match guard.try_io(|tty| tty.get_ref().read(&mut self.buf)) {
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
}
