//! `signaltty pane close --exited [--workspace WS]`: removes every pane whose process is gone —
//! exited, or restored after a restart without being resumed. A `server stop --force` hangs up
//! the running panes and saves them, so they come back, without a process, at the next start;
//! this is the one command that clears them away (`pane resume` brings one back instead).

use serde::Serialize;
use signaltty_client::Client;
use signaltty_proto::v1 as pb;

use super::Ctx;
use crate::error::CliResult;
use crate::resolve::Kind;

#[derive(Serialize)]
struct JsonClosed {
    closed_pane_ids: Vec<String>,
}

/// Closes every pane without a process (of `workspace` when given).
pub async fn close_exited(ctx: &Ctx, conn: &Client, workspace: Option<String>) -> CliResult {
    let workspace_id = match workspace {
        Some(word) => ctx.resolve(conn, Kind::Workspace, Some(&word)).await?,
        None => String::new(),
    };
    let mut client = conn.panes();
    let panes = client
        .list_panes(pb::ListPanesRequest {
            workspace_id,
            ..Default::default()
        })
        .await?
        .into_inner()
        .panes;
    let mut closed = Vec::new();
    for pane in panes
        .into_iter()
        // A hibernated agent is asleep, not gone: typing into it brings it back.
        .filter(|p| {
            p.status != pb::PaneStatus::Live as i32 && p.status != pb::PaneStatus::Hibernated as i32
        })
    {
        client
            .close_pane(pb::ClosePaneRequest {
                pane_id: pane.id.clone(),
            })
            .await?;
        closed.push(pane.id);
    }
    if ctx.out.is_json() {
        return ctx.out.json(&JsonClosed {
            closed_pane_ids: closed,
        });
    }
    ctx.out.line(match closed.len() {
        0 => "no exited panes".to_owned(),
        1 => "closed 1 exited pane".to_owned(),
        n => format!("closed {n} exited panes"),
    })
}
