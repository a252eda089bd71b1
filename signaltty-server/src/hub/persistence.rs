//! The persistence concern, `hub.persistence()`: what outlives this server process — the
//! snapshot saver (`persist/saver.rs`), the lineage of pane children (`lineage.rs`), and the
//! *dormant* panes restored from a snapshot (or hibernated), whose saved tails stand in for a
//! screen until they are resumed (`resume.rs`). It needs the store (to read the panes' records)
//! and the scrollback limits, nothing else. What a save reads from the pane actors, and resuming
//! a pane (panes + agents + persistence), are `Hub`'s (`saving.rs`, `resume.rs`).

use std::collections::HashMap;

use bytes::Bytes;

use super::panes::{Capture, capture_lines};
use super::resume::{Dormant, RestoredView};
use crate::config::Config;
use crate::lineage::Lineage;
use crate::model::ids::PaneId;
use crate::model::pane::Size;
use crate::persist::{SaveInput, Saver, resumable, tails};
use crate::store::Store;
use crate::term::{HistoryLimits, Screen};

/// The persistence concern's handle.
#[derive(Debug)]
pub struct Persistence {
    store: Store,
    /// The configuration's scrollback limits, for a dormant pane's screen.
    history: HistoryLimits,
    saver: Saver,
    lineage: Lineage,
    dormant: Dormant,
}

impl Persistence {
    /// The handle for the state directory of `config`.
    pub(super) fn new(store: Store, config: &Config) -> Self {
        Persistence {
            store,
            history: HistoryLimits {
                max_lines: config.scrollback_lines,
                max_bytes: config.scrollback_bytes,
            },
            saver: Saver::new(config.state_dir.clone()),
            lineage: Lineage::open(&config.state_dir),
            dormant: Dormant::default(),
        }
    }

    fn store(&self) -> &Store {
        &self.store
    }

    /// The snapshot saver.
    pub fn saver(&self) -> &Saver {
        &self.saver
    }

    /// The pane children of this server and earlier ones on the same state dir.
    pub(super) fn lineage(&self) -> &Lineage {
        &self.lineage
    }

    /// Dormant panes and the resumes in progress.
    pub(super) fn dormant(&self) -> &Dormant {
        &self.dormant
    }

    /// Saves `input` and stops saving (before a shutdown hangs up the panes). A failure is
    /// logged: the shutdown goes on.
    pub async fn save_final(&self, input: SaveInput) {
        match self.saver().save_final(input).await {
            Ok(report) => tracing::info!(?report, "saved the state for the next start"),
            Err(e) => {
                tracing::error!(error = %e, "the final save failed; the last saved state stays")
            }
        }
    }

    /// Makes every pane without a process dormant, with its saved tail. Called once at start.
    pub fn restore_dormant(&self, mut saved: HashMap<PaneId, Vec<u8>>) {
        let ids: Vec<PaneId> = self.store().read(|s| {
            s.all_panes()
                .iter()
                .filter(|p| !p.status.is_live())
                .map(|p| p.id.clone())
                .collect()
        });
        for id in ids {
            let tail = saved.remove(&id).map(Bytes::from).unwrap_or_default();
            self.dormant().insert(id, tail);
        }
    }

    fn dormant_screen(&self, id: &PaneId) -> Option<(Screen, Size)> {
        let tail = self.dormant().tail(id)?;
        let size = self.store().read(|s| s.pane(id).map(|p| p.size)).ok()?;
        Some((tails::screen_of(&tail, size, self.history), size))
    }

    /// ReadPane on a dormant pane: its saved tail. `None` when the pane is not dormant.
    pub(super) fn read_restored(
        &self,
        id: &PaneId,
        capture: Capture,
        keep_ansi: bool,
    ) -> Option<(Vec<String>, u64, Size)> {
        let (screen, size) = self.dormant_screen(id)?;
        Some((capture_lines(&screen, capture, keep_ansi), 0, size))
    }

    /// Attach on a dormant pane: the screen to show and a watch for its end. `None` when the
    /// pane is not dormant.
    pub fn restored_view(&self, id: &PaneId) -> Option<RestoredView> {
        let (tail, gone) = self.dormant().watch(id)?;
        let (size, title, resumable) = self
            .store()
            .read(|s| {
                s.pane(id).map(|p| {
                    let resumable = resumable::resume_argv(p).is_some();
                    (p.size, p.title.clone(), resumable)
                })
            })
            .ok()?;
        let screen = tails::screen_of(&tail, size, self.history);
        let notice = if resumable {
            vec![
                "[signaltty] not running since a restart; to resume its agent session, run:"
                    .to_owned(),
                format!("signaltty pane resume {id}"),
            ]
        } else {
            vec![
                "[signaltty] not running since a restart; to start it again, run:".to_owned(),
                format!("signaltty pane resume {id} --respawn"),
            ]
        };
        Some(RestoredView {
            snapshot: screen.snapshot(),
            title,
            notice,
            gone,
        })
    }
}
