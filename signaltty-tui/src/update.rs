//! `update`: one message in, state changed, effects out. Keys go through the keymap (or the open
//! overlay), mouse events are hit-tested against [`crate::regions`], feed messages update the
//! catalog, pane events feed the terminal models. After every message, [`reconcile`] compares
//! what should be attached (every pane: the current tab's interactively at their drawn size,
//! the rest watched) with what is, and asks for the difference.

use std::time::{Duration, Instant};

use crate::catalog::FeedMsg;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};
use signaltty_term::Screen;

use crate::action::Action;
use crate::actions::perform;
use crate::app::{App, Attachment, Effect, Focus, Link, Mode, Msg, PaneEvent, Reply, Request};
use crate::encode;
use crate::focus;
use crate::keymap::{Preset, Resolved, Table};
use crate::keys::{event_of, token_of};
use crate::overlay_keys;
use crate::pointer::{Region, region_at};
use crate::regions::{self, content};
use crate::spawn::spawn_shell;

/// The history kept by the TUI's own pane models. The scroll view reads the server's history
/// (`ReadPane`), so a model's history only serves a resize that grows the pane (reflow takes
/// rows back from it, as the server's model does): a few screens' worth, not the server's
/// 10,000 lines and 4 MiB per pane.
const MODEL_HISTORY: signaltty_term::HistoryLimits = signaltty_term::HistoryLimits {
    max_lines: 500,
    max_bytes: 256 * 1024,
};

/// Two clicks closer than this are a double click.
const DOUBLE_CLICK: Duration = Duration::from_millis(400);

/// Applies one message.
pub fn update(app: &mut App, msg: Msg, now: Instant) -> Vec<Effect> {
    let mut fx = Vec::new();
    let toasts = app.toasts.len();
    app.toasts.retain(|t| t.until > now);
    let expired = app.toasts.len() != toasts;
    // Output of a pane nobody sees changes its model but not the screen: no frame for it.
    // Output of a pane on screen damages that pane only: the frame redraws its changed rows.
    let mut redraw = match &msg {
        Msg::Pane { pane_id, event } => match app.attached.get(pane_id) {
            Some(Attachment::Watching) => false,
            Some(Attachment::Interactive { .. }) if matches!(event, PaneEvent::Output(_)) => {
                app.damaged.insert(pane_id.clone());
                false
            }
            _ => true,
        },
        _ => true,
    };
    // A key that only goes to the pane (Insert mode, no chord held before or after) changes
    // nothing on screen by itself: its echo is the pane's output.
    let mut passthrough = false;
    // Pane output (the hot path) changes neither the title nor the current tab: the outer
    // terminal's title and the activity flags are looked at only after other messages.
    let pane_msg = matches!(msg, Msg::Pane { .. });
    match &msg {
        Msg::Feed(FeedMsg::Event(event)) => crate::outer_notify::on_event(app, event, &mut fx),
        Msg::Pane {
            pane_id,
            event: PaneEvent::Output(_),
        } if app.attached.get(pane_id) == Some(&Attachment::Watching) => {
            crate::outer_notify::on_output(app, pane_id)
        }
        _ => {}
    }
    match msg {
        Msg::Key(key) => passthrough = on_key(app, key, now, &mut fx),
        Msg::Mouse(mouse) => on_mouse(app, mouse, now, &mut fx),
        Msg::Paste(text) => {
            if app.mode == Mode::Insert
                && let Some(pane) = app.focused_pane()
            {
                let modes = app
                    .screens
                    .get(&pane.id)
                    .map(|s| *s.view().modes())
                    .unwrap_or_default();
                fx.push(Effect::Input {
                    pane_id: pane.id.clone(),
                    bytes: encode::paste(&text, &modes),
                });
                passthrough = app.overlay.is_none() && app.chord.held.is_empty();
            }
        }
        Msg::Resize(cols, rows) => {
            app.size = (cols, rows);
            if !app.sidebar_chosen {
                app.sidebar_visible = cols >= crate::app::SIDEBAR_MIN_COLS;
            }
        }
        Msg::FocusGained => fx.extend(focus::outer(app, true)),
        Msg::FocusLost => fx.extend(focus::outer(app, false)),
        Msg::Feed(feed) => on_feed(app, feed, &mut fx),
        Msg::Machines(machines) => {
            crate::machines::listed(&mut app.remotes, machines);
            clamp_highlight(app);
        }
        Msg::RemoteFeed { machine, feed } => {
            crate::machines::on_feed(&mut app.remotes, &machine, feed);
            clamp_highlight(app);
        }
        Msg::Pane { pane_id, event } => on_pane(app, pane_id, event),
        Msg::Reply(reply) => on_reply(app, reply, now, &mut fx),
        Msg::Tick => {
            if app.chord.repeat_until.is_some_and(|until| now >= until) {
                app.chord.repeat_until = None;
            }
            let table = table(app);
            if let Some(resolved) = app.keymap.expire(table, &mut app.chord, now) {
                resolved_keys(app, resolved, now, None, &mut fx);
            }
        }
    }
    typing_by_default(app);
    close_stale_overlays(app, now);
    crate::moves::follow(app);
    if !pane_msg {
        crate::outer_notify::follow(app, &mut fx);
    }
    fx.extend(reconcile(app));
    fx.extend(focus::look(app));
    if fx.contains(&Effect::Quit) {
        app.quit = true;
    }
    if passthrough && !expired {
        redraw = false;
    }
    // What goes to the outer terminal itself (a bell, its title) changes nothing drawn.
    let shown = fx.iter().any(|e| {
        let typed = passthrough && matches!(e, Effect::Input { .. });
        !typed && !matches!(e, Effect::Outer(_))
    });
    app.dirty |= redraw || expired || shown;
    fx
}

