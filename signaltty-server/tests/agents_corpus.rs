//! The versioned fixture corpus, `tests/fixtures/corpus/<agent>/<version>/<event>.json`: one
//! payload per event and notification type each agent documents, shaped like the docs page named
//! in its `$doc` header. A new agent release is one new `<version>` directory. Each file also says
//! which pane state it meets (`$given`: fresh, working, done, failed, or asked) and what it must leave (`$expect`): lifecycle, attention,
//! the last message it sets (absent = none), what happens to a pending decision (`created`,
//! `settled`, `kept`, `none`), and, for events that can wait for an answer, what the hook prints
//! on an allow (`verdict_allow`). The header keys start with `$`: agents' payloads never do, and
//! unknown keys are ignored, so each file is also a valid payload as it stands.
//!
//! The table runs the mapping and the state machine exactly as the server does with the default
//! policy (nobody opted in to answering from signaltty, so Cursor's pre-checks are no asks).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use signaltty_server::agents::AgentKind;
use signaltty_server::agents::hook_output::native_verdict;
use signaltty_server::agents::mapping::{AskKind, HookEffect, apply_hook, map_hook};
use signaltty_server::model::decision::{PendingDecision, Verdict};
use signaltty_server::model::ids::PaneId;
use signaltty_server::model::lifecycle::{Attention, ChangeSource, Lifecycle, PaneState};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus")
}

fn t(s: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(s)
}

fn read(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("fixture")).expect("fixture is JSON")
}

/// The effect the server applies under the default policy.
fn effect(kind: AgentKind, event: &str, payload: &Value) -> HookEffect {
    let mut e = map_hook(kind, event, payload).expect("a documented payload is accepted");
    if e.permission
        .as_ref()
        .is_some_and(|p| p.kind == AskKind::PreCheck)
    {
        e = HookEffect {
            session_id: e.session_id,
            settles: e.settles,
            ..HookEffect::default()
        };
    }
    e
}

/// The decision the store creates for an ask.
fn decision_of(e: &HookEffect) -> Option<PendingDecision> {
    let ask = e.permission.as_ref()?;
    let mut d = PendingDecision::permission_request(
        PaneId::new(),
        &ask.tool_name,
        ask.detail.as_deref(),
        false,
        t(0),
    );
    d.tool_use_id = e.tool.as_ref().and_then(|t| t.use_id.clone());
    d.session.clone_from(&e.session_id);
    Some(d)
}

/// The pane state a fixture meets, built from the version's own ask fixture for `asked`.
fn given(kind: AgentKind, dir: &Path, name: &str) -> (PaneState, Option<PendingDecision>) {
    let mut s = PaneState::new(t(0));
    match name {
        "fresh" => return (s, None),
        "working" => {
            s.set_lifecycle(Lifecycle::Working, ChangeSource::Hook, t(1));
        }
        "done" => {
            s.set_lifecycle(Lifecycle::Done, ChangeSource::Hook, t(1));
            s.raise_attention(Attention::Unread, t(1));
        }
        "failed" => {
            s.set_lifecycle(Lifecycle::Failed, ChangeSource::Hook, t(1));
            s.raise_attention(Attention::Error, t(1));
        }
        "asked" => {
            s.set_lifecycle(Lifecycle::Working, ChangeSource::Hook, t(1));
            let ask_file = [
                "PermissionRequest",
                "permission.asked",
                "beforeShellExecution",
            ]
            .iter()
            .map(|f| dir.join(format!("{f}.json")))
            .find(|p| p.exists())
            .expect("every version has an ask fixture");
            let ask = read(&ask_file);
            let event = ask["$event"].as_str().expect("$event");
            let e = map_hook(kind, event, &ask).expect("ask");
            apply_hook(&mut s, &e, None, t(2));
            let d = decision_of(&e).expect("the ask names a tool");
            return (s, Some(d));
        }
        other => panic!("unknown $given {other:?}"),
    }
    (s, None)
}

#[test]
fn every_fixture_has_the_documented_effect() {
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut agents: Vec<_> = std::fs::read_dir(corpus())
        .expect("corpus")
        .flatten()
        .collect();
    agents.sort_by_key(|e| e.file_name());
    for agent_dir in agents {
        let kind = AgentKind::parse(&agent_dir.file_name().to_string_lossy()).expect("agent dir");
        for version in std::fs::read_dir(agent_dir.path())
            .expect("versions")
            .flatten()
        {
            let mut files: Vec<_> = std::fs::read_dir(version.path())
                .expect("fixtures")
                .flatten()
                .map(|e| e.path())
                .collect();
            files.sort();
            for file in files {
                let name = file
                    .strip_prefix(corpus())
                    .unwrap_or(&file)
                    .display()
                    .to_string();
                let fx = read(&file);
                assert!(
                    fx["$doc"]
                        .as_str()
                        .is_some_and(|d| d.starts_with("https://")),
                    "{name}: cite the doc page in $doc"
                );
                let event = fx["$event"].as_str().expect("$event");
                let want = &fx["$expect"];
                let (mut state, pending) = given(
                    kind,
                    &version.path(),
                    fx["$given"].as_str().expect("$given"),
                );
                let e = effect(kind, event, &fx);
                let out = apply_hook(&mut state, &e, pending.as_ref(), t(3));
                let decision = match (&pending, out.clear_decision, e.permission.is_some()) {
                    (_, _, true) => "created",
                    (Some(_), Some(_), _) => "settled",
                    (Some(_), None, _) => "kept",
                    (None, _, _) => "none",
                };
                let got = (
                    state.lifecycle().as_str(),
                    state.attention().as_str(),
                    decision,
                    e.message.as_deref(),
                );
                let expected = (
                    want["lifecycle"].as_str().unwrap_or("?"),
                    want["attention"].as_str().unwrap_or("?"),
                    want["decision"].as_str().unwrap_or("?"),
                    want["message"].as_str(),
                );
                if got != expected {
                    failures.push(format!("{name}: got {got:?}, want {expected:?}"));
                }
                if let Some(verdict) = want.get("verdict_allow") {
                    assert!(kind.can_wait_on(event), "{name}: this event cannot wait");
                    assert_eq!(
                        native_verdict(kind, &Verdict::Allow).as_ref(),
                        Some(verdict),
                        "{name}: stdout on allow"
                    );
                } else {
                    assert!(
                        !kind.can_wait_on(event),
                        "{name}: say what it prints on allow"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked >= 80, "the corpus shrank to {checked} fixtures");
}

#[test]
fn fixtures_carry_session_ids_the_server_accepts() {
    for (agent, version, file) in [
        ("claude", "2026-12", "Stop"),
        ("codex", "2026-12", "notify"),
        ("opencode", "v2", "session.execution.succeeded"),
        ("opencode", "v1", "session.created"),
        ("cursor", "2026-12", "stop"),
    ] {
        let kind = AgentKind::parse(agent).expect("kind");
        let fx = read(
            &corpus()
                .join(agent)
                .join(version)
                .join(format!("{file}.json")),
        );
        let e = map_hook(kind, fx["$event"].as_str().expect("$event"), &fx).expect("mapped");
        assert!(
            e.session_id.is_some(),
            "{agent}/{version}/{file}: no session id"
        );
    }
}
