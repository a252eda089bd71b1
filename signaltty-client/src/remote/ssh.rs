//! A [`Client`] over an ssh link: tonic asks the connector for a new connection whenever the
//! previous one broke, so a dropped SSH link is redialled by running `ssh` again.

use std::sync::{Arc, Mutex};

use signaltty_link::{LinkError, Remote, SshIo};
use tonic::transport::{Endpoint, Uri};

use crate::client::Client;
use crate::error::ClientError;

impl From<LinkError> for ClientError {
    fn from(e: LinkError) -> Self {
        ClientError::Remote {
            remote: e.remote,
            reason: e.reason,
            message: e.message,
        }
    }
}

/// Runs `ssh … <command> bridge` and checks the bridge's line (see [`signaltty_link::open_link`]).
pub async fn open_link(remote: &Remote) -> Result<SshIo, ClientError> {
    Ok(signaltty_link::open_link(remote).await?)
}

/// Connects to `remote`'s server through a bridge; the first connection is made (and its
/// handshake checked) before this returns, so a wrong host, a missing binary or another version
/// fails here with its own message.
pub async fn connect_remote(remote: &Remote) -> Result<Client, ClientError> {
    let first = open_link(remote).await?;
    let first = Arc::new(Mutex::new(Some(first)));
    let again = remote.clone();
    let channel = Endpoint::from_static("http://signaltty.remote")
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let first = first
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .take();
            let remote = again.clone();
            async move {
                let io = match first {
                    Some(io) => io,
                    None => signaltty_link::open_link(&remote)
                        .await
                        .map_err(std::io::Error::other)?,
                };
                Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(io))
            }
        }))
        .await
        .map_err(|e| ClientError::Remote {
            remote: remote.name.clone(),
            reason: "REMOTE_UNREACHABLE",
            message: format!("cannot open a connection to {} over ssh: {e}", remote.name),
        })?;
    Ok(Client::new_remote(channel, remote.name.clone()))
}
