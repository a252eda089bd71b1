//! Pane processes between their exec and their record in the store.
//!
//! A pane's program runs as soon as `Pty::spawn` returns, but the store learns its pid only when
//! the spawning task gets the async worker back. A program that connects at once (an agent's
//! first hook) would meanwhile look like a process that escaped its pane: a child of the server
//! in another session, matching no live pane (`peer.rs`). So each spawn is counted while it runs,
//! its pid is recorded from the spawning thread itself, and a peer that classifies as escaped
//! while spawns are in flight is classified again once they settle.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::watch;

use crate::model::ids::PaneId;
use crate::peer::Origin;

use super::Hub;

/// How long a connection waits for in-flight spawns before it is classified as it stands. A
/// spawn takes about a millisecond; this bounds a stuck one.
const SETTLE: Duration = Duration::from_secs(2);

/// The spawns in flight and the pids they started.
#[derive(Debug)]
pub struct Spawning {
    started: Mutex<HashMap<u32, PaneId>>,
    /// How many spawns are in flight; every change (a spawn begins, starts a pid, ends) is sent,
    /// so a waiting classification looks again.
    in_flight: watch::Sender<usize>,
}

impl Default for Spawning {
    fn default() -> Self {
        Spawning {
            started: Mutex::default(),
            in_flight: watch::Sender::new(0),
        }
    }
}

impl Spawning {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u32, PaneId>> {
        self.started.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Of `chain` (nearest first), the nearest pid started by a spawn that has not ended: its
    /// index and its pane.
    pub fn nearest_among(&self, chain: &[u32]) -> Option<(usize, PaneId)> {
        let started = self.lock();
        chain
            .iter()
            .enumerate()
            .find_map(|(at, pid)| started.get(pid).map(|pane| (at, pane.clone())))
    }

    /// Records that `pid` is pane `pane`'s child; call from the spawning thread, right after the
    /// exec, before anything awaits.
    pub fn started(&self, pid: u32, pane: PaneId) {
        self.lock().insert(pid, pane);
        self.in_flight.send_modify(|_| {});
    }
}

/// One spawn in flight: held from before the fork until the pane's record says LIVE (or the
/// spawn failed). Dropping it ends the spawn.
#[derive(Debug)]
pub struct SpawnTicket {
    hub: Hub,
    pid: Option<u32>,
}

impl SpawnTicket {
    /// Notes the pid this spawn started, so that dropping the ticket forgets it.
    pub fn set_pid(&mut self, pid: u32) {
        self.pid = Some(pid);
    }
}

impl Drop for SpawnTicket {
    fn drop(&mut self) {
        let spawning = self.hub.spawning();
        if let Some(pid) = self.pid {
            spawning.lock().remove(&pid);
        }
        spawning.in_flight.send_modify(|n| *n = n.saturating_sub(1));
    }
}

impl Hub {
    /// Counts a spawn as in flight until the ticket is dropped.
    pub(super) fn begin_spawn(&self) -> SpawnTicket {
        self.spawning().in_flight.send_modify(|n| *n += 1);
        SpawnTicket {
            hub: self.clone(),
            pid: None,
        }
    }

    /// Where `pid` runs as things stand: in a live pane, outside, or — for a process whose
    /// ancestry ends at init — where an earlier server's pane left it (`lineage.rs`).
    fn classify_now(&self, pid: u32) -> Origin {
        crate::peer::classify(
            pid,
            |chain| self.live_pane_among(chain),
            |chain| {
                self.persistence()
                    .lineage()
                    .origin_of(chain, |pane| self.store().read(|s| s.pane(pane).is_ok()))
            },
        )
    }

    /// Where a connecting process runs (`peer.rs`), given its pid. A peer that looks escaped
    /// while spawns are in flight may be a new pane's child not yet recorded, and one placed in
    /// a pane whose record is not yet in the store would find no such pane: either is
    /// classified again at each change until it is placed in a recorded pane or no spawn is
    /// left.
    pub async fn classify_peer(&self, pid: u32) -> Origin {
        let mut changes = self.spawning().in_flight.subscribe();
        let settle = async {
            loop {
                // Marked seen before looking, so that a change made meanwhile wakes us again.
                let busy = *changes.borrow_and_update() > 0;
                let origin = self.classify_now(pid);
                // Placed in a pane whose spawn has not yet put its record in the store: a call
                // naming that pane would find no such pane, so wait for the spawn too.
                let settled = match &origin {
                    Origin::Outside => true,
                    Origin::Pane(pane) => self.store().read(|s| s.pane(pane).is_ok()),
                    Origin::Escaped => false,
                };
                if settled || !busy {
                    return origin;
                }
                if changes.changed().await.is_err() {
                    return origin;
                }
            }
        };
        match tokio::time::timeout(SETTLE, settle).await {
            Ok(origin) => origin,
            Err(_) => self.classify_now(pid),
        }
    }
}