/// A focused decision that was answered or withdrawn (from here or elsewhere) closes, and pane
/// numbers go away after their time.
fn close_stale_overlays(app: &mut App, now: Instant) {
    let stale = match &app.overlay {
        Some(crate::app::Overlay::Decision {
            pane_id,
            decision_id,
            ..
        }) => app
            .catalog
            .panes
            .get(pane_id)
            .and_then(|p| p.pending_decision.as_ref())
            .is_none_or(|d| &d.id != decision_id || !d.answerable),
        Some(crate::app::Overlay::PaneNumbers { until }) => now >= *until,
        _ => false,
    };
    if stale {
        app.overlay = None;
    }
}

/// In the tmux preset, keys go to the focused pane whenever the panes have the focus: after a
/// split, a tab switch, a closed overlay or the sidebar, typing goes on where it left off.
fn typing_by_default(app: &mut App) {
    if app.keymap.preset == Preset::Tmux && app.focus == Focus::Panes {
        app.mode = Mode::Insert;
    }
}

fn table(app: &App) -> Table {
    if app.mode == Mode::Insert && app.focus == Focus::Panes {
        Table::Insert
    } else {
        Table::Normal
    }
}

/// Returns whether the key only went to the focused pane (nothing on screen changed).
///
/// The keymap acts on presses and repeats (a held key repeats its action, as it does in a
/// terminal without event types); a release (reported only when the outer terminal speaks the
/// kitty protocol) never reaches the keymap: it goes to the pane that got the key's press, which
/// encodes it only if its program asked for event types.
fn on_key(app: &mut App, key: KeyEvent, now: Instant, fx: &mut Vec<Effect>) -> bool {
    if key.kind == KeyEventKind::Release {
        return on_release(app, key, fx);
    }
    if app.overlay.is_some() {
        if overlay_keys::on_key(app, key, now, fx) {
            // Given up (the prefix in a decision box or copy mode, any key over the pane
            // numbers): handled as if no overlay had been open.
            on_key(app, key, now, fx);
        }
        return false;
    }
    if crate::respawn::dead_key(app, &key, fx) {
        return false;
    }
    let Some(token) = token_of(&key) else {
        if app.mode == Mode::Insert {
            send_keys(app, &[key], fx);
            return app.chord.held.is_empty();
        }
        return false;
    };
    if repeated(app, &token, now, fx) {
        return false;
    }
    let inserting = table(app) == Table::Insert && app.chord.held.is_empty();
    let after_leader = app.chord.held.len() == 1 && app.chord.held[0] == app.keymap.leader;
    let resolved = app.keymap.resolve(table(app), &mut app.chord, token, now);
    let alone = matches!(&resolved, Resolved::Unbound(tokens) if tokens.len() == 1);
    if after_leader && let Resolved::Action(action) = resolved {
        app.chord.repeat_until = action.repeats().then(|| now + app.keymap.repeat_time);
    }
    resolved_keys(app, resolved, now, Some(key), fx);
    inserting && alone && app.chord.held.is_empty() && app.overlay.is_none()
}

