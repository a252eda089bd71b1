//! What a tab or a pane is called on screen. A pane is called by its title, with its agent's
//! kind in front when the title does not say it ([`label`]). A tab the user never named (the server calls it `tab N`)
//! is named after what runs in it, as tmux's `automatic-rename` does: the agent's kind, or the
//! program's name, and the basename of its directory (`claude api`, `sh web`), from the tab's
//! active pane. A name the user gave (`C-b ,`) is kept as it is.

use signaltty_proto::v1 as pb;

use crate::app::App;

/// Whether a tab title is the server's default (`tab 3`): the user did not name the tab.
pub fn is_default(title: &str) -> bool {
    title.is_empty()
        || title
            .strip_prefix("tab ")
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// The tab's name as shown in the tab bar, the sidebar and the picker.
pub fn tab_name(app: &App, tab: &pb::Tab) -> String {
    if !is_default(&tab.title) {
        return tab.title.clone();
    }
    let pane = app
        .active_pane
        .get(&tab.id)
        .filter(|id| tab.pane_ids.contains(id))
        .or(Some(&tab.active_pane_id))
        .and_then(|id| app.catalog.panes.get(id))
        .or_else(|| app.catalog.panes_of(tab).next());
    match pane {
        Some(pane) => running(app, pane),
        None => tab.title.clone(),
    }
}

/// `kind dir` for a pane: its agent (else its program) and its directory's basename.
pub fn running(app: &App, pane: &pb::Pane) -> String {
    let what = agent_name(pane)
        .map(str::to_owned)
        .or_else(|| pane.argv.first().map(|a| basename(a).to_owned()))
        .filter(|w| !w.is_empty())
        .unwrap_or_else(|| "shell".to_owned());
    let cwd = if pane.cwd.is_empty() {
        app.catalog
            .workspace(&pane.workspace_id)
            .map_or("", |w| w.cwd.as_str())
    } else {
        pane.cwd.as_str()
    };
    match basename(cwd) {
        "" => what,
        dir => format!("{what} {dir}"),
    }
}

fn basename(path: &str) -> &str {
    path.trim_end_matches('/').rsplit('/').next().unwrap_or("")
}

/// The agent's kind as a short word.
pub fn agent_name(pane: &pb::Pane) -> Option<&'static str> {
    let kind = pane.agent.as_ref()?.kind;
    Some(match pb::AgentKind::try_from(kind).ok()? {
        pb::AgentKind::Claude => "claude",
        pb::AgentKind::Codex => "codex",
        pb::AgentKind::Opencode => "opencode",
        pb::AgentKind::Cursor => "cursor",
        pb::AgentKind::Generic => "agent",
        pb::AgentKind::Unspecified => return None,
    })
}

/// What a pane is called in lists: its title, with its agent's kind in front when the title
/// does not say it (`claude · fix the tests`).
pub fn label(pane: &pb::Pane) -> String {
    match agent_name(pane) {
        Some(agent) if pane.title.is_empty() => agent.to_owned(),
        Some(agent) if !pane.title.contains(agent) => format!("{agent} · {}", pane.title),
        _ => pane.title.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keymap::Preset;
    use crate::test_fixture::app_with;

    #[test]
    fn an_unnamed_tab_is_named_after_what_runs_in_it_until_renamed() {
        let mut app = app_with(Preset::Tmux, (100, 30));
        let t1 = app.catalog.tabs.get_mut("t1").unwrap();
        t1.title = "tab 1".into();
        let a = app.catalog.panes.get_mut("a").unwrap();
        a.cwd = "/src/api".into();
        let b = app.catalog.panes.get_mut("b").unwrap();
        b.argv = vec!["/bin/bash".into(), "-l".into()];
        let t1 = app.catalog.tabs["t1"].clone();
        assert_eq!(tab_name(&app, &t1), "claude api");
        // The focus moves to b: the name follows it (its directory is the workspace's).
        app.active_pane.insert("t1".into(), "b".into());
        assert_eq!(tab_name(&app, &t1), "bash proj");
        let labels: Vec<String> = crate::regions::tab_cells(&app)
            .into_iter()
            .map(|(_, l, _, _)| l)
            .collect();
        assert_eq!(labels, ["1:bash proj*", "2:tests"]);
        // A name the user gave stays.
        let t2 = app.catalog.tabs["t2"].clone();
        assert_eq!(tab_name(&app, &t2), "tests");
        assert!(is_default("tab 12") && !is_default("tab x") && !is_default("tabs 1"));
    }
}
