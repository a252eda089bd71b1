//! The tmux preset as a tmux user drives it — typing from the first key, commands behind
//! `ctrl-b`, repeats, zoom, the "last" keys, the picker, pane numbers — and the rule that a
//! decision is answered only on purpose, over every key of both presets. Frames at 80×24 and
//! 200×50 are insta snapshots.

use std::time::{Duration, Instant};

use crate::action::Action;
use crate::app::{App, Effect, Focus, Mode, Msg, Overlay, Reply, Request};
use crate::dsl::press;
use crate::keymap::Preset;
use crate::keys::event_of;
use crate::test_fixture::{app_with, render};
use crate::update::update;

fn tmux(size: (u16, u16)) -> App {
    app_with(Preset::Tmux, size)
}

fn inputs(fx: &[Effect]) -> Vec<(String, Vec<u8>)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Input { pane_id, bytes } => Some((pane_id.clone(), bytes.clone())),
            _ => None,
        })
        .collect()
}

fn answers(fx: &[Effect]) -> usize {
    fx.iter()
        .filter(|e| matches!(e, Effect::Request(Request::Answer { .. })))
        .count()
}

fn ratios(fx: &[Effect]) -> Vec<f32> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Request(Request::SetRatio { ratio, .. }) => Some(*ratio),
            _ => None,
        })
        .collect()
}

#[test]
fn typing_goes_to_the_focused_pane_from_the_first_key_and_after_every_command() {
    let mut app = tmux((100, 30));
    let now = Instant::now();
    assert_eq!(app.mode, Mode::Insert);
    assert_eq!(
        inputs(&press(&mut app, "ls", now)),
        [("a".into(), b"l".to_vec()), ("a".into(), b"s".to_vec())]
    );
    // A split: the new pane is focused and takes the next key.
    let fx = press(&mut app, "ctrl-b %", now);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Request(Request::Split { .. })))
    );
    update(
        &mut app,
        Msg::Reply(Reply::Spawned {
            workspace_id: "w".into(),
            tab_id: "t1".into(),
            pane_id: "b".into(),
        }),
        now,
    );
    assert_eq!(
        inputs(&press(&mut app, "x", now)),
        [("b".into(), b"x".to_vec())]
    );
    // A tab switch, an overlay, the sidebar: typing goes on in the pane after each.
    for script in [
        "ctrl-b 2",
        "ctrl-b ? q",
        "ctrl-b tab j <esc>",
        "ctrl-b : <esc>",
        "ctrl-b s <esc>",
    ] {
        press(&mut app, script, now);
        assert_eq!(app.overlay, None, "{script}");
        assert_eq!(app.focus, Focus::Panes, "{script}");
        let typed = inputs(&press(&mut app, "y", now));
        assert_eq!(typed.len(), 1, "{script}: {typed:?}");
        assert_eq!(typed[0].1, b"y", "{script}");
    }
    // The prefix twice types the prefix.
    assert_eq!(inputs(&press(&mut app, "ctrl-b ctrl-b", now))[0].1, [0x02]);
}

#[test]
fn the_prefix_waits_for_ever_and_an_unbound_key_after_it_goes_nowhere() {
    let mut app = tmux((100, 30));
    let now = Instant::now();
    press(&mut app, "ctrl-b", now);
    assert_eq!(
        app.deadline(now)
            .filter(|d| *d < now + Duration::from_secs(5)),
        None
    );
    update(&mut app, Msg::Tick, now + Duration::from_secs(60));
    assert_eq!(app.chord.held, ["ctrl-b"]);
    assert!(render(&app).contains("PREFIX"));
    let fx = press(&mut app, "y", now + Duration::from_secs(61));
    assert!(inputs(&fx).is_empty(), "{fx:?}");
    assert!(app.toasts.iter().any(|t| t.text.contains("not bound")));
    assert!(app.chord.held.is_empty());
}

