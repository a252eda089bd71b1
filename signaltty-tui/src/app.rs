//! The TUI's whole state ([`App`]), what can happen to it ([`Msg`]) and what it asks the
//! runtime to do ([`Effect`]). No I/O here: terminal models ([`Screen`]) are plain data fed
//! by `update`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use crate::catalog::{Catalog, FeedMsg};
use crate::geometry::{Divider, SplitPath};
use crossterm::event::{KeyEvent, MouseEvent};
use signaltty_proto::v1 as pb;
use signaltty_term::Screen;

use crate::action::Target;
use crate::keymap::{Chord, Keymap};

pub use crate::sidebar_row::Row;

/// How long a toast stays.
pub const TOAST_TTL: Duration = Duration::from_secs(5);
/// Width of the sidebar, border included.
pub const SIDEBAR_WIDTH: u16 = 28;
/// Below this many columns the sidebar starts hidden (an 80-column terminal keeps its width
/// for the panes); `ToggleSidebar` shows it anyway.
pub const SIDEBAR_MIN_COLS: u16 = 100;

/// Input mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The TUI's own keys.
    Normal,
    /// Keys go to the focused pane, except the leader.
    Insert,
}

/// Where keyboard focus is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    /// The pane area (the focused pane of the current tab).
    Panes,
    /// The sidebar tree.
    Sidebar,
}

/// The connection to the server, as the event feed reports it.
#[derive(Clone, Debug, PartialEq)]
pub enum Link {
    /// Waiting for the first load.
    Connecting,
    /// Loaded and following events.
    Live,
    /// The stream dropped; the last frame stays on screen under a notice.
    Reconnecting {
        /// What went wrong.
        reason: String,
    },
}

pub use crate::field::Field;
pub use crate::spawn_form::SpawnForm;

/// Where the user is: (workspace, tab, pane).
pub type Place = (Option<String>, Option<String>, Option<String>);

/// What was shown before, for the "last" actions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    /// Where the user was after the last message.
    pub at: Place,
    /// Per tab, the pane focused before the current one.
    pub pane: HashMap<String, String>,
    /// Per workspace, the tab shown before the current one.
    pub tab: HashMap<String, String>,
    /// The workspace shown before the current one.
    pub workspace: Option<String>,
}

/// What was last told to the outer terminal, and the tabs with unseen output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outer {
    /// The title last written (none before the first).
    pub title: Option<String>,
    /// Tabs whose panes printed while the tab was not shown (tmux's `#`).
    pub activity: HashSet<String>,
    /// The highlighted row of the notification list (`C-b N`).
    pub selected: usize,
}

/// The picker's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Picker {
    /// What was typed.
    pub filter: Field,
    /// The highlighted row among those shown.
    pub selected: usize,
}

/// What the confirmation is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Confirm {
    /// Close a pane (ends its process).
    ClosePane(String),
    /// Close a tab and all its panes.
    CloseTab(String),
}

/// A modal overlay; it takes every key until dismissed.
#[derive(Clone, Debug, PartialEq)]
pub enum Overlay {
    /// The bindings, scrolled down `offset` rows (it may not fit a small terminal).
    Help {
        /// Rows scrolled.
        offset: usize,
    },
    /// The spawn form.
    Spawn(SpawnForm),
    /// y/n before something destructive (no binding can skip it).
    Confirm(Confirm),
    /// A rename prompt.
    Rename {
        /// What is renamed.
        target: Target,
        /// Its id.
        id: String,
        /// The new name so far.
        field: Field,
    },
    /// Unread notifications.
    Notifications,
    /// Copy mode over a pane's history, drawn in the pane's place (`crate::copy_mode`).
    Copy(crate::copy_state::CopyMode),
    /// The focused workspace's changes against HEAD.
    Diff(crate::diff_view::DiffView),
    /// The newest race's entries (`race_view.rs`).
    Race(crate::race_state::RaceView),
    /// The focused pane's pending decision, focused: only now do keys answer it.
    Decision {
        /// Its pane.
        pane_id: String,
        /// The decision (the box closes when it is answered or withdrawn).
        decision_id: String,
        /// The highlighted option (1-based): Enter answers it.
        selected: u8,
    },
    /// Workspaces, tabs and panes, filtered as one types.
    Picker(Picker),
    /// Pane numbers over the panes until a key or `until`: a digit focuses that pane.
    PaneNumbers {
        /// When they go away.
        until: Instant,
    },
    /// The command prompt (`:`).
    Prompt(Field),
}

