//! `Hub`: the core operations every RPC service calls — validation, the store, git reads and (in
//! `hub/panes.rs`) the pane actors. Services only decode, call one hub method, and encode.

pub mod panes;
mod tabs;
mod workspaces;

use std::sync::Arc;
use std::time::SystemTime;

use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::store::Store;

/// Clonable handle shared by every service.
#[derive(Clone, Debug)]
pub struct Hub {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    store: Store,
    config: Config,
    started_at: SystemTime,
    shutdown: CancellationToken,
    panes: panes::Registry,
}

impl Hub {
    /// Builds the hub over a store.
    pub fn new(store: Store, config: Config, shutdown: CancellationToken) -> Self {
        Hub {
            inner: Arc::new(Inner {
                store,
                config,
                started_at: SystemTime::now(),
                shutdown,
                panes: panes::Registry::default(),
            }),
        }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// When the server started.
    pub fn started_at(&self) -> SystemTime {
        self.inner.started_at
    }

    /// Cancelled when the server begins to stop.
    pub fn shutdown_token(&self) -> &CancellationToken {
        &self.inner.shutdown
    }
}

impl Hub {
    /// Begins an orderly stop: refuses while processes run unless `force`; announces the stop,
    /// hangs up every live pane, and cancels the shutdown token (which ends streams and the
    /// server). Returns how many live panes were hung up.
    pub async fn shutdown(&self, force: bool, reason: &str) -> crate::error::Result<usize> {
        let live: Vec<_> = self.store().read(|s| {
            s.all_panes()
                .iter()
                .filter(|p| p.status.is_live())
                .map(|p| p.id.clone())
                .collect()
        });
        if !live.is_empty() && !force {
            return Err(crate::error::Error::PanesAlive(live.len()));
        }
        self.store()
            .publish([crate::model::event::Event::ServerShuttingDown {
                reason: reason.to_owned(),
            }]);
        self.end_all_panes().await;
        self.inner.shutdown.cancel();
        Ok(live.len())
    }
}
