//! [`Client`]: one connection to the server and a typed tonic client per service over it.
//!
//! Cloning is cheap (a tonic `Channel` is a handle), and so is each service client it hands out;
//! every call runs on the one HTTP/2 connection, whose trust was checked when it was made
//! ([`crate::connect()`]).

use std::path::{Path, PathBuf};

use signaltty_proto::v1 as pb;
use signaltty_proto::v1::agent_service_client::AgentServiceClient;
use signaltty_proto::v1::decision_service_client::DecisionServiceClient;
use signaltty_proto::v1::event_service_client::EventServiceClient;
use signaltty_proto::v1::git_service_client::GitServiceClient;
use signaltty_proto::v1::notification_service_client::NotificationServiceClient;
use signaltty_proto::v1::pane_service_client::PaneServiceClient;
use signaltty_proto::v1::server_service_client::ServerServiceClient;
use signaltty_proto::v1::tab_service_client::TabServiceClient;
use signaltty_proto::v1::workspace_service_client::WorkspaceServiceClient;
use tonic::transport::Channel;

use crate::attach::{Attach, AttachStart};
use crate::error::ClientError;

/// A connection to a signaltty server.
#[derive(Debug, Clone)]
pub struct Client {
    channel: Channel,
    socket: PathBuf,
    /// The remote's name when this connection runs through an ssh bridge.
    remote: Option<String>,
}

impl Client {
    /// Wraps a connected channel; use [`crate::connect()`] to make one.
    pub(crate) fn new(channel: Channel, socket: PathBuf) -> Self {
        Client {
            channel,
            socket,
            remote: None,
        }
    }

    /// Wraps a channel to a remote server through an ssh bridge ([`crate::remote`]).
    pub(crate) fn new_remote(channel: Channel, remote: String) -> Self {
        Client {
            channel,
            socket: PathBuf::from(format!("ssh:{remote}")),
            remote: Some(remote),
        }
    }

    /// The remote this client reaches through ssh, `None` for the local server. A remote's
    /// terminal cannot be handed to the server over a side socket: attach runs over gRPC.
    pub fn remote(&self) -> Option<&str> {
        self.remote.as_deref()
    }

    /// The socket this client is connected to.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The underlying channel, for a service client not listed here.
    pub fn channel(&self) -> Channel {
        self.channel.clone()
    }

    /// `ServerService`: status and shutdown.
    pub fn server(&self) -> ServerServiceClient<Channel> {
        ServerServiceClient::new(self.channel())
    }

    /// `WorkspaceService`.
    pub fn workspaces(&self) -> WorkspaceServiceClient<Channel> {
        WorkspaceServiceClient::new(self.channel())
    }

    /// `TabService`: tabs and their layouts.
    pub fn tabs(&self) -> TabServiceClient<Channel> {
        TabServiceClient::new(self.channel())
    }

    /// `PaneService`: spawn, input, read, attach, wait.
    pub fn panes(&self) -> PaneServiceClient<Channel> {
        PaneServiceClient::new(self.channel())
    }

    /// `EventService`: the Subscribe stream.
    pub fn events(&self) -> EventServiceClient<Channel> {
        EventServiceClient::new(self.channel())
    }

    /// `AgentService`: hook events, sessions, hook installation.
    pub fn agents(&self) -> AgentServiceClient<Channel> {
        AgentServiceClient::new(self.channel())
    }

    /// `DecisionService`: agents' pending permission requests.
    pub fn decisions(&self) -> DecisionServiceClient<Channel> {
        DecisionServiceClient::new(self.channel())
    }

    /// `NotificationService`.
    pub fn notifications(&self) -> NotificationServiceClient<Channel> {
        NotificationServiceClient::new(self.channel())
    }

    /// `GitService`: worktrees and diffs.
    pub fn git(&self) -> GitServiceClient<Channel> {
        GitServiceClient::new(self.channel())
    }

    /// The server's status (`GetStatus`).
    pub async fn status(&self) -> Result<pb::GetStatusResponse, ClientError> {
        Ok(self
            .server()
            .get_status(pb::GetStatusRequest {})
            .await?
            .into_inner())
    }

    /// Attaches to a pane: see [`crate::attach`].
    pub async fn attach(&self, start: AttachStart) -> Result<Attach, ClientError> {
        Attach::start(self, start).await
    }
}
