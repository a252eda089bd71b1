//! The driver of one race entry: types its pending prompt (the race's, or a review's) once its
//! agent is ready for input, then follows the turn that prompt started until it ends.
//!
//! Ready means: the pane is live, has no pending decision, does not ask for input or permission
//! (attention below `input_required`), and its lifecycle is `idle` or `done` — set only by the
//! agent's own session-start, idle or stop hook, so a pane still starting (`unknown`), working or
//! blocked is never typed into. Agents without such a signal (`generic:COMMAND`) fall back to
//! a bounded wait: once their pane has printed nothing for [`QUIET`], and at the latest
//! [`FALLBACK_LIMIT`] after their start.
//!
//! A turn ends with the first lifecycle change to `done` (turn ended) or `failed` (entry
//! failed) whose event seq is after the prompt was typed, so an earlier turn's end never counts;
//! an exit of the pane fails the entry. Driven by the event bus, no polling; the only timers are
//! the fallback's deadlines. One driver per entry at a time (`Races::driving`): a driver that
//! finds nothing left to do removes itself under the same lock a review takes to queue a prompt.

use std::time::{Duration, SystemTime};

use tokio::sync::broadcast::error::RecvError;
use tokio::time::Instant;

use crate::model::agent_kind::AgentKind;
use crate::model::event::Event;
use crate::model::ids::{PaneId, RaceId};
use crate::model::lifecycle::{Attention, Lifecycle};
use crate::model::race::{EntryState, RaceState};

use super::Hub;

/// A signal-less agent is ready once its pane has been quiet this long.
pub const QUIET: Duration = Duration::from_millis(1500);
/// …and at the latest this long after it started.
pub const FALLBACK_LIMIT: Duration = Duration::from_secs(15);

/// What the driver does next.
enum Next {
    /// Nothing left: the driver ends.
    Stop,
    /// Type `text` into `pane`.
    Deliver { pane: PaneId, text: String },
    /// Wait for an event about the pane or race, or until the deadline.
    Watch { deadline: Option<Instant> },
}

impl Hub {
    /// Starts the entry's driver unless one runs.
    pub(crate) fn drive_entry(&self, race: &RaceId, index: u32) {
        let key = (race.clone(), index);
        if !self.races().lock().driving.insert(key) {
            return;
        }
        let hub = self.clone();
        let race = race.clone();
        tokio::spawn(async move { hub.drive(race, index).await });
    }

    async fn drive(&self, race: RaceId, index: u32) {
        let mut live = self.store().subscribe(None).live;
        let shutdown = self.shutdown_token().clone();
        loop {
            let deadline = match self.next_step(&race, index) {
                Next::Stop => return,
                Next::Deliver { pane, text } => {
                    self.deliver(&race, index, &pane, &text).await;
                    continue;
                }
                Next::Watch { deadline } => deadline,
            };
            let far = Instant::now() + Duration::from_secs(24 * 3600);
            let received = tokio::select! {
                r = live.recv() => r,
                () = tokio::time::sleep_until(deadline.unwrap_or(far)) => continue,
                () = shutdown.cancelled() => return self.stop_driving(&race, index),
            };
            match received {
                // A stopping server hangs up every pane: that is no agent exiting, and the
                // entry is taken up again after the restart.
                Ok(stamped) if matches!(stamped.event, Event::ServerShuttingDown { .. }) => {
                    return self.stop_driving(&race, index);
                }
                Ok(stamped) => self.on_event(&race, index, stamped.seq, &stamped.event),
                Err(RecvError::Lagged(_)) => {
                    // Events were missed: take up from now, and look at the pane as it stands.
                    live = self.store().subscribe(None).live;
                    self.catch_up(&race, index);
                }
                Err(RecvError::Closed) => return self.stop_driving(&race, index),
            }
        }
    }

    fn stop_driving(&self, race: &RaceId, index: u32) {
        self.races().lock().driving.remove(&(race.clone(), index));
    }

    /// Decides under the races lock; a driver with nothing to do leaves `driving` there.
    fn next_step(&self, race: &RaceId, index: u32) -> Next {
        let mut inner = self.races().lock();
        let found = inner
            .races
            .iter()
            .find(|r| &r.id == race)
            .and_then(|r| {
                (r.state == RaceState::Running)
                    .then(|| r.entry(index))
                    .flatten()
            })
            .cloned();
        let next = match found {
            None => Next::Stop,
            Some(entry) => match (entry.state, entry.pending_prompt, entry.pane_id) {
                (EntryState::Working, _, Some(_)) => Next::Watch { deadline: None },
                (EntryState::Starting | EntryState::TurnEnded, Some(text), Some(pane)) => {
                    self.ready(&pane, entry.agent, entry.started_at, text)
                }
                _ => Next::Stop,
            },
        };
        if matches!(next, Next::Stop) {
            inner.driving.remove(&(race.clone(), index));
        }
        next
    }