/// A short message in the status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toast {
    /// The text.
    pub text: String,
    /// When it goes away.
    pub until: Instant,
}

/// The state of one attachment as the runtime was last asked for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attachment {
    /// Visible: input allowed, size counts.
    Interactive {
        /// Columns of the pane's content area.
        cols: u16,
        /// Rows of the pane's content area.
        rows: u16,
    },
    /// Hidden (another tab or workspace): kept live, size does not count.
    Watching,
}

/// A divider being dragged.
#[derive(Clone, Debug, PartialEq)]
pub struct Drag {
    /// The tab.
    pub tab_id: String,
    /// The divider as it was when the drag began.
    pub divider: Divider,
}

/// Text being selected with the mouse in a pane (cells of the pane's model, row-major).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The pane.
    pub pane_id: String,
    /// Where the button went down: (row, col).
    pub start: (u16, u16),
    /// Where the pointer is: (row, col).
    pub end: (u16, u16),
}

impl Selection {
    /// The two ends in reading order.
    pub fn ordered(&self) -> ((u16, u16), (u16, u16)) {
        if self.start <= self.end {
            (self.start, self.end)
        } else {
            (self.end, self.start)
        }
    }

    /// Whether a cell is selected.
    pub fn contains(&self, row: u16, col: u16) -> bool {
        let (a, b) = self.ordered();
        (row, col) >= a && (row, col) <= b
    }
}

/// The whole state of the TUI.
pub struct App {
    /// The server's state.
    pub catalog: Catalog,
    /// The other machines the server reaches, each with its own catalog (empty without
    /// remotes: the TUI then looks as on one machine).
    pub remotes: Vec<crate::machines::Remote>,
    /// The connection.
    pub link: Link,
    /// Input mode.
    pub mode: Mode,
    /// Keyboard focus.
    pub focus: Focus,
    /// The open overlay.
    pub overlay: Option<Overlay>,
    /// The workspace shown.
    pub workspace: Option<String>,
    /// The directory the TUI was started in (its workspace is chosen or created from it).
    pub start_dir: String,
    /// Per workspace, the tab the user last looked at here (the server is told too; this answers
    /// at once, before its event comes back).
    pub active_tab: HashMap<String, String>,
    /// Per tab, the pane the user last focused here (likewise).
    pub active_pane: HashMap<String, String>,
    /// Whether the sidebar shows.
    pub sidebar_visible: bool,
    /// Whether the user showed or hid the sidebar (else it follows the terminal's width).
    pub sidebar_chosen: bool,
    /// The highlighted sidebar row.
    pub highlight: usize,
    /// Collapsed workspaces.
    pub collapsed: HashSet<String>,
    /// One terminal model per attached pane.
    pub screens: HashMap<String, Screen>,
    /// What the runtime was asked to attach, per pane.
    pub attached: BTreeMap<String, Attachment>,
    /// The outer terminal's size.
    pub size: (u16, u16),
    /// Status-line messages.
    pub toasts: Vec<Toast>,
    /// The keymap.
    pub keymap: Keymap,
    /// Keys of an incomplete chord.
    pub chord: Chord,
    /// Keys whose press went to a pane, by key (letters in lower case: a release reports the
    /// unshifted key): their release goes to the same pane, any other release nowhere.
    pub keys_down: HashMap<crossterm::event::KeyCode, String>,
    /// A divider drag in progress.
    pub drag: Option<Drag>,
    /// A text selection in progress.
    pub selection: Option<Selection>,
    /// The last left click, for double clicks.
    pub last_click: Option<(Instant, u16, u16)>,
    /// The pane the user was last shown focused (to mark a newly focused pane seen once).
    pub looked_at: Option<String>,
    /// Per tab, its zoomed pane (client-side: see `crate::moves`).
    pub zoomed: HashMap<String, String>,
    /// What was shown before, for the "last pane / tab / workspace" actions.
    pub history: History,
    /// The last ratio a resize key asked for (tab, split, ratio, when): the next key within a
    /// second starts from it (see `actions::resize`).
    pub last_ratio: Option<(String, SplitPath, f32, Instant)>,
    /// The last text copied (a mouse selection or a copy-mode yank): `PasteBuffer` types it
    /// into a pane.
    pub paste_buffer: Option<String>,
    /// The decision last answered from here (a double click or a repeated key must not send
    /// a second answer that the server would refuse).
    pub answered: Option<String>,
    /// Whether a workspace for `start_dir` was already asked for (once).
    pub bootstrapped: bool,
    /// Set by Quit.
    pub quit: bool,
    /// Set by Redraw: the runtime forgets what the terminal shows and draws every cell.
    pub redraw_all: bool,
    /// Something besides pane output changed since the last frame: the next frame is drawn
    /// whole.
    pub dirty: bool,
    /// Visible panes whose models took output since they were last drawn: a frame redraws
    /// only the rows of these that changed (`crate::frames`), unless `dirty`.
    pub damaged: HashSet<String>,
    /// Alerts and the title on the outer terminal, tab activity (`crate::outer_notify`).
    pub outer: Outer,
}

