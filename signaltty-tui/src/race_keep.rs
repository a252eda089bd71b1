//! Keeping a race entry from the race view (`K`): a small form — the merge mode (fast-forward,
//! merge commit, squash) and whether the other entries' branches are deleted too — then an
//! explicit confirmation naming what will happen (`y`), then KeepRaceEntry. Its result, or its
//! refusal (a conflict leaves the base branch as it was), stays on the race view until the next
//! key. Drawn by `view/race.rs`.

use crossterm::event::{KeyCode, KeyEvent};
use signaltty_proto::v1 as pb;

use crate::app::{Effect, Request};
use crate::race_state::RaceRequest;

pub use crate::race_state::KeepForm;

/// The merge modes, in the order the form cycles them.
pub const MODES: [pb::MergeMode; 3] = [
    pb::MergeMode::FastForward,
    pb::MergeMode::Merge,
    pb::MergeMode::Squash,
];

/// A mode in words.
pub fn mode_text(mode: pb::MergeMode) -> &'static str {
    match mode {
        pb::MergeMode::FastForward => "fast-forward",
        pb::MergeMode::Squash => "squash",
        _ => "merge commit",
    }
}

impl KeepForm {
    /// A form for entry `index`: a merge commit, branches kept.
    pub fn new(race_id: String, index: u32) -> KeepForm {
        KeepForm {
            race_id,
            index,
            mode: 1,
            delete_branches: false,
            confirming: false,
        }
    }

    /// The chosen mode.
    pub fn merge_mode(&self) -> pb::MergeMode {
        MODES[self.mode % MODES.len()]
    }

    /// What keeping will do, for the confirmation.
    pub fn question(&self, race: &pb::Race) -> String {
        let others = race
            .entries
            .iter()
            .filter(|e| e.index != self.index)
            .filter(|e| {
                !matches!(
                    pb::RaceEntryState::try_from(e.state),
                    Ok(pb::RaceEntryState::Closed)
                )
            })
            .count();
        let branch = if race.base_branch.is_empty() {
            "the base branch"
        } else {
            &race.base_branch
        };
        let branches = if self.delete_branches {
            ", their branches deleted"
        } else {
            ", their branches kept"
        };
        format!(
            "Keep entry {} into {branch} by {}? The other {others} entries are closed (agents stopped, worktrees removed{branches}).",
            self.index,
            mode_text(self.merge_mode()),
        )
    }
}

/// What a key did to the form.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Still open.
    Stay,
    /// Cancelled.
    Cancel,
    /// Confirmed: the request was pushed.
    Sent,
}

/// A key for the form: ←/→ (h/l, Tab) or f/m/s the mode, b or space the branches, Enter asks
/// for the confirmation, where only `y` keeps (anything else goes back to the form); Esc
/// cancels.
pub fn on_key(form: &mut KeepForm, key: KeyEvent, fx: &mut Vec<Effect>) -> Outcome {
    if form.confirming {
        if matches!(key.code, KeyCode::Char('y' | 'Y')) {
            fx.push(Effect::Request(Request::Race(RaceRequest::Keep {
                race_id: form.race_id.clone(),
                index: form.index,
                mode: form.merge_mode(),
                delete_branches: form.delete_branches,
            })));
            return Outcome::Sent;
        }
        form.confirming = false;
        return Outcome::Stay;
    }
    let n = MODES.len();
    match key.code {
        KeyCode::Esc | KeyCode::Char('q') => return Outcome::Cancel,
        KeyCode::Left | KeyCode::Char('h') | KeyCode::BackTab => {
            form.mode = (form.mode + n - 1) % n
        }
        KeyCode::Right | KeyCode::Char('l') | KeyCode::Tab => form.mode = (form.mode + 1) % n,
        KeyCode::Char('f') => form.mode = 0,
        KeyCode::Char('m') => form.mode = 1,
        KeyCode::Char('s') => form.mode = 2,
        KeyCode::Char('b' | ' ') => form.delete_branches = !form.delete_branches,
        KeyCode::Enter => form.confirming = true,
        _ => {}
    }
    Outcome::Stay
}

/// KeepRaceEntry's answer as lines for the view: what was merged and what closing did, or why
/// nothing was (the base branch unchanged). The first line says which.
pub fn outcome_lines(
    base_branch: &str,
    result: &Result<pb::KeepRaceEntryResponse, String>,
) -> Vec<String> {
    let branch = if base_branch.is_empty() {
        "the base branch"
    } else {
        base_branch
    };
    match result {
        Err(why) => vec![
            format!("not kept — {branch} unchanged"),
            why.replace(['\n', '\r'], " "),
        ],
        Ok(reply) => {
            let kept = reply.race.as_ref().map_or(0, |r| r.kept_index);
            let short: String = reply.merged_commit.chars().take(10).collect();
            let mut lines = vec![format!("kept entry {kept}: {branch} now at {short}")];
            lines.extend(
                reply
                    .cleanup
                    .iter()
                    .map(signaltty_client::present::race::cleanup_line),
            );
            lines
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsl::keys;

    fn press(form: &mut KeepForm, script: &str) -> (Outcome, Vec<Effect>) {
        let mut fx = Vec::new();
        let mut last = Outcome::Stay;
        for key in keys(script) {
            last = on_key(form, key, &mut fx);
        }
        (last, fx)
    }

    #[test]
    fn only_a_y_after_enter_keeps_with_the_chosen_mode_and_branches() {
        let mut form = KeepForm::new("race_1".into(), 2);
        let (outcome, fx) = press(&mut form, "s b y");
        assert_eq!(outcome, Outcome::Stay, "y before Enter does nothing");
        assert!(fx.is_empty());
        press(&mut form, "<enter> n");
        assert!(!form.confirming, "n goes back to the form");
        let (outcome, fx) = press(&mut form, "<enter> y");
        assert_eq!(outcome, Outcome::Sent);
        assert_eq!(
            fx,
            [Effect::Request(Request::Race(RaceRequest::Keep {
                race_id: "race_1".into(),
                index: 2,
                mode: pb::MergeMode::Squash,
                delete_branches: true,
            }))]
        );
        let mut form = KeepForm::new("race_1".into(), 1);
        assert_eq!(press(&mut form, "<right> <right>").0, Outcome::Stay);
        assert_eq!(form.merge_mode(), pb::MergeMode::FastForward);
        assert_eq!(press(&mut form, "<esc>").0, Outcome::Cancel);
    }

    #[test]
    fn a_refusal_says_the_base_is_unchanged() {
        let lines = outcome_lines(
            "main",
            &Err("merging entry 1 conflicts in a.txt\nnothing changed".into()),
        );
        assert_eq!(lines[0], "not kept — main unchanged");
        assert_eq!(
            lines[1],
            "merging entry 1 conflicts in a.txt nothing changed"
        );
    }
}
