//! Pane operations: spawning, input, capture, resizing, signals, closing. Each live pane has an
//! actor ([`PaneHandle`]) registered here; the pane's record lives in the store. A pane is only
//! spawned for a placement that exists, and its record is inserted before its actor starts
//! reporting, so no exit or title is ever lost.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use crate::agents::AgentKind;
use crate::agents::session::remembered_env;
use crate::error::{Error, Result};
use crate::model::agent::AgentInfo;
use crate::model::decision::ClearReason;
use crate::model::ids::{PaneId, WorkspaceId};
use crate::model::layout::Direction;
use crate::model::lifecycle::PaneState;
use crate::model::names::validate_name;
use crate::model::pane::{Pane, PaneStatus, Size};
use crate::model::state::Placement;
use crate::model::tab::Tab;
use crate::pane::actor::{PaneHandle, Report, Reporter, StartOptions};
use crate::pane::pty::{MAX_INPUT_BYTES, Pty, WriteError};
use crate::pane::signal::{SignalScope, parse_signal};
use crate::pane::spawn::{SpawnError, SpawnSpec};
use crate::term::{HistoryLimits, TermEvent};

use super::Hub;

mod actors;
use super::workspaces::checked_dir;
pub use actors::Panes;

/// Live pane actors by id.
#[derive(Debug, Default)]
pub struct Registry(Mutex<HashMap<PaneId, PaneHandle>>);

impl Registry {
    pub(super) fn lock(&self) -> MutexGuard<'_, HashMap<PaneId, PaneHandle>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Live numbers of a pane that are not events (they change on every byte of output), read
/// from its actor when a client asks for the pane.
#[derive(Clone, Debug, Default)]
pub struct PaneLive {
    /// Bytes of output so far.
    pub output_offset: u64,
    /// Last output time.
    pub last_activity_at: Option<SystemTime>,
    /// The process's current directory (from `/proc`), when it runs.
    pub cwd: Option<std::path::PathBuf>,
}

/// What to start in a new pane.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    /// Command; `$SHELL` when empty.
    pub argv: Vec<String>,
    /// Working directory; a default applies when empty.
    pub cwd: String,
    /// Extra environment.
    pub env: Vec<(String, String)>,
    /// Requested size (0 = default).
    pub cols: u32,
    /// Requested size (0 = default).
    pub rows: u32,
    /// Title ("" = argv[0]).
    pub title: String,
    /// Do not install our hooks before launching a supported agent.
    pub skip_hook_install: bool,
}

/// Longest input timeout a client may ask for.
const MAX_INPUT_TIMEOUT: Duration = Duration::from_secs(60);
/// Input timeout when the client gives none.
const DEFAULT_INPUT_TIMEOUT: Duration = Duration::from_secs(5);

/// What ReadPane captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capture {
    /// The visible screen.
    Screen,
    /// History plus screen, the last `lines` (0 = all).
    Scrollback {
        /// How many lines.
        lines: usize,
    },
}

impl Capture {
    /// How many lines a scrollback capture takes (0 asks for all of them); `None` for the screen.
    fn scrollback_depth(self) -> Option<usize> {
        match self {
            Capture::Screen => None,
            Capture::Scrollback { lines: 0 } => Some(usize::MAX),
            Capture::Scrollback { lines } => Some(lines),
        }
    }
}

/// `$SHELL`, else `/bin/sh` (when the config file names no `default_shell`).
fn default_shell() -> String {
    std::env::var("SHELL")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "/bin/sh".to_owned())
}

impl Hub {
    /// Spawns a pane into `ws` (a new tab, or `tab`).
    pub async fn spawn_pane(
        &self,
        ws: &WorkspaceId,
        tab: Option<crate::model::ids::TabId>,
        launch: Launch,
    ) -> Result<(Pane, Tab)> {
        let placement = match tab {
            Some(tab) => Placement::IntoTab(tab),
            None => Placement::NewTab {
                title: String::new(),
            },
        };
        let default_cwd = self.store().read(|s| {
            s.check_placement(&placement)?;
            let ws = s.workspace(ws)?;
            if let Placement::IntoTab(tab) = &placement
                && s.tab(tab)?.workspace_id != ws.id
            {
                return Err(crate::model::state::StateError::Bad(format!(
                    "tab {tab} is not in workspace {}",
                    ws.id
                )));
            }
            Ok(ws.cwd.clone())
        })?;
        self.start_pane(ws.clone(), placement, launch, default_cwd)
            .await
    }

