//! WaitRace: until the turn each open entry was last given has ended, or one entry failed, or a
//! deadline. Driven by `RaceChanged` events: every change of an entry is one, so the race is
//! looked at again only when it changed.

use std::time::Duration;

use tokio::sync::broadcast::error::RecvError;

use crate::error::{Error, Result};
use crate::model::event::Event;
use crate::model::ids::RaceId;
use crate::model::race::{EntryState, Race};

use super::Races;

/// Why a wait ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitOutcome {
    /// Every open entry's last turn ended.
    AllEnded,
    /// An entry failed.
    EntryFailed,
}

/// Whether the wait is over for `race` as it stands.
pub fn outcome(race: &Race) -> Option<WaitOutcome> {
    let open: Vec<_> = race.entries.iter().filter(|e| e.state.is_open()).collect();
    if open.iter().any(|e| e.state == EntryState::Failed) {
        return Some(WaitOutcome::EntryFailed);
    }
    open.iter()
        .all(|e| e.state == EntryState::TurnEnded && e.pending_prompt.is_none())
        .then_some(WaitOutcome::AllEnded)
}

impl Races {
    /// Waits (at most `timeout`) for the race's turns to end.
    pub async fn wait_race(&self, id: &RaceId, timeout: Duration) -> Result<(Race, WaitOutcome)> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut live = self.store().subscribe(None).live;
        let shutdown = self.shutdown_token().clone();
        loop {
            let race = self.get_race(id)?;
            if let Some(done) = outcome(&race) {
                return Ok((race, done));
            }
            loop {
                let received = tokio::select! {
                    r = live.recv() => r,
                    () = tokio::time::sleep_until(deadline) => return Err(Error::Timeout {
                        what: format!("waiting for race {id}"),
                        written: None,
                    }),
                    () = shutdown.cancelled() => return Err(Error::Timeout {
                        what: format!("waiting for race {id} (the server is shutting down)"),
                        written: None,
                    }),
                };
                match received {
                    Ok(e) => match &e.event {
                        Event::RaceChanged { race_id, .. } if race_id == id => break,
                        _ => {}
                    },
                    Err(RecvError::Lagged(_)) => {
                        live = self.store().subscribe(None).live;
                        break;
                    }
                    Err(RecvError::Closed) => {
                        return Err(Error::Internal("the event bus closed".into()));
                    }
                }
            }
        }
    }
}
