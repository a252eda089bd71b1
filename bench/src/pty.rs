//! `PtyChild`: a process on its own pseudo-terminal, driven by a minimal blocking reader — the
//! raw-PTY baseline, and the terminal in which a `tmux attach` client runs.
//!
//! The reader is deliberately as cheap as a reader can be: a nonblocking master read straight
//! into one 64 KiB buffer, poll(2) only when nothing is ready, and a pattern search over the new
//! bytes plus a carry of `pattern.len() - 1` bytes so a pattern split across reads is still
//! found. Every wait has a deadline. Dropping a `PtyChild` hangs up its process group and reaps
//! it, SIGKILL after a grace period.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::pty::{Winsize, openpty};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::sys::controlling_terminal_on_exec;

/// Bytes asked for per read(2).
const CHUNK: usize = 64 * 1024;

/// A terminal size in character cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TermSize {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
}

/// The size every benchmark terminal uses, matching signaltty's default pane size.
pub const TERM_SIZE: TermSize = TermSize { cols: 80, rows: 24 };

/// A child process whose stdin, stdout and stderr are the slave of a fresh PTY, with the PTY as
/// its controlling terminal; this side holds the master.
pub struct PtyChild {
    master: File,
    child: Option<Child>,
    buf: Vec<u8>,
}

impl PtyChild {
    /// Starts `argv` on a new `size` PTY in its own session, with `TERM=xterm-256color` and
    /// without `$TMUX` (so a `tmux attach` never refuses to nest).
    pub fn spawn(argv: &[String], size: TermSize) -> anyhow::Result<Self> {
        Self::spawn_in(argv, size, None, &[])
    }

    /// [`PtyChild::spawn`] in directory `cwd` (when given) with `env` added (a client that must
    /// not see the user's home or config).
    pub fn spawn_in(
        argv: &[String],
        size: TermSize,
        cwd: Option<&std::path::Path>,
        env: &[(&str, std::ffi::OsString)],
    ) -> anyhow::Result<Self> {
        let (program, args) = argv.split_first().context("empty argv")?;
        let winsize = Winsize {
            ws_row: size.rows,
            ws_col: size.cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        let pty = openpty(&winsize, None).context("openpty")?;
        // openpty's descriptors are inherited by default: without this every later child (the
        // clients and servers under test) kept every earlier terminal's master open.
        for fd in [&pty.master, &pty.slave] {
            fcntl(fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)).context("close-on-exec")?;
        }
        let child = {
            let mut command = Command::new(program);
            command
                .args(args)
                .env("TERM", "xterm-256color")
                .env_remove("TMUX")
                .envs(env.iter().map(|(k, v)| (k, v)))
                .stdin(Stdio::from(pty.slave.try_clone()?))
                .stdout(Stdio::from(pty.slave.try_clone()?))
                .stderr(Stdio::from(pty.slave));
            if let Some(cwd) = cwd {
                command.current_dir(cwd);
            }
            controlling_terminal_on_exec(&mut command);
            // The command (and with it the parent's copies of the slave) is dropped at the end of
            // this block, so the master reads EIO once the child side closes.
            command
                .spawn()
                .with_context(|| format!("spawn {program}"))?
        };
        set_nonblocking(&pty.master)?;
        Ok(Self {
            master: File::from(pty.master),
            child: Some(child),
            buf: vec![0; CHUNK * 2],
        })
    }

    /// The child's pid (also its process group and session id).
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// Writes all of `data` to the master, as if typed.
    pub fn write_all(&mut self, data: &[u8], deadline: Instant) -> anyhow::Result<()> {
        let mut rest = data;
        while !rest.is_empty() {
            match self.master.write(rest) {
                Ok(n) => rest = &rest[n..],
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    wait_ready(&self.master, PollFlags::POLLOUT, deadline)?;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e).context("write to PTY master"),
            }
        }
        Ok(())
    }

    /// Reads and discards output until `pattern` has appeared; returns the bytes read.
    pub fn drain_until(&mut self, pattern: &[u8], deadline: Instant) -> anyhow::Result<u64> {
        let finder = memchr::memmem::Finder::new(pattern);
        let keep = pattern.len().saturating_sub(1);
        if self.buf.len() < CHUNK + keep {
            self.buf.resize(CHUNK + keep, 0);
        }
        let mut carry = 0;
        let mut total = 0u64;
        loop {
            let n = self
                .read_some(carry, deadline)
                .with_context(|| format!("waiting for {:?}", String::from_utf8_lossy(pattern)))?;
            total += n as u64;
            let filled = carry + n;
            if finder.find(&self.buf[..filled]).is_some() {
                return Ok(total);
            }
            carry = keep.min(filled);
            self.buf.copy_within(filled - carry..filled, 0);
        }
    }

    /// Types each keystroke in turn and measures how long until its last byte comes back in
    /// the output. The caller picks bytes that the program on the terminal echoes and that its
    /// escape sequences do not contain.
    pub fn echo_latencies(
        &mut self,
        keystrokes: &[Vec<u8>],
        deadline: Instant,
    ) -> anyhow::Result<Vec<Duration>> {
        let mut latencies = Vec::with_capacity(keystrokes.len());
        for keystroke in keystrokes {
            let &awaited = keystroke.last().context("empty keystroke")?;
            let start = Instant::now();
            self.write_all(keystroke, deadline)?;
            loop {
                let n = self.read_some(0, deadline).context("waiting for an echo")?;
                if memchr::memchr(awaited, &self.buf[..n]).is_some() {
                    break;
                }
            }
            latencies.push(start.elapsed());
        }
        Ok(latencies)
    }

    /// Reads whatever arrives before `deadline` (one read's worth); `None` when nothing did.
    /// Unlike the other reads, running out of time is not an error: a pump that drains a
    /// client's terminal continuously calls this in a loop.
    pub fn read_within(&mut self, deadline: Instant) -> anyhow::Result<Option<&[u8]>> {
        loop {
            match self.master.read(&mut self.buf[..CHUNK]) {
                Ok(0) => bail!("the terminal closed (EOF)"),
                Ok(n) => return Ok(Some(&self.buf[..n])),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if !poll_ready(&self.master, PollFlags::POLLIN, deadline)? {
                        return Ok(None);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.raw_os_error() == Some(libc::EIO) => {
                    bail!("the terminal hung up (the child exited)")
                }
                Err(e) => return Err(e).context("read from PTY master"),
            }
        }
    }

    /// Reads whatever is there (at least one byte) into `buf[offset..]`.
    fn read_some(&mut self, offset: usize, deadline: Instant) -> anyhow::Result<usize> {
        loop {
            let end = (offset + CHUNK).min(self.buf.len());
            match self.master.read(&mut self.buf[offset..end]) {
                Ok(0) => bail!("the terminal closed (EOF)"),
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    wait_ready(&self.master, PollFlags::POLLIN, deadline)?;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // EIO: every slave descriptor is closed, i.e. the child side is gone.
                Err(e) if e.raw_os_error() == Some(libc::EIO) => {
                    bail!("the terminal hung up (the child exited)")
                }
                Err(e) => return Err(e).context("read from PTY master"),
            }
        }
    }
}

