//! What each [`Action`] does to the state, and which requests it makes. `at` is the pointer's
//! cell for actions bound to mouse gestures.

use std::time::Instant;

use crate::geometry::{Axis, Dir, MAX_RATIO, MIN_RATIO, enclosing_split};
use signaltty_proto::v1 as pb;

use crate::action::{Action, Target};
use crate::app::{App, Confirm, Effect, Field, Focus, Mode, Overlay, Request, Row};
use crate::moves::Shuffle;
use crate::navigate::{go_to, open_row};
use crate::pointer::{region_at, start_drag};
use crate::regions::{self, tab_cells};
use crate::spawn::spawn_shell;

/// How long a ratio asked for is the start of the next resize key (longer than a key repeat
/// and the server's answer, shorter than a pause to look).
const RATIO_MEMORY: std::time::Duration = std::time::Duration::from_secs(1);

/// How long pane numbers stay (tmux's `display-panes-time` is 1 s; a little longer to read).
pub const PANE_NUMBERS_TIME: std::time::Duration = std::time::Duration::from_secs(2);

/// Carries out one action.
pub fn perform(
    app: &mut App,
    action: Action,
    at: Option<(u16, u16)>,
    now: Instant,
    fx: &mut Vec<Effect>,
) {
    // In the sidebar, motion keys move the highlight and "enter" opens.
    let action = if app.focus == Focus::Sidebar {
        match action {
            Action::FocusPane(Dir::Down) => Action::SidebarDown,
            Action::FocusPane(Dir::Up) => Action::SidebarUp,
            Action::FocusPane(Dir::Right) | Action::EnterInsert => Action::AttachHighlighted,
            Action::FocusPane(Dir::Left) => Action::ToggleAttachHighlighted,
            other => other,
        }
    } else {
        action
    };
    let focused = app.focused_pane().map(|p| p.id.clone());
    match action {
        Action::Noop => {}
        Action::EnterInsert => {
            if focused.is_some() {
                app.mode = Mode::Insert;
                app.focus = Focus::Panes;
            }
        }
        Action::LeaveInsert => app.mode = Mode::Normal,
        Action::SendLeader => {
            if let (Some(pane_id), Some(key)) = (focused, crate::keys::event_of(&app.keymap.leader))
            {
                let (modes, protocol) = app.key_modes(&pane_id);
                let bytes = crate::encode::key(&key, &modes, protocol);
                fx.push(Effect::Input { pane_id, bytes });
                app.mode = Mode::Insert;
            }
        }
        Action::FocusSidebar => {
            app.focus = match app.focus {
                Focus::Sidebar => Focus::Panes,
                Focus::Panes => {
                    app.sidebar_visible = true;
                    Focus::Sidebar
                }
            };
            app.mode = Mode::Normal;
        }
        Action::FocusPane(dir) => {
            // By the layout, zoomed or not: moving the focus off a zoomed pane unzooms its tab.
            if let (Some(from), Some((tab, placement))) = (focused, regions::layout_placement(app))
                && let Some(to) = placement.neighbour(&from, dir)
            {
                let (ws, tab) = (tab.workspace_id.clone(), tab.id.clone());
                go_to(app, Some(ws), Some(tab), Some(to), fx);
            }
        }
        Action::SidebarDown | Action::SidebarUp => {
            let rows = app.sidebar_rows().len();
            app.highlight = if action == Action::SidebarDown {
                (app.highlight + 1).min(rows.saturating_sub(1))
            } else {
                app.highlight.saturating_sub(1)
            };
        }
        Action::AttachHighlighted | Action::ToggleAttachHighlighted => {
            let rows = app.sidebar_rows();
            let Some(row) = rows.get(app.highlight) else {
                return;
            };
            match (action, row) {
                // Enter on a listed option answers it; a double click only opens its pane (the
                // click before it already answered).
                (Action::AttachHighlighted, Row::Option(pane_id, n)) if at.is_none() => {
                    let (pane_id, n) = (pane_id.clone(), *n);
                    answer(app, &pane_id, n, now, fx);
                }
                // A remote decision's option: Enter (or a double click: its pane cannot be
                // opened here) answers it on that machine.
                (_, Row::Remote(machine, inner)) => match &**inner {
                    Row::Option(pane_id, n) => {
                        let (machine, pane_id, n) = (machine.clone(), pane_id.clone(), *n);
                        answer_on(app, &machine, &pane_id, n, now, fx);
                    }
                    _ => app.toast(
                        format!("{machine}: a remote pane opens with `signaltty attach`"),
                        now,
                    ),
                },
                (_, Row::Machine(_)) => {}
                (Action::ToggleAttachHighlighted, Row::Workspace(id)) => {
                    if !app.collapsed.remove(id) {
                        app.collapsed.insert(id.clone());
                    }
                }
                _ => open_row(app, row, fx),
            }
        }
        Action::OpenSpawnModal => crate::spawn::open(app, fx),
        Action::ShowDiff => crate::diff::open(app, fx),
        Action::ShowRaces => crate::race_view::open(app, fx),
        Action::KillHighlighted | Action::ClosePane => {
            let target = match (app.focus, app.sidebar_rows().get(app.highlight)) {
                (Focus::Sidebar, Some(Row::Pane(id))) if action == Action::KillHighlighted => {
                    Some(id.clone())
                }
                // A highlighted workspace, tab or option row is not the focused pane.
                (Focus::Sidebar, _) if action == Action::KillHighlighted => {
                    app.toast("x closes a pane: highlight a pane row", now);
                    None
                }
                _ => focused,
            };
            if let Some(id) = target {
                app.overlay = Some(Overlay::Confirm(Confirm::ClosePane(id)));
            }
        }
        Action::NewTab => {
            if let Some(ws) = app.workspace.clone() {
                fx.push(spawn_shell(app, ws, String::new()));
            }
        }
        Action::CloseTab => {
            if let Some(tab) = app.current_tab() {
                app.overlay = Some(Overlay::Confirm(Confirm::CloseTab(tab.id.clone())));
            }
        }
        Action::NextTab | Action::PrevTab => {
            if let (Some(ws), Some(tab)) = (app.current_workspace(), app.current_tab()) {
                let n = ws.tab_ids.len();
                let i = ws.tab_ids.iter().position(|t| t == &tab.id).unwrap_or(0);
                let j = if action == Action::NextTab {
                    (i + 1) % n
                } else {
                    (i + n - 1) % n
                };
                let (ws_id, tab_id) = (ws.id.clone(), ws.tab_ids[j].clone());
                go_to(app, Some(ws_id), Some(tab_id), None, fx);
            }
        }
        Action::GotoTab(n) => {
            // Always a tab: a digit never answers a decision (that takes `FocusDecision`).
            if let Some(ws) = app.current_workspace()
                && let Some(tab) = ws.tab_ids.get(usize::from(n).saturating_sub(1))
            {
                let (ws_id, tab_id) = (ws.id.clone(), tab.clone());
                go_to(app, Some(ws_id), Some(tab_id), None, fx);
            } else {
                app.toast(format!("no tab {n}"), now);
            }
        }
        Action::FocusDecision => {
            let decision = app
                .focused_pane()
                .and_then(|p| p.pending_decision.as_ref())
                .filter(|d| d.answerable);
            match decision {
                Some(d) => {
                    app.overlay = Some(Overlay::Decision {
                        pane_id: d.pane_id.clone(),
                        decision_id: d.id.clone(),
                        selected: 1,
                    });
                }
                None => app.toast("no decision waits on this pane", now),
            }
        }
        Action::ToggleZoom => crate::moves::toggle_zoom(app),
        Action::SwapPrev => crate::moves::shuffle(app, Shuffle::SwapPrev, fx),
        Action::SwapNext => crate::moves::shuffle(app, Shuffle::SwapNext, fx),
        Action::RotatePanes => crate::moves::shuffle(app, Shuffle::Rotate, fx),
        Action::RotatePanesBack => crate::moves::shuffle(app, Shuffle::RotateBack, fx),
        Action::FocusNextPane => crate::moves::next_pane(app, fx),
        Action::LastPane => {
            if !crate::moves::last_pane(app, fx) {
                app.toast("no last pane", now);
            }
        }
        Action::LastTab => {
            if !crate::moves::last_tab(app, fx) {
                app.toast("no last tab", now);
            }
        }
        Action::LastWorkspace => {
            if !crate::moves::last_workspace(app, fx) {
                app.toast("no last workspace", now);
            }
        }
        Action::NextWorkspace | Action::PrevWorkspace => {
            if !crate::moves::cycle_workspace(app, action == Action::NextWorkspace, fx) {
                app.toast("no other workspace", now);
            }
        }
        Action::ShowPicker => {
            app.overlay = Some(Overlay::Picker(crate::picker::open(app)));
        }
        Action::ShowPaneNumbers => {
            app.overlay = Some(Overlay::PaneNumbers {
                until: now + PANE_NUMBERS_TIME,
            });
        }
        Action::PasteBuffer => match (focused, app.paste_buffer.clone()) {
            (Some(pane_id), Some(text)) => {
                let (modes, _) = app.key_modes(&pane_id);
                let bytes = crate::encode::paste(&text, &modes);
                fx.push(Effect::Input { pane_id, bytes });
            }
            (_, None) => app.toast("nothing copied yet (C-b [ then v … y, or the mouse)", now),
            (None, _) => {}
        },
        Action::Redraw => fx.push(Effect::Redraw),
        Action::CommandPrompt => app.overlay = Some(Overlay::Prompt(Field::default())),
        Action::AnswerDecision(n) => {
            if let Some(pane_id) = focused {
                answer(app, &pane_id, n, now, fx);
            }
        }
        Action::AnswerAtCursor => {
            if let Some((x, y)) = at
                && let Some((pane_id, n)) = crate::decision_box::decision_at(app, x, y)
            {
                answer(app, &pane_id, n, now, fx);
            }
        }
        Action::SplitHorizontal | Action::SplitVertical => {
            if let Some(pane_id) = focused {
                let direction = if action == Action::SplitHorizontal {
                    pb::Direction::Right
                } else {
                    pb::Direction::Down
                };
                fx.push(Effect::Request(Request::Split { pane_id, direction }));
            } else if let Some(ws) = app.workspace.clone() {
                fx.push(spawn_shell(app, ws, String::new()));
            }
        }
        Action::ResizePane(dir, cells) => resize(app, focused, dir, cells, now, fx),
        Action::ToggleSidebar => {
            app.sidebar_visible = !app.sidebar_visible;
            app.sidebar_chosen = true;
            if !app.sidebar_visible {
                app.focus = Focus::Panes;
            }
        }
        Action::ShowHelp => app.overlay = Some(Overlay::Help { offset: 0 }),
        Action::ShowNotifications => {
            app.outer.selected = 0;
            app.overlay = Some(Overlay::Notifications);
        }
        Action::Quit => fx.push(Effect::Quit),
        Action::NextAttention => next_attention(app, now, fx),
        Action::MarkSeen => {
            if let Some(id) = focused {
                fx.push(Effect::Request(Request::MarkSeen(id)));
            }
        }
        Action::Rename(target) => {
            let current = match target {
                Target::Pane => app.focused_pane().map(|p| (p.id.clone(), p.title.clone())),
                Target::Tab => app.current_tab().map(|t| (t.id.clone(), t.title.clone())),
                Target::Workspace => app
                    .current_workspace()
                    .map(|w| (w.id.clone(), w.name.clone())),
            };
            if let Some((id, text)) = current {
                app.overlay = Some(Overlay::Rename {
                    target,
                    id,
                    field: Field { text },
                });
            }
        }
        Action::ResumeAll => crate::respawn::resume_all(app, now, fx),
        Action::ResumePane => match app.focused_pane() {
            Some(p) if p.status != pb::PaneStatus::Live as i32 => {
                fx.push(Effect::Request(Request::Resume(p.id.clone())));
            }
            Some(_) => app.toast("this pane is running", now),
            None => {}
        },
        Action::ScrollBack => {
            let pane = match at.and_then(|(x, y)| region_at(app, x, y)) {
                Some((_, Some(id))) => Some(id),
                _ => focused,
            };
            if let Some(pane_id) = pane {
                fx.push(Effect::Request(Request::ReadScrollback(pane_id.clone())));
                app.overlay = Some(Overlay::Copy(crate::copy_mode::open(app, pane_id)));
                app.mode = Mode::Normal;
            }
        }
        Action::MovePane => {
            if let Some(id) = focused {
                fx.push(Effect::Request(Request::MoveToNewTab(id)));
            }
        }
        Action::FocusPaneAtCursor => {
            if let Some((x, y)) = at
                && let Some((_, Some(pane))) = region_at(app, x, y)
                && let Some(tab) = app.current_tab()
            {
                let (ws, tab) = (tab.workspace_id.clone(), tab.id.clone());
                go_to(app, Some(ws), Some(tab), Some(pane), fx);
                app.focus = Focus::Panes;
            }
        }
        Action::GotoTabAtCursor => {
            if let Some((x, _)) = at
                && let Some((tab, ..)) = tab_cells(app)
                    .into_iter()
                    .find(|(_, _, tx, w)| x >= *tx && x < tx + w)
                && let Some(ws) = app.workspace.clone()
            {
                go_to(app, Some(ws), Some(tab), None, fx);
            }
        }
        Action::HighlightSidebarRow => {
            if let Some((_, y)) = at
                && let Some(row) = regions::sidebar_row_at(app, y)
            {
                app.highlight = row;
                app.focus = Focus::Sidebar;
            }
        }
        Action::ResizePaneByDrag => {
            if let Some((x, y)) = at {
                start_drag(app, x, y);
            }
        }
    }
}