    /// Splits `target` and starts a pane in the new half.
    pub async fn split_pane(
        &self,
        target: &PaneId,
        direction: Direction,
        launch: Launch,
    ) -> Result<(Pane, Tab)> {
        let placement = Placement::Split {
            target: target.clone(),
            direction,
        };
        // Refused before anything starts: a split past a pane limit spawns nothing.
        let (ws, size, default_cwd) = self.store().read(|s| {
            s.check_placement(&placement)?;
            let p = s.pane(target)?;
            Ok::<_, crate::model::state::StateError>((
                p.workspace_id.clone(),
                p.size,
                p.cwd.clone(),
            ))
        })?;
        // Start at the target's size; the clients' next resize arbitrates the real size.
        let launch = Launch {
            cols: if launch.cols == 0 {
                u32::from(size.cols)
            } else {
                launch.cols
            },
            rows: if launch.rows == 0 {
                u32::from(size.rows)
            } else {
                launch.rows
            },
            ..launch
        };
        let default_cwd = self
            .panes()
            .handle(target)
            .ok()
            .and_then(|h| h.pty().cwd().ok())
            .unwrap_or(default_cwd);
        self.start_pane(ws, placement, launch, default_cwd).await
    }

    async fn start_pane(
        &self,
        ws: WorkspaceId,
        placement: Placement,
        launch: Launch,
        default_cwd: std::path::PathBuf,
    ) -> Result<(Pane, Tab)> {
        let cwd = if launch.cwd.is_empty() {
            default_cwd
        } else {
            checked_dir(&launch.cwd)?
        };
        let argv = if launch.argv.is_empty() {
            vec![
                self.config()
                    .default_shell
                    .clone()
                    .unwrap_or_else(default_shell),
            ]
        } else {
            launch.argv
        };
        let title = if launch.title.trim().is_empty() {
            argv[0].rsplit('/').next().unwrap_or(&argv[0]).to_owned()
        } else {
            validate_name("title", &launch.title).map_err(Error::BadParams)?
        };
        let size = Size::clamped(launch.cols, launch.rows);
        let agent = AgentKind::detect(&argv[0])
            .map(|kind| AgentInfo::new(kind, remembered_env(launch.env.iter().cloned(), &cwd)));
        let id = PaneId::new();
        let mut hook_notice = None;
        let spec = SpawnSpec {
            argv: argv.clone(),
            cwd: cwd.clone(),
            env: launch.env,
            cols: size.cols,
            rows: size.rows,
        };
        // A launch that cannot start changes nothing: no hooks for a program that is not
        // there (the hooks must be in place before the agent starts and reads its config, so
        // they cannot wait for the exec itself). Checked for every launch, so that "not found"
        // says where it was looked for (the server's PATH, not the caller's).
        spec.validate().map_err(spawn_error)?;
        crate::pane::spawn::check_program(&spec).map_err(spawn_error)?;
        if let Some(agent) = &agent
            && !launch.skip_hook_install
        {
            hook_notice = self
                .agents()
                .install_hooks_for_launch(agent.kind, &spec.env, &spec.cwd)
                .await;
        }
        let (pty, events, ticket) = self.spawn_pty(&id, &spec).await?;
        let now = SystemTime::now();
        let record = Pane {
            id: id.clone(),
            workspace_id: ws,
            tab_id: crate::model::ids::TabId::new(),
            title,
            title_locked: !launch.title.trim().is_empty(),
            argv,
            cwd,
            size,
            status: PaneStatus::Live { pid: pty.pid() },
            state: PaneState::new(now),
            agent,
            pending_decision: None,
            last_message: String::new(),
            created_at: now,
        };
        let inserted = self
            .store()
            .apply(|s, now| s.add_pane(record, placement, now));
        drop(ticket);
        let (pane, tab) = match inserted {
            Ok(v) => v,
            Err(e) => {
                // The workspace or tab went away while we spawned: leave nothing behind.
                let grace = self.config().hangup_grace;
                tokio::spawn(async move { pty.hangup(grace).await });
                return Err(e);
            }
        };
        self.start_actor(id.clone(), pty, events, size, bytes::Bytes::new());
        if let Some(agent) = &pane.agent {
            // Until its hooks speak, its own start-up screens say what it waits for.
            self.watch_start_screen(&id, agent.kind);
        }
        if let Some(notice) = hook_notice {
            // What the user must do in the agent (trust new hooks) reaches them on the pane.
            self.agents().notify_pane_of_hooks(&id, &notice);
        }
        Ok((pane, tab))
    }