/// tmux's `-r`: within the repeat time of a repeatable leader binding (focus or resize by
/// arrows), a key that is itself a repeatable binding after the leader acts without it. Any
/// other key ends the repeat and is handled as usual. Returns whether the key was used.
fn repeated(app: &mut App, token: &str, now: Instant, fx: &mut Vec<Effect>) -> bool {
    let Some(until) = app.chord.repeat_until.take() else {
        return false;
    };
    if now >= until || !app.chord.held.is_empty() {
        return false;
    }
    let chord = vec![app.keymap.leader.clone(), token.to_owned()];
    let action = match table(app) {
        Table::Insert => app.keymap.insert.get(&chord),
        Table::Normal => app.keymap.normal.get(&chord),
    }
    .copied()
    .filter(|a| a.repeats());
    let Some(action) = action else {
        return false;
    };
    perform(app, action, None, now, fx);
    app.chord.repeat_until = Some(now + app.keymap.repeat_time);
    true
}

fn resolved_keys(
    app: &mut App,
    resolved: Resolved,
    now: Instant,
    last: Option<KeyEvent>,
    fx: &mut Vec<Effect>,
) {
    match resolved {
        Resolved::Action(action) => perform(app, action, None, now, fx),
        Resolved::Pending => {}
        Resolved::Unbound(tokens) if tokens.len() > 1 && tokens[0] == app.keymap.leader => {
            // An unbound key after the leader goes nowhere (as after tmux's prefix).
            app.toast(format!("{} is not bound", tokens.join(" ")), now);
        }
        Resolved::Unbound(tokens) => {
            if table(app) == Table::Insert {
                // The held keys go to the pane as typed; the last one as the event itself (it
                // may carry modifiers a token drops).
                let mut events: Vec<KeyEvent> = tokens
                    .iter()
                    .take(tokens.len().saturating_sub(1))
                    .filter_map(|t| event_of(t))
                    .collect();
                if let Some(key) = last.or_else(|| tokens.last().and_then(|t| event_of(t))) {
                    events.push(key);
                }
                send_keys(app, &events, fx);
            }
        }
    }
}

/// Sends a key's release to the pane its press went to. Changes nothing on screen (a kitty
/// terminal reports a release for every key: none of them may cost a frame).
fn on_release(app: &mut App, key: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    if let Some(pane_id) = app.keys_down.remove(&held_key(key.code)) {
        let (modes, protocol) = app.key_modes(&pane_id);
        let bytes = encode::key(&key, &modes, protocol);
        if !bytes.is_empty() {
            fx.push(Effect::Input { pane_id, bytes });
        }
    }
    true
}

/// The key a press is remembered by until its release (a release reports the unshifted key).
fn held_key(code: KeyCode) -> KeyCode {
    match code {
        KeyCode::Char(c) => KeyCode::Char(c.to_lowercase().next().unwrap_or(c)),
        KeyCode::BackTab => KeyCode::Tab,
        other => other,
    }
}

fn send_keys(app: &mut App, keys: &[KeyEvent], fx: &mut Vec<Effect>) {
    let Some(pane) = app.focused_pane() else {
        return;
    };
    let pane_id = pane.id.clone();
    for key in keys {
        app.keys_down.insert(held_key(key.code), pane_id.clone());
    }
    let Some(pane) = app.focused_pane() else {
        return;
    };
    let (modes, protocol) = app.key_modes(&pane.id);
    let bytes: Vec<u8> = keys
        .iter()
        .flat_map(|k| encode::key(k, &modes, protocol))
        .collect();
    if !bytes.is_empty() {
        fx.push(Effect::Input {
            pane_id: pane.id.clone(),
            bytes,
        });
        // Typing into a pane is looking at it.
        if focus::seen_clears(app, pane) {
            fx.push(Effect::Request(Request::MarkSeen(pane.id.clone())));
        }
    }
}

