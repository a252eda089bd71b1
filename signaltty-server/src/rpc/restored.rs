//! `Attach` on a restored pane (no process yet): the first message is a Snapshot of its saved
//! tail with a notice on its last rows — the pane is not running, and the `signaltty pane resume`
//! command that starts it — then the stream waits. Input and resizes have nothing to go to;
//! typed input is not dropped silently: it brings the notice back (a Resync and a fresh
//! Snapshot, at most every [`NOTICE_EVERY`]). When the pane is resumed the client gets a Resync and joins the new process as any
//! attached client (fresh Snapshot, then output); when it is closed the stream ends.

use std::time::{Duration, Instant};

use signaltty_proto::v1 as pb;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Response, Status, Streaming};

use super::attach::{AttachSender, AttachStream, start_session};
use crate::hub::Hub;
use crate::model::ids::PaneId;

/// Typed input to a restored pane shows the notice again at most this often.
pub(super) const NOTICE_EVERY: Duration = Duration::from_secs(2);

/// Serves the attach when `id` is a restored pane; `None` when it is not one.
pub(super) fn attach(
    hub: Hub,
    id: PaneId,
    start: pb::attach_request::Start,
    inbound: Streaming<pb::AttachRequest>,
) -> Option<Result<Response<AttachStream>, Status>> {
    let view = hub.persistence().restored_view(&id)?;
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
    if tx.send(Ok(snapshot_with_notice(&view))).await.is_err() {
        return;
    }
    // The first keys always bring the notice back; more of them at most every NOTICE_EVERY.
    let mut last_notice: Option<Instant> = None;
    let mut gone = view.gone.clone();
    let shutdown = hub.shutdown_token().clone();
    loop {
        tokio::select! {
            // The sender is dropped (never sent on) when the pane is resumed or closed.
            _ = gone.changed() => break,
            () = shutdown.cancelled() => return,
            () = tx.closed() => return,
            request = inbound.message() => match request {
                Ok(Some(pb::AttachRequest {
                    kind: Some(pb::attach_request::Kind::Input(input)),
                })) if !input.data.is_empty() && !start.read_only => {
                    if last_notice.is_some_and(|at| at.elapsed() < NOTICE_EVERY) {
                        continue;
                    }
                    last_notice = Some(Instant::now());
                    let resync = pb::AttachResponse {
                        kind: Some(pb::attach_response::Kind::Resync(
                            pb::attach_response::Resync {
                                reason: "the pane is not running; typed input has nowhere to go"
                                    .into(),
                            },
                        )),
                    };
                    if tx.send(Ok(resync)).await.is_err()
                        || tx.send(Ok(snapshot_with_notice(&view))).await.is_err()
                    {
                        return;
                    }
                }
                Ok(Some(_)) => {}
                Ok(None) => return,
                Err(status) => {
                    let _ = tx.send(Err(super::edge::inbound_error(status))).await;
                    return;
                }
            },
        }
    }
    let Ok(handle) = hub.panes().handle(&id) else {
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

/// The restored screen with the view's notice drawn over its last rows (reverse video, cut to
/// the width); the cursor and pen are saved and restored around it, so the notice is the only
/// difference from the saved screen.
fn snapshot_with_notice(view: &crate::hub::resume::RestoredView) -> pb::AttachResponse {
    let s = &view.snapshot;
    let mut screen = s.repaint.clone();
    screen.extend_from_slice(&notice_bytes(&view.notice, s.cols, s.rows));
    pb::AttachResponse {
        kind: Some(pb::attach_response::Kind::Snapshot(
            pb::attach_response::Snapshot {
                screen,
                output_offset: 0,
                cols: u32::from(s.cols),
                rows: u32::from(s.rows),
                cursor_row: u32::from(s.cursor_row),
                cursor_col: u32::from(s.cursor_col),
                title: view.title.clone(),
            },
        )),
    }
}

/// DECSC, then the last `lines.len()` rows cleared in reverse video, each with its line (at most
/// `cols` characters), then DECRC.
fn notice_bytes(lines: &[String], cols: u16, rows: u16) -> Vec<u8> {
    let shown = lines.len().min(usize::from(rows));
    let first_row = usize::from(rows) - shown + 1;
    let mut out = String::from("\x1b7");
    for (i, line) in lines[lines.len() - shown..].iter().enumerate() {
        let text: String = line.chars().take(usize::from(cols)).collect();
        out.push_str(&format!(
            "\x1b[{};1H\x1b[0;7m\x1b[2K{text}\x1b[0m",
            first_row + i
        ));
    }
    out.push_str("\x1b8");
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::notice_bytes;

    #[test]
    fn the_notice_fits_the_last_rows_and_restores_cursor_and_pen() {
        let mut screen = crate::term::Screen::new(20, 5);
        screen.feed(b"\x1b[1;31mred");
        let lines = [
            "pane is not running; resume it".to_owned(),
            "run: x".to_owned(),
        ];
        screen.feed(&notice_bytes(&lines, 20, 5));
        let text = screen.contents(false);
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(
            rows,
            ["red", "", "", "pane is not running;", "run: x"],
            "cut to the width, on the last rows"
        );
        assert_eq!(screen.cursor_position(), (0, 3), "cursor back after `red`");
        // The pen came back too: what follows is still red and bold.
        screen.feed(b"!");
        assert!(
            screen.contents(true).contains("red!"),
            "{:?}",
            screen.contents(true)
        );
    }
}