    /// Whether the agent in `pane` may be typed into now.
    fn ready(
        &self,
        pane: &PaneId,
        agent: AgentKind,
        started: Option<SystemTime>,
        text: String,
    ) -> Next {
        let Ok(record) = self.store().read(|s| s.pane(pane).cloned()) else {
            return Next::Watch { deadline: None };
        };
        let blocked = record.pending_decision.is_some()
            || record.state.attention() >= Attention::InputRequired;
        if !record.status.is_live() || blocked {
            return Next::Watch { deadline: None };
        }
        let deliver = Next::Deliver {
            pane: pane.clone(),
            text,
        };
        if agent != AgentKind::Generic {
            return match record.state.lifecycle() {
                Lifecycle::Idle | Lifecycle::Done => deliver,
                _ => Next::Watch { deadline: None },
            };
        }
        // No ready signal: quiet output, bounded by the fallback limit.
        let now = SystemTime::now();
        let since = |t: SystemTime| now.duration_since(t).unwrap_or_default();
        let running = started.map_or(Duration::ZERO, since);
        let quiet = self
            .pane_live(pane)
            .last_activity_at
            .map_or(running, since)
            .min(running);
        if running >= FALLBACK_LIMIT || quiet >= QUIET {
            return deliver;
        }
        let wait = (QUIET - quiet).min(FALLBACK_LIMIT - running);
        Next::Watch {
            deadline: Some(Instant::now() + wait),
        }
    }

    /// Types `text` (bracketed as a paste when the program asked for that; otherwise its line
    /// breaks become spaces, since a bare newline would submit a part of it) and Enter.
    async fn deliver(&self, race: &RaceId, index: u32, pane: &PaneId, text: &str) {
        let bracketed = self
            .panes()
            .handle(pane)
            .map(|h| h.with_screen(|s, _| s.bracketed_paste()))
            .unwrap_or(false);
        let body = if bracketed {
            format!("\x1b[200~{text}\x1b[201~")
        } else {
            text.replace(['\r', '\n'], " ")
        };
        // Events after this seq belong to the turn this prompt starts.
        let seq = self.store().head();
        let typed = async {
            self.write_input(pane, body.as_bytes(), 0).await?;
            self.write_input(pane, b"\r", 0).await
        }
        .await;
        let _ = match typed {
            Ok(_) => self
                .races()
                .update_entry(race, index, "prompt delivered", |e| {
                    e.state = EntryState::Working;
                    e.turn_seq = seq;
                    e.turns += 1;
                    e.last_prompt = e.pending_prompt.take().unwrap_or_default();
                    e.pending_comments = 0;
                    e.prompt_delivered_at = Some(SystemTime::now());
                }),
            Err(err) => self
                .races()
                .update_entry(race, index, "prompt not delivered", |e| {
                    e.state = EntryState::Failed;
                    e.error = format!("the prompt could not be typed: {err}");
                }),
        };
    }

    /// What an event means for a working entry.
    fn on_event(&self, race: &RaceId, index: u32, seq: u64, event: &Event) {
        let Ok(entry) = self.races().get_race(race).map(|r| r.entry(index).cloned()) else {
            return;
        };
        let Some(entry) = entry else { return };
        let Some(pane) = entry.pane_id.clone() else {
            return;
        };
        let working = entry.state == EntryState::Working && seq > entry.turn_seq;
        // A prompt is due or a turn runs: an exit now means the entry failed.
        let waiting = matches!(entry.state, EntryState::Starting | EntryState::Working);
        match event {
            Event::LifecycleChanged { pane_id, new, .. } if pane_id == &pane && working => {
                match new {
                    Lifecycle::Done => self.end_turn(race, index),
                    Lifecycle::Failed => self.fail(race, index, "the agent's turn failed"),
                    _ => {}
                }
            }
            Event::PaneExited { pane_id, code } if pane_id == &pane && waiting => {
                self.fail(race, index, &format!("the agent exited (status {code})"));
            }
            Event::PaneClosed { pane_id, .. } if pane_id == &pane && waiting => {
                self.fail(race, index, "the agent's pane was closed");
            }
            _ => {}
        }
    }

    /// After missed events: a working entry whose pane shows a turn end since the prompt ends.
    fn catch_up(&self, race: &RaceId, index: u32) {
        let Ok(Some(entry)) = self.races().get_race(race).map(|r| r.entry(index).cloned()) else {
            return;
        };
        let (Some(pane), Some(typed)) = (entry.pane_id, entry.prompt_delivered_at) else {
            return;
        };
        if entry.state != EntryState::Working {
            return;
        }
        if let Ok(p) = self.store().read(|s| s.pane(&pane).cloned())
            && p.state.lifecycle_since() > typed
        {
            match p.state.lifecycle() {
                Lifecycle::Done => self.end_turn(race, index),
                Lifecycle::Failed | Lifecycle::Exited => {
                    self.fail(race, index, "the agent's turn failed")
                }
                _ => {}
            }
        }
    }

    fn end_turn(&self, race: &RaceId, index: u32) {
        let _ = self.races().update_entry(race, index, "turn ended", |e| {
            e.state = EntryState::TurnEnded;
            e.turn_ended_at = Some(SystemTime::now());
        });
        let hub = self.clone();
        let race = race.clone();
        tokio::spawn(async move { hub.races().count_changes(&race, index).await });
    }

    fn fail(&self, race: &RaceId, index: u32, why: &str) {
        let _ = self.races().update_entry(race, index, "failed", |e| {
            e.state = EntryState::Failed;
            e.error = why.to_owned();
            e.turn_ended_at = Some(SystemTime::now());
        });
    }
}