impl Drop for PtyChild {
    fn drop(&mut self) {
        if let Some(child) = self.child.take() {
            end_process_group(child);
        }
    }
}

/// Hangs up a session-leader child's process group, then SIGKILLs it if it lingers, and reaps it.
pub fn end_process_group(mut child: Child) {
    let Ok(raw) = i32::try_from(child.id()) else {
        return;
    };
    let group = Pid::from_raw(raw);
    if matches!(child.try_wait(), Ok(None)) {
        let _ = killpg(group, Signal::SIGHUP);
        let _ = killpg(group, Signal::SIGCONT);
        let deadline = Instant::now() + Duration::from_secs(1);
        while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    // Even after the leader exited, stragglers of its group (e.g. a `cat`) must go too.
    let _ = killpg(group, Signal::SIGKILL);
    let _ = child.kill();
    let _ = child.wait();
}

fn set_nonblocking(fd: &OwnedFd) -> anyhow::Result<()> {
    let flags = OFlag::from_bits_truncate(fcntl(fd, FcntlArg::F_GETFL).context("F_GETFL")?);
    fcntl(fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK)).context("F_SETFL")?;
    Ok(())
}

/// Waits until `fd` is ready for `flags` or the deadline passes.
fn wait_ready(fd: &impl AsFd, flags: PollFlags, deadline: Instant) -> anyhow::Result<()> {
    if poll_ready(fd, flags, deadline)? {
        Ok(())
    } else {
        bail!("timed out")
    }
}

/// Whether `fd` became ready for `flags` before the deadline.
fn poll_ready(fd: &impl AsFd, flags: PollFlags, deadline: Instant) -> anyhow::Result<bool> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(false);
        }
        let millis = u16::try_from(left.as_millis().max(1)).unwrap_or(u16::MAX);
        let mut fds = [PollFd::new(fd.as_fd(), flags)];
        match poll(&mut fds, PollTimeout::from(millis)) {
            Ok(0) | Err(nix::errno::Errno::EINTR) => {}
            // Readable, writable, or hung up: the next read/write tells which.
            Ok(_) => return Ok(true),
            Err(e) => return Err(e).context("poll"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn finds_a_marker_split_across_reads() -> anyhow::Result<()> {
        // Two printf calls make two writes, so the marker spans a read boundary whenever the
        // reader catches the first write alone; either way it must be found exactly once.
        let mut pty = PtyChild::spawn(
            &argv(&[
                "sh",
                "-c",
                "printf 'xxBENCH-'; sleep 0.05; printf '7-DONE\\n'",
            ]),
            TERM_SIZE,
        )?;
        let deadline = Instant::now() + Duration::from_secs(10);
        let bytes = pty.drain_until(b"BENCH-7-DONE", deadline)?;
        assert!(bytes >= 14, "read {bytes} bytes");
        Ok(())
    }

    #[test]
    fn echo_round_trips_through_a_raw_cat() -> anyhow::Result<()> {
        let mut pty = PtyChild::spawn(
            &argv(&["sh", "-c", "stty raw -echo; echo READY; exec cat"]),
            TERM_SIZE,
        )?;
        let deadline = Instant::now() + Duration::from_secs(10);
        pty.drain_until(b"READY", deadline)?;
        let keys: Vec<Vec<u8>> = [&b"v"[..], b"w", b"\rx"]
            .iter()
            .map(|k| k.to_vec())
            .collect();
        let latencies = pty.echo_latencies(&keys, deadline)?;
        assert_eq!(latencies.len(), 3);
        Ok(())
    }

    #[test]
    fn a_child_that_exits_early_is_an_error_not_a_hang() -> anyhow::Result<()> {
        let mut pty = PtyChild::spawn(&argv(&["true"]), TERM_SIZE)?;
        let deadline = Instant::now() + Duration::from_secs(10);
        assert!(pty.drain_until(b"never", deadline).is_err());
        Ok(())
    }
}
