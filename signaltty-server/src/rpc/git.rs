//! `GitService`: worktrees and diffs of a workspace's repository.

use signaltty_proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::convert::git::{file_diff_to_pb, workspace_diff_to_pb, worktree_to_pb};
use super::convert::{workspace_id, workspace_to_pb};
use crate::hub::Hub;
use crate::hub::git::NewWorktree;

/// Serves `signaltty.v1.GitService`.
#[derive(Debug)]
pub struct GitService {
    hub: Hub,
}

impl GitService {
    /// A service over the hub.
    pub fn new(hub: Hub) -> Self {
        GitService { hub }
    }
}

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl pb::git_service_server::GitService for GitService {
    async fn list_worktrees(
        &self,
        req: Request<pb::ListWorktreesRequest>,
    ) -> Answer<pb::ListWorktreesResponse> {
        let id = workspace_id(&req.into_inner().workspace_id)?;
        let trees = self.hub.git().list_worktrees(&id).await?;
        Ok(Response::new(pb::ListWorktreesResponse {
            worktrees: trees.iter().map(worktree_to_pb).collect(),
        }))
    }

    async fn create_worktree(
        &self,
        req: Request<pb::CreateWorktreeRequest>,
    ) -> Answer<pb::CreateWorktreeResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = workspace_id(&req.workspace_id)?;
        // A new checkout of the workspace's repository, and a new workspace on it.
        self.hub.guard().may_control_workspace(&origin, &id)?;
        self.hub
            .guard()
            .may_act_beyond_workspace(&origin, "open new workspaces (on a new worktree)")?;
        let created = self
            .hub
            .create_worktree(
                &id,
                NewWorktree {
                    path: req.path,
                    branch: req.branch,
                    start_point: req.start_point,
                    workspace_name: req.workspace_name,
                },
            )
            .await?;
        Ok(Response::new(pb::CreateWorktreeResponse {
            worktree: Some(worktree_to_pb(&created.worktree)),
            workspace: Some(workspace_to_pb(&created.workspace)),
            created_branch: created.created_branch,
        }))
    }

    async fn open_worktree(
        &self,
        req: Request<pb::OpenWorktreeRequest>,
    ) -> Answer<pb::OpenWorktreeResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = workspace_id(&req.workspace_id)?;
        self.hub.guard().may_control_workspace(&origin, &id)?;
        self.hub
            .guard()
            .may_act_beyond_workspace(&origin, "open new workspaces (on a worktree)")?;
        let (ws, reused) = self.hub.open_worktree(&id, &req.path).await?;
        Ok(Response::new(pb::OpenWorktreeResponse {
            workspace: Some(workspace_to_pb(&ws)),
            reused,
        }))
    }

    async fn remove_worktree(
        &self,
        req: Request<pb::RemoveWorktreeRequest>,
    ) -> Answer<pb::RemoveWorktreeResponse> {
        let origin = super::origin(&req);
        let req = req.into_inner();
        let id = workspace_id(&req.workspace_id)?;
        // A checkout open in any workspace is refused by the operation itself.
        self.hub.guard().may_control_workspace(&origin, &id)?;
        self.hub.git().remove_worktree(&id, &req.path).await?;
        Ok(Response::new(pb::RemoveWorktreeResponse {}))
    }

    async fn get_workspace_diff(
        &self,
        req: Request<pb::GetWorkspaceDiffRequest>,
    ) -> Answer<pb::GetWorkspaceDiffResponse> {
        let id = workspace_id(&req.into_inner().workspace_id)?;
        let diff = self.hub.git().workspace_diff(&id).await?;
        Ok(Response::new(workspace_diff_to_pb(&diff)))
    }

    async fn get_file_diff(
        &self,
        req: Request<pb::GetFileDiffRequest>,
    ) -> Answer<pb::GetFileDiffResponse> {
        let req = req.into_inner();
        let id = workspace_id(&req.workspace_id)?;
        let old_path = (!req.old_path.is_empty()).then_some(req.old_path);
        let diff = self.hub.git().file_diff(&id, req.path, old_path).await?;
        Ok(Response::new(file_diff_to_pb(&diff)))
    }
}
