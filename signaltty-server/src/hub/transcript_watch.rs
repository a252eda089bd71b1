//! Claude's interruptions, which it reports through no hook: "No" or Esc in its permission
//! dialog, Esc while the model answers or a command runs. Claude writes each to its transcript
//! (the `transcript_path` every hook payload names) as a user entry "[Request interrupted by
//! user…]". So one task per Claude pane sleeps on inotify for its transcript's directory (the
//! file may not exist yet, and may be replaced) and, when the transcript gains lines while the
//! pane is `working` or `blocked`, looks for that marker; on it the pane becomes `idle` with
//! attention cleared, the message "interrupted" and any pending decision settled, as the hook
//! Claude lacks would. No timer: an idle Claude pane costs no wake-up.
//!
//! Only text appended after the watch began counts, so an old interruption never ends a new
//! turn (lines gained while the pane is idle are read and passed over). The task ends when the
//! pane exits or is closed (it listens on the event bus for that), or when a hook names another
//! transcript (the new watch wakes the old one).

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use nix::sys::inotify::AddWatchFlags;
use tokio::sync::Notify;
use tokio::sync::broadcast::error::RecvError;

use crate::agents::AgentKind;
use crate::agents::mapping::HookEffect;
use crate::model::event::Event;
use crate::model::ids::PaneId;
use crate::model::lifecycle::{Attention, Lifecycle};

use super::Hub;
use super::decisions::WaitEnd;
use super::inotify_fd::InotifyFd;

/// How often a busy pane looks for its transcript's directory until it exists.
const LOOK_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

/// What Claude writes to its transcript when the user interrupts it.
const MARKER: &[u8] = b"[Request interrupted by user";

/// Per pane, the transcript its watch reads and how to wake that watch when it is replaced.
type Watches = HashMap<PaneId, (PathBuf, Arc<Notify>)>;

/// The watches of every pane.
fn watched() -> &'static Mutex<Watches> {
    static WATCHED: OnceLock<Mutex<Watches>> = OnceLock::new();
    WATCHED.get_or_init(Default::default)
}

/// Whether `pane`'s watch is still the one for `transcript`; forgets it when not `keep`.
fn still_watched(pane: &PaneId, transcript: &Path, keep: bool) -> bool {
    let Ok(mut map) = watched().lock() else {
        return false;
    };
    let ours = map.get(pane).is_some_and(|(t, _)| t == transcript);
    if ours && !keep {
        map.remove(pane);
    }
    ours
}

impl Hub {
    /// Starts watching `transcript` for `pane` unless it is watched already.
    pub(super) fn watch_transcript(&self, pane: &PaneId, transcript: PathBuf) {
        let replaced = Arc::new(Notify::new());
        {
            let Ok(mut map) = watched().lock() else {
                return;
            };
            if map.get(pane).is_some_and(|(t, _)| *t == transcript) {
                return;
            }
            if let Some((_, old)) = map.insert(pane.clone(), (transcript.clone(), replaced.clone()))
            {
                old.notify_one();
            }
        }
        let Some(name) = transcript.file_name().map(ToOwned::to_owned) else {
            return;
        };
        let hub = self.clone();
        let pane = pane.clone();
        tokio::spawn(async move { hub.transcript_task(pane, transcript, name, replaced).await });
    }