    /// Starts a process for pane `id` on a fresh PTY (new panes and resumed ones). The fork and
    /// the wait for the child's exec (about a millisecond) run on the blocking pool, so that the
    /// one async worker keeps serving every other pane meanwhile.
    /// The ticket counts the spawn as in flight (`spawning.rs`): hold it until the pane's record
    /// says LIVE.
    pub(super) async fn spawn_pty(
        &self,
        id: &PaneId,
        spec: &SpawnSpec,
    ) -> Result<(
        Pty,
        crate::pane::pty::PtyEvents,
        super::spawning::SpawnTicket,
    )> {
        let mut ticket = self.begin_spawn();
        let (id, socket, spec) = (id.clone(), self.config().socket.clone(), spec.clone());
        let hub = self.clone();
        let (pty, events) = super::blocking("spawn", move || {
            let spawned = Pty::spawn(id.clone(), &socket, &spec)?;
            hub.spawning().started(spawned.0.pid(), id.clone());
            hub.persistence().lineage().record(spawned.0.pid(), &id);
            Ok(spawned)
        })
        .await?
        .map_err(spawn_error)?;
        ticket.set_pid(pty.pid());
        Ok((pty, events, ticket))
    }

    /// Starts the actor over a spawned PTY and registers it, with `prelude` already on its screen.
    /// The pane's record must already say LIVE, so that no report of the actor is lost. Returns
    /// the handle it replaced (an exited process's, when a pane is resumed).
    pub(super) fn start_actor(
        &self,
        id: PaneId,
        pty: Pty,
        events: crate::pane::pty::PtyEvents,
        size: Size,
        prelude: bytes::Bytes,
    ) -> Option<PaneHandle> {
        let limits = HistoryLimits {
            max_lines: self.config().scrollback_lines,
            max_bytes: self.config().scrollback_bytes,
        };
        let options = StartOptions {
            prelude,
            activity: Some(self.persistence().saver().activity()),
            paint_first: self.config().paint_first,
        };
        let handle = PaneHandle::start_with(
            id.clone(),
            pty,
            events,
            size,
            limits,
            self.reporter(),
            options,
        );
        self.panes().registry().lock().insert(id, handle)
    }

    /// The callback pane actors report through. Holds the hub weakly so that a pane's task never
    /// keeps a stopped server alive.
    fn reporter(&self) -> Reporter {
        let weak = Arc::downgrade(&self.inner);
        Arc::new(move |id: &PaneId, report: Report| {
            if let Some(inner) = weak.upgrade() {
                Hub { inner }.on_report(id, report);
            }
        })
    }

    fn on_report(&self, id: &PaneId, report: Report) {
        let result = match report {
            Report::Term(TermEvent::Title(title)) => self
                .store()
                .apply(|s, _| {
                    s.update_pane(id, |p| {
                        if !p.title_locked {
                            // Not every frame of an animated title (model/steady_title.rs).
                            let steady = crate::model::steady_title::steady_title(&title);
                            if p.title != steady {
                                p.title = steady.to_owned();
                            }
                        }
                    })
                })
                .map(|_| ()),
            Report::Term(event) => self.on_term_event(id, event),
            Report::Exited { code } => self.on_exit(id, code),
        };
        if let Err(e) = result {
            // The pane was closed meanwhile: nothing to record.
            tracing::debug!(pane = %id, error = %e, "pane report after close");
        }
    }

