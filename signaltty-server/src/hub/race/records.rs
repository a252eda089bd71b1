//! The races concern, `hub.races()`: the race records — kept in memory, every change published
//! as `RaceChanged` and written to `races.json` in the state directory — and what reads or
//! changes only them and the entries' checkouts (`wait.rs`, `compare.rs`). It needs the store
//! (for the bus) and the shutdown token, nothing else. What also drives panes (starting a race,
//! typing prompts, closing entries' panes and workspaces: `race.rs`, `drive.rs`, `keep.rs`)
//! stays on `Hub`.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio_util::sync::CancellationToken;

use crate::error::{Error, Result};
use crate::model::event::Event;
use crate::model::ids::RaceId;
use crate::model::race::{Entry, EntryState, Race, RaceState};
use crate::persist::file::{Durability, write_atomic};
use crate::store::Store;

use super::RACES_FILE;

/// The races, and which entries have a driver task. Cheap to clone (a save on the blocking
/// pool keeps one).
#[derive(Clone, Debug)]
pub struct Races {
    store: Store,
    shutdown: CancellationToken,
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    inner: Mutex<Inner>,
    /// Held while `races.json` is written, so writes never interleave.
    writing: Mutex<()>,
    dir: PathBuf,
}

#[derive(Debug, Default)]
pub(super) struct Inner {
    pub(super) races: Vec<Race>,
    pub(super) driving: HashSet<(RaceId, u32)>,
}

impl Races {
    /// No races yet; `races.json` lives in `dir`.
    pub fn new(store: Store, dir: PathBuf, shutdown: CancellationToken) -> Self {
        Races {
            store,
            shutdown,
            shared: Arc::new(Shared {
                inner: Mutex::default(),
                writing: Mutex::default(),
                dir,
            }),
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Inner> {
        self.shared.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn store(&self) -> &Store {
        &self.store
    }

    pub(super) fn shutdown_token(&self) -> &CancellationToken {
        &self.shutdown
    }

    fn write(&self) {
        let _held = self
            .shared
            .writing
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let dir = &self.shared.dir;
        // Serialized at write time, so the last write always carries the newest state.
        let json = match serde_json::to_vec_pretty(&self.lock().races) {
            Ok(json) => json,
            Err(e) => return tracing::warn!("cannot encode the races: {e}"),
        };
        if let Err(e) = crate::persist::file::private_dir(dir)
            .and_then(|()| write_atomic(dir, RACES_FILE, &json, Durability::Synced))
        {
            tracing::warn!("cannot save the races to {}: {e}", dir.display());
        }
    }

    /// Every race, oldest first.
    pub fn list_races(&self) -> Vec<Race> {
        self.lock().races.clone()
    }

    /// One race.
    pub fn get_race(&self, id: &RaceId) -> Result<Race> {
        self.lock()
            .races
            .iter()
            .find(|r| &r.id == id)
            .cloned()
            .ok_or_else(|| Error::NoSuchRace(id.clone()))
    }

    /// Changes a race under the lock, then announces it (`what`, about entry `index`, 0 for the
    /// race) and saves the races.
    pub(crate) fn update_race<T>(
        &self,
        id: &RaceId,
        index: u32,
        what: &str,
        change: impl FnOnce(&mut Race) -> Result<T>,
    ) -> Result<T> {
        let out = {
            let mut inner = self.lock();
            let race = inner
                .races
                .iter_mut()
                .find(|r| &r.id == id)
                .ok_or_else(|| Error::NoSuchRace(id.clone()))?;
            change(race)?
        };
        self.store.publish([Event::RaceChanged {
            race_id: id.clone(),
            index,
            what: what.to_owned(),
        }]);
        self.save_races();
        Ok(out)
    }

    /// Changes one entry (see [`Races::update_race`]).
    pub(crate) fn update_entry<T>(
        &self,
        id: &RaceId,
        index: u32,
        what: &str,
        change: impl FnOnce(&mut Entry) -> T,
    ) -> Result<T> {
        self.update_race(id, index, what, |race| {
            let entry = race
                .entry_mut(index)
                .ok_or_else(|| Error::bad(format!("race {id} has no entry {index}")))?;
            Ok(change(entry))
        })
    }

    fn save_races(&self) {
        let races = self.clone();
        tokio::task::spawn_blocking(move || races.write());
    }

    /// Loads `races.json` and takes up what a restart cut short: entries still being prepared
    /// failed; a turn that was running is started again (its prompt typed again once the
    /// resumed agent is ready); prompts waiting for their agent keep waiting. Returns the
    /// entries to drive again (driving types into panes: `Hub::restore_races` does it).
    pub(super) fn load(&self) -> Vec<(RaceId, u32)> {
        let path = self.shared.dir.join(RACES_FILE);
        let text = match std::fs::read(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(e) => {
                tracing::warn!("cannot read {}: {e}", path.display());
                return Vec::new();
            }
        };
        let mut races: Vec<Race> = match serde_json::from_slice(&text) {
            Ok(races) => races,
            Err(e) => {
                let aside = crate::persist::file::move_aside(&path);
                tracing::error!(
                    "{} is not readable ({e}); moved aside to {aside:?}, races forgotten",
                    path.display()
                );
                return Vec::new();
            }
        };
        for race in &mut races {
            for entry in &mut race.entries {
                // Event seqs start again with the new server.
                entry.turn_seq = 0;
                match entry.state {
                    EntryState::Preparing => {
                        entry.state = EntryState::Failed;
                        entry.error = "the server stopped while this entry was prepared".into();
                    }
                    EntryState::Working => {
                        entry.state = EntryState::Starting;
                        entry.pending_prompt = Some(entry.last_prompt.clone());
                        entry.turns = entry.turns.saturating_sub(1);
                    }
                    _ => {}
                }
            }
        }
        let driven: Vec<(RaceId, u32)> = races
            .iter()
            .filter(|r| r.state == RaceState::Running)
            .flat_map(|r| {
                r.entries
                    .iter()
                    .filter(|e| e.pending_prompt.is_some() && e.state.is_open())
                    .map(|e| (r.id.clone(), e.index))
            })
            .collect();
        self.lock().races = races;
        driven
    }
}
