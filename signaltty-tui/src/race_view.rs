//! The race view (`<prefix> V`): the newest race's entries — agent, race state, agent state,
//! elapsed time, pending decision, files changed and `+/-` — over the panes' area, reloaded on
//! every `RaceChanged` event. Keys: Up/Down (j/k) choose an entry, Enter goes to its agent's
//! pane, `y`/`n` answer its pending decision (once / deny), `d` opens its diff against the
//! race's base (`race_diff.rs`), `m` the per-file matrix of every entry, `K` keeps it
//! (`race_keep.rs`), `[`/`]` step to an older/newer race, `?` lists the keys, Esc or q closes.
//! Drawn by `view/race.rs`.

use crossterm::event::{KeyCode, KeyEvent};
use signaltty_proto::v1 as pb;

use crate::app::{App, Effect, Overlay, Reply, Request, Row};

pub use crate::race_state::{NewRace, RaceReply, RaceRequest, RaceView};

/// `AGENT… [-n N] -- TASK` (the words after `race-start`).
pub fn parse_start(line: &str) -> Result<NewRace, String> {
    let usage = "race-start AGENT… [-n N] -- TASK (e.g. `race-start claude codex -n 2 -- fix the login test`)";
    let (head, task) = line.split_once("--").ok_or_else(|| usage.to_owned())?;
    let mut race = NewRace {
        prompt: task.trim().to_owned(),
        copies: 1,
        ..NewRace::default()
    };
    let mut words = head.split_whitespace();
    while let Some(word) = words.next() {
        if word == "-n" {
            race.copies = words
                .next()
                .and_then(|n| n.parse().ok())
                .filter(|n| *n > 0)
                .ok_or_else(|| usage.to_owned())?;
        } else {
            race.agents.push(word.to_owned());
        }
    }
    if race.agents.is_empty() || race.prompt.is_empty() {
        return Err(usage.to_owned());
    }
    Ok(race)
}

/// Starts a race from the focused workspace and opens the view on it.
pub fn start(app: &mut App, race: NewRace, now: std::time::Instant, fx: &mut Vec<Effect>) {
    let Some(workspace_id) = app.workspace.clone() else {
        app.toast("no workspace to race from", now);
        return;
    };
    fx.push(Effect::Request(Request::Race(RaceRequest::Start {
        workspace_id,
        race,
    })));
    open(app, fx);
}

/// Opens the view and reads the races.
pub fn open(app: &mut App, fx: &mut Vec<Effect>) {
    app.overlay = Some(Overlay::Race(RaceView::default()));
    fx.push(Effect::Request(Request::Race(RaceRequest::List)));
}

/// Opens the view on entry `index` of race `race_id` (back from that entry's diff).
pub fn reopen(app: &mut App, race_id: &str, index: u32, fx: &mut Vec<Effect>) {
    app.overlay = Some(Overlay::Race(RaceView {
        focus: Some((race_id.to_owned(), index)),
        ..RaceView::default()
    }));
    fx.push(Effect::Request(Request::Race(RaceRequest::List)));
}

