//! Shared by the test harnesses (in-process `common`, real-process `server_process`, and the
//! socket tests): one typed gRPC client per service over a harness's channel, and the wait for a
//! freshly started server process to answer.

#![allow(dead_code)]

use std::path::Path;
use std::time::{Duration, Instant};

use signaltty_proto::v1 as pb;
use signaltty_proto::v1::server_service_client::ServerServiceClient;
use tonic::transport::Channel;

/// Writes `server()`, `workspaces()`, `tabs()`, `panes()`, `events()`, `agents()`,
/// `decisions()` and `notifications()` accessors over `self.channel`, and the calls every test
/// makes the same way (`write_input`, `get_workspace`, `status`, `list_workspaces`,
/// `create_workspace`, `pending_decisions`, `spawn_with`, `split_with`).
macro_rules! client_accessors {
    () => {
        pub fn server(&self) -> signaltty_proto::v1::server_service_client::ServerServiceClient<tonic::transport::Channel> {
            signaltty_proto::v1::server_service_client::ServerServiceClient::new(self.channel.clone())
        }
        pub fn workspaces(&self) -> signaltty_proto::v1::workspace_service_client::WorkspaceServiceClient<tonic::transport::Channel> {
            signaltty_proto::v1::workspace_service_client::WorkspaceServiceClient::new(self.channel.clone())
        }
        pub fn tabs(&self) -> signaltty_proto::v1::tab_service_client::TabServiceClient<tonic::transport::Channel> {
            signaltty_proto::v1::tab_service_client::TabServiceClient::new(self.channel.clone())
        }
        pub fn panes(&self) -> signaltty_proto::v1::pane_service_client::PaneServiceClient<tonic::transport::Channel> {
            signaltty_proto::v1::pane_service_client::PaneServiceClient::new(self.channel.clone())
        }
        pub fn events(&self) -> signaltty_proto::v1::event_service_client::EventServiceClient<tonic::transport::Channel> {
            signaltty_proto::v1::event_service_client::EventServiceClient::new(self.channel.clone())
        }
        pub fn agents(&self) -> signaltty_proto::v1::agent_service_client::AgentServiceClient<tonic::transport::Channel> {
            signaltty_proto::v1::agent_service_client::AgentServiceClient::new(self.channel.clone())
        }
        pub fn decisions(&self) -> signaltty_proto::v1::decision_service_client::DecisionServiceClient<tonic::transport::Channel> {
            signaltty_proto::v1::decision_service_client::DecisionServiceClient::new(self.channel.clone())
        }
        pub fn git(&self) -> signaltty_proto::v1::git_service_client::GitServiceClient<tonic::transport::Channel> {
            signaltty_proto::v1::git_service_client::GitServiceClient::new(self.channel.clone())
        }
        /// WriteInput of `data` to a pane, without a timeout.
        pub async fn write_input(
            &self,
            pane: &str,
            data: &[u8],
        ) -> Result<tonic::Response<signaltty_proto::v1::WriteInputResponse>, tonic::Status> {
            self.panes()
                .write_input(signaltty_proto::v1::WriteInputRequest {
                    pane_id: pane.into(),
                    data: data.to_vec(),
                    timeout_ms: 0,
                })
                .await
        }
        /// GetWorkspace: the workspace with its tabs and panes.
        pub async fn get_workspace(&self, id: &str) -> signaltty_proto::v1::GetWorkspaceResponse {
            self.workspaces()
                .get_workspace(signaltty_proto::v1::GetWorkspaceRequest { workspace_id: id.into() })
                .await
                .expect("GetWorkspace")
                .into_inner()
        }
        /// GetStatus; the call must succeed.
        pub async fn status(&self) -> signaltty_proto::v1::GetStatusResponse {
            self.server()
                .get_status(signaltty_proto::v1::GetStatusRequest {})
                .await
                .expect("GetStatus")
                .into_inner()
        }
        /// ListWorkspaces; the call must succeed.
        pub async fn list_workspaces(&self) -> Vec<signaltty_proto::v1::Workspace> {
            self.workspaces()
                .list_workspaces(signaltty_proto::v1::ListWorkspacesRequest {})
                .await
                .expect("ListWorkspaces")
                .into_inner()
                .workspaces
        }
        /// CreateWorkspace `name` (empty: named after the directory) on `cwd`, with default
        /// settings; the call must succeed.
        pub async fn create_workspace(&self, name: &str, cwd: &std::path::Path) -> signaltty_proto::v1::Workspace {
            self.workspaces()
                .create_workspace(signaltty_proto::v1::CreateWorkspaceRequest {
                    name: name.into(),
                    cwd: cwd.display().to_string(),
                    settings: None,
                })
                .await
                .expect("CreateWorkspace")
                .into_inner()
                .workspace
                .expect("workspace")
        }
        /// Every pending decision (ListPendingDecisions without a filter), oldest first.
        pub async fn pending_decisions(&self) -> Vec<signaltty_proto::v1::Decision> {
            self.decisions()
                .list_pending_decisions(signaltty_proto::v1::ListPendingDecisionsRequest::default())
                .await
                .expect("ListPendingDecisions")
                .into_inner()
                .decisions
        }
        /// SpawnPane as `request` says; the call must succeed. Returns the new pane.
        pub async fn spawn_with(&self, request: signaltty_proto::v1::SpawnPaneRequest) -> signaltty_proto::v1::Pane {
            self.panes()
                .spawn_pane(request)
                .await
                .expect("SpawnPane")
                .into_inner()
                .pane
                .expect("pane")
        }
        /// SplitPane as `request` says; the call must succeed. Returns the new pane.
        pub async fn split_with(&self, request: signaltty_proto::v1::SplitPaneRequest) -> signaltty_proto::v1::Pane {
            self.panes()
                .split_pane(request)
                .await
                .expect("SplitPane")
                .into_inner()
                .pane
                .expect("pane")
        }
        pub fn notifications(&self) -> signaltty_proto::v1::notification_service_client::NotificationServiceClient<tonic::transport::Channel> {
            signaltty_proto::v1::notification_service_client::NotificationServiceClient::new(self.channel.clone())
        }
    };
}
pub(crate) use client_accessors;

/// Waits (polling the socket with a short backoff, failing after `limit`) until a server process
/// just started on `socket` answers GetStatus. A stale socket refuses at once, so retry.
pub async fn wait_for_server(socket: &Path, limit: Duration) -> Channel {
    let deadline = Instant::now() + limit;
    loop {
        if let Ok(ch) = signaltty_proto::connect(socket).await
            && ServerServiceClient::new(ch.clone())
                .get_status(pb::GetStatusRequest {})
                .await
                .is_ok()
        {
            return ch;
        }
        assert!(
            Instant::now() < deadline,
            "server did not come up on {}",
            socket.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
