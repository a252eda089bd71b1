//! Fuzz targets for what the server parses from outside: hook payloads mapped per agent, layouts
//! sent by clients, snapshots read from disk, agents' config files the hook installers edit; and
//! for the paint diff, over any output a pane's program writes. Stable-Rust harness (see
//! `signaltty-term/tests/fuzz.rs` for why not `cargo fuzz`): the checked-in corpus
//! (`fuzz/corpus/<target>/`, plus the real hook fixtures), then random and mutated inputs, at
//! `SIGNALTTY_FUZZ_CASES` cases (256 by default, what CI runs).
//!
//! The property everywhere: no panic, and a refusal is an ordinary error. Installers: a file
//! they refuse is left byte-identical; installing again, or uninstalling again, writes nothing;
//! every key and entry that is not ours survives both. Paint: a terminal that gets only the
//! paints (and a redraw after a skip) shows the model's cells inside the pane's rectangle and
//! nothing outside it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use proptest::prelude::*;
use prost::Message;
use serde_json::{Value, json};
use signaltty_proto::v1 as pb;
use signaltty_server::agents::AgentKind;
use signaltty_server::agents::install::{self, HookState, InstallError, WriteOutcome, is_managed};
use signaltty_server::agents::mapping::map_hook;
use signaltty_server::agents::payload::parse_payload;
use signaltty_server::model::state::Policy;
use signaltty_server::pane::paint::{Diff, ScreenCopy, Span, diff, render};
use signaltty_server::rpc::convert::layout_from_pb;
use signaltty_server::term::Screen;
use signaltty_server::term::vt::{Attr, Color, Term};
use signaltty_tty::protocol::Rect;

#[path = "../../fuzz/harness.rs"]
mod harness;

use harness::cases;

/// A target's corpus; hook mapping also replays the real hook fixtures.
fn corpus(target: &str) -> Vec<Vec<u8>> {
    match target {
        "hook_mapping" => harness::corpus(target, &["signaltty-server/tests/fixtures/hooks"]),
        _ => harness::corpus(target, &[]),
    }
}

const KINDS: [AgentKind; 5] = [
    AgentKind::Claude,
    AgentKind::Codex,
    AgentKind::Opencode,
    AgentKind::Cursor,
    AgentKind::Generic,
];

const EVENTS: [&str; 12] = [
    "PermissionRequest",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "Notification",
    "session.idle",
    "permission.asked",
    "beforeShellExecution",
    "",
];

fn map_every_way(payload: &[u8]) {
    let Ok(value) = parse_payload(payload) else {
        return;
    };
    for kind in KINDS {
        for event in EVENTS {
            let _ = map_hook(kind, event, &value);
        }
    }
}

fn layout(bytes: &[u8]) {
    let Ok(wire) = pb::Layout::decode(bytes) else {
        return;
    };
    if let Ok(layout) = layout_from_pb(&wire) {
        let panes: BTreeSet<_> = layout.panes().into_iter().collect();
        let _ = layout.validate_against(&panes);
        let _ = layout.validate_against(&BTreeSet::new());
        let _ = layout.shares();
    }
}

fn load_snapshot(bytes: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("snapshot.json"), bytes).unwrap();
    let _ = signaltty_server::persist::load(dir.path(), Policy::default());
}

/// A corpus input, mutated: some bytes replaced, some inserted.
fn mutated(target: &'static str) -> impl Strategy<Value = Vec<u8>> {
    let inputs = corpus(target);
    (
        prop::sample::select(inputs),
        prop::collection::vec(
            (any::<prop::sample::Index>(), any::<u8>(), any::<bool>()),
            0..8,
        ),
    )
        .prop_map(|(mut input, edits)| {
            for (at, byte, insert) in edits {
                if input.is_empty() || insert {
                    let i = if input.is_empty() {
                        0
                    } else {
                        at.index(input.len() + 1)
                    };
                    input.insert(i, byte);
                } else {
                    let i = at.index(input.len());
                    input[i] = byte;
                }
            }
            input
        })
}