impl App {
    /// The modes and keyboard protocol of a pane's program (defaults before its first snapshot).
    pub fn key_modes(
        &self,
        pane_id: &str,
    ) -> (signaltty_term::vt::Modes, crate::encode::KeyProtocol) {
        self.screens
            .get(pane_id)
            .map(|s| (*s.view().modes(), crate::encode::KeyProtocol::of(s.view())))
            .unwrap_or_default()
    }

    /// A fresh state before the first load.
    pub fn new(keymap: Keymap, size: (u16, u16), start_dir: String) -> App {
        App {
            catalog: Catalog::default(),
            remotes: Vec::new(),
            link: Link::Connecting,
            // tmux's model types into the pane from the first key.
            mode: match keymap.preset {
                crate::keymap::Preset::Tmux => Mode::Insert,
                crate::keymap::Preset::Modal => Mode::Normal,
            },
            focus: Focus::Panes,
            overlay: None,
            workspace: None,
            start_dir,
            active_tab: HashMap::new(),
            active_pane: HashMap::new(),
            sidebar_visible: size.0 >= SIDEBAR_MIN_COLS,
            sidebar_chosen: false,
            highlight: 0,
            collapsed: HashSet::new(),
            screens: HashMap::new(),
            attached: BTreeMap::new(),
            size,
            toasts: Vec::new(),
            keymap,
            chord: Chord::default(),
            keys_down: HashMap::new(),
            drag: None,
            selection: None,
            last_click: None,
            looked_at: None,
            answered: None,
            zoomed: HashMap::new(),
            history: History::default(),
            paste_buffer: None,
            last_ratio: None,
            bootstrapped: false,
            quit: false,
            redraw_all: false,
            dirty: true,
            damaged: HashSet::new(),
            outer: Default::default(),
        }
    }

    /// The current workspace record.
    pub fn current_workspace(&self) -> Option<&pb::Workspace> {
        self.workspace
            .as_deref()
            .and_then(|id| self.catalog.workspace(id))
    }

    /// The tab shown: the one last looked at here, else the server's active tab, else the first.
    pub fn current_tab(&self) -> Option<&pb::Tab> {
        let ws = self.current_workspace()?;
        let valid = |id: &String| {
            ws.tab_ids
                .contains(id)
                .then(|| self.catalog.tabs.get(id))
                .flatten()
        };
        self.active_tab
            .get(&ws.id)
            .and_then(valid)
            .or_else(|| valid(&ws.active_tab_id))
            .or_else(|| ws.tab_ids.iter().find_map(|id| self.catalog.tabs.get(id)))
    }

    /// The focused pane of the current tab.
    pub fn focused_pane(&self) -> Option<&pb::Pane> {
        let tab = self.current_tab()?;
        let valid = |id: &String| {
            tab.pane_ids
                .contains(id)
                .then(|| self.catalog.panes.get(id))
                .flatten()
        };
        self.active_pane
            .get(&tab.id)
            .and_then(valid)
            .or_else(|| valid(&tab.active_pane_id))
            .or_else(|| {
                tab.pane_ids
                    .iter()
                    .find_map(|id| self.catalog.panes.get(id))
            })
    }

