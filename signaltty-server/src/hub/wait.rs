//! `WaitPane`: block until a pane's lifecycle or attention reaches one of the given values, the
//! pane exits, or a deadline passes. Driven by the event bus — no polling: the waiter subscribes
//! (replaying from the caller's baseline seq when given) and looks at each transition event.
//!
//! Semantics: without a baseline a state that already holds ends the wait at once (seq = head);
//! with `after_seq` only a transition *after* that seq counts. A transition that happened and was
//! undone before the waiter looked still counts (it is in the event stream). A waiter that falls
//! behind the live bus resumes from the replay ring after the last event it saw, so it misses
//! nothing; only if even the ring has moved past that event does it fall back to re-reading the
//! pane (a transient undone in between is then lost).

use std::time::Duration;

use tokio::sync::broadcast::error::RecvError;

use crate::error::{Error, Result};
use crate::model::event::{Event, Stamped};
use crate::model::ids::PaneId;
use crate::model::lifecycle::{Attention, Lifecycle};
use crate::model::pane::Pane;

use super::Hub;

/// Longest wait a client may ask for.
pub const MAX_WAIT: Duration = Duration::from_secs(3600);
/// Wait when the client gives none.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(60);

/// What ends a wait.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WaitTarget {
    /// Any of these lifecycles.
    pub lifecycles: Vec<Lifecycle>,
    /// Any of these attentions.
    pub attentions: Vec<Attention>,
}

impl WaitTarget {
    fn holds(&self, pane: &Pane) -> bool {
        self.lifecycles.contains(&pane.state.lifecycle())
            || self.attentions.contains(&pane.state.attention())
    }

    /// Whether `event` ends the wait on `pane`: a transition into a wanted value, or the exit.
    /// A closed pane is an error.
    fn ended_by(&self, pane: &PaneId, event: &Event) -> Result<bool> {
        Ok(match event {
            Event::LifecycleChanged { pane_id, new, .. } => {
                pane_id == pane && self.lifecycles.contains(new)
            }
            Event::AttentionChanged { pane_id, new, .. } => {
                pane_id == pane && self.attentions.contains(new)
            }
            Event::PaneExited { pane_id, .. } => pane_id == pane,
            Event::PaneClosed { pane_id, .. } if pane_id == pane => {
                return Err(Error::NoSuchPane(pane.clone()));
            }
            _ => false,
        })
    }
}

/// The wait a client asked for: 0 → default, capped at [`MAX_WAIT`].
pub fn wait_timeout(timeout_ms: u32) -> Duration {
    match timeout_ms {
        0 => DEFAULT_WAIT,
        ms => Duration::from_millis(u64::from(ms)).min(MAX_WAIT),
    }
}

impl Hub {
    /// Waits for `target` on pane `id`; returns the pane and the seq of the event that ended the
    /// wait (the head seq when the state already held). Timeout → `TIMEOUT`.
    pub async fn wait_pane(
        &self,
        id: &PaneId,
        target: &WaitTarget,
        after_seq: u64,
        timeout: Duration,
    ) -> Result<(Pane, u64)> {
        if target.lifecycles.is_empty() && target.attentions.is_empty() {
            return Err(Error::bad(
                "give at least one lifecycle or attention to wait for",
            ));
        }
        let deadline = tokio::time::Instant::now() + timeout;
        let sub = self.store().subscribe((after_seq > 0).then_some(after_seq));
        if let Some(lost) = sub.lost {
            return Err(Error::bad(format!(
                "after_seq {} is outside the retained events ({}..={}); re-read the pane and wait without a baseline",
                lost.requested, lost.oldest, lost.head
            )));
        }
        let pane = self.current(id)?;
        // An exited pane will not move again: waiting on it could only time out.
        if (after_seq == 0 && target.holds(&pane)) || !pane.status.is_live() {
            return Ok((pane, sub.head));
        }
        // The last seq this waiter has looked at: everything up to it is checked.
        let mut seen = sub.head;
        for e in &sub.replay {
            if target.ended_by(id, &e.event)? {
                return Ok((self.current(id)?, e.seq));
            }
        }
        let mut live = sub.live;
        let shutdown = self.shutdown_token().clone();
        loop {
            let received: std::result::Result<std::sync::Arc<Stamped>, RecvError> = tokio::select! {
                r = live.recv() => r,
                () = tokio::time::sleep_until(deadline) => return Err(Error::Timeout {
                    what: format!("waiting for pane {id}"),
                    written: None,
                }),
                () = shutdown.cancelled() => return Err(Error::Timeout {
                    what: format!("waiting for pane {id} (the server is shutting down)"),
                    written: None,
                }),
            };
            match received {
                // Events at or before `seen` were checked in the replay (a live receiver taken
                // with a replay can hold some of them too).
                Ok(e) if e.seq <= seen => {}
                Ok(e) => {
                    seen = e.seq;
                    if target.ended_by(id, &e.event)? {
                        return Ok((self.current(id)?, e.seq));
                    }
                }
                Err(RecvError::Lagged(_)) => {
                    let again = self.store().subscribe(Some(seen));
                    if again.lost.is_some() {
                        let pane = self.current(id)?;
                        if target.holds(&pane) || !pane.status.is_live() {
                            return Ok((pane, again.head));
                        }
                    } else {
                        for e in &again.replay {
                            if target.ended_by(id, &e.event)? {
                                return Ok((self.current(id)?, e.seq));
                            }
                        }
                    }
                    seen = again.head;
                    live = again.live;
                }
                Err(RecvError::Closed) => {
                    return Err(Error::Internal("the event bus closed".into()));
                }
            }
        }
    }

    fn current(&self, id: &PaneId) -> Result<Pane> {
        Ok(self.store().read(|s| s.pane(id).cloned())?)
    }
}

#[cfg(test)]
#[path = "wait_tests.rs"]
mod tests;
