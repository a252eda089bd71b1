//! The only `unsafe` in the pane layer, kept to four small wrappers with a `SAFETY` note each:
//! the pre-exec hook that makes the child a session leader with the PTY as its controlling
//! terminal, the `TIOCSWINSZ` ioctl, registering descriptors with tokio's reactor,
//! and `pidfd_open`.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::Command;

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

use super::spawn::PtySize;

nix::ioctl_write_ptr_bad!(tiocswinsz, libc::TIOCSWINSZ, libc::winsize);

/// Arranges for the child, between fork and exec, to start a new session (so it has no
/// controlling terminal and leads its own process group), take its stdin — the PTY slave — as
/// controlling terminal, and reset every signal disposition to the default (ignored signals
/// survive exec, and a daemon may well ignore SIGHUP or SIGINT; the child must not inherit that).
pub(super) fn become_session_leader_on_exec(command: &mut Command) {
    // SAFETY: the hook runs in the forked child of a multithreaded process, where only
    // async-signal-safe functions may be called. It calls only setsid(2), ioctl(2) and signal(2)
    // (all async-signal-safe), allocates nothing, takes no lock and touches no shared state;
    // `io::Error::last_os_error` only reads errno.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            // fd 0 is the slave: std dup2'd it there before running this hook.
            if libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                return Err(io::Error::last_os_error());
            }
            // Standard signals only: 32 and up are glibc-internal or real-time, never ignored.
            for sig in 1..32 {
                if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                    libc::signal(sig, libc::SIG_DFL);
                }
            }
            Ok(())
        });
    }
}

/// Sets the terminal size on the master; the kernel sends SIGWINCH to the foreground process
/// group when it changes.
pub(super) fn set_window_size(master: BorrowedFd<'_>, size: PtySize) -> nix::Result<()> {
    let winsize = libc::winsize {
        ws_row: size.rows,
        ws_col: size.cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: `master` is a live descriptor borrowed for the call, and `winsize` is a valid,
    // initialised struct that outlives it; TIOCSWINSZ only reads through the pointer.
    unsafe { tiocswinsz(master.as_raw_fd(), &winsize) }.map(drop)
}

/// Registers a descriptor with the current tokio reactor for the given readiness only (the input
/// copy of the master for writability while a write waits, so output arriving on the same
/// terminal never wakes the writer; the reader's copy and the pidfd for readability; a copy of
/// the git watcher's inotify descriptor).
pub(crate) fn register(fd: OwnedFd, interest: Interest) -> io::Result<AsyncFd<OwnedFd>> {
    // SAFETY: the `AsyncFd` takes ownership of the `OwnedFd`, so the descriptor stays open and
    // refers to the same file description until the `AsyncFd` is dropped, and `as_raw_fd` keeps
    // returning that same number; nothing else closes it.
    unsafe { AsyncFd::register_with_interest(fd, interest) }.map_err(io::Error::from)
}

/// A pidfd for `pid` (Linux ≥ 5.3): readable once the process has exited, so its exit can be
/// awaited in the reactor instead of a blocked thread. Close-on-exec.
pub(super) fn pidfd_open(pid: nix::unistd::Pid) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open(2) takes a pid and flags by value and touches no memory of ours.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid.as_raw(), 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = i32::try_from(fd).map_err(|_| io::Error::other("pidfd out of range"))?;
    // SAFETY: the syscall just returned this descriptor; nothing else owns it.
    Ok(unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) })
}
