//! The panes concern, `hub.panes()`, so far: the registry of live pane actors, an actor by pane
//! id, and what the panes' process trees use (`resources.rs`). It needs the store, nothing else.
//! Spawning, typing, hibernating, reading and ending panes still stay on `Hub`: they touch the
//! agents (hooks before a launch, the watches), persistence (the lineage, the saver) and the
//! arrangement (a pane's tab) — see the hub section of `docs/architecture.md`.

use crate::error::{Error, Result};
use crate::model::ids::PaneId;
use crate::pane::actor::PaneHandle;
use crate::store::Store;

use super::Registry;

/// The panes concern's handle: owns the registry of live actors.
#[derive(Debug)]
pub struct Panes {
    store: Store,
    registry: Registry,
}

impl Panes {
    /// No live panes yet.
    pub fn new(store: Store) -> Self {
        Panes {
            store,
            registry: Registry::default(),
        }
    }

    pub(in crate::hub) fn store(&self) -> &Store {
        &self.store
    }

    pub(crate) fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The actor of a live (or exited, not yet closed) pane.
    pub fn handle(&self, id: &PaneId) -> Result<PaneHandle> {
        if let Some(h) = self.registry().lock().get(id) {
            return Ok(h.clone());
        }
        // Known but without a process (restored), or unknown.
        self.store().read(|s| s.pane(id).map(|_| ()))?;
        Err(Error::PaneExited(id.clone()))
    }
}