/// Layout trees with valid and invalid ids, odd ratios and directions, some deep.
fn layout_tree() -> impl Strategy<Value = pb::Layout> {
    let leaf = prop::sample::select(vec![
        "pane_0b7c3f5e2a9d4e1f8c6b5a4d3e2f1a0b".to_owned(),
        "pane_1c8d4a6f3b0e5f2a9d7c6b5e4f3a2b1c".to_owned(),
        String::new(),
        "pane_".to_owned(),
        "not-an-id".to_owned(),
    ])
    .prop_map(|id| pb::Layout {
        node: Some(pb::layout::Node::PaneId(id)),
    });
    leaf.prop_recursive(48, 96, 2, |inner| {
        (
            any::<i32>(),
            prop::sample::select(vec![
                0.5f32,
                0.0,
                1.0,
                -1.0,
                f32::NAN,
                f32::INFINITY,
                0.05,
                0.95,
            ]),
            inner.clone(),
            inner,
        )
            .prop_map(|(direction, ratio, first, second)| pb::Layout {
                node: Some(pb::layout::Node::Split(Box::new(pb::Split {
                    direction: direction % 4,
                    ratio,
                    first: Some(Box::new(first)),
                    second: Some(Box::new(second)),
                }))),
            })
    })
}

const PROGRAM: &str = "/usr/local/bin/signaltty";
const INSTALLED_KINDS: [AgentKind; 3] = [AgentKind::Claude, AgentKind::Codex, AgentKind::Cursor];

/// What of a claude/codex/cursor document is the user's, each piece as JSON text: every
/// top-level key but `hooks`; under `hooks`, each event's entries that are not ours (for
/// claude and codex, each group with the commands that are not ours; a group whose every
/// command was ours is ours). `"hooks": null` is no hooks, as the agents read it.
fn user_parts(doc: &Value, nested: bool) -> Vec<String> {
    let Value::Object(doc) = doc else {
        return vec![doc.to_string()];
    };
    let ours = |entry: &Value| {
        entry
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(is_managed)
    };
    let mut parts = Vec::new();
    for (key, value) in doc {
        let events = match value {
            Value::Object(events) if key == "hooks" => events,
            // No hooks yet, as the agents read it.
            Value::Null if key == "hooks" => continue,
            _ => {
                parts.push(format!("{key}={value}"));
                continue;
            }
        };
        for (event, entries) in events {
            let Value::Array(entries) = entries else {
                parts.push(format!("hooks.{event}={entries}"));
                continue;
            };
            for entry in entries {
                let inner = entry.get("hooks").and_then(Value::as_array);
                match inner {
                    Some(inner) if nested => {
                        let theirs: Vec<&Value> = inner.iter().filter(|e| !ours(e)).collect();
                        if theirs.is_empty() && !inner.is_empty() {
                            continue;
                        }
                        let mut group = entry.clone();
                        group["hooks"] = json!(theirs);
                        parts.push(format!("hooks.{event}[]={group}"));
                    }
                    _ if ours(entry) && !nested => {}
                    _ => parts.push(format!("hooks.{event}[]={entry}")),
                }
            }
        }
    }
    parts.sort();
    parts
}

fn json_of(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice(bytes).ok()
}

/// `bytes` as `kind`'s config file under a fresh home: install, install again, uninstall,
/// uninstall again, checking each step.
fn install_every_way(kind: AgentKind, bytes: &[u8]) {
    let home = tempfile::tempdir().unwrap();
    let path = install::config_path(kind, home.path()).unwrap();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    let nested = kind != AgentKind::Cursor;
    let read = || std::fs::read(&path).unwrap();
    let before = json_of(bytes).map(|doc| user_parts(&doc, nested));
    match install::install(kind, home.path(), PROGRAM) {
        Err(InstallError::Malformed { .. }) => {
            assert_eq!(read(), bytes, "a refused file is left as it was");
            assert!(matches!(
                install::status(kind, home.path(), PROGRAM),
                Ok(HookState::Malformed(_))
            ));
            assert!(install::uninstall(kind, home.path()).is_err());
            assert_eq!(read(), bytes, "a refused file is left as it was");
            return;
        }
        Err(other) => panic!("{kind:?}: {other}"),
        Ok(_) => {}
    }
    let installed = read();
    let doc = json_of(&installed).expect("the installer writes JSON");
    let mut after = user_parts(&doc, nested);
    if !nested {
        after.retain(|p| p != "version=1" || before.iter().flatten().any(|b| b == p));
    }
    if let Some(before) = &before {
        assert_eq!(
            &after, before,
            "{kind:?}: the user's keys and entries survive"
        );
    }
    assert_eq!(
        install::status(kind, home.path(), PROGRAM).unwrap(),
        HookState::Installed
    );
    let again = install::install(kind, home.path(), PROGRAM).unwrap();
    assert_eq!(again.outcome, WriteOutcome::Unchanged, "{kind:?}");
    assert_eq!(read(), installed, "a second install writes nothing");

    install::uninstall(kind, home.path()).unwrap();
    let removed = read();
    let doc = json_of(&removed).expect("the uninstaller writes JSON");
    assert_eq!(
        install::status(kind, home.path(), PROGRAM).unwrap(),
        HookState::NotInstalled
    );
    let mut left = user_parts(&doc, nested);
    if !nested {
        left.retain(|p| p != "version=1" || before.iter().flatten().any(|b| b == p));
    }
    if let Some(before) = &before {
        assert_eq!(&left, before, "{kind:?}: uninstall keeps what is not ours");
    }
    let again = install::uninstall(kind, home.path()).unwrap();
    assert_eq!(again.outcome, WriteOutcome::Unchanged);
    assert_eq!(read(), removed, "a second uninstall writes nothing");
}

