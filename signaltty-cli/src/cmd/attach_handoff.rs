//! `signaltty attach` by handing this terminal to the server (`signaltty_tty::handoff`): the
//! server then reads the keys and writes the pane's output itself, so a keystroke's echo
//! crosses one process, as with tmux, instead of this one twice more. This process only
//! switches the terminal to raw mode and back, tells the server when the window changed size,
//! and waits for the end.
//!
//! Anything short of the server's `ready` (no hand-off socket, an older server, a terminal the
//! server cannot open, a pane it will not take this way such as a restored one) returns `None`
//! and the caller attaches over gRPC as before; `[fast_paths] attach_handoff = false` forces that
//! path.

use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::Duration;

use signaltty_client::Client;
use signaltty_client::raw_mode::RawMode;
use signaltty_tty::handoff::{self, End, GO, Lines, RESIZE, Reply, Request, STOP};
use tokio::net::UnixStream;
use tokio::signal::unix::{SignalKind, signal};

use super::attach::{AttachEnd, AttachOptions};
use crate::error::CliError;

/// How long the server has to answer the request.
const READY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the server has to hand the terminal back after `stop`.
const STOP_TIMEOUT: Duration = Duration::from_secs(5);

/// Attaches `pane` through the server's hand-off socket beside `socket`. `client` (the gRPC
/// connection) is given back when the server does not take the terminal (nothing was changed
/// then: attach over gRPC with it); once the server has the terminal (`go`) it is closed, since
/// nothing falls back after that and an idle connection would count against the server's
/// `max_connections` for the whole attach.
pub async fn attach(
    socket: &Path,
    pane: &str,
    options: &AttachOptions,
    client: Client,
) -> Result<AttachEnd, Client> {
    match hand_off(socket, pane, options).await {
        Some(handed) => {
            drop(client);
            Ok(handed.wait().await)
        }
        None => Err(client),
    }
}

/// A terminal the server has (`go` sent), in raw mode until the end.
struct HandedOff {
    stream: UnixStream,
    lines: Lines,
    signals: Signals,
    guard: RawMode,
}

impl HandedOff {
    async fn wait(mut self) -> AttachEnd {
        let (end, vanished) = wait_for_end(&self.stream, &mut self.lines, self.signals).await;
        if vanished {
            // The server wrote the pane's output here and died without restoring anything:
            // the pane's program may have left the terminal on its alternate screen.
            signaltty_client::raw_mode::assume_alt_screen();
        }
        drop(self.guard);
        end
    }
}

/// Offers the terminal; `None` when the server does not take it.
async fn hand_off(socket: &Path, pane: &str, options: &AttachOptions) -> Option<HandedOff> {
    if !options.fast_paths.attach_handoff {
        return None;
    }
    let path = handoff::socket_path(socket);
    let stream = UnixStream::connect(&path).await.ok()?;
    signaltty_client::trust::check_peer(&stream, &path).ok()?;
    let request = Request {
        pane: pane.to_owned(),
        read_only: options.read_only,
        mark_seen: options.mark_seen,
        detach_key: options.detach_key.0,
    };
    let fds = [std::io::stdin().as_raw_fd(), std::io::stdout().as_raw_fd()];
    handoff::send_with_fds(&stream, &request.encode(), &fds)
        .await
        .ok()?;
    let mut lines = Lines::default();
    let ready = tokio::time::timeout(READY_TIMEOUT, lines.next(&stream)).await;
    match ready {
        Ok(Ok(Some(line))) if Reply::decode(&line) == Ok(Reply::Ready) => {}
        Ok(Ok(Some(line))) => {
            if options.fast_paths.report_handoff_refusal {
                eprintln!("signaltty attach: hand-off not taken ({line}); attaching over gRPC");
            }
            return None;
        }
        _ => return None,
    }
    let signals = Signals::new().ok()?;
    // Raw mode before `go`: the server writes the first repaint right after it.
    let guard = RawMode::enter().ok()?;
    if handoff::write_all(&stream, GO).await.is_err() {
        drop(guard);
        return None;
    }
    Some(HandedOff {
        stream,
        lines,
        signals,
        guard,
    })
}

/// The signals that matter while the server has the terminal.
struct Signals {
    winch: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
    quit: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> std::io::Result<Signals> {
        Ok(Signals {
            winch: signal(SignalKind::window_change())?,
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
            int: signal(SignalKind::interrupt())?,
            quit: signal(SignalKind::quit())?,
        })
    }
}

/// Relays size changes and signals until the server says how the attach ended; also whether
/// it vanished without saying (its connection closed, or no answer to a stop).
async fn wait_for_end(
    stream: &UnixStream,
    lines: &mut Lines,
    mut signals: Signals,
) -> (AttachEnd, bool) {
    let mut stopped_by: Option<&'static str> = None;
    loop {
        let stopping = async {
            match stopped_by {
                Some(_) => tokio::time::sleep(STOP_TIMEOUT).await,
                None => std::future::pending().await,
            }
        };
        let name = tokio::select! {
            line = lines.next(stream) => {
                return match line {
                    Ok(Some(line)) => match Reply::decode(&line) {
                        Ok(Reply::End(end)) => (ended(end, stopped_by), false),
                        _ => (
                            AttachEnd::Failed(CliError::local(format!(
                                "the server said `{line}` instead of how the attach ended"
                            ))),
                            true,
                        ),
                    },
                    _ => (AttachEnd::StreamEnded, true),
                };
            }
            () = stopping => return (AttachEnd::StreamEnded, true),
            _ = signals.winch.recv() => {
                let _ = handoff::write_all(stream, RESIZE).await;
                continue;
            }
            _ = signals.term.recv() => "SIGTERM",
            _ = signals.hup.recv() => "SIGHUP",
            _ = signals.int.recv() => "SIGINT",
            _ = signals.quit.recv() => "SIGQUIT",
        };
        if stopped_by.is_none() {
            stopped_by = Some(name);
            let _ = handoff::write_all(stream, STOP).await;
        }
    }
}

fn ended(end: End, stopped_by: Option<&'static str>) -> AttachEnd {
    match (end, stopped_by) {
        (End::Detached, Some(name)) => AttachEnd::Signal(name),
        (End::Detached, None) => AttachEnd::Detached,
        (End::Exited(code), _) => AttachEnd::Exited(code),
        (End::Closed, _) => AttachEnd::Closed,
        (End::Shutdown, _) => AttachEnd::StreamEnded,
        (End::Failed(why), _) => AttachEnd::Failed(CliError::local(why)),
    }
}
