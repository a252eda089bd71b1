//! Making a workspace, tab or pane current (and telling the server where the user is): what a
//! sidebar row, the picker, the race view, a notification or a "last" action all end in. Below
//! `update` and the overlays that call it.

use crate::app::{App, Effect, Focus, Request, Row};

/// Opens what a sidebar row names.
pub fn open_row(app: &mut App, row: &Row, fx: &mut Vec<Effect>) {
    let (ws, tab, pane) = match row {
        Row::Workspace(id) => (Some(id.clone()), None, None),
        Row::Tab(id) => (
            app.catalog.tabs.get(id).map(|t| t.workspace_id.clone()),
            Some(id.clone()),
            None,
        ),
        Row::Pane(id) | Row::Option(id, _) => match app.catalog.panes.get(id) {
            Some(p) => (
                Some(p.workspace_id.clone()),
                Some(p.tab_id.clone()),
                Some(id.clone()),
            ),
            None => (None, None, None),
        },
        // Another machine's rows are not opened here (their ids are not this machine's).
        Row::Machine(_) | Row::Remote(..) => return,
    };
    go_to(app, ws, tab, pane, fx);
    app.focus = Focus::Panes;
}

/// Makes a workspace / tab / pane current, telling the server where the user is.
pub fn go_to(
    app: &mut App,
    ws: Option<String>,
    tab: Option<String>,
    pane: Option<String>,
    fx: &mut Vec<Effect>,
) {
    if let Some(ws) = ws {
        app.workspace = Some(ws.clone());
        if let Some(tab) = tab {
            app.active_tab.insert(ws.clone(), tab.clone());
            fx.push(Effect::Request(Request::SetActiveTab {
                workspace_id: ws,
                tab_id: tab.clone(),
            }));
            if let Some(pane) = pane {
                app.active_pane.insert(tab.clone(), pane.clone());
                fx.push(Effect::Request(Request::SetActivePane {
                    tab_id: tab,
                    pane_id: pane,
                }));
            }
        }
    }
}