/// `bytes` at OpenCode's plugin path: a file that is not ours is refused and left as it was;
/// ours (the marker on its first line) is replaced, a re-install writes nothing, and uninstall
/// removes it.
fn install_opencode(bytes: &[u8]) {
    let home = tempfile::tempdir().unwrap();
    let path = install::config_path(AgentKind::Opencode, home.path()).unwrap();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    let first_line = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
    let ours = String::from_utf8_lossy(first_line).contains(install::MANAGED_MARKER);
    match install::install(AgentKind::Opencode, home.path(), PROGRAM) {
        Err(InstallError::Foreign(_)) => {
            assert!(!ours, "{bytes:?}");
            assert_eq!(std::fs::read(&path).unwrap(), bytes);
            assert!(matches!(
                install::status(AgentKind::Opencode, home.path(), PROGRAM),
                Ok(HookState::Malformed(_))
            ));
            assert_eq!(
                install::uninstall(AgentKind::Opencode, home.path())
                    .unwrap()
                    .outcome,
                WriteOutcome::Unchanged
            );
            assert_eq!(std::fs::read(&path).unwrap(), bytes, "not ours: kept");
        }
        Err(other) => panic!("{other}"),
        Ok(_) => {
            // The version cannot be told here, so only the OpenCode 2 plugin is written; a
            // first-generation file is removed when it is ours and kept byte-identical when not.
            let kept = || std::fs::read(&path).ok();
            if ours {
                assert_eq!(kept(), None, "our old plugin is removed");
            } else {
                assert_eq!(kept().as_deref(), Some(bytes), "not ours: kept");
            }
            let again = install::install(AgentKind::Opencode, home.path(), PROGRAM).unwrap();
            assert_eq!(again.outcome, WriteOutcome::Unchanged);
            install::uninstall(AgentKind::Opencode, home.path()).unwrap();
            if ours {
                assert!(!path.exists());
            } else {
                assert_eq!(kept().as_deref(), Some(bytes), "not ours: kept");
            }
        }
    }
}