fn on_mouse(app: &mut App, mouse: MouseEvent, now: Instant, fx: &mut Vec<Effect>) {
    let (x, y) = (mouse.column, mouse.row);
    if matches!(app.overlay, Some(crate::app::Overlay::Copy(_)))
        && let Some(crate::app::Overlay::Copy(mut mode)) = app.overlay.take()
    {
        if crate::copy_mode::on_mouse(app, &mut mode, &mouse, fx) == crate::copy_mode::Outcome::Stay
        {
            app.overlay = Some(crate::app::Overlay::Copy(mode));
        }
        return;
    }
    if let Some(crate::app::Overlay::Diff(mut view)) = app.overlay.take() {
        crate::diff::on_mouse(app, &mut view, &mouse, fx);
        app.overlay = Some(crate::app::Overlay::Diff(view));
        return;
    }
    if app.overlay.is_some() {
        return;
    }
    // A drag in progress follows the pointer until the button is released.
    if let Some(drag) = &app.drag {
        match mouse.kind {
            MouseEventKind::Drag(MouseButton::Left) => {
                let ratio = crate::geometry::ratio_for_drag(&drag.divider, x, y);
                fx.push(Effect::Request(Request::SetRatio {
                    tab_id: drag.tab_id.clone(),
                    path: drag.divider.path.clone(),
                    ratio,
                }));
            }
            MouseEventKind::Up(_) => app.drag = None,
            _ => {}
        }
        return;
    }
    if select(app, &mouse, now, fx) {
        return;
    }
    let region = region_at(app, x, y);
    // Pass-through, when the program asked for the mouse: everything over the focused pane in
    // Insert mode, and the wheel over any visible pane in either mode (as in tmux: a full-screen
    // program scrolls itself; the scroll view opens only over panes that did not ask).
    let wheel = matches!(
        mouse.kind,
        MouseEventKind::ScrollUp | MouseEventKind::ScrollDown
    );
    if let Some((Region::Pane, Some(pane_id))) = &region
        && (wheel
            || (app.mode == Mode::Insert && app.focused_pane().is_some_and(|p| &p.id == pane_id)))
        && let Some((_, placement)) = regions::placement(app)
        && let Some(rect) = placement.rect_of(pane_id).map(content)
        && rect.contains(x, y)
        && let Some(screen) = app.screens.get(pane_id)
        && let Some(bytes) = encode::mouse(&mouse, x - rect.x, y - rect.y, screen.view().modes())
    {
        fx.push(Effect::Input {
            pane_id: pane_id.clone(),
            bytes,
        });
        return;
    }
    let Some((region, _)) = region else {
        return;
    };
    let kind = match mouse.kind {
        MouseEventKind::Down(MouseButton::Left) if region == Region::Divider => "drag",
        MouseEventKind::Down(MouseButton::Left) => {
            let double = app.last_click.is_some_and(|(at, px, py)| {
                now.duration_since(at) < DOUBLE_CLICK && (px, py) == (x, y)
            });
            app.last_click = Some((now, x, y));
            if double { "dblclick" } else { "click" }
        }
        MouseEventKind::ScrollUp => "wheel-up",
        MouseEventKind::ScrollDown => "wheel-down",
        _ => return,
    };
    let token = format!("mouse:{kind}({})", region.name());
    let map = match table(app) {
        Table::Insert => &app.keymap.insert,
        Table::Normal => &app.keymap.normal,
    };
    let action = map.get(&vec![token.clone()]).copied().or_else(|| {
        // A double click unbound as such is still a click.
        (kind == "dblclick")
            .then(|| {
                map.get(&vec![format!("mouse:click({})", region.name())])
                    .copied()
            })
            .flatten()
    });
    if let Some(action) = action {
        perform(app, action, Some((x, y)), now, fx);
    }
}

