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

/// `sched_setattr`'s flag: children start with the default policy and slice (uapi
/// `linux/sched.h`; not in the libc crate).
const SCHED_FLAG_RESET_ON_FORK: u64 = 0x01;

/// Asks the scheduler to treat the calling thread as latency-sensitive: a short time slice
/// (`sched_setattr` with `sched_runtime` on a normal-policy thread, Linux 6.12 and later), so a
/// keystroke or an echo that wakes it is run before a busy neighbour's slice ends instead of
/// after it. The thread's share of the CPU does not change (the nice value is kept), and
/// children do not inherit it (`SCHED_FLAG_RESET_ON_FORK`). Older kernels ignore the slice.
pub fn request_short_slice(slice: std::time::Duration) -> io::Result<()> {
    // SAFETY: errno is thread-local; clearing it tells a nice value of -1 from a failure.
    unsafe { *libc::__errno_location() = 0 };
    // SAFETY: getpriority takes plain integers and touches no memory of ours.
    let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    if nice == -1 {
        let err = io::Error::last_os_error();
        if err.raw_os_error() != Some(0) {
            return Err(err);
        }
    }
    let attr = libc::sched_attr {
        size: std::mem::size_of::<libc::sched_attr>() as u32,
        sched_policy: libc::SCHED_OTHER as u32,
        sched_flags: SCHED_FLAG_RESET_ON_FORK,
        sched_nice: nice,
        sched_priority: 0,
        sched_runtime: u64::try_from(slice.as_nanos()).unwrap_or(u64::MAX),
        sched_deadline: 0,
        sched_period: 0,
    };
    // SAFETY: sched_setattr(2) reads one `sched_attr` of the size given in it through the
    // pointer, which points at a live local; pid 0 is the calling thread; flags must be 0.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_sched_setattr,
            0,
            &attr as *const libc::sched_attr,
            0,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slice the kernel keeps for the calling thread, when it says (`se.slice`, ns).
    fn own_slice() -> Option<u64> {
        let text = std::fs::read_to_string("/proc/thread-self/sched").ok()?;
        let line = text.lines().find(|l| l.starts_with("se.slice"))?;
        line.split(':')
            .nth(1)?
            .trim()
            .parse::<f64>()
            .ok()
            .map(|v| v as u64)
    }

    #[test]
    fn a_short_slice_is_granted_to_the_calling_thread_only() {
        // A thread of its own, so the test harness's other threads keep theirs.
        std::thread::spawn(|| {
            let before = own_slice();
            request_short_slice(std::time::Duration::from_micros(100)).expect("sched_setattr");
            let Some(after) = own_slice() else {
                // No scheduler statistics here (or a kernel without the field): nothing to check.
                return;
            };
            if before.is_some_and(|b| b <= 100_000) {
                return;
            }
            // Kernels before 6.12 ignore the slice; those that know it keep 100 µs.
            assert!(
                after == 100_000 || Some(after) == before,
                "slice {after} ns"
            );
        })
        .join()
        .expect("thread");
    }
}
