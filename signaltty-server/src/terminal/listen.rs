//! The hand-off socket: bound beside the gRPC socket while the server holds that socket's lock,
//! mode 0600 in the same private directory; each connection's peer must run as our uid and is
//! placed (in a pane or outside) like a gRPC caller, since typing into a pane is controlling it.
//! A hand-off counts against `max_connections` for its life like a gRPC connection (it holds a
//! terminal and a task as long); past the cap it is refused with the same reason and log line.

use std::path::PathBuf;

use tokio::net::UnixListener;

use crate::hub::Hub;
use crate::log_limit::{self, LogLimit};
use crate::peer::identify;

/// Accepts hand-offs until the server shuts down, then removes the socket file.
pub async fn serve(hub: Hub, listener: UnixListener, path: PathBuf) {
    let me = nix::unistd::getuid().as_raw();
    let mut refused_log = LogLimit::new(log_limit::DEFAULT_EVERY);
    let mut over_cap_log = LogLimit::new(log_limit::DEFAULT_EVERY);
    let max_connections = hub.config().max_connections;
    let shutdown = hub.shutdown_token().clone();
    let classify = {
        let hub = hub.clone();
        move |pid| {
            let hub = hub.clone();
            async move { hub.classify_peer(pid).await }
        }
    };
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                if let Some(n) = refused_log.allow() {
                    tracing::warn!(error = %e, suppressed = n, "terminal hand-off: accept failed");
                }
                // Out of descriptors or a transient error: let other tasks run before retrying.
                tokio::time::sleep(crate::listen::BACKOFF_MAX / 10).await;
                continue;
            }
        };
        match stream.peer_cred() {
            Ok(cred) if cred.uid() == me => {
                let origin = identify(&stream, &classify).await.origin;
                let (slot, open) = hub.connections().take();
                let over_cap = (open > max_connections).then_some(max_connections);
                if over_cap.is_some() {
                    crate::listen::warn_over_cap(&mut over_cap_log, open, max_connections);
                }
                let hub = hub.clone();
                tokio::spawn(async move {
                    super::dispatch::handle(hub, origin, stream, over_cap).await;
                    drop(slot);
                });
            }
            _ => {
                if let Some(n) = refused_log.allow() {
                    tracing::warn!(suppressed = n, "terminal hand-off refused: not our user");
                }
            }
        }
    }
    let _ = std::fs::remove_file(&path);
}
