//! `WorkspaceService`.

use signaltty_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::convert::{
    git_to_pb, pane_pb, settings_from_pb, tab_id, tab_to_pb, workspace_id, workspace_to_pb,
};
use crate::hub::Hub;

/// Serves `signaltty.v1.WorkspaceService`.
#[derive(Debug)]
pub struct WorkspaceService {
    hub: Hub,
}

impl WorkspaceService {
    /// A service over the hub.
    pub fn new(hub: Hub) -> Self {
        WorkspaceService { hub }
    }
}

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl pb::workspace_service_server::WorkspaceService for WorkspaceService {
    async fn create_workspace(
        &self,
        req: Request<pb::CreateWorkspaceRequest>,
    ) -> Answer<pb::CreateWorkspaceResponse> {
        self.hub
            .guard()
            .may_act_beyond_workspace(&super::origin(&req), "open new workspaces")?;
        let req = req.into_inner();
        let ws = self
            .hub
            .create_workspace(&req.name, &req.cwd, settings_from_pb(req.settings))
            .await?;
        Ok(Response::new(pb::CreateWorkspaceResponse {
            workspace: Some(workspace_to_pb(&ws)),
        }))
    }

    async fn list_workspaces(
        &self,
        _: Request<pb::ListWorkspacesRequest>,
    ) -> Answer<pb::ListWorkspacesResponse> {
        let workspaces = self
            .hub
            .store()
            .read(|s| s.workspaces().iter().map(workspace_to_pb).collect());
        Ok(Response::new(pb::ListWorkspacesResponse { workspaces }))
    }

    async fn get_workspace(
        &self,
        req: Request<pb::GetWorkspaceRequest>,
    ) -> Answer<pb::GetWorkspaceResponse> {
        let id = workspace_id(&req.into_inner().workspace_id)?;
        let (workspace, tabs, panes) = self
            .hub
            .store()
            .read(|s| {
                let ws = s.workspace(&id)?;
                let tabs = s.tabs_of(ws);
                let panes: Vec<_> = tabs
                    .iter()
                    .flat_map(|t| s.panes_of_tab(t))
                    .cloned()
                    .collect();
                Ok::<_, crate::model::state::StateError>((
                    workspace_to_pb(ws),
                    tabs.into_iter().map(tab_to_pb).collect(),
                    panes,
                ))
            })
            .map_err(crate::error::Error::from)?;
        let panes = panes.iter().map(|p| pane_pb(&self.hub, p)).collect();
        Ok(Response::new(pb::GetWorkspaceResponse {
            workspace: Some(workspace),
            tabs,
            panes,
        }))
    }

    async fn rename_workspace(
        &self,
        req: Request<pb::RenameWorkspaceRequest>,
    ) -> Answer<pb::RenameWorkspaceResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = workspace_id(&req.workspace_id)?;
        self.hub.guard().may_control_workspace(&origin, &id)?;
        let ws = self.hub.arrangement().rename_workspace(&id, &req.name)?;
        Ok(Response::new(pb::RenameWorkspaceResponse {
            workspace: Some(workspace_to_pb(&ws)),
        }))
    }

    async fn update_workspace_settings(
        &self,
        req: Request<pb::UpdateWorkspaceSettingsRequest>,
    ) -> Answer<pb::UpdateWorkspaceSettingsResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = workspace_id(&req.workspace_id)?;
        self.hub.guard().may_control_workspace(&origin, &id)?;
        let ws = self
            .hub
            .arrangement()
            .update_workspace_settings(&id, settings_from_pb(req.settings))?;
        Ok(Response::new(pb::UpdateWorkspaceSettingsResponse {
            workspace: Some(workspace_to_pb(&ws)),
        }))
    }

    async fn close_workspace(
        &self,
        req: Request<pb::CloseWorkspaceRequest>,
    ) -> Answer<pb::CloseWorkspaceResponse> {
        let origin = super::origin(&req);
        let id = workspace_id(&req.into_inner().workspace_id)?;
        self.hub.guard().may_control_workspace(&origin, &id)?;
        let closed = self.hub.close_workspace(&id).await?;
        Ok(Response::new(pb::CloseWorkspaceResponse {
            closed_pane_ids: closed.iter().map(ToString::to_string).collect(),
        }))
    }

    async fn refresh_git(
        &self,
        req: Request<pb::RefreshGitRequest>,
    ) -> Answer<pb::RefreshGitResponse> {
        let id = workspace_id(&req.into_inner().workspace_id)?;
        let git = self.hub.git().refresh(&id).await?;
        Ok(Response::new(pb::RefreshGitResponse {
            git: Some(git_to_pb(&git)),
        }))
    }

    async fn focus_tab(&self, req: Request<pb::FocusTabRequest>) -> Answer<pb::FocusTabResponse> {
        let origin = super::origin(&req);
        let id = tab_id(&req.into_inner().tab_id)?;
        self.hub.guard().may_control_tab(&origin, &id)?;
        let ws = self.hub.arrangement().focus_tab(&id)?;
        Ok(Response::new(pb::FocusTabResponse {
            workspace: Some(workspace_to_pb(&ws)),
        }))
    }

    async fn move_tab(&self, req: Request<pb::MoveTabRequest>) -> Answer<pb::MoveTabResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = tab_id(&req.tab_id)?;
        self.hub.guard().may_control_tab(&origin, &id)?;
        let index = usize::try_from(req.index).unwrap_or(usize::MAX);
        let ws = self.hub.arrangement().move_tab(&id, index)?;
        Ok(Response::new(pb::MoveTabResponse {
            workspace: Some(workspace_to_pb(&ws)),
        }))
    }
}
