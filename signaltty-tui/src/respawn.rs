//! Dead and restored panes, brought back in one key (tmux's `respawn-pane`).
//!
//! A pane whose process exited (crashed or not) or that was restored after a server restart
//! has no program to type into, so a key typed there cannot mean anything to it: `R` (or
//! Enter) in the focused pane brings it back — the agent's session when the pane was an agent
//! with one (`ResumePane` in agent-session mode), else its original command (the request
//! falls back by itself, `runtime/requests.rs`). `C-b R` does the same, and `C-b M-r`
//! (`ResumeAll`) every dead or restored pane of the workspace. The pane's title row says
//! which key to press.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use signaltty_proto::v1 as pb;

use crate::app::{App, Effect, Focus, Mode, Request};

/// Whether a pane has no running process (exited, restored or resumable).
pub fn is_dead(pane: &pb::Pane) -> bool {
    pane.status != pb::PaneStatus::Live as i32 && pane.status != pb::PaneStatus::Unspecified as i32
}

/// What the title row of a dead pane says to do.
pub fn hint(pane: &pb::Pane) -> Option<&'static str> {
    if !is_dead(pane) {
        return None;
    }
    let resumable = pane
        .agent
        .as_ref()
        .is_some_and(|a| !a.session_id.is_empty());
    Some(if resumable {
        "R: resume the session"
    } else {
        "R: respawn"
    })
}

/// A key typed into the focused pane while it is dead: `R` or Enter brings it back. Returns
/// whether the key was used (other keys go where they always go).
pub fn dead_key(app: &mut App, key: &KeyEvent, fx: &mut Vec<Effect>) -> bool {
    if app.mode != Mode::Insert
        || app.focus != Focus::Panes
        || app.overlay.is_some()
        || !app.chord.held.is_empty()
        || key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        || !matches!(key.code, KeyCode::Char('R') | KeyCode::Enter)
    {
        return false;
    }
    let Some(pane) = app.focused_pane().filter(|p| is_dead(p)) else {
        return false;
    };
    fx.push(Effect::Request(Request::Resume(pane.id.clone())));
    true
}

/// Every dead or restored pane of the current workspace, brought back.
pub fn resume_all(app: &mut App, now: std::time::Instant, fx: &mut Vec<Effect>) {
    let Some(ws) = app.workspace.clone() else {
        return;
    };
    let mut dead: Vec<&pb::Pane> = app
        .catalog
        .panes
        .values()
        .filter(|p| p.workspace_id == ws && is_dead(p))
        .collect();
    dead.sort_by(|a, b| a.id.cmp(&b.id));
    let ids: Vec<String> = dead.iter().map(|p| p.id.clone()).collect();
    if ids.is_empty() {
        app.toast("nothing to resume here: every pane is running", now);
        return;
    }
    app.toast(format!("resuming {} panes", ids.len()), now);
    fx.extend(
        ids.into_iter()
            .map(|id| Effect::Request(Request::Resume(id))),
    );
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::dsl::press;
    use crate::keymap::Preset;
    use crate::test_fixture::app_with;

    fn resumed(fx: &[Effect]) -> Vec<String> {
        fx.iter()
            .filter_map(|e| match e {
                Effect::Request(Request::Resume(id)) => Some(id.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn r_in_a_dead_pane_respawns_it_and_typing_in_a_live_one_is_typing() {
        let now = Instant::now();
        let mut app = app_with(Preset::Tmux, (200, 30));
        assert!(resumed(&press(&mut app, "R <enter>", now)).is_empty());
        let a = app.catalog.panes.get_mut("a").unwrap();
        a.status = pb::PaneStatus::Exited as i32;
        a.exit_code = Some(139);
        assert_eq!(resumed(&press(&mut app, "R", now)), ["a"]);
        assert_eq!(resumed(&press(&mut app, "<enter>", now)), ["a"]);
        assert_eq!(resumed(&press(&mut app, "ctrl-b R", now)), ["a"]);
        let frame = crate::test_fixture::render(&app);
        assert!(frame.contains("killed by SIGSEGV"), "{frame}");
        assert!(frame.contains("R: respawn"), "{frame}");
    }

    #[test]
    fn resume_all_brings_back_every_dead_pane_of_the_workspace() {
        let now = Instant::now();
        let mut app = app_with(Preset::Tmux, (100, 30));
        for id in ["b", "c"] {
            app.catalog.panes.get_mut(id).unwrap().status = pb::PaneStatus::Restored as i32;
        }
        assert_eq!(resumed(&press(&mut app, "ctrl-b alt-r", now)), ["b", "c"]);
        assert!(app.toasts.iter().any(|t| t.text == "resuming 2 panes"));
        app.catalog.panes.get_mut("a").unwrap().agent = Some(pb::AgentInfo {
            kind: pb::AgentKind::Claude as i32,
            session_id: "s1".into(),
            ..Default::default()
        });
        app.catalog.panes.get_mut("a").unwrap().status = pb::PaneStatus::Restored as i32;
        assert_eq!(hint(&app.catalog.panes["a"]), Some("R: resume the session"));
    }
}
