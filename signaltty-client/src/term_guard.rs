//! A terminal that outlives its client: when a client that switched the terminal to raw mode
//! (the TUI, `signaltty attach`) dies without restoring it — SIGKILL, the OOM killer — a small
//! guard process puts it back: the termios it had before (`stty` with what `stty -g` said
//! before raw mode), out of the alternate screen, mouse reporting, bracketed paste, focus
//! reports and keyboard protocols off, the cursor shown.
//!
//! The guard is `/bin/sh` in a session of its own (so no job-control signal stops it when it
//! sets the terminal, and the terminal's hang-up does not reach it with ours), its stdout a
//! duplicate of the client's terminal, its stdin the read end of a pipe whose write end only
//! the client holds (close-on-exec: no other child inherits it). It blocks reading that pipe:
//! the client's death closes it (end of file) and the guard restores; a client that restored
//! the terminal itself sends `disarm` first, and the guard exits without touching anything —
//! a shell's line editor may own the terminal's settings by then.
//!
//! Nothing polls: the guard sleeps in read(2) for the client's whole life.

use std::io::Write;
use std::os::fd::AsFd;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;

/// What the guard does after the client died, `$1` the saved settings, `$2` the bytes to
/// write (escape sequences, passed as printf's format with `%` doubled).
///
/// The escape sequences go first, in one write of a shell builtin: the pipe closes while the
/// client exits, before its parent (the user's shell) hears of it, and what the shell prints
/// next must land on the main screen, not on an alternate screen left behind and then left.
const SCRIPT: &str =
    "read -r cmd; [ \"$cmd\" = disarm ] && exit 0; printf \"$2\"; stty \"$1\" <&1 2>/dev/null";

struct Armed {
    pipe: std::io::PipeWriter,
    child: Child,
}

static ARMED: Mutex<Option<Armed>> = Mutex::new(None);

/// Starts the guard for the terminal on stdin/stdout, to write `reset` (escape sequences) and
/// put back the terminal's current settings if this process dies without [`disarm`]. Call it
/// before switching to raw mode. Fails quietly (`false`) where there is no terminal or no
/// `/bin/sh`: the client then only restores on the ways out it sees.
pub fn arm(reset: &[u8]) -> bool {
    disarm();
    let Ok(saved) = Command::new("stty")
        .arg("-g")
        .stdin(match std::io::stdin().as_fd().try_clone_to_owned() {
            Ok(fd) => Stdio::from(fd),
            Err(_) => return false,
        })
        .stderr(Stdio::null())
        .output()
    else {
        return false;
    };
    if !saved.status.success() {
        return false;
    }
    let saved = String::from_utf8_lossy(&saved.stdout).trim().to_owned();
    let Ok(tty) = std::io::stdout().as_fd().try_clone_to_owned() else {
        return false;
    };
    let Ok((reader, pipe)) = std::io::pipe() else {
        return false;
    };
    let mut command = Command::new("/bin/sh");
    command
        .args([
            "-c",
            SCRIPT,
            "signaltty-term-guard",
            &saved,
            &printf_format(reset),
        ])
        .stdin(Stdio::from(reader))
        .stdout(Stdio::from(tty))
        .stderr(Stdio::null());
    crate::sys::detach_into_new_session(&mut command);
    match command.spawn() {
        Ok(child) => {
            *lock() = Some(Armed { pipe, child });
            true
        }
        Err(_) => false,
    }
}

/// Tells the guard the terminal was restored by us: it exits without touching it. Idempotent.
pub fn disarm() {
    let Some(mut armed) = lock().take() else {
        return;
    };
    let _ = armed.pipe.write_all(b"disarm\n");
    drop(armed.pipe);
    // It exits at once; reaped here so that no zombie stays behind.
    let _ = armed.child.wait();
}

/// The guard's process id while armed (for tests).
pub fn pid() -> Option<u32> {
    lock().as_ref().map(|a| a.child.id())
}

fn lock() -> std::sync::MutexGuard<'static, Option<Armed>> {
    ARMED.lock().unwrap_or_else(|p| p.into_inner())
}

/// Bytes as a printf format: octal escapes for everything but plain printable ASCII (so no
/// byte is taken for a format directive or lost by the shell).
fn printf_format(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        if b.is_ascii_graphic() && b != b'%' && b != b'\\' || b == b' ' {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\{b:03o}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_survives_printf() {
        let bytes = b"\x1b[?1049l\x1b[?25h 100% \\ \x0f\xff";
        let format = printf_format(bytes);
        assert!(format.is_ascii() && !format.contains('%') || format.contains("\\045"));
        let out = Command::new("/bin/sh")
            .args(["-c", "printf \"$1\"", "sh", &format])
            .output()
            .unwrap();
        assert_eq!(out.stdout, bytes);
    }
}