/// Every key binding of a preset, pressed in the pane's normal state (then dismissed with Esc,
/// `n` at a confirmation), and every printable key and Enter: none answers the decision.
#[test]
fn a_pending_decision_survives_every_key_of_both_presets() {
    let now = Instant::now();
    for preset in [Preset::Tmux, Preset::Modal] {
        let probe = app_with(preset, (100, 30));
        let table = match preset {
            Preset::Tmux => &probe.keymap.insert,
            Preset::Modal => &probe.keymap.normal,
        };
        let chords: Vec<(Vec<String>, Action)> = table
            .iter()
            .filter(|(keys, _)| !keys[0].starts_with("mouse:"))
            .map(|(k, a)| (k.clone(), *a))
            .collect();
        for (keys, action) in chords {
            if action == Action::FocusDecision {
                continue;
            }
            let mut app = app_with(preset, (100, 30));
            let mut fx = Vec::new();
            for token in &keys {
                let key = event_of(token).expect(token);
                fx.extend(update(&mut app, Msg::Key(key), now));
            }
            for token in ["esc", "n", "esc"] {
                let key = event_of(token).expect(token);
                fx.extend(update(&mut app, Msg::Key(key), now));
            }
            assert_eq!(answers(&fx), 0, "{preset:?}: {keys:?} answered");
        }
        let mut app = app_with(preset, (100, 30));
        let mut fx = Vec::new();
        for c in (b' '..=b'~').map(char::from) {
            if preset == Preset::Modal && c == 'a' {
                continue;
            }
            let key = event_of(&c.to_string()).or_else(|| event_of("space"));
            if let Some(key) = key {
                fx.extend(update(&mut app, Msg::Key(key), now));
            }
            fx.extend(update(
                &mut app,
                Msg::Key(event_of("esc").expect("esc")),
                now,
            ));
        }
        fx.extend(press(&mut app, "<enter> 1 2 3", now));
        assert_eq!(answers(&fx), 0, "{preset:?}: a typed key answered");
        // On purpose: focus the box, then a digit.
        let mut app = app_with(preset, (100, 30));
        let focus = match preset {
            Preset::Tmux => "ctrl-b a",
            Preset::Modal => "a",
        };
        assert_eq!(answers(&press(&mut app, focus, now)), 0);
        assert!(render(&app).contains("DECISION"));
        assert_eq!(answers(&press(&mut app, "3", now)), 1, "{preset:?}");
    }
}

#[test]
fn a_resize_key_repeated_in_one_read_moves_the_divider_each_time() {
    // Modal `H H H`: three ratios, each smaller (the catalog follows at once).
    let mut app = app_with(Preset::Modal, (100, 30));
    let now = Instant::now();
    let r = ratios(&press(&mut app, "H H H", now));
    assert_eq!(r.len(), 3);
    assert!(r[0] > r[1] && r[1] > r[2], "{r:?}");
    // tmux: the prefix once, then C-left repeats within the repeat time.
    let mut app = tmux((100, 30));
    let r = ratios(&press(
        &mut app,
        "ctrl-b ctrl-left ctrl-left ctrl-left",
        now,
    ));
    assert_eq!(r.len(), 3);
    assert!(r[0] > r[1] && r[1] > r[2], "{r:?}");
    // After the repeat time, the key is the pane's again.
    let later = now + app.keymap.repeat_time + Duration::from_millis(1);
    let fx = press(&mut app, "ctrl-left", later);
    assert!(ratios(&fx).is_empty());
    assert_eq!(inputs(&fx).len(), 1);
    // A plain key ends the repeat and goes to the pane.
    let fx = press(&mut app, "ctrl-b left x", now);
    assert_eq!(inputs(&fx).len(), 1);
}