/// A key while the view is open; returns whether it stays open.
pub fn on_key(app: &mut App, view: &mut RaceView, key: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let entries = view.race().map_or(0, |r| r.entries.len());
    view.outcome = None;
    if let Some(form) = &mut view.keep {
        use crate::race_keep::Outcome;
        match crate::race_keep::on_key(form, key, fx) {
            Outcome::Stay => {}
            Outcome::Cancel => view.keep = None,
            Outcome::Sent => {
                view.outcome = Some(vec![format!("keeping entry {}…", form.index)]);
                view.keep = None;
            }
        }
        return true;
    }
    if view.keys {
        view.keys = false;
        if matches!(key.code, KeyCode::Esc | KeyCode::Char('q' | '?')) {
            return true;
        }
    }
    match key.code {
        KeyCode::Esc | KeyCode::Char('q') => return false,
        KeyCode::Char('?') => view.keys = true,
        KeyCode::Char(c @ ('d' | 'm')) => {
            if let (Some(race), Some(e)) = (view.race(), selected_entry(view)) {
                let panel = if c == 'd' {
                    crate::race_diff::Panel::Diff
                } else {
                    crate::race_diff::Panel::Matrix
                };
                let (race, index) = (race.clone(), e.index);
                crate::race_diff::open(app, &race, index, panel, fx);
                return false;
            }
        }
        KeyCode::Char('K') => {
            if let (Some(race), Some(e)) = (view.race(), selected_entry(view)) {
                view.keep = Some(crate::race_keep::KeepForm::new(race.id.clone(), e.index));
            }
        }
        KeyCode::Up | KeyCode::Char('k') => view.selected = view.selected.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => {
            view.selected = (view.selected + 1).min(entries.saturating_sub(1));
        }
        KeyCode::Char('[') => {
            let now = view.shown.unwrap_or(view.races.len().saturating_sub(1));
            view.shown = Some(now.saturating_sub(1));
            view.selected = 0;
        }
        KeyCode::Char(']') => {
            let now = view.shown.unwrap_or(view.races.len().saturating_sub(1));
            view.shown = (now + 1 < view.races.len()).then_some(now + 1);
            view.selected = 0;
        }
        KeyCode::Char('r') => fx.push(Effect::Request(Request::Race(RaceRequest::List))),
        KeyCode::Enter => {
            if let Some(e) = selected_entry(view)
                && app.catalog.panes.contains_key(&e.pane_id)
            {
                let pane = e.pane_id.clone();
                crate::navigate::open_row(app, &Row::Pane(pane), fx);
                return false;
            }
        }
        KeyCode::Char(c @ ('y' | 'n')) => {
            if let Some(e) = selected_entry(view)
                && !e.pending_decision_id.is_empty()
            {
                fx.push(Effect::Request(Request::Answer {
                    pane_id: e.pane_id.clone(),
                    decision_id: e.pending_decision_id.clone(),
                    option_id: if c == 'y' { "once" } else { "deny" }.to_owned(),
                }));
            }
        }
        _ => {}
    }
    true
}

/// The highlighted entry.
pub fn selected_entry(view: &RaceView) -> Option<&pb::RaceEntry> {
    view.race().and_then(|r| r.entries.get(view.selected))
}

/// A reply for the view.
pub fn on_reply(app: &mut App, reply: RaceReply, now: std::time::Instant, fx: &mut Vec<Effect>) {
    match reply {
        RaceReply::NotStarted(why) => {
            app.toast(format!("race not started: {why}"), now);
            return;
        }
        RaceReply::Compared { seq, result } => {
            if let Some(Overlay::Diff(view)) = &mut app.overlay {
                crate::race_diff::on_compared(view, seq, result, fx);
            }
            return;
        }
        RaceReply::Reviewed { index, result } => {
            crate::race_diff::on_reviewed(app, index, result, now);
            return;
        }
        _ => {}
    }
    let Some(Overlay::Race(view)) = &mut app.overlay else {
        if let RaceReply::Kept(result) = reply
            && let Err(why) = *result
        {
            app.toast(format!("not kept: {why}"), now);
        }
        return;
    };
    match reply {
        RaceReply::Kept(result) => {
            let branch = view
                .race()
                .map(|r| r.base_branch.clone())
                .unwrap_or_default();
            view.outcome = Some(crate::race_keep::outcome_lines(&branch, &result));
            fx.push(Effect::Request(Request::Race(RaceRequest::List)));
        }
        RaceReply::Races(Ok(races)) => {
            view.races = races;
            view.loaded = true;
            view.error = None;
            if let Some((id, index)) = view.focus.take()
                && let Some(at) = view.races.iter().position(|r| r.id == id)
            {
                view.shown = (at + 1 < view.races.len()).then_some(at);
                view.selected = view.races[at]
                    .entries
                    .iter()
                    .position(|e| e.index == index)
                    .unwrap_or(0);
            }
            if view.shown.is_some_and(|i| i >= view.races.len()) {
                view.shown = None;
            }
            let entries = view.race().map_or(0, |r| r.entries.len());
            view.selected = view.selected.min(entries.saturating_sub(1));
        }
        RaceReply::Races(Err(why)) => {
            view.loaded = true;
            view.error = Some(why);
        }
        _ => {}
    }
}

