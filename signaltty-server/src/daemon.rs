//! `Daemon`: the composition root. `start` binds the socket, restores the saved state, builds the
//! store, hub and gRPC routes once, and spawns the serving and saving tasks; everything
//! long-lived hangs off one `CancellationToken` and one `TaskTracker`.

use std::path::{Path, PathBuf};

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::hub::Hub;
use crate::listen::{self, ListenError};
use crate::model::state::Policy;
use crate::store::Store;

/// How long a stopping server waits for clients to hang up.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// Why the daemon could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The socket could not be taken.
    #[error(transparent)]
    Listen(#[from] ListenError),
    /// The saved state must not be used (newer schema) or could not be read.
    #[error(transparent)]
    Persist(#[from] crate::persist::LoadError),
}

/// A running server.
#[derive(Debug)]
pub struct Daemon {
    hub: Hub,
    socket: PathBuf,
    tasks: TaskTracker,
}

impl Daemon {
    /// Starts serving on `config.socket`. Must run inside a tokio runtime.
    pub async fn start(config: Config) -> Result<Daemon, StartError> {
        listen::private_state_dir(&config.state_dir)?;
        let bound = listen::bind(&config.socket)?;
        let policy = Policy {
            close_tab_on_last_pane: config.close_tab_on_last_pane,
            max_panes: config.max_panes,
        };
        // Loaded after the socket is ours, so a second server never touches our files.
        let (state_lock, loaded) = match crate::persist::lock_state_dir(&config.state_dir)
            .and_then(|lock| Ok((lock, crate::persist::load(&config.state_dir, policy)?)))
        {
            Ok(locked) => locked,
            Err(e) => {
                let _ = std::fs::remove_file(&bound.path);
                return Err(e.into());
            }
        };
        let store = Store::new(loaded.state, config.event_ring, config.event_live_capacity);
        let shutdown = CancellationToken::new();
        let hub = Hub::new(store, config, shutdown.clone());
        hub.persistence().restore_dormant(loaded.tails);
        hub.restore_races();
        let routes = crate::rpc::routes(&hub);
        // Other machines, reached through this socket (`signaltty-machine` metadata).
        let machines = crate::machines::Machines::new(
            hub.config().config_file.clone(),
            bound
                .path
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
            hub.config().pane_clients.may_control_other_workspaces,
        );
        // Loading the snapshot (a JSON tree) leaves freed memory behind that an idle server
        // would otherwise keep.
        crate::memory::release_free_heap();
        let tasks = TaskTracker::new();
        // Before serving: a change made by the first request must already wake the saver.
        hub.start_saving(&tasks);
        hub.git().start_watch(&tasks);
        hub.start_hibernation_timer(&tasks);
        let socket = bound.path.clone();
        let listen::Bound {
            listener,
            path,
            lock,
        } = bound;
        let stop = shutdown.clone();
        crate::orphans::start(shutdown.clone());
        let classifier = hub.clone();
        let (max_connections, keepalive, keepalive_timeout) = (
            hub.config().max_connections,
            hub.config().keepalive_interval,
            hub.config().keepalive_timeout,
        );
        let connections = hub.connections().clone();
        let preface_timeout = hub.config().preface_timeout;
        tasks.spawn(async move {
            let incoming = listen::incoming(
                listener,
                move |pid| {
                    let classifier = classifier.clone();
                    async move { classifier.classify_peer(pid).await }
                },
                listen::Limits {
                    connections,
                    max_connections,
                    preface_timeout,
                },
            );
            let serve = tonic::transport::Server::builder()
                .http2_keepalive_interval(Some(keepalive))
                .http2_keepalive_timeout(Some(keepalive_timeout))
                .layer(crate::rpc::edge::EdgeLayer)
                .layer(crate::machines::MachinesLayer::new(machines))
                .add_routes(routes)
                .serve_with_incoming_shutdown(incoming, shutdown.cancelled());
            // Graceful shutdown waits for every connection to close; a client that never hangs
            // up must not keep the server alive, so the wait is bounded.
            let bounded_grace = async {
                shutdown.cancelled().await;
                tokio::time::sleep(SHUTDOWN_GRACE).await;
            };
            tokio::select! {
                served = serve => {
                    if let Err(e) = served {
                        tracing::error!(error = %e, "gRPC server stopped with an error");
                    }
                }
                () = bounded_grace => tracing::warn!("clients still connected after shutdown; closing anyway"),
            }
            // However serving ended, the other tasks (the saver) end with it.
            stop.cancel();
            // Remove the socket before releasing the lock (dropped with `bound` below).
            let _ = std::fs::remove_file(&path);
            drop(lock);
            drop(state_lock);
        });
        // Beside the socket, under its lock: terminals handed over by `signaltty attach`. A
        // fast path only: without it clients attach over gRPC.
        let handoff_path = signaltty_tty::protocol::socket_path(&socket);
        match listen::bind_held(&handoff_path) {
            Ok(listener) => {
                tasks.spawn(crate::terminal::listen::serve(
                    hub.clone(),
                    listener,
                    handoff_path,
                ));
            }
            Err(e) => tracing::warn!(error = %e, "no terminal hand-off; clients attach over gRPC"),
        }
        tasks.close();
        let resumer = hub.clone();
        tokio::spawn(async move { resumer.auto_resume().await });
        tracing::info!(socket = %socket.display(), "signaltty server listening");
        Ok(Daemon { hub, socket, tasks })
    }

    /// The socket path.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The hub (for in-process tests and the binary's signal handling).
    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    /// Resolves once the server has stopped serving and released the socket.
    pub async fn wait(&self) {
        self.tasks.wait().await;
    }
}