/// Config documents: foreign keys, `hooks` of every shape, events with foreign and managed
/// entries (ours from other program paths too), groups with and without inner hooks.
fn hook_config() -> impl Strategy<Value = Vec<u8>> {
    let command = prop_oneof![
        Just(json!("echo hi")),
        Just(json!(format!(
            "{PROGRAM} hook-event --agent claude --event Stop --payload-stdin # signaltty hook-event (managed)"
        ))),
        Just(json!(
            "/elsewhere/signaltty hook-event --agent cursor --event stop"
        )),
        Just(json!(5)),
        Just(Value::Null),
    ];
    let entry = (command, prop::option::of(0u64..200)).prop_map(|(command, timeout)| {
        let mut e = json!({ "type": "command", "command": command });
        if let Some(t) = timeout {
            e["timeout"] = json!(t);
        }
        e
    });
    let group = prop_oneof![
        3 => (prop::sample::select(vec!["", "Bash", "*"]), prop::collection::vec(entry.clone(), 0..3))
            .prop_map(|(matcher, hooks)| json!({ "matcher": matcher, "hooks": hooks })),
        2 => entry,
        1 => Just(json!("not an entry")),
    ];
    let event = prop::sample::select(vec![
        "Stop",
        "PreToolUse",
        "PermissionRequest",
        "stop",
        "beforeShellExecution",
        "Custom",
    ]);
    let hooks = prop_oneof![
        6 => prop::collection::btree_map(event, prop::collection::vec(group, 0..4), 0..4)
            .prop_map(|events| json!(events)),
        1 => Just(Value::Null),
        1 => Just(json!([])),
        1 => Just(json!({ "Stop": { "matcher": "" } })),
    ];
    let foreign = prop::collection::btree_map(
        prop::sample::select(vec!["model", "version", "env", "statusLine", "zzz"]),
        prop_oneof![
            Just(json!(1)),
            Just(json!("x")),
            Just(json!({ "a": [1, null] }))
        ],
        0..3,
    );
    (prop::option::of(hooks), foreign, any::<bool>()).prop_map(|(hooks, foreign, pretty)| {
        let mut doc = serde_json::Map::new();
        for (k, v) in foreign {
            doc.insert(k.to_owned(), v);
        }
        if let Some(hooks) = hooks {
            doc.insert("hooks".to_owned(), hooks);
        }
        let doc = Value::Object(doc);
        if pretty {
            serde_json::to_vec_pretty(&doc).unwrap()
        } else {
            serde_json::to_vec(&doc).unwrap()
        }
    })
}

const PAINT_COLS: u16 = 12;
const PAINT_ROWS: u16 = 5;
const PAINT_RECT: Rect = Rect {
    col: 3,
    row: 2,
    cols: 14,
    rows: 7,
};

/// What the TUI shows for a cell: its text and the style as ratatui keeps it.
fn shown(term: &Term, row: u16, col: u16) -> (String, Vec<bool>, Color, Color) {
    let style = term.cell(row, col).map(|c| c.style()).unwrap_or_default();
    let attrs = [
        Attr::Bold,
        Attr::Dim,
        Attr::Italic,
        Attr::Underline,
        Attr::Blink,
        Attr::Inverse,
        Attr::Hidden,
        Attr::Strikethrough,
    ]
    .iter()
    .map(|a| style.has(*a))
    .collect();
    (term.cell_text(row, col), attrs, style.fg(), style.bg())
}

/// Output fed to a pane in `cut`-byte chunks; after each, its paint (or, on a skip, a full
/// redraw, as the client does before `resume`) written to an outer terminal.
fn paint_replay(input: &[u8], cut: usize) {
    let mut model = Screen::new(PAINT_COLS, PAINT_ROWS);
    let mut outer = Screen::new(30, 12);
    let redraw = |term: &Term, outer: &mut Screen| {
        let spans: Vec<Span> = (0..PAINT_ROWS)
            .map(|row| Span {
                row,
                start: 0,
                end: PAINT_COLS,
            })
            .collect();
        let mut out = Vec::new();
        render(term, &spans, PAINT_RECT, &mut out);
        outer.feed(&out);
    };
    redraw(model.view(), &mut outer);
    for chunk in input.chunks(cut.max(1)) {
        let copy = ScreenCopy::of(model.view());
        model.feed(chunk);
        match diff(&copy, model.view(), PAINT_RECT) {
            Diff::Same => {}
            Diff::Spans(spans) => {
                assert!(spans.len() <= signaltty_server::pane::paint::MAX_PAINT_ROWS);
                assert!(spans.windows(2).all(|w| w[0].row < w[1].row));
                for span in &spans {
                    assert!(span.start < span.end && span.end <= PAINT_COLS, "{span:?}");
                }
                let mut out = Vec::new();
                render(model.view(), &spans, PAINT_RECT, &mut out);
                outer.feed(&out);
            }
            Diff::Skip => redraw(model.view(), &mut outer),
        }
        for row in 0..PAINT_ROWS {
            for col in 0..PAINT_COLS {
                assert_eq!(
                    shown(outer.view(), PAINT_RECT.row + row, PAINT_RECT.col + col),
                    shown(model.view(), row, col),
                    "cell ({row}, {col}) after {:?}",
                    String::from_utf8_lossy(chunk)
                );
            }
        }
        for row in 0..12 {
            for col in 0..30 {
                let inside = (PAINT_RECT.row..PAINT_RECT.row + PAINT_ROWS).contains(&row)
                    && (PAINT_RECT.col..PAINT_RECT.col + PAINT_COLS).contains(&col);
                if !inside {
                    assert_eq!(outer.view().cell_text(row, col), " ", "({row}, {col})");
                }
            }
        }
    }
}

