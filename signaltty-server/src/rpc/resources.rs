//! `GetResources` (hub/resources.rs): figures read from `/proc` when asked, encoded.

use signaltty_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::convert::workspace_id;
use crate::hub::Hub;

/// GetResources.
pub async fn get_resources(
    hub: &Hub,
    req: Request<pb::GetResourcesRequest>,
) -> Result<Response<pb::GetResourcesResponse>, Status> {
    let req = req.into_inner();
    let only = if req.workspace_id.is_empty() {
        None
    } else {
        let id = workspace_id(&req.workspace_id)?;
        // An unknown workspace is NOT_FOUND, not an empty answer.
        hub.store()
            .read(|s| s.workspace(&id).map(|_| ()))
            .map_err(crate::error::Error::from)?;
        Some(id)
    };
    let r = hub.panes().resources(only).await?;
    Ok(Response::new(pb::GetResourcesResponse {
        panes: r
            .panes
            .iter()
            .map(|p| pb::PaneResources {
                pane_id: p.pane_id.to_string(),
                workspace_id: p.workspace_id.to_string(),
                rss_bytes: p.usage.rss_bytes,
                cpu_ms: p.usage.cpu_ms,
                processes: p.usage.processes,
            })
            .collect(),
        workspaces: r
            .workspaces
            .iter()
            .map(|(id, u, live)| pb::WorkspaceResources {
                workspace_id: id.to_string(),
                rss_bytes: u.rss_bytes,
                cpu_ms: u.cpu_ms,
                live_panes: *live,
            })
            .collect(),
        server_rss_bytes: r.server.rss_bytes,
        server_cpu_ms: r.server.cpu_ms,
    }))
}
