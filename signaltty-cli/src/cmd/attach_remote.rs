//! `signaltty --remote NAME attach PANE`: the attach runs on the remote machine, in a terminal
//! ssh gives it (`ssh -tt host signaltty attach PANE`), the shape of `ssh -t host tmux attach`.
//!
//! Why not gRPC over the link: a remote server cannot be handed this machine's terminal, so
//! an attach over the link takes the gRPC Attach stream, which costs ~0.07 ms more per echoed
//! key than tmux's client (bench `ssh`, 1.35–1.6× tmux over the same link). Run on the remote,
//! the CLI hands its terminal (ssh's pseudo-terminal there) to its own server, as a local
//! attach does, and ssh only carries bytes — as it does for tmux.
//!
//! Links fail, agents don't: when ssh ends without the remote attach having ended (killed, or
//! exit 255: the link or the login failed) the remote pane keeps running; this says so, waits
//! with backoff (the detach key still leaves) and runs ssh again. The remote attach starts
//! with a full repaint, so what the pane printed meanwhile is on the screen and nothing shows
//! twice: a clear resync.
//!
//! The terminal: this process puts it in raw mode before ssh does and restores it once at the
//! end, so a killed ssh (which cannot restore it) never leaves it raw.

use std::process::ExitStatus;
use std::time::Duration;

use signaltty_client::Backoff;
use signaltty_client::raw_mode::RawMode;
use signaltty_client::remote::Remote;
use signaltty_client::tty_input::TtyInput;

use super::attach_options::{AttachOptions, Signals, print_status, print_stdout};
use crate::error::{CliError, CliResult, ErrorKind};

/// ssh's own exit code when the connection or the login failed.
const SSH_FAILED: i32 = 255;

/// Attaches this terminal to the remote pane `pane` (an id) through `ssh -tt`.
pub async fn attach(remote: &Remote, pane: &str, options: &AttachOptions) -> CliResult {
    let args = remote_args(pane, options);
    let guard = RawMode::enter()?;
    let mut signals = Signals::new()?;
    let seed = u64::from(std::process::id());
    let mut backoff =
        Backoff::with_limits(Duration::from_millis(200), Duration::from_secs(10), seed);
    let end = loop {
        let mut ssh = tokio::process::Command::new(Remote::ssh_program())
            .args(remote.tty_args(&args))
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                CliError::local(format!(
                    "cannot run {} to reach {}: {e} (install OpenSSH's client)",
                    Remote::ssh_program().display(),
                    remote.name
                ))
            })?;
        let status = tokio::select! {
            status = ssh.wait() => status?,
            name = ending(&mut signals) => break End::Signal(name),
        };
        let Some(why) = link_lost(status) else {
            // The remote attach ended by itself and said how; its code is ours.
            break End::Remote(status.code().unwrap_or(1));
        };
        let delay = backoff.next_delay();
        print_status(&format!(
            "[signaltty: link to {} lost ({why}); reconnecting in {:.1}s — detach key to leave]",
            remote.name,
            delay.as_secs_f64()
        ));
        if detached_within(delay, options).await? {
            break End::Detached;
        }
    };
    drop(guard);
    let park = String::from_utf8_lossy(signaltty_tty::modes::PARK_CURSOR);
    match end {
        End::Remote(0) => Ok(()),
        End::Remote(code) => Err(remote_failed(&remote.name, code)),
        End::Detached => {
            print_stdout(&format!(
                "{park}[detached] {pane} keeps running on {}; come back with: signaltty \
                 --remote {} attach\n",
                remote.name, remote.name
            ));
            Ok(())
        }
        End::Signal(name) => {
            print_stdout(&format!("{park}[detached: {name}]\n"));
            Err(CliError::local(format!("attach ended by {name}")))
        }
    }
}

/// How a remote attach ended, as far as this side knows.
enum End {
    /// ssh ended with the remote attach's own exit code.
    Remote(i32),
    /// The detach key, pressed while the link was down.
    Detached,
    Signal(&'static str),
}

/// The remote attach failed with `code` and printed why; the same kind of failure here.
fn remote_failed(name: &str, code: i32) -> CliError {
    let kind = match code {
        2 => ErrorKind::Usage,
        3 => ErrorKind::NoServer,
        _ => ErrorKind::Local,
    };
    CliError {
        kind,
        message: format!(
            "the attach on {name} failed with exit code {code} (its message is above)"
        ),
        reason: None,
    }
}

/// `attach PANE` and the options, as the remote CLI takes them (quoted for its shell).
fn remote_args(pane: &str, options: &AttachOptions) -> String {
    let mut args = format!(
        "attach {} --detach-key 0x{:02x}",
        shell_quote(pane),
        options.detach_key.0
    );
    if options.read_only {
        args.push_str(" --read-only");
    }
    if !options.mark_seen {
        args.push_str(" --no-mark-seen");
    }
    args
}

/// Why ssh's end means the link dropped rather than the remote attach ending, if it does.
fn link_lost(status: ExitStatus) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(SSH_FAILED), _) => Some("ssh exited with 255".to_owned()),
        (None, Some(signal)) => Some(format!("ssh was killed by signal {signal}")),
        _ => None,
    }
}

/// Waits `delay` while reading the terminal: true when the detach key was pressed.
async fn detached_within(delay: Duration, options: &AttachOptions) -> Result<bool, CliError> {
    let mut keys = TtyInput::open_stdin()
        .map_err(|e| CliError::local(format!("cannot read the terminal: {e}")))?;
    let sleep = tokio::time::sleep(delay);
    tokio::pin!(sleep);
    loop {
        tokio::select! {
            () = &mut sleep => return Ok(false),
            typed = keys.read() => match typed {
                // The terminal hung up: nobody is left to reconnect for.
                Ok([]) | Err(_) => return Ok(true),
                Ok(bytes) => {
                    if signaltty_tty::split_at_detach(bytes, options.detach_key.0).1 {
                        return Ok(true);
                    }
                }
            },
        }
    }
}

/// The next signal that ends the attach (a window change is ssh's: it tells the remote).
async fn ending(signals: &mut Signals) -> &'static str {
    loop {
        if let Some(name) = signals.next().await {
            return name;
        }
    }
}

/// `word` as one argument for a POSIX shell.
fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::attach_options::DetachKey;

    #[test]
    fn the_remote_command_carries_the_options_quoted() {
        let options = AttachOptions {
            read_only: true,
            mark_seen: false,
            detach_key: DetachKey(0x11),
            ..AttachOptions::default()
        };
        assert_eq!(
            remote_args("p_1'x", &options),
            r"attach 'p_1'\''x' --detach-key 0x11 --read-only --no-mark-seen"
        );
    }

    #[test]
    fn only_a_killed_or_failed_ssh_is_a_lost_link() {
        use std::os::unix::process::ExitStatusExt;
        assert!(link_lost(ExitStatus::from_raw(255 << 8)).is_some());
        assert!(link_lost(ExitStatus::from_raw(9)).is_some());
        assert!(link_lost(ExitStatus::from_raw(0)).is_none());
        assert!(link_lost(ExitStatus::from_raw(1 << 8)).is_none());
    }
}
