//! The only `unsafe` in the benchmark: the pre-exec hook that makes a child a session leader
//! with its PTY slave (already on fd 0) as controlling terminal, as a terminal emulator does.
#![allow(unsafe_code)]

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// Arranges for the child, between fork and exec, to call setsid(2) and take fd 0 (the PTY
/// slave) as its controlling terminal, and to reset every signal disposition to the default.
pub fn controlling_terminal_on_exec(command: &mut Command) {
    // SAFETY: the hook runs in the forked child of a multithreaded process, where only
    // async-signal-safe functions may be called. It calls only setsid(2), ioctl(2) and signal(2)
    // (all async-signal-safe), allocates nothing, takes no lock and touches no shared state;
    // `io::Error::last_os_error` only reads errno.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                return Err(io::Error::last_os_error());
            }
            for sig in 1..32 {
                if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                    libc::signal(sig, libc::SIG_DFL);
                }
            }
            Ok(())
        });
    }
}
