//! One task per attached pane, on `signaltty-client`'s attach driver. What the server sends
//! becomes [`PaneEvent`]s; keystrokes and sizes go up the same stream. A dropped stream is
//! retried with backoff (the server may be restarting) until the task is stopped; every
//! (re)attach starts with a Snapshot, so the model is whole again at once. An interactive
//! attach asks the server for the pane's input after each (re)attach and types into it
//! directly while it has it (`direct`), the gRPC stream carrying output and sizes only.

use signaltty_client::{AttachEvent, AttachInput, AttachStart, Backoff, Client};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::Slot;
use super::direct::Direct;
use crate::app::{Attachment, Msg, PaneEvent};

enum Cmd {
    Input(Vec<u8>),
    Resize(u16, u16),
}

/// A running attachment.
pub struct Handle {
    cmds: mpsc::UnboundedSender<Cmd>,
    task: JoinHandle<()>,
    interactive: bool,
}

impl Handle {
    /// Whether input may go up this stream.
    pub fn interactive(&self) -> bool {
        self.interactive
    }

    /// Sends typed bytes.
    pub fn input(&self, bytes: Vec<u8>) {
        let _ = self.cmds.send(Cmd::Input(bytes));
    }

    /// Reports a new size.
    pub fn resize(&self, cols: u16, rows: u16) {
        let _ = self.cmds.send(Cmd::Resize(cols, rows));
    }

    /// Ends the attachment.
    pub fn stop(self) {
        self.task.abort();
    }
}

/// Starts attaching to `pane_id`.
pub fn start(
    slot: Slot,
    pane_id: String,
    how: Attachment,
    tx: mpsc::UnboundedSender<Msg>,
) -> Handle {
    let (cmds, mut rx) = mpsc::unbounded_channel();
    let interactive = matches!(how, Attachment::Interactive { .. });
    let task = tokio::spawn(async move {
        let (cols, rows, read_only) = match how {
            Attachment::Interactive { cols, rows } => (cols, rows, false),
            Attachment::Watching => (80, 24, true),
        };
        let mut size = (cols, rows);
        let mut backoff = Backoff::new();
        loop {
            let reason = match slot.get() {
                Some(client) => match session(
                    &client,
                    &pane_id,
                    &mut size,
                    read_only,
                    &mut rx,
                    &tx,
                    &mut backoff,
                )
                .await
                {
                    Ok(()) => return,
                    Err(reason) => reason,
                },
                None => "not connected".to_owned(),
            };
            let dropped = Msg::Pane {
                pane_id: pane_id.clone(),
                event: PaneEvent::Dropped(reason),
            };
            if tx.send(dropped).is_err() {
                return;
            }
            tokio::time::sleep(backoff.next_delay()).await;
        }
    });
    Handle {
        cmds,
        task,
        interactive,
    }
}

/// One stream's life. `Ok` when the TUI is gone; `Err` with the reason when the stream failed.
async fn session(
    client: &Client,
    pane_id: &str,
    size: &mut (u16, u16),
    read_only: bool,
    cmds: &mut mpsc::UnboundedReceiver<Cmd>,
    tx: &mpsc::UnboundedSender<Msg>,
    backoff: &mut Backoff,
) -> Result<(), String> {
    let start = AttachStart {
        pane_id: pane_id.to_owned(),
        cols: size.0,
        rows: size.1,
        mark_seen: false,
        read_only,
    };
    let (mut events, input) = client
        .attach(start)
        .await
        .map_err(|e| e.to_string())?
        .split();
    // Asked after the stream opened: a pane that does not exist is reported by gRPC.
    let mut direct = if read_only {
        None
    } else {
        Direct::request(client.socket(), pane_id).await
    };
    loop {
        tokio::select! {
            flushed = flush_direct(&mut direct) => if flushed.is_err() {
                fall_back(&mut direct, &input, &[]).await;
            },
            event = events.next() => {
                let event = match event {
                    Ok(Some(event)) => event,
                    Ok(None) => return Err("the pane's stream ended".into()),
                    Err(err) => return Err(err.to_string()),
                };
                let event = match event {
                    AttachEvent::Snapshot(s) => {
                        backoff.reset();
                        PaneEvent::Snapshot { screen: s.bytes, cols: s.cols, rows: s.rows }
                    }
                    AttachEvent::Output { data, .. } => PaneEvent::Output(data),
                    AttachEvent::Resized { cols, rows } => PaneEvent::Resized { cols, rows },
                    AttachEvent::Exited { code } => {
                        // The master outlives the program (writes then go nowhere): type over
                        // gRPC again, where the server refuses input to an exited pane.
                        fall_back(&mut direct, &input, &[]).await;
                        PaneEvent::Exited(code)
                    }
                    AttachEvent::Resync { .. } => continue,
                };
                if tx.send(Msg::Pane { pane_id: pane_id.to_owned(), event }).is_err() {
                    return Ok(());
                }
            }
            cmd = cmds.recv() => match cmd {
                None => return Ok(()),
                Some(_) if read_only => {}
                Some(Cmd::Input(data)) => match direct.as_mut() {
                    Some(d) => if d.write(&data).is_err() {
                        fall_back(&mut direct, &input, &data).await;
                    },
                    None => input.input(data).await,
                },
                Some(Cmd::Resize(c, r)) => {
                    *size = (c, r);
                    input.resize(c, r).await;
                }
            },
        }
    }
}

/// Until direct input's backlog moved on (or failed); never without a backlog.
async fn flush_direct(direct: &mut Option<Direct>) -> Result<(), ()> {
    match direct {
        Some(d) if d.pending() > 0 => d.flush_some().await,
        _ => std::future::pending().await,
    }
}

/// Gives direct input up: what it had not written, then `failed` (a piece whose write failed,
/// resent whole), go over gRPC ahead of anything typed later.
async fn fall_back(direct: &mut Option<Direct>, input: &AttachInput, failed: &[u8]) {
    if let Some(d) = direct.take() {
        let mut rest = d.give_up().backlog;
        rest.extend_from_slice(failed);
        if !rest.is_empty() {
            input.input(rest).await;
        }
    }
}
