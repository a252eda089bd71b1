//! One task per attached pane: the `Attach` stream both ways. What the server sends becomes
//! [`PaneEvent`]s; keystrokes and sizes go up the same stream. A dropped stream is retried with
//! backoff (the server may be restarting) until the task is stopped; every (re)attach starts
//! with a Snapshot, so the model is whole again at once.

use signaltty_client::catalog::Backoff;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::attach_request::Kind as Up;
use signaltty_proto::v1::attach_response::Kind as Down;
use signaltty_proto::v1::pane_service_client::PaneServiceClient;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_stream::wrappers::UnboundedReceiverStream;

use super::Slot;
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
        let (mut cols, mut rows, read_only) = match how {
            Attachment::Interactive { cols, rows } => (cols, rows, false),
            Attachment::Watching => (80, 24, true),
        };
        let mut backoff = Backoff::default();
        loop {
            let reason = match slot.get() {
                Some(channel) => {
                    match session(
                        channel,
                        &pane_id,
                        (cols, rows),
                        read_only,
                        &mut rx,
                        &tx,
                        &mut backoff,
                    )
                    .await
                    {
                        Ok(()) => return,
                        Err((reason, size)) => {
                            (cols, rows) = size.unwrap_or((cols, rows));
                            reason
                        }
                    }
                }
                None => "not connected".to_owned(),
            };
            if tx
                .send(Msg::Pane {
                    pane_id: pane_id.clone(),
                    event: PaneEvent::Dropped(reason),
                })
                .is_err()
            {
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

type Failure = (String, Option<(u16, u16)>);

/// One stream's life. `Ok` when the TUI is gone; `Err` with the reason (and the size last
/// asked for) when the stream failed.
async fn session(
    channel: tonic::transport::Channel,
    pane_id: &str,
    (mut cols, mut rows): (u16, u16),
    read_only: bool,
    cmds: &mut mpsc::UnboundedReceiver<Cmd>,
    tx: &mpsc::UnboundedSender<Msg>,
    backoff: &mut Backoff,
) -> Result<(), Failure> {
    let (up, up_rx) = mpsc::unbounded_channel();
    let _ = up.send(pb::AttachRequest {
        kind: Some(Up::Start(pb::attach_request::Start {
            pane_id: pane_id.to_owned(),
            cols: u32::from(cols),
            rows: u32::from(rows),
            mark_seen: false,
            read_only,
        })),
    });
    let mut stream = PaneServiceClient::new(channel)
        .attach(UnboundedReceiverStream::new(up_rx))
        .await
        .map_err(|s| (s.message().to_owned(), None))?
        .into_inner();
    loop {
        tokio::select! {
            message = stream.message() => {
                let message = match message {
                    Ok(Some(m)) => m,
                    Ok(None) => return Err(("the pane's stream ended".into(), Some((cols, rows)))),
                    Err(status) => return Err((status.message().to_owned(), Some((cols, rows)))),
                };
                let event = match message.kind {
                    Some(Down::Snapshot(s)) => {
                        backoff.reset();
                        PaneEvent::Snapshot {
                            screen: s.screen,
                            cols: u16::try_from(s.cols).unwrap_or(u16::MAX),
                            rows: u16::try_from(s.rows).unwrap_or(u16::MAX),
                        }
                    }
                    Some(Down::Output(o)) => PaneEvent::Output(o.data),
                    Some(Down::Resized(r)) => PaneEvent::Resized {
                        cols: u16::try_from(r.cols).unwrap_or(u16::MAX),
                        rows: u16::try_from(r.rows).unwrap_or(u16::MAX),
                    },
                    Some(Down::Exited(e)) => PaneEvent::Exited(e.code),
                    Some(Down::Resync(_)) | None => continue,
                };
                if tx.send(Msg::Pane { pane_id: pane_id.to_owned(), event }).is_err() {
                    return Ok(());
                }
            }
            cmd = cmds.recv() => {
                let kind = match cmd {
                    Some(Cmd::Input(data)) => Up::Input(pb::attach_request::Input { data }),
                    Some(Cmd::Resize(c, r)) => {
                        (cols, rows) = (c, r);
                        Up::Resize(pb::attach_request::Resize { cols: u32::from(c), rows: u32::from(r) })
                    }
                    None => return Ok(()),
                };
                if read_only {
                    continue;
                }
                if up.send(pb::AttachRequest { kind: Some(kind) }).is_err() {
                    return Err(("the pane's stream closed".into(), Some((cols, rows))));
                }
            }
        }
    }
}