/// Answers option `n` (1-based) of a remote machine's pending decision, once: AnswerDecision
/// with that machine's metadata, which the local server forwards over its link.
pub fn answer_on(
    app: &mut App,
    machine: &str,
    pane_id: &str,
    n: u8,
    now: Instant,
    fx: &mut Vec<Effect>,
) {
    let Some(d) = crate::machines::decision(&app.remotes, machine, pane_id) else {
        app.toast(format!("{machine}: no pending decision on this pane"), now);
        return;
    };
    if app.answered.as_deref() == Some(d.id.as_str()) {
        return;
    }
    match d.options.get(usize::from(n).wrapping_sub(1)) {
        Some(option) => {
            fx.push(Effect::Request(Request::AnswerOn {
                machine: machine.to_owned(),
                pane_id: d.pane_id.clone(),
                decision_id: d.id.clone(),
                option_id: option.id.clone(),
            }));
            app.answered = Some(d.id.clone());
        }
        None => app.toast(format!("this decision has no option {n}"), now),
    }
}

/// Answers option `n` (1-based) of a pane's pending decision, once.
pub fn answer(app: &mut App, pane_id: &str, n: u8, now: Instant, fx: &mut Vec<Effect>) {
    let decision = app
        .catalog
        .panes
        .get(pane_id)
        .and_then(|p| p.pending_decision.as_ref());
    let Some(d) = decision else {
        app.toast("no pending decision on this pane", now);
        return;
    };
    if app.answered.as_deref() == Some(d.id.as_str()) {
        return;
    }
    match d.options.get(usize::from(n).wrapping_sub(1)) {
        Some(option) => {
            fx.push(Effect::Request(Request::Answer {
                pane_id: d.pane_id.clone(),
                decision_id: d.id.clone(),
                option_id: option.id.clone(),
            }));
            app.answered = Some(d.id.clone());
        }
        None => app.toast(format!("this decision has no option {n}"), now),
    }
}