    /// Writes input; bounded in size and time.
    pub async fn write_input(&self, id: &PaneId, data: &[u8], timeout_ms: u32) -> Result<usize> {
        if data.len() > MAX_INPUT_BYTES {
            return Err(Error::InputTooLarge {
                len: data.len(),
                max: MAX_INPUT_BYTES,
            });
        }
        // Prompting a hibernated agent wakes it; the text goes to the woken agent.
        self.wake_if_hibernated(id).await?;
        let handle = self.panes().handle(id)?;
        let timeout = match timeout_ms {
            0 => DEFAULT_INPUT_TIMEOUT,
            ms => Duration::from_millis(u64::from(ms)).min(MAX_INPUT_TIMEOUT),
        };
        let route = super::typing::Route::Call {
            deadline: Instant::now() + timeout,
        };
        self.type_keys(&handle, data, route)
            .await
            .map_err(|e| write_error(id, e))
    }

    /// Sets a pane's size explicitly.
    pub fn resize_pane(&self, id: &PaneId, cols: u32, rows: u32) -> Result<Size> {
        let size = Size::clamped(cols, rows);
        let handle = self.panes().handle(id)?;
        handle.resize(size);
        self.store().apply(|s, _| s.resize_pane(id, size))
    }

    /// Records a size chosen by client arbitration.
    pub fn record_size(&self, id: &PaneId, size: Size) {
        let _ = self.store().apply(|s, _| s.resize_pane(id, size));
    }

    /// Sends an allow-listed signal.
    pub fn signal_pane(&self, id: &PaneId, name: &str, group: bool) -> Result<()> {
        let signal = parse_signal(name).map_err(|e| Error::bad(e.to_string()))?;
        let handle = self.panes().handle(id)?;
        let scope = if group {
            SignalScope::Group
        } else {
            SignalScope::Child
        };
        handle.pty().signal(signal, scope).map_err(|e| match e {
            crate::pane::pty::PtyError::Exited | crate::pane::pty::PtyError::Closed => {
                Error::PaneExited(id.clone())
            }
            other => Error::Internal(format!("signal failed: {other}")),
        })
    }

    /// Closes a pane: removes it from its tab and hangs up its process.
    pub async fn close_pane(&self, id: &PaneId) -> Result<bool> {
        let removal = self.store().apply(|s, now| s.remove_pane(id, now))?;
        self.end_panes(std::slice::from_ref(id)).await;
        Ok(removal.tab_closed)
    }

    /// Renames a pane; the program's titles no longer override it.
    pub fn rename_pane(&self, id: &PaneId, title: &str) -> Result<Pane> {
        let title = validate_name("title", title).map_err(Error::BadParams)?;
        self.store().apply(|s, _| {
            s.update_pane(id, |p| {
                p.title = title;
                p.title_locked = true;
            })
        })
    }

    /// Captures a pane's text. A long scrollback is copied under the pane's lock and made into
    /// lines on the blocking pool, so neither the pane's output nor the async worker waits the
    /// milliseconds that takes.
    pub async fn read_pane(
        &self,
        id: &PaneId,
        capture: Capture,
        keep_ansi: bool,
    ) -> Result<(Vec<String>, u64, Size)> {
        /// History text up to this size is made into lines at once (a few hundred µs at most).
        const INLINE_BYTES: usize = 64 * 1024;
        // A hibernated pane answers with the screen kept at hibernation (hub/hibernate.rs), not
        // with what its agent printed on the way out.
        let handle = match self.panes().handle(id).and_then(|h| {
            if self.is_hibernated(id) {
                Err(Error::PaneExited(id.clone()))
            } else {
                Ok(h)
            }
        }) {
            Ok(handle) => handle,
            // A restored pane answers from its saved tail, which is parsed first.
            Err(e) => {
                let (hub, id) = (self.clone(), id.clone());
                return super::blocking("capture", move || {
                    hub.persistence().read_restored(&id, capture, keep_ansi)
                })
                .await?
                .ok_or(e);
            }
        };
        let Some(n) = capture.scrollback_depth() else {
            return Ok(handle.with_screen(|screen, offset| {
                let lines = capture_lines(screen, capture, keep_ansi);
                (lines, offset, screen_size(screen))
            }));
        };
        let (copy, offset, size) = handle.with_screen(|screen, offset| {
            (
                screen.scrollback_copy(n, keep_ansi),
                offset,
                screen_size(screen),
            )
        });
        let lines = if copy.history_bytes() <= INLINE_BYTES {
            copy.into_lines()
        } else {
            super::blocking("capture", move || copy.into_lines()).await?
        };
        Ok((lines, offset, size))
    }

