//! Fuzz targets for what the server parses from outside: hook payloads mapped per agent, layouts
//! sent by clients, snapshots read from disk. Stable-Rust harness (see
//! `signaltty-term/tests/fuzz.rs` for why not `cargo fuzz`): the checked-in corpus
//! (`fuzz/corpus/<target>/`, plus the real hook fixtures), then random and mutated inputs, at
//! `SIGNALTTY_FUZZ_CASES` cases (256 by default, what CI runs).
//!
//! The property everywhere: no panic, and a refusal is an ordinary error.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use proptest::prelude::*;
use prost::Message;
use signaltty_proto::v1 as pb;
use signaltty_server::agents::AgentKind;
use signaltty_server::agents::mapping::map_hook;
use signaltty_server::agents::payload::parse_payload;
use signaltty_server::model::state::Policy;
use signaltty_server::rpc::convert::layout_from_pb;

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
}
