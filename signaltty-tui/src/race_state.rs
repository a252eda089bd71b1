//! The race view's state, its requests and their replies: what the app holds while the view is
//! open (with the keep form) and what it asks the runtime for. What keys, replies and events do
//! is [`crate::race_view`] and [`crate::race_keep`]; these sit below the app.

use signaltty_proto::v1 as pb;

/// The view's state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RaceView {
    /// Every race, oldest first (empty until loaded).
    pub races: Vec<pb::Race>,
    /// Which race is shown (index into `races`); `None` follows the newest.
    pub shown: Option<usize>,
    /// The highlighted entry (0-based).
    pub selected: usize,
    /// Loaded at least once.
    pub loaded: bool,
    /// Why the races could not be read.
    pub error: Option<String>,
    /// The race and entry to highlight once loaded (coming back from an entry's diff).
    pub focus: Option<(String, u32)>,
    /// The keep form, while open.
    pub keep: Option<KeepForm>,
    /// What the last keep did (or why it did nothing), until the next key.
    pub outcome: Option<Vec<String>>,
    /// The keys are listed (`?`).
    pub keys: bool,
}

impl RaceView {
    /// The race on screen.
    pub fn race(&self) -> Option<&pb::Race> {
        match self.shown {
            Some(i) => self.races.get(i),
            None => self.races.last(),
        }
    }
}

/// A race to start (the command prompt's `race-start`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NewRace {
    /// Agent names.
    pub agents: Vec<String>,
    /// Entries per agent.
    pub copies: u32,
    /// The task.
    pub prompt: String,
    /// The base revision (empty: HEAD).
    pub base: String,
    /// The check command CompareRace can run (empty: none).
    pub check_command: String,
}

/// The keep form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeepForm {
    /// The race.
    pub race_id: String,
    /// The entry to keep.
    pub index: u32,
    /// How (index into [`MODES`]).
    pub mode: usize,
    /// Delete the other entries' branches too.
    pub delete_branches: bool,
    /// The confirmation is showing.
    pub confirming: bool,
}

/// A request of the view.
#[derive(Clone, Debug, PartialEq)]
pub enum RaceRequest {
    /// ListRaces.
    List,
    /// StartRace.
    Start {
        /// The base workspace.
        workspace_id: String,
        /// What to start.
        race: NewRace,
    },
    /// CompareRace with patches.
    Compare {
        /// The race.
        race_id: String,
        /// Run the check command too.
        run_check: bool,
        /// The request number (a late answer is dropped).
        seq: u64,
    },
    /// ReviewRaceEntry.
    Review {
        /// The race.
        race_id: String,
        /// The entry.
        index: u32,
        /// The comments.
        comments: Vec<pb::ReviewComment>,
    },
    /// KeepRaceEntry.
    Keep {
        /// The race.
        race_id: String,
        /// The entry.
        index: u32,
        /// How.
        mode: pb::MergeMode,
        /// Delete the others' branches.
        delete_branches: bool,
    },
}

/// What it brought back.
#[derive(Clone, Debug, PartialEq)]
pub enum RaceReply {
    /// ListRaces' answer.
    Races(Result<Vec<pb::Race>, String>),
    /// StartRace's refusal (a start that worked shows through its `RaceChanged` events).
    NotStarted(String),
    /// CompareRace's answer.
    Compared {
        /// The request it answers.
        seq: u64,
        /// Every open entry's diff.
        result: Result<Vec<pb::RaceEntryDiff>, String>,
    },
    /// ReviewRaceEntry's answer: how many comments went (or why none did).
    Reviewed {
        /// The entry.
        index: u32,
        /// Comments sent.
        result: Result<u32, String>,
    },
    /// KeepRaceEntry's answer.
    Kept(Box<Result<pb::KeepRaceEntryResponse, String>>),
}
