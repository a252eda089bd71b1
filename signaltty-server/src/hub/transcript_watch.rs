//! Claude's interruptions, which it reports through no hook: "No" or Esc in its permission
//! dialog, Esc while the model answers or a command runs. Claude writes each to its transcript
//! (the `transcript_path` every hook payload names) as a user entry "[Request interrupted by
//! user…]". So while a Claude pane is `working` or `blocked`, one task per pane reads what the
//! transcript gained since the last look (every [`LOOK_EVERY`]; nothing is read while the pane
//! is idle or done) and, on that marker, makes the pane `idle` with attention cleared, the
//! message "interrupted" and any pending decision settled, as the hook Claude lacks would.
//!
//! Only text appended after the watch began counts, so an old interruption never ends a new
//! turn. The task ends when the pane is gone or exits, or a hook names another transcript.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::agents::AgentKind;
use crate::agents::mapping::HookEffect;
use crate::model::ids::PaneId;
use crate::model::lifecycle::{Attention, Lifecycle};

use super::Hub;
use super::decisions::WaitEnd;

/// How often a busy pane's transcript is read.
const LOOK_EVERY: Duration = Duration::from_millis(250);

/// What Claude writes to its transcript when the user interrupts it.
const MARKER: &[u8] = b"[Request interrupted by user";

/// The transcript each pane's watch reads.
fn watched() -> &'static Mutex<HashMap<PaneId, PathBuf>> {
    static WATCHED: OnceLock<Mutex<HashMap<PaneId, PathBuf>>> = OnceLock::new();
    WATCHED.get_or_init(Default::default)
}

impl Hub {
    /// Starts watching `transcript` for `pane` unless it is watched already.
    pub(super) fn watch_transcript(&self, pane: &PaneId, transcript: PathBuf) {
        {
            let Ok(mut map) = watched().lock() else {
                return;
            };
            if map.get(pane) == Some(&transcript) {
                return;
            }
            map.insert(pane.clone(), transcript.clone());
        }
        let hub = self.clone();
        let pane = pane.clone();
        tokio::spawn(async move { hub.transcript_task(pane, transcript).await });
    }

    async fn transcript_task(self, pane: PaneId, transcript: PathBuf) {
        let mut offset = std::fs::metadata(&transcript).map_or(0, |m| m.len());
        loop {
            tokio::time::sleep(LOOK_EVERY).await;
            let still_ours = watched()
                .lock()
                .map(|m| m.get(&pane) == Some(&transcript))
                .unwrap_or(false);
            let lifecycle = self.store().read(|s| {
                s.pane(&pane)
                    .ok()
                    .filter(|p| p.status.is_live())
                    .map(|p| p.state.lifecycle())
            });
            let Some(lifecycle) = lifecycle.filter(|_| still_ours) else {
                if let Ok(mut map) = watched().lock()
                    && map.get(&pane) == Some(&transcript)
                {
                    map.remove(&pane);
                }
                return;
            };
            let busy = matches!(lifecycle, Lifecycle::Working | Lifecycle::Blocked);
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
                self.waiters().deliver(id, WaitEnd::Ended(*reason));
            }
            Ok(((), events))
        });
    }
}

/// The complete lines `path` gained after `offset`, and the offset after them (unchanged when
/// the file cannot be read; from 0 again when it shrank).
fn read_from(path: &std::path::Path, offset: u64) -> (Vec<u8>, u64) {
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