#[test]
fn zoom_shows_the_pane_alone_marks_the_tab_and_ends_when_the_focus_moves() {
    for size in [(80, 24), (200, 50)] {
        let mut app = tmux(size);
        let now = Instant::now();
        press(&mut app, "ctrl-b z", now);
        let (_, placement) = crate::regions::placement(&app).expect("placement");
        assert_eq!(placement.panes.len(), 1);
        let screen = render(&app);
        assert!(screen.contains("1:agents*Z"), "{screen}");
        insta::assert_snapshot!(format!("tmux_zoomed_{}x{}", size.0, size.1), screen);
        // b is watched, not shown: its size does not count while a is zoomed.
        assert_eq!(
            app.attached.get("b"),
            Some(&crate::app::Attachment::Watching)
        );
        press(&mut app, "ctrl-b right", now);
        assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("b"));
        assert!(app.zoomed.is_empty());
        assert_eq!(crate::regions::placement(&app).expect("p").1.panes.len(), 2);
    }
}

#[test]
fn the_last_pane_tab_and_workspace_and_the_workspace_cycle() {
    let mut app = tmux((100, 30));
    let now = Instant::now();
    let mut second = app.catalog.workspaces[0].clone();
    second.id = "w2".into();
    second.name = "web".into();
    second.tab_ids = Vec::new();
    app.catalog.workspaces.push(second);
    press(&mut app, "ctrl-b right", now);
    assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("b"));
    press(&mut app, "ctrl-b ;", now);
    assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("a"));
    press(&mut app, "ctrl-b 2", now);
    assert_eq!(app.current_tab().map(|t| t.id.as_str()), Some("t2"));
    assert!(render(&app).contains("1:agents-"), "the last tab marked");
    press(&mut app, "ctrl-b l", now);
    assert_eq!(app.current_tab().map(|t| t.id.as_str()), Some("t1"));
    press(&mut app, "ctrl-b )", now);
    assert_eq!(app.workspace.as_deref(), Some("w2"));
    press(&mut app, "ctrl-b L", now);
    assert_eq!(app.workspace.as_deref(), Some("w"));
    press(&mut app, "ctrl-b (", now);
    assert_eq!(app.workspace.as_deref(), Some("w2"));
}

#[test]
fn swap_and_rotate_send_the_layout_with_the_panes_moved() {
    let mut app = tmux((100, 30));
    let now = Instant::now();
    for script in ["ctrl-b }", "ctrl-b {", "ctrl-b ctrl-o", "ctrl-b alt-o"] {
        let fx = press(&mut app, script, now);
        let layout = fx.iter().find_map(|e| match e {
            Effect::Request(Request::SetLayout { layout, .. }) => Some(layout.clone()),
            _ => None,
        });
        let layout = layout.unwrap_or_else(|| panic!("{script}: no SetLayout in {fx:?}"));
        assert_eq!(crate::geometry::pane_ids(&layout), ["b", "a"], "{script}");
    }
}

#[test]
fn the_picker_filters_as_one_types_and_enter_goes_there() {
    for size in [(80, 24), (200, 50)] {
        let mut app = tmux(size);
        let now = Instant::now();
        press(&mut app, "ctrl-b w", now);
        insta::assert_snapshot!(format!("tmux_picker_{}x{}", size.0, size.1), render(&app));
        press(&mut app, "cargo", now);
        let Some(Overlay::Picker(picker)) = &app.overlay else {
            panic!("no picker");
        };
        let rows = crate::picker::rows(&app, picker);
        assert_eq!(rows.len(), 3, "workspace, tab, pane: {rows:?}");
        press(&mut app, "<enter>", now);
        assert_eq!(app.overlay, None);
        assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("c"));
        assert_eq!(app.mode, Mode::Insert);
    }
}

#[test]
fn pane_numbers_show_and_a_digit_jumps_there() {
    let mut app = tmux((100, 30));
    let now = Instant::now();
    press(&mut app, "ctrl-b q", now);
    assert!(matches!(app.overlay, Some(Overlay::PaneNumbers { .. })));
    press(&mut app, "1", now);
    assert_eq!(app.focused_pane().map(|p| p.id.as_str()), Some("b"));
    // Another key takes them away and is handled as usual: the prefix starts a command.
    let fx = press(&mut app, "ctrl-b q ctrl-b c", now);
    assert_eq!(app.overlay, None);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Request(Request::Spawn { .. })))
    );
    // They go away by themselves.
    press(&mut app, "ctrl-b q", now);
    update(&mut app, Msg::Tick, now + Duration::from_secs(3));
    assert_eq!(app.overlay, None);
}