/// Bytes that mostly build escape sequences and wide or combining characters.
fn output_bytes() -> impl Strategy<Value = Vec<u8>> {
    let interesting = prop::sample::select(vec![
        &b"\x1b["[..],
        b"\x1b[1;31m",
        b"\x1b[0;44m",
        b"\x1b[4:3;58;5;9;53m",
        b"\x1b[7;8m",
        b"\x1b[m",
        b"\x1b[K",
        b"\x1b[1K",
        b"\x1b[2J",
        b"\x1b[2@",
        b"\x1b[P",
        b"\x1b[L",
        b"\x1b[M",
        b"\x1b[3X",
        b"\x1b[2;4H",
        b"\x1b[5;11H",
        b"\x1b[?7l",
        b"\x1b[?7h",
        b"\x1b(0",
        b"\x1b(B",
        b"\x1b#8",
        b"\x1b[2;4r",
        b"\x1bM",
        b"\x1b[2b",
        b"\r\n",
        b"\x08",
        b"\t",
        "日本".as_bytes(),
        "e\u{301}".as_bytes(),
        "\u{ad}".as_bytes(),
        b"abc",
        b" ",
    ]);
    prop::collection::vec(
        prop_oneof![
            6 => interesting.prop_map(<[u8]>::to_vec),
            1 => any::<u8>().prop_map(|b| vec![b]),
        ],
        0..60,
    )
    .prop_map(|pieces| pieces.concat())
}

#[test]
fn corpus_hook_installer() {
    for input in corpus("hook_installer") {
        for kind in INSTALLED_KINDS {
            install_every_way(kind, &input);
        }
    }
}

#[test]
fn corpus_hook_installer_opencode() {
    for input in corpus("hook_installer") {
        install_opencode(&input);
    }
    install_opencode(b"// signaltty hook-event (managed) old version\nconsole.log(1)\n");
    install_opencode(b"");
}

#[test]
fn corpus_paint_diff() {
    for input in corpus("paint_diff") {
        for cut in [1, 3, input.len()] {
            paint_replay(&input, cut);
        }
    }
}

#[test]
fn corpus_hook_mapping() {
    corpus("hook_mapping").iter().for_each(|i| map_every_way(i));
}

#[test]
fn corpus_layout() {
    corpus("layout").iter().for_each(|i| layout(i));
}

#[test]
fn corpus_snapshot() {
    corpus("snapshot").iter().for_each(|i| load_snapshot(i));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn fuzz_hook_mapping(input in mutated("hook_mapping")) {
        map_every_way(&input);
    }

    #[test]
    fn fuzz_layout_bytes(input in prop::collection::vec(any::<u8>(), 0..512)) {
        layout(&input);
    }

    #[test]
    fn fuzz_layout_trees(tree in layout_tree()) {
        layout(&tree.encode_to_vec());
    }

    #[test]
    fn fuzz_snapshot(input in mutated("snapshot")) {
        load_snapshot(&input);
    }

    #[test]
    fn fuzz_paint_diff(input in output_bytes(), cut in 1usize..24) {
        paint_replay(&input, cut);
    }
}

proptest! {
    // Each case writes real files (with fsync): a quarter of the cases keeps it to seconds.
    #![proptest_config(ProptestConfig::with_cases(cases() / 4))]

    #[test]
    fn fuzz_hook_installer_documents(
        doc in hook_config(),
        kind in prop::sample::select(INSTALLED_KINDS.to_vec()),
    ) {
        install_every_way(kind, &doc);
    }

    #[test]
    fn fuzz_hook_installer_opencode(
        first in prop_oneof![
            Just("// signaltty hook-event (managed)".to_owned()),
            Just("/* signaltty hook-event */ x".to_owned()),
            "[ -~]{0,40}",
        ],
        rest in prop::collection::vec(any::<u8>(), 0..64),
        newline in any::<bool>(),
    ) {
        let mut bytes = first.into_bytes();
        if newline {
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(&rest);
        install_opencode(&bytes);
    }

    #[test]
    fn fuzz_hook_installer_bytes(
        input in mutated("hook_installer"),
        kind in prop::sample::select(INSTALLED_KINDS.to_vec()),
    ) {
        install_every_way(kind, &input);
    }
}
