//! The race view (`<prefix> V`): the newest race's entries — agent, race state, agent state,
//! elapsed time, pending decision, files changed and `+/-` — over the panes' area, reloaded on
//! every `RaceChanged` event. Keys: Up/Down (j/k) choose an entry, Enter goes to its agent's
//! pane, `y`/`n` answer its pending decision (once / deny), `[`/`]` step to an older/newer
//! race, Esc or q closes. Drawn by `view/race.rs`.

use crossterm::event::{KeyCode, KeyEvent};
use signaltty_proto::v1 as pb;

use crate::app::{App, Effect, Overlay, Reply, Request, Row};

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
}

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

/// A request of the view.
#[derive(Clone, Debug, PartialEq, Eq)]
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
}

/// What it brought back.
#[derive(Clone, Debug, PartialEq)]
pub enum RaceReply {
    /// ListRaces' answer.
    Races(Result<Vec<pb::Race>, String>),
    /// StartRace's refusal (a start that worked shows through its `RaceChanged` events).
    NotStarted(String),
}

/// Opens the view and reads the races.
pub fn open(app: &mut App, fx: &mut Vec<Effect>) {
    app.overlay = Some(Overlay::Race(RaceView::default()));
    fx.push(Effect::Request(Request::Race(RaceRequest::List)));
}

/// A key while the view is open; returns whether it stays open.
pub fn on_key(app: &mut App, view: &mut RaceView, key: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let entries = view.race().map_or(0, |r| r.entries.len());
    match key.code {
        KeyCode::Esc | KeyCode::Char('q') => return false,
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
                crate::update::open_row(app, &Row::Pane(pane), fx);
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
pub fn on_reply(app: &mut App, reply: RaceReply, now: std::time::Instant) {
    if let RaceReply::NotStarted(why) = &reply {
        app.toast(format!("race not started: {why}"), now);
        return;
    }
    let Some(Overlay::Race(view)) = &mut app.overlay else {
        return;
    };
    match reply {
        RaceReply::Races(Ok(races)) => {
            view.races = races;
            view.loaded = true;
            view.error = None;
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
        RaceReply::NotStarted(_) => {}
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
