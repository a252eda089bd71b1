//! The client crate's only `unsafe` code, kept in one place: operating-system calls that nix
//! 0.32, tokio and std do not wrap safely (starting a child in a new session, reading a
//! terminal's size, registering a file with tokio's reactor).

#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

/// Makes `command` start in a new session (`setsid`), with no controlling terminal, so that the
/// server survives the terminal that started it closing and never receives its job-control
/// signals.
pub fn detach_into_new_session(command: &mut Command) {
    // SAFETY: the closure runs between fork and exec in the child, where only
    // async-signal-safe calls are allowed; setsid(2) is one, and the closure allocates nothing.
    unsafe {
        command.pre_exec(|| {
            nix::unistd::setsid().map_err(std::io::Error::from)?;
            Ok(())
        });
    }
}

/// The size of the terminal on `fd` as (cols, rows), or `None` when it is not a terminal.
pub fn window_size(fd: impl AsFd) -> Option<(u16, u16)> {
    let mut ws = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` through the pointer, which points at a live,
    // properly aligned local; the fd is borrowed for the duration of the call.
    let rc = unsafe { libc::ioctl(fd.as_fd().as_raw_fd(), libc::TIOCGWINSZ, &mut ws) };
    (rc == 0 && ws.ws_col > 0 && ws.ws_row > 0).then_some((ws.ws_col, ws.ws_row))
}

/// The size of the terminal on stdout (or stdin), if either is one, as (cols, rows).
pub fn terminal_size() -> Option<(u16, u16)> {
    window_size(std::io::stdout()).or_else(|| window_size(std::io::stdin()))
}

/// Registers an open file with the current tokio reactor for `interest` only.
pub fn register_file(file: File, interest: Interest) -> io::Result<AsyncFd<File>> {
    // SAFETY: the `File` owns its descriptor and moves into the `AsyncFd`, so the descriptor
    // stays open, and names the same file description, until the `AsyncFd` is dropped; nothing
    // else closes it.
    unsafe { AsyncFd::register_with_interest(file, interest) }.map_err(io::Error::from)
}