/// Before a feed event is applied: a race changed, or an entry's pane changed (its state is
/// shown), while the view is open: read the races again.
pub fn on_event(app: &App, event: &pb::Event, fx: &mut Vec<Effect>) {
    use pb::event::Kind;
    let Some(Overlay::Race(view)) = &app.overlay else {
        return;
    };
    let pane_of_entry = |pane: &str| {
        view.race()
            .is_some_and(|r| r.entries.iter().any(|e| e.pane_id == pane))
    };
    let reload = match &event.kind {
        Some(Kind::RaceChanged(_)) => true,
        Some(Kind::LifecycleChanged(c)) => pane_of_entry(&c.pane_id),
        Some(Kind::AttentionChanged(c)) => pane_of_entry(&c.pane_id),
        Some(Kind::DecisionCreated(_) | Kind::DecisionAnswered(_) | Kind::DecisionCleared(_)) => {
            true
        }
        _ => false,
    };
    if reload {
        fx.push(Effect::Request(Request::Race(RaceRequest::List)));
    }
}

/// Carries out a request (in the runtime's request task).
pub async fn run(request: RaceRequest, channel: tonic::transport::Channel) -> Vec<Reply> {
    use signaltty_proto::v1::race_service_client::RaceServiceClient;
    match request {
        RaceRequest::List => {
            let result = RaceServiceClient::new(channel)
                .list_races(pb::ListRacesRequest {})
                .await
                .map(|r| r.into_inner().races)
                .map_err(|s| s.message().to_owned());
            vec![Reply::Race(Box::new(RaceReply::Races(result)))]
        }
        RaceRequest::Start { workspace_id, race } => {
            let started = RaceServiceClient::new(channel)
                .start_race(pb::StartRaceRequest {
                    workspace_id,
                    prompt: race.prompt,
                    agents: race.agents,
                    copies: race.copies,
                    base: race.base,
                    check_command: race.check_command,
                    ..Default::default()
                })
                .await;
            match started {
                Ok(_) => Vec::new(),
                Err(s) => vec![Reply::Race(Box::new(RaceReply::NotStarted(
                    s.message().to_owned(),
                )))],
            }
        }
        RaceRequest::Compare {
            race_id,
            run_check,
            seq,
        } => {
            let result = RaceServiceClient::new(channel)
                .compare_race(pb::CompareRaceRequest {
                    race_id,
                    run_check,
                    patch: true,
                })
                .await
                .map(|r| r.into_inner().entries)
                .map_err(|s| s.message().to_owned());
            vec![Reply::Race(Box::new(RaceReply::Compared { seq, result }))]
        }
        RaceRequest::Review {
            race_id,
            index,
            comments,
        } => {
            let sent = u32::try_from(comments.len()).unwrap_or(u32::MAX);
            let result = RaceServiceClient::new(channel)
                .review_race_entry(pb::ReviewRaceEntryRequest {
                    race_id,
                    index,
                    comments,
                })
                .await
                .map(|_| sent)
                .map_err(|s| s.message().to_owned());
            vec![Reply::Race(Box::new(RaceReply::Reviewed { index, result }))]
        }
        RaceRequest::Keep {
            race_id,
            index,
            mode,
            delete_branches,
        } => {
            let result = RaceServiceClient::new(channel)
                .keep_race_entry(pb::KeepRaceEntryRequest {
                    race_id,
                    index,
                    mode: mode as i32,
                    delete_branches,
                    ..Default::default()
                })
                .await
                .map(tonic::Response::into_inner)
                .map_err(|s| s.message().to_owned());
            vec![Reply::Race(Box::new(RaceReply::Kept(Box::new(result))))]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_race_start_names_agents_copies_and_the_task() {
        let race = parse_start("claude codex -n 2 -- fix the -n flag").expect("race");
        assert_eq!(race.agents, ["claude", "codex"]);
        assert_eq!(race.copies, 2);
        assert_eq!(race.prompt, "fix the -n flag");
        assert!(parse_start("claude").is_err());
        assert!(parse_start("-- task").is_err());
        assert!(parse_start("claude -n 0 -- task").is_err());
    }
}