#[test]
fn x_on_a_workspace_row_closes_nothing() {
    let mut app = tmux((100, 30));
    let now = Instant::now();
    press(&mut app, "ctrl-b tab", now);
    app.highlight = 0; // the workspace row
    press(&mut app, "x", now);
    assert_eq!(app.overlay, None, "no confirmation for the focused pane");
}

#[test]
fn frames_at_80x24_and_200x50() {
    let now = Instant::now();
    for size in [(80, 24), (200, 50)] {
        let app = tmux(size);
        let screen = render(&app);
        // At 80 columns the sidebar starts hidden; the current tab always shows.
        assert_eq!(screen.contains("▾ api"), size.0 >= 100, "{screen}");
        assert!(screen.contains("1:agents*"), "{screen}");
        insta::assert_snapshot!(format!("tmux_main_{}x{}", size.0, size.1), screen);
        let mut app = tmux(size);
        press(&mut app, "ctrl-b a", now);
        insta::assert_snapshot!(format!("tmux_decision_{}x{}", size.0, size.1), render(&app));
        let mut app = tmux(size);
        press(&mut app, "ctrl-b ?", now);
        let screen = render(&app);
        assert!(screen.contains("C-b x ClosePane"), "{screen}");
        insta::assert_snapshot!(format!("tmux_help_{}x{}", size.0, size.1), screen);
    }
    // The help scrolls when it does not fit.
    let mut app = tmux((80, 24));
    press(&mut app, "ctrl-b ? <pagedown> <pagedown> <pagedown>", now);
    let screen = render(&app);
    assert!(screen.contains("ShowPicker"), "{screen}");
}

#[test]
fn the_current_tab_always_shows_in_the_tab_bar() {
    let mut app = tmux((80, 24));
    let now = Instant::now();
    for i in 3..=30 {
        let id = format!("t{i}");
        let mut t = app.catalog.tabs["t2"].clone();
        t.id = id.clone();
        t.title = format!("a long tab title {i}");
        app.catalog.tabs.insert(id.clone(), t);
        app.catalog.workspaces[0].tab_ids.push(id);
    }
    press(&mut app, "ctrl-b p", now);
    assert_eq!(app.current_tab().map(|t| t.id.as_str()), Some("t30"));
    let cells = crate::regions::tab_cells(&app);
    assert!(cells.iter().any(|(id, ..)| id == "t30"), "{cells:?}");
    assert!(render(&app).contains("30:"), "{}", render(&app));
}

#[test]
fn redraw_and_a_death_by_signal() {
    let mut app = tmux((80, 24));
    let fx = press(&mut app, "ctrl-b r", Instant::now());
    assert!(fx.contains(&Effect::Redraw));
    assert_eq!(crate::view::exit_text(139), "killed by SIGSEGV");
    assert_eq!(crate::view::exit_text(137), "killed by SIGKILL");
    assert_eq!(crate::view::exit_text(1), "exited 1");
    assert_eq!(crate::view::exit_text(0), "exited 0");
}

#[test]
fn a_resize_key_after_an_older_ratio_came_back_still_moves_on() {
    let mut app = app_with(Preset::Modal, (100, 30));
    let now = Instant::now();
    let first = ratios(&press(&mut app, "H", now));
    // The server's event for the first key arrives after it, with the ratio before it (as
    // when two keys come in two reads and an older event between them).
    let original = crate::test_fixture::catalog().tabs["t1"].clone();
    app.catalog.tabs.insert("t1".into(), original);
    let second = ratios(&press(&mut app, "H", now + Duration::from_millis(30)));
    assert!(second[0] < first[0], "{first:?} then {second:?}");
    // After a pause the catalog's ratio (the server's) is the start again.
    let original = crate::test_fixture::catalog().tabs["t1"].clone();
    app.catalog.tabs.insert("t1".into(), original);
    let later = ratios(&press(&mut app, "H", now + Duration::from_secs(5)));
    assert_eq!(later, first);
}