    /// The sidebar's rows, top to bottom.
    pub fn sidebar_rows(&self) -> Vec<Row> {
        let mut rows = Vec::new();
        for ws in &self.catalog.workspaces {
            rows.push(Row::Workspace(ws.id.clone()));
            if self.collapsed.contains(&ws.id) {
                continue;
            }
            for tab in self.catalog.tabs_of(ws) {
                rows.push(Row::Tab(tab.id.clone()));
                for pane in self.catalog.panes_of(tab) {
                    rows.push(Row::Pane(pane.id.clone()));
                    if let Some(d) = pane.pending_decision.as_ref().filter(|d| d.answerable) {
                        for n in 1..=d.options.len() {
                            let n = u8::try_from(n).unwrap_or(u8::MAX);
                            rows.push(Row::Option(pane.id.clone(), n));
                        }
                    }
                }
            }
        }
        if !self.remotes.is_empty() {
            rows.insert(0, Row::Machine("local".to_owned()));
            for remote in &self.remotes {
                rows.push(Row::Machine(remote.name().to_owned()));
                rows.extend(crate::machines::rows(remote));
            }
        }
        rows
    }

    /// The earliest moment something must happen without input (a chord timeout, a toast
    /// expiring, the once-a-second clock of a visible timer); `None` when idle.
    pub fn deadline(&self, now: Instant) -> Option<Instant> {
        let chord = self.keymap.deadline(&self.chord);
        let toast = self.toasts.iter().map(|t| t.until).min();
        let clock = self.timer_visible().then(|| now + Duration::from_secs(1));
        let numbers = match &self.overlay {
            Some(Overlay::PaneNumbers { until }) => Some(*until),
            _ => None,
        };
        [chord, toast, clock, numbers].into_iter().flatten().min()
    }

    /// Whether a "working for 2m" timer is on screen (it needs the clock to tick).
    pub fn timer_visible(&self) -> bool {
        self.sidebar_visible
            && self.catalog.panes.values().any(|p| {
                p.lifecycle == pb::Lifecycle::Working as i32
                    && !self.collapsed.contains(&p.workspace_id)
            })
    }

    /// Adds a toast.
    pub fn toast(&mut self, text: impl Into<String>, now: Instant) {
        self.toasts.push(Toast {
            text: text.into(),
            until: now + TOAST_TTL,
        });
        self.dirty = true;
    }
}

/// Something that happened.
#[derive(Debug)]
pub enum Msg {
    /// A key press.
    Key(KeyEvent),
    /// A mouse event.
    Mouse(MouseEvent),
    /// Pasted text.
    Paste(String),
    /// The outer terminal's new size.
    Resize(u16, u16),
    /// The outer terminal gained the focus.
    FocusGained,
    /// The outer terminal lost the focus.
    FocusLost,
    /// From the catalog feed.
    Feed(FeedMsg),
    /// A `ListMachines` answer (polled only while remotes are configured).
    Machines(Vec<pb::Machine>),
    /// From a remote machine's catalog feed.
    RemoteFeed {
        /// The machine.
        machine: String,
        /// What its feed reports.
        feed: FeedMsg,
    },
    /// From an attachment.
    Pane {
        /// Which pane.
        pane_id: String,
        /// What happened.
        event: PaneEvent,
    },
    /// A request finished.
    Reply(Reply),
    /// Time passed (chord timeouts, toasts, the clock).
    Tick,
}

/// What an attachment reports.
#[derive(Debug)]
pub enum PaneEvent {
    /// A full repaint (first message, and after a resync).
    Snapshot {
        /// Repaint bytes.
        screen: Vec<u8>,
        /// Size.
        cols: u16,
        /// Size.
        rows: u16,
    },
    /// More output.
    Output(Vec<u8>),
    /// The pane's size changed.
    Resized {
        /// Size.
        cols: u16,
        /// Size.
        rows: u16,
    },
    /// The process exited.
    Exited(i32),
    /// The stream dropped (the runtime reattaches).
    Dropped(String),
}

/// The outcome of a request.
#[derive(Debug)]
pub enum Reply {
    /// It worked; nothing to do (the event stream brings the change).
    Done,
    /// It failed: shown as a toast, nothing else changes.
    Failed(String),
    /// A new pane (spawn/split): focus it.
    Spawned {
        /// Its workspace.
        workspace_id: String,
        /// Its tab.
        tab_id: String,
        /// Its id.
        pane_id: String,
    },
    /// A workspace was created for the start directory.
    WorkspaceCreated(String),
    /// Scrollback lines for copy mode.
    Lines {
        /// The pane.
        pane_id: String,
        /// Plain text, oldest first.
        lines: Vec<String>,
        /// The same lines' styled runs (parsed by [`crate::styled::parse`] off the event loop:
        /// a long history takes a while).
        styled: Vec<crate::styled::StyledLine>,
    },
    /// A git request's answer (diff view, spawn form, worktree chain).
    Git(Box<crate::git::GitReply>),
    /// A race view reply.
    Race(Box<crate::race_state::RaceReply>),
}

