//! The client crate's only `unsafe` code, kept in one place: operating-system calls that nix
//! 0.32, tokio and std do not wrap safely (starting a child in a new session).

#![allow(unsafe_code)]

use std::os::unix::process::CommandExt;
use std::process::Command;

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

/// The size of the terminal on stdout (or stdin), if either is one, as (cols, rows).
pub fn terminal_size() -> Option<(u16, u16)> {
    signaltty_tty::window_size(std::io::stdout())
        .or_else(|| signaltty_tty::window_size(std::io::stdin()))
}
