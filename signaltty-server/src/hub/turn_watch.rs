//! Codex 0.171 runs no hook when a turn fails (an API error: no StopFailure), so a failed turn
//! would read `working` for good. While a Codex pane is `working`, one task per pane reads the
//! screen every [`LOOK_EVERY`] for the error Codex draws once its spinner is gone
//! (`agents::screen_signs::codex_turn_error`); an error that was already on the screen when the
//! turn began does not count. On a new one the pane becomes `failed` / `error` with Codex's own
//! text as its message, as a StopFailure hook would make it. The task ends as soon as the
//! lifecycle moves (a hook), or the pane exits.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::agents::AgentKind;
use crate::agents::mapping::HookEffect;
use crate::agents::screen_signs;
use crate::model::ids::PaneId;
use crate::model::lifecycle::{Attention, Lifecycle};

use super::Hub;

/// How often a working Codex pane's screen is read.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// The panes whose turn is watched now.
fn watched() -> &'static Mutex<HashSet<PaneId>> {
    static WATCHED: OnceLock<Mutex<HashSet<PaneId>>> = OnceLock::new();
    WATCHED.get_or_init(Default::default)
}

impl Hub {
    /// Watches the turn a Codex pane just began, unless it is watched already.
    pub(super) fn watch_codex_turn(&self, pane: &PaneId) {
        if !watched().lock().is_ok_and(|mut w| w.insert(pane.clone())) {
            return;
        }
        let hub = self.clone();
        let pane = pane.clone();
        tokio::spawn(async move {
            hub.turn_task(&pane).await;
            if let Ok(mut w) = watched().lock() {
                w.remove(&pane);
            }
        });
    }

    async fn turn_task(&self, pane: &PaneId) {
        let Some(began) = self.working_since(pane) else {
            return;
        };
        let Ok(handle) = self.panes().handle(pane) else {
            return;
        };
        // What the screen showed as the turn began: an older turn's error, not this one's.
        let before = handle.with_screen(|s, _| screen_signs::codex_turn_error(&s.contents(false)));
        loop {
            tokio::time::sleep(LOOK_EVERY).await;
            if self.working_since(pane) != Some(began) {
                return;
            }
            let now = handle.with_screen(|s, _| screen_signs::codex_turn_error(&s.contents(false)));
            let Some(error) = now.filter(|e| Some(e) != before.as_ref()) else {
                continue;
            };
            let mut effect = HookEffect::state(Lifecycle::Failed, Some(Attention::Error));
            effect.only_if = Some(Lifecycle::Working);
            effect.message = Some(error);
            let _ = self.store().apply(|s, now| {
                let (_, events) =
                    s.apply_hook_event(pane, AgentKind::Codex, &effect, false, now)?;
                Ok(((), events))
            });
            return;
        }
    }

    /// When the pane's current `working` began, if it is live and working.
    pub(super) fn working_since(&self, pane: &PaneId) -> Option<std::time::SystemTime> {
        self.store().read(|s| {
            s.pane(pane)
                .ok()
                .filter(|p| p.status.is_live() && p.state.lifecycle() == Lifecycle::Working)
                .map(|p| p.state.lifecycle_since())
        })
    }
}
