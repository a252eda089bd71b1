//! This crate's only `unsafe` code, kept in one place: a terminal's size (an ioctl nix does
//! not wrap) and registering a file with tokio's reactor.

#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, AsRawFd};

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

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

/// Registers an open file with the current tokio reactor for `interest` only.
pub(crate) fn register_file(file: File, interest: Interest) -> io::Result<AsyncFd<File>> {
    // SAFETY: the `File` owns its descriptor and moves into the `AsyncFd`, so the descriptor
    // stays open, and names the same file description, until the `AsyncFd` is dropped; nothing
    // else closes it.
    unsafe { AsyncFd::register_with_interest(file, interest) }.map_err(io::Error::from)
}

/// Takes ownership of a descriptor the kernel just installed in our table (SCM_RIGHTS).
pub(crate) fn own_received_fd(fd: std::os::fd::RawFd) -> std::os::fd::OwnedFd {
    use std::os::fd::FromRawFd;
    // SAFETY: a descriptor received with SCM_RIGHTS is new in this process's table and
    // referenced by nothing else; it is wrapped exactly once, right after `recvmsg`.
    unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }
}
