use super::*;
use crate::action::Target;
use crate::geometry::Dir;

fn keys(s: &str) -> Vec<String> {
    canonical_chord(s).expect("valid chord")
}

/// A config text with the modal preset chosen first.
fn modal(text: &str) -> String {
    format!("[tui]\nkeys = \"modal\"\n{text}")
}

#[test]
fn the_tmux_preset_is_the_default_and_binds_tmux_keys_after_ctrl_b() {
    let km = Keymap::default();
    assert_eq!(km.preset, Preset::Tmux);
    assert_eq!(km.leader, "ctrl-b");
    for (key, action) in [
        ("ctrl-b %", Action::SplitHorizontal),
        ("ctrl-b \"", Action::SplitVertical),
        ("ctrl-b ctrl-b", Action::SendLeader),
        ("ctrl-b z", Action::ToggleZoom),
        ("ctrl-b c", Action::NewTab),
        ("ctrl-b 0", Action::GotoTab(10)),
        ("ctrl-b ,", Action::Rename(Target::Tab)),
        ("ctrl-b $", Action::Rename(Target::Workspace)),
        ("ctrl-b ctrl-up", Action::ResizePane(Dir::Up, 1)),
        ("ctrl-b alt-left", Action::ResizePane(Dir::Left, 5)),
        ("ctrl-b a", Action::FocusDecision),
        ("ctrl-b d", Action::Quit),
    ] {
        assert_eq!(km.insert.get(&keys(key)), Some(&action), "{key}");
        assert_eq!(
            km.normal.get(&keys(key)),
            Some(&action),
            "{key} in the sidebar"
        );
    }
    // Nothing but the prefix (and the mouse) is taken from the pane.
    for chord in km.insert.keys() {
        assert!(
            chord[0] == "ctrl-b" || chord[0].starts_with("mouse:"),
            "{chord:?} is taken from the pane"
        );
    }
    assert!(km.warnings.is_empty(), "{:?}", km.warnings);
    // A prefix binding of one's own, and another prefix.
    let km = Keymap::from_config(
        "[tui.keymap]\nprefix = \"ctrl-a\"\n[tui.keymap.prefixed]\n\"|\" = \"SplitHorizontal\"\n",
    )
    .expect("valid");
    assert_eq!(
        km.insert.get(&keys("ctrl-a |")),
        Some(&Action::SplitHorizontal)
    );
    assert_eq!(
        km.insert.get(&keys("ctrl-a %")),
        Some(&Action::SplitHorizontal)
    );
    assert_eq!(km.insert.get(&keys("ctrl-b %")), None);
}

#[test]
fn the_prefix_waits_for_ever_and_a_digit_is_a_tab_in_both_presets() {
    let km = Keymap::default();
    let mut chord = Chord::default();
    let t0 = Instant::now();
    assert_eq!(
        km.resolve(Table::Insert, &mut chord, "ctrl-b".into(), t0),
        Resolved::Pending
    );
    assert_eq!(km.deadline(&chord), None);
    assert_eq!(
        km.expire(Table::Insert, &mut chord, t0 + Duration::from_secs(60)),
        None
    );
    assert_eq!(
        km.resolve(
            Table::Insert,
            &mut chord,
            "1".into(),
            t0 + Duration::from_secs(60)
        ),
        Resolved::Action(Action::GotoTab(1))
    );
    let modal = Keymap::preset(Preset::Modal);
    assert_eq!(modal.normal.get(&keys("1")), Some(&Action::GotoTab(1)));
    assert_eq!(modal.normal.get(&keys("a")), Some(&Action::FocusDecision));
}

#[test]
fn the_modal_preset_binds_every_documented_key() {
    let km = Keymap::preset(Preset::Modal);
    for (key, action) in [
        ("i", Action::EnterInsert),
        ("g t", Action::NextTab),
        ("ctrl-w v", Action::SplitHorizontal),
        ("%", Action::SplitHorizontal),
        ("q", Action::Quit),
        ("ctrl-a", Action::SendLeader),
    ] {
        assert_eq!(km.normal.get(&keys(key)), Some(&action), "{key}");
    }
    assert_eq!(km.insert.get(&keys("ctrl-a")), Some(&Action::LeaveInsert));
    assert!(km.warnings.is_empty(), "{:?}", km.warnings);
}

#[test]
fn a_partial_table_merges_over_the_defaults_and_noop_unbinds() {
    let km = Keymap::from_config(&modal(
        r#"
[server]
whatever = 1

[tui.keymap]
leader = "ctrl-b"
chord_timeout_ms = 250

[tui.keymap.normal]
"ctrl-t" = "NewTab"
"q" = "Noop"
"g g" = "FocusPane(Up)"

[tui.keymap.insert]
"alt-h" = "FocusPane(Left)"
"#,
    ))
    .expect("valid");
    assert_eq!(km.leader, "ctrl-b");
    assert_eq!(km.chord_timeout, Duration::from_millis(250));
    assert_eq!(km.normal.get(&keys("ctrl-t")), Some(&Action::NewTab));
    assert_eq!(
        km.normal.get(&keys("t")),
        Some(&Action::NewTab),
        "defaults stay"
    );
    assert_eq!(km.normal.get(&keys("q")), None, "Noop unbinds");
    assert_eq!(
        km.insert.get(&keys("ctrl-b")),
        Some(&Action::LeaveInsert),
        "<leader> follows"
    );
    assert_eq!(km.insert.get(&keys("ctrl-a")), None);
    assert_eq!(
        km.insert.get(&keys("alt-h")),
        Some(&Action::FocusPane(Dir::Left))
    );
}