/// Text selection in Normal mode: a press on a pane's content anchors it (the click still
/// focuses), a drag extends it, the release copies it to the outer terminal's clipboard
/// (OSC 52). Returns whether the event was consumed.
fn select(app: &mut App, mouse: &MouseEvent, now: Instant, fx: &mut Vec<Effect>) -> bool {
    let cell = |app: &App, pane_id: &str| -> Option<(u16, u16)> {
        let (_, placement) = regions::placement(app)?;
        let rect = content(placement.rect_of(pane_id)?);
        let x = mouse
            .column
            .clamp(rect.x, (rect.x + rect.width).saturating_sub(1));
        let y = mouse
            .row
            .clamp(rect.y, (rect.y + rect.height).saturating_sub(1));
        Some((y - rect.y, x - rect.x))
    };
    match mouse.kind {
        MouseEventKind::Drag(MouseButton::Left) => {
            let Some(pane_id) = app.selection.as_ref().map(|s| s.pane_id.clone()) else {
                return false;
            };
            if let (Some(at), Some(sel)) = (cell(app, &pane_id), app.selection.as_mut()) {
                sel.end = at;
            }
            true
        }
        MouseEventKind::Up(MouseButton::Left) => {
            let Some(sel) = app.selection.take() else {
                return false;
            };
            if sel.start != sel.end
                && let Some(screen) = app.screens.get(&sel.pane_id)
            {
                let text = selected_text(screen, &sel);
                app.toast(format!("copied {} characters", text.chars().count()), now);
                app.paste_buffer = Some(text.clone());
                fx.push(Effect::Copy(text));
            }
            true
        }
        MouseEventKind::Down(MouseButton::Left) if app.mode == Mode::Normal => {
            if let Some((Region::Pane, Some(pane_id))) = region_at(app, mouse.column, mouse.row)
                && let Some((_, placement)) = regions::placement(app)
                && placement
                    .rect_of(&pane_id)
                    .map(content)
                    .is_some_and(|r| r.contains(mouse.column, mouse.row))
                && let Some(at) = cell(app, &pane_id)
            {
                app.selection = Some(crate::app::Selection {
                    pane_id,
                    start: at,
                    end: at,
                });
            }
            false
        }
        _ => false,
    }
}

/// The text of a selection, rows joined by newlines, trailing blanks of each row dropped.
pub fn selected_text(screen: &Screen, sel: &crate::app::Selection) -> String {
    let term = screen.view();
    let (cols, _) = term.size();
    let ((r0, c0), (r1, c1)) = sel.ordered();
    let mut lines = Vec::new();
    for row in r0..=r1 {
        let from = if row == r0 { c0 } else { 0 };
        let to = if row == r1 {
            c1.min(cols.saturating_sub(1))
        } else {
            cols.saturating_sub(1)
        };
        let line: String = (from..=to).map(|col| term.cell_text(row, col)).collect();
        lines.push(line.trim_end().to_owned());
    }
    lines.join("\n")
}

fn on_feed(app: &mut App, feed: FeedMsg, fx: &mut Vec<Effect>) {
    match feed {
        FeedMsg::Loaded(catalog) => {
            app.catalog = *catalog;
            app.link = Link::Live;
            choose_workspace(app, fx);
        }
        FeedMsg::Event(event) => {
            crate::git_replies::on_event(app, &event, fx);
            crate::race_view::on_event(app, &event, fx);
            app.catalog.apply(&event);
            if app.current_workspace().is_none() {
                choose_workspace(app, fx);
            }
        }
        FeedMsg::Live => app.link = Link::Live,
        FeedMsg::Disconnected { reason, .. } => app.link = Link::Reconnecting { reason },
    }
    clamp_highlight(app);
}

/// Keeps the sidebar's highlight on a row that exists.
fn clamp_highlight(app: &mut App) {
    let rows = app.sidebar_rows().len();
    app.highlight = app.highlight.min(rows.saturating_sub(1));
}

/// Picks the workspace to show: the current one if it still exists, else the one rooted at the
/// start directory, else (once) a new one there with a shell; a workspace without tabs gets a
/// shell too.
fn choose_workspace(app: &mut App, fx: &mut Vec<Effect>) {
    if app.current_workspace().is_none() {
        app.workspace = app
            .catalog
            .workspaces
            .iter()
            .find(|w| w.cwd == app.start_dir)
            .map(|w| w.id.clone());
    }
    if app.workspace.is_none() && !app.bootstrapped {
        app.bootstrapped = true;
        fx.push(Effect::Request(Request::CreateWorkspace {
            cwd: app.start_dir.clone(),
        }));
        return;
    }
    if app.workspace.is_none() {
        app.workspace = app.catalog.workspaces.first().map(|w| w.id.clone());
    }
    let empty = app
        .current_workspace()
        .filter(|ws| ws.tab_ids.is_empty())
        .map(|ws| ws.id.clone());
    if let Some(ws_id) = empty
        && !app.bootstrapped
    {
        app.bootstrapped = true;
        fx.push(spawn_shell(app, ws_id, String::new()));
    }
    app.bootstrapped = true;
}