/// A server request the runtime makes.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// CreateWorkspace in a directory, then a shell in it.
    CreateWorkspace {
        /// Absolute directory.
        cwd: String,
    },
    /// SpawnPane.
    Spawn {
        /// Workspace.
        workspace_id: String,
        /// Tab (a new one when empty).
        tab_id: String,
        /// Command (a shell when empty).
        argv: Vec<String>,
        /// Directory (the workspace's when empty).
        cwd: String,
        /// Title.
        title: String,
        /// Environment.
        env: Vec<(String, String)>,
        /// Initial size.
        cols: u16,
        /// Initial size.
        rows: u16,
    },
    /// SplitPane with a shell.
    Split {
        /// The pane split.
        pane_id: String,
        /// RIGHT or DOWN.
        direction: pb::Direction,
    },
    /// ClosePane.
    ClosePane(String),
    /// CloseTab.
    CloseTab(String),
    /// SetRatio.
    SetRatio {
        /// Tab.
        tab_id: String,
        /// Path to the split.
        path: SplitPath,
        /// New ratio.
        ratio: f32,
    },
    /// AnswerDecision on another machine (through the local server's link to it).
    AnswerOn {
        /// The machine.
        machine: String,
        /// Pane (that machine's id).
        pane_id: String,
        /// Decision.
        decision_id: String,
        /// Option id.
        option_id: String,
    },
    /// AnswerDecision.
    Answer {
        /// Pane.
        pane_id: String,
        /// Decision.
        decision_id: String,
        /// Option id.
        option_id: String,
    },
    /// MarkSeen.
    MarkSeen(String),
    /// ResumePane.
    Resume(String),
    /// RenamePane / RenameTab / RenameWorkspace.
    Rename {
        /// What.
        target: Target,
        /// Its id.
        id: String,
        /// New name.
        name: String,
    },
    /// WriteInput, for a pane not attached interactively.
    WriteInput {
        /// Pane.
        pane_id: String,
        /// Bytes.
        bytes: Vec<u8>,
    },
    /// MovePane into a new tab at the end of its workspace.
    MoveToNewTab(String),
    /// ReadPane (scrollback) for copy mode.
    ReadScrollback(String),
    /// Tell the server which tab of a workspace is active (FocusTab: persisted, so every client
    /// and a restart agree).
    SetActiveTab {
        /// Workspace.
        workspace_id: String,
        /// Tab.
        tab_id: String,
    },
    /// Tell the server which pane of a tab is active (FocusPane).
    SetActivePane {
        /// Tab.
        tab_id: String,
        /// Pane.
        pane_id: String,
    },
    /// A git request (diff view, worktrees, "new agent in a worktree").
    Git(crate::git::GitRequest),
    /// A race view request.
    Race(crate::race_state::RaceRequest),
    /// SetLayout: the tab's panes in other places (swap, rotate).
    SetLayout {
        /// Tab.
        tab_id: String,
        /// The whole new tree.
        layout: pb::Layout,
    },
}

/// What `update` asks the runtime to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Start (or restart, with new terms) an attachment.
    Attach {
        /// Pane.
        pane_id: String,
        /// Interactive with a size, or watching.
        how: Attachment,
    },
    /// Tell an interactive attachment its new size.
    ResizeAttached {
        /// Pane.
        pane_id: String,
        /// Size.
        cols: u16,
        /// Size.
        rows: u16,
    },
    /// End an attachment.
    Detach(String),
    /// Bytes typed into a pane.
    Input {
        /// Pane.
        pane_id: String,
        /// Bytes.
        bytes: Vec<u8>,
    },
    /// A server request.
    Request(Request),
    /// Copy text to the outer terminal's clipboard (OSC 52).
    Copy(String),
    /// Bytes for the outer terminal itself: a bell, a desktop notification, its title.
    Outer(Vec<u8>),
    /// Draw the whole screen again, from nothing (the outer terminal may hold garbage).
    Redraw,
    /// Leave.
    Quit,
}
