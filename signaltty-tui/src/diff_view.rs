//! The diff view's state: a workspace's changes against HEAD, or a race entry's against the
//! race's base (its race part, [`RaceDiff`]). What keys, replies and events do to it is
//! [`crate::diff`] and [`crate::race_diff`] (including `impl DiffView`); the state sits below the
//! app, which holds the open view.

use std::collections::HashMap;

use signaltty_proto::v1 as pb;

use crate::field::Field;

/// The file list's state.
#[derive(Clone, Debug, PartialEq)]
pub enum Files {
    /// Waiting for GetWorkspaceDiff.
    Loading,
    /// The workspace's directory is not in a repository.
    NotARepo,
    /// The list could not be read (the server's message).
    Unavailable(String),
    /// The changed files.
    Loaded(pb::GetWorkspaceDiffResponse),
}

/// The highlighted file's diff.
#[derive(Clone, Debug, PartialEq)]
pub enum Hunks {
    /// Waiting for GetFileDiff.
    Loading,
    /// The request failed (the server's message).
    Failed(String),
    /// The answer (text, binary, unchanged, too large or unavailable).
    Loaded(pb::GetFileDiffResponse),
}

/// The diff view's state.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffView {
    /// The workspace shown.
    pub workspace_id: String,
    /// The files.
    pub files: Files,
    /// The highlighted file (index into the list).
    pub selected: usize,
    /// The highlighted file's path and its diff, once asked for.
    pub file: Option<(String, Hunks)>,
    /// Hunk lines scrolled off the top.
    pub scroll: usize,
    /// The last request number given out.
    pub seq: u64,
    /// The request number the list waits for.
    pub files_seq: u64,
    /// The request number the hunks wait for.
    pub file_seq: u64,
    /// A race entry's diff (`race_diff.rs`), not the workspace's against HEAD.
    pub race: Option<Box<RaceDiff>>,
}

/// What the body of the view shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Panel {
    /// The files and the hunks.
    #[default]
    Diff,
    /// Every entry × every file touched, and each entry's check.
    Matrix,
    /// The shown entry's check output.
    Check,
    /// The pending comments, one highlighted.
    Comments(usize),
    /// The keys.
    Keys,
}

/// A review comment not sent yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// The entry it is for.
    pub entry: u32,
    /// The file (relative to the repository root).
    pub path: String,
    /// The line in the entry's version.
    pub line: u32,
    /// What to say.
    pub text: String,
}

/// The race part of a diff view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RaceDiff {
    /// The race.
    pub race_id: String,
    /// Its base commit (hex) and branch, for the header.
    pub base_commit: String,
    /// The base branch (empty when detached).
    pub base_branch: String,
    /// Its check command (empty: none configured).
    pub check_command: String,
    /// Each entry's agent, by entry index.
    pub agents: Vec<(u32, String)>,
    /// Each entry's workspace, by entry index (for the header).
    pub workspaces: Vec<(u32, String)>,
    /// CompareRace's answer (open entries, in order).
    pub entries: Vec<pb::RaceEntryDiff>,
    /// The entry shown.
    pub shown: u32,
    /// The shown entry's patch, by file.
    pub patches: HashMap<String, pb::GetFileDiffResponse>,
    /// The hunk row with the cursor.
    pub cursor: usize,
    /// Comments not sent yet, every entry's.
    pub comments: Vec<Comment>,
    /// The body.
    pub panel: Panel,
    /// The comment being typed, for (path, line).
    pub input: Option<(String, u32, Field)>,
    /// A CompareRace is on its way; `Some(true)` when it runs the check.
    pub loading: Option<bool>,
    /// Why CompareRace failed.
    pub error: Option<String>,
}

impl RaceDiff {
    /// The shown entry's diff, once compared.
    pub fn entry(&self) -> Option<&pb::RaceEntryDiff> {
        self.entries.iter().find(|d| d.index == self.shown)
    }

    /// The agent of entry `index`.
    pub fn agent(&self, index: u32) -> &str {
        self.agents
            .iter()
            .find(|(i, _)| *i == index)
            .map_or("", |(_, a)| a.as_str())
    }

    /// The shown entry's pending comments.
    pub fn entry_comments(&self) -> impl Iterator<Item = &Comment> {
        self.comments.iter().filter(move |c| c.entry == self.shown)
    }
}
