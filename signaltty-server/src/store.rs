//! `Store`: the one handle over all records and the event bus. Every mutation runs in a short,
//! synchronous section under one `std::sync::Mutex` (never held across `.await`): it changes the
//! `State`, and the events it returns are stamped and published before the lock is released, so
//! state order and event order are the same.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use tokio::sync::watch;

use crate::bus::{Bus, Subscription};
use crate::error::{Error, Result};
use crate::model::event::Event;
use crate::model::state::{State, StateError};

/// Cheap, clonable handle to the shared state.
#[derive(Clone, Debug)]
pub struct Store {
    inner: Arc<Mutex<Locked>>,
}

#[derive(Debug)]
struct Locked {
    state: State,
    bus: Bus,
}

impl Store {
    /// A store over `state` with a bus of the given capacities.
    pub fn new(state: State, ring_capacity: usize, live_capacity: usize) -> Self {
        Store {
            inner: Arc::new(Mutex::new(Locked {
                state,
                bus: Bus::new(ring_capacity, live_capacity),
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Locked> {
        // A panic while holding the lock cannot leave a half-applied change (mutations validate
        // before they write), so a poisoned lock is still consistent: keep serving.
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `f` with shared access to the state.
    pub fn read<R>(&self, f: impl FnOnce(&State) -> R) -> R {
        f(&self.lock().state)
    }

    /// Runs a mutation; publishes the events it returns, in order, under the same lock.
    pub fn apply<T>(
        &self,
        f: impl FnOnce(&mut State, SystemTime) -> std::result::Result<(T, Vec<Event>), StateError>,
    ) -> Result<T> {
        let now = SystemTime::now();
        let mut locked = self.lock();
        let (value, events) = f(&mut locked.state, now).map_err(Error::from)?;
        for event in events {
            locked.bus.publish(event, now);
        }
        Ok(value)
    }

    /// Like [`Store::apply`] for mutations that fail with the server's own error type.
    pub fn apply_with<T>(
        &self,
        f: impl FnOnce(&mut State, SystemTime) -> Result<(T, Vec<Event>)>,
    ) -> Result<T> {
        let now = SystemTime::now();
        let mut locked = self.lock();
        let (value, events) = f(&mut locked.state, now)?;
        for event in events {
            locked.bus.publish(event, now);
        }
        Ok(value)
    }

    /// Publishes events that change no record (e.g. "server shutting down").
    pub fn publish(&self, events: impl IntoIterator<Item = Event>) {
        let now = SystemTime::now();
        let mut locked = self.lock();
        for event in events {
            locked.bus.publish(event, now);
        }
    }

    /// Subscribes to events after `from_seq` (see [`Bus::subscribe`]).
    pub fn subscribe(&self, from_seq: Option<u64>) -> Subscription {
        self.lock().bus.subscribe(from_seq)
    }

    /// The newest event seq.
    pub fn head(&self) -> u64 {
        self.lock().bus.head()
    }

    /// A watch on the head seq: changes whenever any event is published.
    pub fn watch_head(&self) -> watch::Receiver<u64> {
        self.lock().bus.watch_head()
    }

    /// A copy of the whole state, e.g. for saving a snapshot outside the lock.
    pub fn clone_state(&self) -> (State, u64) {
        let locked = self.lock();
        (locked.state.clone(), locked.bus.head())
    }
}

impl From<StateError> for Error {
    fn from(e: StateError) -> Self {
        match e {
            StateError::NoSuchWorkspace(id) => Error::NoSuchWorkspace(id),
            StateError::NoSuchTab(id) => Error::NoSuchTab(id),
            StateError::NoSuchPane(id) => Error::NoSuchPane(id),
            StateError::Bad(msg) => Error::BadParams(msg),
            StateError::TooManyPanes(limit) => Error::TooManyPanes(limit),
        }
    }
}