/// Moves the divider nearest the focused pane on `dir`'s axis by `cells`: `Left`/`Up` move it
/// left/up, `Right`/`Down` right/down.
fn resize(
    app: &mut App,
    focused: Option<String>,
    dir: Dir,
    cells: u8,
    now: Instant,
    fx: &mut Vec<Effect>,
) {
    let Some(pane) = focused else { return };
    let Some((tab, placement)) = regions::layout_placement(app) else {
        return;
    };
    let Some(layout) = signaltty_client::layout_tree::held(tab) else {
        return;
    };
    let axis = match dir {
        Dir::Left | Dir::Right => Axis::Columns,
        Dir::Up | Dir::Down => Axis::Rows,
    };
    let Some((path, _, ratio)) = enclosing_split(layout, &pane, axis) else {
        return;
    };
    // Keys in quick succession start from the ratio last asked for, not from the catalog's:
    // the server's event for an earlier key may come between two keys and carry an older
    // ratio (`HHH`, or prefix + C-left repeated, must move three times).
    let ratio = match &app.last_ratio {
        Some((tab_id, at, asked, when))
            if *tab_id == tab.id && *at == path && now.duration_since(*when) < RATIO_MEMORY =>
        {
            *asked
        }
        _ => ratio,
    };
    let Some(divider) = placement.dividers.iter().find(|d| d.path == path) else {
        return;
    };
    let extent = match axis {
        Axis::Columns => divider.split_area.width,
        Axis::Rows => divider.split_area.height,
    };
    let step = f32::from(cells) / f32::from(extent.saturating_sub(1).max(1));
    let ratio = match dir {
        Dir::Left | Dir::Up => ratio - step,
        Dir::Right | Dir::Down => ratio + step,
    }
    .clamp(MIN_RATIO, MAX_RATIO);
    let tab_id = tab.id.clone();
    app.last_ratio = Some((tab_id.clone(), path.clone(), ratio, now));
    // The next key of `HHH` read at once must start from this ratio, not from the one the
    // server has not yet confirmed: the catalog takes it now (the server's event agrees later).
    if let Some(layout) = app
        .catalog
        .tabs
        .get_mut(&tab_id)
        .and_then(signaltty_client::layout_tree::held_mut)
    {
        set_ratio(layout, &path, ratio);
    }
    fx.push(Effect::Request(Request::SetRatio {
        tab_id,
        path,
        ratio,
    }));
}