fn on_pane(app: &mut App, pane_id: String, event: PaneEvent) {
    if !app.attached.contains_key(&pane_id) {
        return;
    }
    match event {
        PaneEvent::Snapshot { screen, cols, rows } => {
            let mut model = Screen::with_history_limits(cols, rows, MODEL_HISTORY);
            model.feed(&screen);
            model.take_replies();
            app.screens.insert(pane_id, model);
        }
        PaneEvent::Output(bytes) => {
            if let Some(screen) = app.screens.get_mut(&pane_id) {
                screen.feed(&bytes);
                // The server's model answers the program's queries; ours must not pile them up.
                screen.take_replies();
            }
        }
        PaneEvent::Resized { cols, rows } => {
            if let Some(screen) = app.screens.get_mut(&pane_id) {
                screen.resize(cols, rows);
            }
        }
        PaneEvent::Exited(_) | PaneEvent::Dropped(_) => {}
    }
}

fn on_reply(app: &mut App, reply: Reply, now: Instant, fx: &mut Vec<Effect>) {
    match reply {
        Reply::Git(reply) => crate::git_replies::on_reply(app, *reply, now, fx),
        Reply::Race(reply) => crate::race_view::on_reply(app, *reply, now, fx),
        Reply::Done => {}
        Reply::Failed(text) => {
            // A refused answer may be tried again.
            app.answered = None;
            app.toast(text, now);
        }
        Reply::Spawned {
            workspace_id,
            tab_id,
            pane_id,
        } => {
            // The reply can come before the event that adds the tab to the catalog: remember
            // the choice anyway; `current_tab` falls back until the tab arrives, then shows it.
            app.active_tab.insert(workspace_id.clone(), tab_id.clone());
            if app.workspace.is_none() {
                app.workspace = Some(workspace_id);
            }
            app.active_pane.insert(tab_id, pane_id);
        }
        Reply::WorkspaceCreated(id) => app.workspace = Some(id),
        Reply::Lines {
            pane_id,
            lines,
            styled,
        } => {
            let height = crate::copy_mode::height(app, &pane_id);
            if let Some(crate::app::Overlay::Copy(mode)) = &mut app.overlay
                && mode.pane_id == pane_id
            {
                mode.load(lines, styled, height);
            }
        }
    }
}

/// The attachments that should exist versus those that do.
pub fn reconcile(app: &mut App) -> Vec<Effect> {
    let mut fx = Vec::new();
    if app.link != Link::Live {
        return fx;
    }
    let mut wanted: std::collections::BTreeMap<String, Attachment> = app
        .catalog
        .panes
        .keys()
        .map(|id| (id.clone(), Attachment::Watching))
        .collect();
    if let Some((_, placement)) = regions::placement(app) {
        for pane in &placement.panes {
            let area = content(pane.rect);
            if wanted.contains_key(&pane.pane_id) && area.width > 0 && area.height > 0 {
                wanted.insert(
                    pane.pane_id.clone(),
                    Attachment::Interactive {
                        cols: area.width,
                        rows: area.height,
                    },
                );
            }
        }
    }
    for (id, how) in &wanted {
        match (app.attached.get(id), how) {
            (Some(now), want) if now == want => {}
            (Some(Attachment::Interactive { .. }), Attachment::Interactive { cols, rows }) => fx
                .push(Effect::ResizeAttached {
                    pane_id: id.clone(),
                    cols: *cols,
                    rows: *rows,
                }),
            _ => fx.push(Effect::Attach {
                pane_id: id.clone(),
                how: *how,
            }),
        }
    }
    for id in app.attached.keys() {
        if !wanted.contains_key(id) {
            fx.push(Effect::Detach(id.clone()));
        }
    }
    app.screens.retain(|id, _| wanted.contains_key(id));
    app.attached = wanted;
    fx
}

/// Whether an action is one the mouse triggers at a position.
pub fn needs_position(action: Action) -> bool {
    matches!(
        action,
        Action::FocusPaneAtCursor
            | Action::GotoTabAtCursor
            | Action::HighlightSidebarRow
            | Action::ResizePaneByDrag
            | Action::AnswerAtCursor
    )
}

#[cfg(test)]
#[path = "update_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "interaction_tests.rs"]
mod interaction_tests;

#[cfg(test)]
#[path = "prefix_tests.rs"]
mod prefix_tests;