#[test]
fn every_error_is_reported_with_its_line_in_both_passes() {
    let errors = Keymap::from_config(
        "[tui.keymap]\n\
         leader = \"ctrl-glorb\"\n\
         [tui.keymap.normal]\n\
         \"ctrl-glorb\" = \"NewTab\"\n\
         \"x\" = \"Frobnicate\"\n\
         \"mouse:click(moon)\" = \"Quit\"\n\
         [tui.keymap.insert]\n\
         \"y\" = \"GotoTab(0)\"\n",
    )
    .expect_err("invalid");
    let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, vec![2, 4, 5, 6, 8], "{errors:?}");
    assert!(errors[2].message.contains("Frobnicate"));
}

#[test]
fn a_toml_syntax_or_type_error_has_a_line_too() {
    let errors =
        Keymap::from_config("[tui.keymap]\nchord_timeout_ms = \"soon\"\n").expect_err("type");
    assert_eq!(errors[0].line, 2, "{errors:?}");
    let errors = Keymap::from_config("[tui.keymap]\nleaderr = \"x\"\n").expect_err("unknown field");
    assert_eq!(errors[0].line, 2, "{errors:?}");
    let errors = Keymap::from_config("[tui\n").expect_err("syntax");
    assert_eq!(errors[0].line, 1, "{errors:?}");
}

#[test]
fn prefix_conflicts_are_warnings() {
    let km = Keymap::from_config(&modal("[tui.keymap.normal]\n\"g\" = \"Quit\"\n")).expect("valid");
    assert!(
        km.warnings
            .iter()
            .any(|w| w.contains("\"g\" is a prefix of \"g t\"")),
        "{:?}",
        km.warnings
    );
}

/// Table test of the resolver: each row feeds keys (`+Nms` advances the clock and expires) and
/// lists what each step yields.
#[test]
fn chords_resolve_wait_drop_and_time_out() {
    let km = Keymap::from_config(&modal("[tui.keymap.normal]\n\"g\" = \"Quit\"\n")).expect("valid");
    let t0 = Instant::now();
    type Row = (
        &'static str,
        Table,
        &'static [&'static str],
        &'static [Option<Resolved>],
    );
    let a = |x| Some(Resolved::Action(x));
    let cases: Vec<Row> = vec![
        ("single key", Table::Normal, &["i"], &[None]),
        ("chord", Table::Normal, &["g", "t"], &[None, None]),
        (
            "broken chord",
            Table::Normal,
            &["ctrl-w", "z"],
            &[None, None],
        ),
        (
            "prefix then timeout",
            Table::Normal,
            &["g", "+1500"],
            &[None, None],
        ),
        ("insert passthrough", Table::Insert, &["x"], &[None]),
    ];
    let expected: Vec<Vec<Option<Resolved>>> = vec![
        vec![a(Action::EnterInsert)],
        vec![Some(Resolved::Pending), a(Action::NextTab)],
        vec![
            Some(Resolved::Pending),
            Some(Resolved::Unbound(vec!["ctrl-w".into(), "z".into()])),
        ],
        vec![Some(Resolved::Pending), a(Action::Quit)],
        vec![Some(Resolved::Unbound(vec!["x".into()]))],
    ];
    for ((name, table, steps, _), want) in cases.into_iter().zip(expected) {
        let mut chord = Chord::default();
        let mut now = t0;
        let mut got = Vec::new();
        for step in steps {
            if let Some(ms) = step.strip_prefix('+') {
                now += Duration::from_millis(ms.parse().expect("ms"));
                got.push(km.expire(table, &mut chord, now));
            } else {
                got.push(Some(km.resolve(table, &mut chord, (*step).to_owned(), now)));
            }
        }
        assert_eq!(got, want, "{name}");
        assert!(
            chord.held.is_empty() || name == "none",
            "{name}: chord left {chord:?}"
        );
    }
}

#[test]
fn a_chord_before_its_timeout_does_not_expire() {
    let km = Keymap::preset(Preset::Modal);
    let mut chord = Chord::default();
    let t0 = Instant::now();
    assert_eq!(
        km.resolve(Table::Normal, &mut chord, "g".into(), t0),
        Resolved::Pending
    );
    assert_eq!(km.deadline(&chord), Some(t0 + km.chord_timeout));
    assert_eq!(
        km.expire(Table::Normal, &mut chord, t0 + Duration::from_millis(10)),
        None
    );
    assert_eq!(
        km.expire(Table::Normal, &mut chord, t0 + km.chord_timeout),
        Some(Resolved::Unbound(vec!["g".into()]))
    );
    assert_eq!(km.deadline(&chord), None);
}

/// The user guide's table names every shipped binding with its action.
#[test]
fn the_user_guide_lists_every_default_binding() {
    let guide = include_str!("../../docs/tui.md");
    let all = [Preset::Tmux, Preset::Modal]
        .into_iter()
        .flat_map(|p| p.normal().into_iter().chain(p.insert()));
    for (key, action) in all {
        let key = key.replace("<leader> ", "");
        let key = if key == "<leader>" {
            "ctrl-a".to_owned()
        } else {
            key
        };
        let shown = key.split(' ').next().unwrap_or(&key);
        assert!(
            guide.contains(&format!("`{shown}")),
            "docs/tui.md lacks the key {key:?}"
        );
        let name = action.to_string();
        let bare = name.split('(').next().unwrap_or(&name);
        assert!(guide.contains(bare), "docs/tui.md lacks the action {name}");
    }
}
