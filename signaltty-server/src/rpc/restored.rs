//! `Attach` on a restored pane (no process yet): the first message is a Snapshot of its saved
//! tail; then the stream waits. Input and resizes are ignored — there is nothing to send them
//! to. When the pane is resumed the client gets a Resync and joins the new process as any
//! attached client (fresh Snapshot, then output); when it is closed the stream ends.

use signaltty_proto::v1 as pb;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Response, Status, Streaming};

use super::attach::{AttachSender, AttachStream, start_session};
use crate::hub::Hub;
use crate::model::ids::PaneId;

/// Serves the attach when `id` is a restored pane; `None` when it is not one.
pub(super) fn attach(
    hub: Hub,
    id: PaneId,
    start: pb::attach_request::Start,
    inbound: Streaming<pb::AttachRequest>,
) -> Option<Result<Response<AttachStream>, Status>> {
    let view = hub.restored_view(&id)?;
    if start.mark_seen
        && let Err(e) = hub.mark_seen(&id, crate::model::event::ChangeSource::Client)
    {
        return Some(Err(e.into()));
    }
    let (tx, rx) = mpsc::channel(4);
    tokio::spawn(wait_for_resume(hub, id, start, inbound, tx, view));
    Some(Ok(Response::new(Box::pin(ReceiverStream::new(rx)))))
}

async fn wait_for_resume(
    hub: Hub,
    id: PaneId,
    start: pb::attach_request::Start,
    mut inbound: Streaming<pb::AttachRequest>,
    tx: AttachSender,
    view: crate::hub::resume::RestoredView,
) {
    let s = &view.snapshot;
    let snapshot = pb::attach_response::Snapshot {
        screen: s.repaint.clone(),
        output_offset: 0,
        cols: u32::from(s.cols),
        rows: u32::from(s.rows),
        cursor_row: u32::from(s.cursor_row),
        cursor_col: u32::from(s.cursor_col),
        title: view.title.clone(),
    };
    let first = pb::AttachResponse {
        kind: Some(pb::attach_response::Kind::Snapshot(snapshot)),
    };
    if tx.send(Ok(first)).await.is_err() {
        return;
    }
    let mut gone = view.gone;
    let shutdown = hub.shutdown_token().clone();
    loop {
        tokio::select! {
            // The sender is dropped (never sent on) when the pane is resumed or closed.
            _ = gone.changed() => break,
            () = shutdown.cancelled() => return,
            () = tx.closed() => return,
            request = inbound.message() => match request {
                Ok(Some(_)) => tracing::debug!(pane = %id, "input to a restored pane ignored"),
                Ok(None) => return,
                Err(status) => {
                    let _ = tx.send(Err(super::edge::inbound_error(status))).await;
                    return;
                }
            },
        }
    }
    let Ok(handle) = hub.handle(&id) else {
        return; // closed: the stream ends
    };
    let resync = pb::AttachResponse {
        kind: Some(pb::attach_response::Kind::Resync(
            pb::attach_response::Resync {
                reason: "the pane was resumed; repainting".into(),
            },
        )),
    };
    if tx.send(Ok(resync)).await.is_ok() {
        start_session(hub, handle, &start, inbound, tx);
    }
}
