//! `TabService`.

use signaltty_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::convert::{path_from_pb, requested_layout, tab_id, tab_to_pb, workspace_id};
use crate::hub::Hub;

/// Serves `signaltty.v1.TabService`.
#[derive(Debug)]
pub struct TabService {
    hub: Hub,
}

impl TabService {
    /// A service over the hub.
    pub fn new(hub: Hub) -> Self {
        TabService { hub }
    }
}

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl pb::tab_service_server::TabService for TabService {
    async fn create_tab(
        &self,
        req: Request<pb::CreateTabRequest>,
    ) -> Answer<pb::CreateTabResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let ws = workspace_id(&req.workspace_id)?;
        self.hub.guard().may_control_workspace(&origin, &ws)?;
        let tab = self.hub.arrangement().create_tab(&ws, &req.title)?;
        Ok(Response::new(pb::CreateTabResponse {
            tab: Some(tab_to_pb(&tab)),
        }))
    }

    async fn rename_tab(
        &self,
        req: Request<pb::RenameTabRequest>,
    ) -> Answer<pb::RenameTabResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = tab_id(&req.tab_id)?;
        self.hub.guard().may_control_tab(&origin, &id)?;
        let tab = self.hub.arrangement().rename_tab(&id, &req.title)?;
        Ok(Response::new(pb::RenameTabResponse {
            tab: Some(tab_to_pb(&tab)),
        }))
    }

    async fn close_tab(&self, req: Request<pb::CloseTabRequest>) -> Answer<pb::CloseTabResponse> {
        let origin = super::origin(&req);
        let id = tab_id(&req.into_inner().tab_id)?;
        self.hub.guard().may_control_tab(&origin, &id)?;
        let closed = self.hub.close_tab(&id).await?;
        Ok(Response::new(pb::CloseTabResponse {
            closed_pane_ids: closed.iter().map(ToString::to_string).collect(),
        }))
    }

    async fn set_layout(
        &self,
        req: Request<pb::SetLayoutRequest>,
    ) -> Answer<pb::SetLayoutResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = tab_id(&req.tab_id)?;
        self.hub.guard().may_control_tab(&origin, &id)?;
        let tab = self
            .hub
            .arrangement()
            .set_layout(&id, requested_layout(&req)?)?;
        Ok(Response::new(pb::SetLayoutResponse {
            tab: Some(tab_to_pb(&tab)),
        }))
    }

    async fn set_ratio(&self, req: Request<pb::SetRatioRequest>) -> Answer<pb::SetRatioResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = tab_id(&req.tab_id)?;
        self.hub.guard().may_control_tab(&origin, &id)?;
        let tab = self
            .hub
            .arrangement()
            .set_ratio(&id, &path_from_pb(&req.path)?, req.ratio)?;
        Ok(Response::new(pb::SetRatioResponse {
            tab: Some(tab_to_pb(&tab)),
        }))
    }
}
