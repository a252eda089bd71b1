//! Workspace operations: renaming and settings are records only, `hub.arrangement()`'s;
//! opening one reads its git context (`hub.git()`) and closing one ends its panes, so those are
//! `Hub`'s.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::ids::{PaneId, WorkspaceId};
use crate::model::workspace::{Workspace, WorkspaceSettings};

use super::Hub;
use super::arrange::Arrangement;

/// Checks a client-given working directory: absolute, existing, a directory. Returns it
/// canonicalised so that two spellings of one directory compare equal.
pub fn checked_dir(raw: &str) -> Result<PathBuf> {
    if raw.is_empty() {
        return Err(Error::bad("cwd is required: give an absolute directory"));
    }
    let path = Path::new(raw);
    if !path.is_absolute() {
        return Err(Error::bad(format!(
            "cwd {} is relative: give an absolute directory",
            crate::error::quote(raw)
        )));
    }
    let meta = std::fs::metadata(path).map_err(|e| {
        Error::bad(format!(
            "cwd {} cannot be used: {e}",
            crate::error::quote(raw)
        ))
    })?;
    if !meta.is_dir() {
        return Err(Error::bad(format!(
            "cwd {} is not a directory",
            crate::error::quote(raw)
        )));
    }
    std::fs::canonicalize(path).map_err(|e| {
        Error::bad(format!(
            "cwd {} cannot be resolved: {e}",
            crate::error::quote(raw)
        ))
    })
}

impl Hub {
    /// Opens a workspace on an existing directory.
    pub async fn create_workspace(
        &self,
        name: &str,
        cwd: &str,
        settings: WorkspaceSettings,
    ) -> Result<Workspace> {
        let cwd = checked_dir(cwd)?;
        let git = self.git().context_of(cwd.clone()).await;
        self.store()
            .apply(|s, now| s.create_workspace(name, cwd, settings, git, now))
    }

    /// Closes a workspace and ends every pane it owns.
    pub async fn close_workspace(&self, id: &WorkspaceId) -> Result<Vec<PaneId>> {
        let removed = self.store().apply(|s, _| s.close_workspace(id))?;
        let ids: Vec<PaneId> = removed.into_iter().map(|p| p.id).collect();
        self.end_panes(&ids).await;
        Ok(ids)
    }
}

impl Arrangement {
    /// Renames a workspace.
    pub fn rename_workspace(&self, id: &WorkspaceId, name: &str) -> Result<Workspace> {
        self.store()
            .apply(|s, now| s.rename_workspace(id, name, now))
    }

    /// Replaces a workspace's settings.
    pub fn update_workspace_settings(
        &self,
        id: &WorkspaceId,
        settings: WorkspaceSettings,
    ) -> Result<Workspace> {
        self.store()
            .apply(|s, now| s.set_settings(id, settings, now))
    }
}
