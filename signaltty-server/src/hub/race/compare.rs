//! CompareRace: each open entry's changes against the base commit — its commits, its staged
//! and unstaged changes and its untracked files — counted per file, optionally as a patch, and
//! the race's check command run in each worktree (kept on the entry, shown by GetRace too).
//! Also the count kept on an entry after each turn (`files_changed`, `+/-` in `race show`).

use std::time::SystemTime;

use crate::error::{Error, Result};
use crate::git::changes::FileChange;
use crate::model::ids::RaceId;
use crate::model::race::{CheckRun, DiffStat, Entry, EntryState};

use super::{Races, git};

/// One entry's changes.
#[derive(Clone, Debug, Default)]
pub struct EntryDiff {
    /// The entry.
    pub index: u32,
    /// Changed files.
    pub files: Vec<FileChange>,
    /// The unified diff, when asked.
    pub patch: String,
    /// The patch was cut.
    pub patch_truncated: bool,
    /// The check run.
    pub check: Option<CheckRun>,
    /// Why it could not be compared.
    pub error: String,
}

fn stat_of(files: &[FileChange]) -> DiffStat {
    DiffStat {
        files: u32::try_from(files.len()).unwrap_or(u32::MAX),
        added: files.iter().map(|f| f.added).sum(),
        removed: files.iter().map(|f| f.removed).sum(),
    }
}

/// Entries that have a worktree to look at.
fn comparable(entry: &Entry) -> bool {
    entry.state != EntryState::Closed && entry.path.is_dir()
}

impl Races {
    /// Counts an entry's changes and keeps the count on it.
    pub(super) async fn count_changes(&self, race: &RaceId, index: u32) {
        let Ok(r) = self.get_race(race) else { return };
        let Some(entry) = r.entry(index).filter(|e| comparable(e)) else {
            return;
        };
        if let Ok(files) = git::diff_files(&entry.path, &r.base_commit).await {
            let stat = stat_of(&files);
            let _ = self.update_entry(race, index, "changes counted", |e| e.stat = stat);
        }
    }

    /// Diffs every open entry against the base; runs the check command when asked.
    pub async fn compare_race(
        &self,
        id: &RaceId,
        run_check: bool,
        with_patch: bool,
    ) -> Result<Vec<EntryDiff>> {
        let race = self.get_race(id)?;
        if run_check && race.check_command.is_empty() {
            return Err(Error::bad(
                "this race has no check command: start it with one (--check) to run it",
            ));
        }
        let mut out = Vec::new();
        for entry in race
            .entries
            .iter()
            .filter(|e| e.state != EntryState::Closed)
        {
            let mut diff = EntryDiff {
                index: entry.index,
                check: entry.check.clone(),
                ..EntryDiff::default()
            };
            if !comparable(entry) {
                diff.error = format!("{} is gone", entry.path.display());
                out.push(diff);
                continue;
            }
            match git::diff_files(&entry.path, &race.base_commit).await {
                Ok(files) => diff.files = files,
                Err(e) => diff.error = e.to_string(),
            }
            if with_patch && diff.error.is_empty() {
                let (patch, cut) = git::patch(&entry.path, &race.base_commit, &diff.files).await?;
                diff.patch = patch;
                diff.patch_truncated = cut;
            }
            if run_check {
                let ran = git::shell(&entry.path, &race.check_command).await?;
                let check = CheckRun {
                    command: race.check_command.clone(),
                    exit_code: ran.code,
                    output: git::tail(&format!("{}{}", ran.stdout, ran.stderr), git::OUTPUT_TAIL),
                    timed_out: ran.timed_out,
                    finished_at: SystemTime::now(),
                };
                diff.check = Some(check.clone());
                let _ = self.update_entry(id, entry.index, "check finished", |e| {
                    e.check = Some(check);
                });
            }
            let stat = stat_of(&diff.files);
            if diff.error.is_empty() && stat != entry.stat {
                let _ = self.update_entry(id, entry.index, "changes counted", |e| e.stat = stat);
            }
            out.push(diff);
        }
        Ok(out)
    }
}