    /// Ends the processes of panes already removed from the state. Returns once SIGHUP was sent;
    /// the escalation to SIGKILL runs in the background.
    pub async fn end_panes(&self, ids: &[PaneId]) {
        self.persistence().dormant().forget(ids);
        let handles: Vec<PaneHandle> = {
            let mut registry = self.panes().registry().lock();
            ids.iter().filter_map(|id| registry.remove(id)).collect()
        };
        // Their decisions went with their records; wake the hooks still waiting on them.
        self.decisions()
            .waiters()
            .end_panes(ids, ClearReason::PaneExited);
        let grace = self.config().hangup_grace;
        for handle in handles {
            handle.mark_closed();
            tokio::spawn(async move { handle.pty().hangup(grace).await });
        }
    }

    /// Hangs up every pane and waits (bounded) until each is gone; for shutdown.
    pub async fn end_all_panes(&self) {
        let handles: Vec<PaneHandle> = self
            .panes()
            .registry()
            .lock()
            .drain()
            .map(|(_, h)| h)
            .collect();
        let grace = self.config().hangup_grace;
        let waits = handles.into_iter().map(|h| async move {
            h.mark_closed();
            h.pty().hangup(grace).await
        });
        futures_util::future::join_all(waits).await;
    }

    /// The live numbers of a pane (none for a pane without a process); the RPC edge puts them
    /// next to the record when it encodes a pane.
    pub fn pane_live(&self, id: &PaneId) -> PaneLive {
        self.panes()
            .registry()
            .lock()
            .get(id)
            .map(|h| PaneLive {
                output_offset: h.offset(),
                last_activity_at: h.last_activity(),
                // Read when asked (no per-pane timer): one readlink of /proc/<pid>/cwd.
                cwd: h.pty().cwd().ok(),
            })
            .unwrap_or_default()
    }
}

fn screen_size(screen: &crate::term::Screen) -> Size {
    let (cols, rows) = screen.size();
    Size { cols, rows }
}

/// The lines ReadPane returns from a screen.
pub(super) fn capture_lines(
    screen: &crate::term::Screen,
    capture: Capture,
    keep_ansi: bool,
) -> Vec<String> {
    match capture.scrollback_depth() {
        None => screen
            .contents(keep_ansi)
            .lines()
            .map(str::to_owned)
            .collect(),
        Some(n) => screen.scrollback(n, keep_ansi),
    }
}

fn spawn_error(e: SpawnError) -> Error {
    match e {
        SpawnError::EmptyArgv | SpawnError::InvalidArg { .. } | SpawnError::InvalidEnv { .. } => {
            Error::bad(e.to_string())
        }
        SpawnError::RelativeCwd { .. } | SpawnError::Cwd { .. } => Error::bad(e.to_string()),
        SpawnError::Exec { program, source } => Error::SpawnFailed {
            program,
            reason: source.to_string(),
        },
        SpawnError::NotFound { program, looked } => Error::SpawnFailed {
            program,
            reason: looked,
        },
        other => Error::SpawnFailed {
            program: String::new(),
            reason: other.to_string(),
        },
    }
}

fn write_error(id: &PaneId, e: WriteError) -> Error {
    match e {
        WriteError::TooLarge { len, max } => Error::InputTooLarge { len, max },
        WriteError::Timeout { written } => Error::Timeout {
            what: "writing input to a pane that does not read".into(),
            written: Some(written as u64),
        },
        WriteError::Exited | WriteError::Closed => Error::PaneExited(id.clone()),
        WriteError::Io { written, source } => {
            Error::io(format!("writing input ({written} bytes written)"), source)
        }
    }
}