    async fn transcript_task(
        self,
        pane: PaneId,
        transcript: PathBuf,
        name: OsString,
        replaced: Arc<Notify>,
    ) {
        let mut offset = std::fs::metadata(&transcript).map_or(0, |m| m.len());
        let mut bus = self.store().subscribe(None).live;
        let mut fd: Option<InotifyFd> = None;
        // Read after subscribing, so that no change of it falls between the two.
        let mut busy = self.store().read(|s| {
            s.pane(&pane).is_ok_and(|p| {
                matches!(p.state.lifecycle(), Lifecycle::Working | Lifecycle::Blocked)
            })
        });
        loop {
            let mut grew = false;
            if fd.is_none() {
                fd = watch_dir(&transcript);
                // The transcript may have gained lines before its directory could be watched.
                grew = fd.is_some();
            }
            if !grew {
                let batch = async {
                    match &fd {
                        Some(fd) => fd.next_batch().await,
                        None => std::future::pending().await,
                    }
                };
                // Until Claude has made the transcript's directory (a fresh HOME has none at
                // SessionStart), look for it while the pane is busy: only then can an
                // interruption be missed.
                let dir_appears = async {
                    if fd.is_none() && busy {
                        tokio::time::sleep(LOOK_EVERY).await;
                    } else {
                        std::future::pending::<()>().await;
                    }
                };
                tokio::select! {
                    () = replaced.notified() => {}
                    () = dir_appears => {}
                    batch = batch => match batch {
                        Ok(events) => grew = events.iter().any(|e| e.name.as_deref() == Some(name.as_os_str())),
                        Err(e) => {
                            tracing::warn!(error = %e, "reading inotify events for a transcript failed");
                            still_watched(&pane, &transcript, false);
                            return;
                        }
                    },
                    received = bus.recv() => match received {
                        Ok(e) if !concerns(&e.event, &pane) => continue,
                        Ok(_) | Err(RecvError::Lagged(_)) => {}
                        Err(RecvError::Closed) => return,
                    },
                }
            }
            let lifecycle = self.store().read(|s| {
                s.pane(&pane)
                    .ok()
                    .filter(|p| p.status.is_live())
                    .map(|p| p.state.lifecycle())
            });
            let Some(lifecycle) = lifecycle else {
                still_watched(&pane, &transcript, false);
                return;
            };
            if !still_watched(&pane, &transcript, true) {
                return;
            }
            busy = matches!(lifecycle, Lifecycle::Working | Lifecycle::Blocked);
            if !grew {
                continue;
            }
            let (gained, end) = read_from(&transcript, offset);
            offset = end;
            if busy && gained.windows(MARKER.len()).any(|w| w == MARKER) {
                self.interrupted(&pane);
            }
        }
    }

    fn interrupted(&self, pane: &PaneId) {
        let mut effect = HookEffect::state(Lifecycle::Idle, Some(Attention::None));
        effect.clears_decision = true;
        effect.message = Some("interrupted".to_owned());
        let _ = self.store().apply(|s, now| {
            let (applied, events) =
                s.apply_hook_event(pane, AgentKind::Claude, &effect, false, now)?;
            for (id, reason) in &applied.cleared {
                self.decisions()
                    .waiters()
                    .deliver(id, WaitEnd::Ended(*reason));
            }
            Ok(((), events))
        });
    }
}

/// Whether `event` is `pane`'s: its lifecycle moved, its process exited or it was closed.
fn concerns(event: &Event, pane: &PaneId) -> bool {
    matches!(event,
        Event::LifecycleChanged { pane_id, .. }
        | Event::PaneExited { pane_id, .. }
        | Event::PaneClosed { pane_id, .. } if pane_id == pane)
}

/// An inotify watch on the transcript's directory (so a file made or replaced later is seen
/// too); `None` while the directory does not exist.
fn watch_dir(transcript: &Path) -> Option<InotifyFd> {
    let dir = transcript.parent()?;
    let fd = InotifyFd::open().ok()?;
    let mask = AddWatchFlags::IN_MODIFY
        | AddWatchFlags::IN_CLOSE_WRITE
        | AddWatchFlags::IN_CREATE
        | AddWatchFlags::IN_MOVED_TO;
    fd.inotify.add_watch(dir, mask).ok()?;
    Some(fd)
}

/// The complete lines `path` gained after `offset`, and the offset after them (unchanged when
/// the file cannot be read; from 0 again when it shrank).
fn read_from(path: &Path, offset: u64) -> (Vec<u8>, u64) {
    let Ok(mut file) = std::fs::File::open(path) else {
        return (Vec::new(), offset);
    };
    let len = file.metadata().map_or(offset, |m| m.len());
    let start = if len < offset { 0 } else { offset };
    if file.seek(SeekFrom::Start(start)).is_err() {
        return (Vec::new(), offset);
    }
    let mut buf = Vec::new();
    if file.read_to_end(&mut buf).is_err() {
        return (Vec::new(), offset);
    }
    // A line still being written is read next time, whole.
    let whole = buf.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    buf.truncate(whole);
    (buf, start + whole as u64)
}
