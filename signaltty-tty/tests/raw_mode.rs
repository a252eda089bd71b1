//! The raw-mode guard on a real PTY: raw while it lives, the exact settings back after, once.
//! One test (raw mode is process-wide, and this file is a process of its own).

#![allow(clippy::expect_used)]

use nix::sys::termios::{self, LocalFlags, OutputFlags, Termios};
use signaltty_tty::raw_mode::{self, RawMode};

fn settings(fd: &std::os::fd::OwnedFd) -> Termios {
    termios::tcgetattr(fd).expect("tcgetattr")
}

/// The parts of the settings the guard changes and must put back.
fn flags(t: &Termios) -> (u64, u64, u64, u64) {
    (
        u64::from(t.input_flags.bits()),
        u64::from(t.output_flags.bits()),
        u64::from(t.local_flags.bits()),
        u64::from(t.control_flags.bits()),
    )
}

#[test]
fn the_guard_makes_the_terminal_raw_and_restores_its_exact_settings_once() {
    let pty = nix::pty::openpty(None, None).expect("openpty");
    let before = settings(&pty.slave);
    assert!(
        before
            .local_flags
            .contains(LocalFlags::ICANON | LocalFlags::ECHO)
    );

    let guard = RawMode::enter_on(std::os::fd::AsFd::as_fd(&pty.slave)).expect("raw");
    let raw = settings(&pty.slave);
    assert!(
        !raw.local_flags
            .intersects(LocalFlags::ICANON | LocalFlags::ECHO | LocalFlags::ISIG)
    );
    assert!(!raw.output_flags.contains(OutputFlags::OPOST));
    assert!(raw_mode::is_on());
    assert!(
        RawMode::enter_on(std::os::fd::AsFd::as_fd(&pty.slave)).is_err(),
        "a second guard is refused while the first lives"
    );

    drop(guard);
    assert_eq!(
        flags(&settings(&pty.slave)),
        flags(&before),
        "dropped: restored"
    );
    assert!(!raw_mode::is_on());
    assert!(!raw_mode::restore(), "nothing left to restore");

    // A way out without the guard (a panic hook, a signal) restores first, runs its resets
    // while the terminal is still raw, and the guard's drop after it changes nothing.
    let guard = RawMode::enter_on(std::os::fd::AsFd::as_fd(&pty.slave)).expect("raw again");
    let mut raw_during_before = None;
    assert!(raw_mode::restore_with(|| {
        raw_during_before = Some(
            !settings(&pty.slave)
                .local_flags
                .contains(LocalFlags::ICANON),
        );
    }));
    assert_eq!(
        raw_during_before,
        Some(true),
        "`before` runs while still raw"
    );
    assert_eq!(flags(&settings(&pty.slave)), flags(&before));
    // Someone else changes the terminal now: the late drop must not touch it.
    let mut other = before.clone();
    other.local_flags.remove(LocalFlags::ECHO);
    termios::tcsetattr(&pty.slave, termios::SetArg::TCSANOW, &other).expect("set");
    drop(guard);
    assert_eq!(
        flags(&settings(&pty.slave)),
        flags(&other),
        "restored once only"
    );
}
