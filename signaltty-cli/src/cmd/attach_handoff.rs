//! `signaltty attach` by handing this terminal to the server (`signaltty_tty::protocol`): the
//! server then reads the keys and writes the pane's output itself, so a keystroke's echo
//! crosses one process, as with tmux, instead of this one twice more. This process only
//! switches the terminal to raw mode and back, tells the server when the window changed size,
//! and waits for the end.
//!
//! Anything short of the server's `ready` (no hand-off socket, an older server, a terminal the
//! server cannot open, a pane it will not take this way such as a restored one) returns `None`
//! and the caller attaches over gRPC as before; `[fast_paths] attach_handoff = false` forces that
//! path.

use std::os::fd::AsFd;
use std::path::Path;
use std::time::Duration;

use signaltty_client::Client;
use signaltty_client::raw_mode::RawMode;
use signaltty_tty::protocol::{self, Conn, End, HandOff, Reply, Request};

use super::attach_options::{AttachEnd, AttachOptions, Signals};
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
    conn: Conn,
    signals: Signals,
    guard: RawMode,
}

impl HandedOff {
    async fn wait(mut self) -> AttachEnd {
        let (end, vanished) = wait_for_end(&mut self.conn, self.signals).await;
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
    let path = protocol::socket_path(socket);
    let mut conn = Conn::connect(&path).await.ok()?;
    signaltty_client::trust::check_peer(conn.stream(), &path).ok()?;
    let request = Request::HandOff(HandOff {
        pane: pane.to_owned(),
        read_only: options.read_only,
        mark_seen: options.mark_seen,
        detach_key: options.detach_key.0,
    });
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    if let Err(why) = conn
        .ask(&request, &[stdin.as_fd(), stdout.as_fd()], READY_TIMEOUT)
        .await
    {
        // Why the server refused stays out of the user's way unless asked for: the gRPC attach
        // that follows reports any real problem itself.
        if options.fast_paths.report_handoff_refusal {
            eprintln!("signaltty attach: hand-off not taken ({why}); attaching over gRPC");
        }
        return None;
    }
    let signals = Signals::new().ok()?;
    // Raw mode before `go`: the server writes the first repaint right after it.
    let guard = RawMode::enter().ok()?;
    if conn.send(&Request::Go, &[]).await.is_err() {
        drop(guard);
        return None;
    }
    Some(HandedOff {
        conn,
        signals,
        guard,
    })
}

/// Relays size changes and signals until the server says how the attach ended; also whether
/// it vanished without saying (its connection closed, or no answer to a stop).
async fn wait_for_end(conn: &mut Conn, mut signals: Signals) -> (AttachEnd, bool) {
    let mut stopped_by: Option<&'static str> = None;
    loop {
        let stopping = async {
            match stopped_by {
                Some(_) => tokio::time::sleep(STOP_TIMEOUT).await,
                None => std::future::pending().await,
            }
        };
        let name = tokio::select! {
            received = conn.recv::<Reply>() => return how_it_ended(received, stopped_by),
            () = stopping => return (AttachEnd::StreamEnded, true),
            signal = signals.next() => match signal {
                Some(name) => name,
                None => {
                    let _ = conn.send(&Request::Resize, &[]).await;
                    continue;
                }
            },
        };
        if stopped_by.is_none() {
            stopped_by = Some(name);
            let _ = conn.send(&Request::Stop, &[]).await;
        }
    }
}

/// How the attach ended, from the server's last line; and whether the server vanished without
/// saying (the terminal may still show the pane's alternate screen).
fn how_it_ended(
    received: std::io::Result<Option<Reply>>,
    stopped_by: Option<&'static str>,
) -> (AttachEnd, bool) {
    let failed = |why: String| AttachEnd::Failed(CliError::local(why));
    match received {
        Ok(Some(Reply::End(end))) => (ended(end, stopped_by), false),
        // The server restored the terminal before refusing what we sent.
        Ok(Some(Reply::Refused(why))) => (failed(format!("the server refused: {why}")), false),
        Ok(Some(other)) => {
            let why = format!("the server said {other:?}, not how the attach ended");
            (failed(why), true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            (failed(format!("the server's answer: {e}")), true)
        }
        _ => (AttachEnd::StreamEnded, true),
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