/// Sets the ratio of the split at `path` in a layout.
fn set_ratio(layout: &mut pb::Layout, path: &[pb::PathStep], ratio: f32) {
    let Some(pb::layout::Node::Split(split)) = layout.node.as_mut() else {
        return;
    };
    match path.split_first() {
        None => split.ratio = ratio,
        Some((step, rest)) => {
            let child = match step {
                pb::PathStep::Second => split.second.as_deref_mut(),
                _ => split.first.as_deref_mut(),
            };
            if let Some(child) = child {
                set_ratio(child, rest, ratio);
            }
        }
    }
}

/// Focuses the pane that most needs the user: highest attention, then the longest waiting.
fn next_attention(app: &mut App, now: Instant, fx: &mut Vec<Effect>) {
    let best = app
        .catalog
        .panes
        .values()
        .filter(|p| p.attention > pb::Attention::None as i32)
        .max_by_key(|p| {
            let since = p
                .lifecycle_since
                .map(|t| (-t.seconds, -t.nanos))
                .unwrap_or((0, 0));
            (attention_rank(p.attention), since)
        })
        .map(|p| (p.workspace_id.clone(), p.tab_id.clone(), p.id.clone()));
    match best {
        Some((ws, tab, pane)) => {
            go_to(app, Some(ws), Some(tab), Some(pane), fx);
            app.focus = Focus::Panes;
        }
        None => app.toast("nothing needs you", now),
    }
}

/// Attention severity for ordering (permission first, as it blocks an agent).
pub fn attention_rank(attention: i32) -> u8 {
    match pb::Attention::try_from(attention).unwrap_or(pb::Attention::Unspecified) {
        pb::Attention::PermissionRequired => 6,
        pb::Attention::InputRequired => 5,
        pb::Attention::Error => 4,
        pb::Attention::Warning => 3,
        pb::Attention::Unread => 2,
        pb::Attention::None | pb::Attention::Unspecified => 0,
    }
}
