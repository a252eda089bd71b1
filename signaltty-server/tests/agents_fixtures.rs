//! Table-driven check of the hook mapping against recorded-style payloads in
//! `tests/fixtures/hooks/<agent>/<file>.json` (modelled on each agent's public hook docs): the
//! lifecycle/attention each event drives, the session id found, the resume argv it yields, and
//! the permission ask. Every fixture file must appear in the table, so none rots unchecked.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::SystemTime;

use signaltty_server::agents::AgentKind;
use signaltty_server::agents::mapping::{apply_hook, map_hook, parse_payload};
use signaltty_server::agents::session::resume_argv;
use signaltty_server::model::lifecycle::{Attention, Lifecycle, PaneState};

use AgentKind::{Claude, Codex, Cursor, Generic, Opencode};
use Attention as A;
use Lifecycle as L;

struct Case {
    agent: AgentKind,
    event: &'static str,
    file: &'static str,
    /// argv[0] the pane was launched with.
    argv0: &'static str,
    lifecycle: Option<Lifecycle>,
    attention: Option<Attention>,
    session: Option<&'static str>,
    /// Expected resume argv, space-joined.
    resume: Option<&'static str>,
    permission_tool: Option<&'static str>,
    message: Option<&'static str>,
}

const CLAUDE_ID: &str = "9b1f6c1e-3a52-4f0e-8d7c-2e5a4b6c8d01";
const CODEX_ID: &str = "0199a3f2-7c4e-7d10-9a2b-5e6f7a8b9c0d";
const OPENCODE_ID: &str = "ses_4b1e2c3d4e5fA6b7C8d9E0f1";
const CURSOR_ID: &str = "5c2f8e1a-6b3d-4f7e-9a0b-1c2d3e4f5a6b";

#[rustfmt::skip]
fn cases() -> Vec<Case> {
    let c = |agent, event, file, argv0, lifecycle, attention, session, resume, permission_tool, message| Case {
        agent, event, file, argv0, lifecycle, attention, session, resume, permission_tool, message,
    };
    let claude_resume = Some("claude --resume 9b1f6c1e-3a52-4f0e-8d7c-2e5a4b6c8d01");
    let codex_resume = Some("/opt/tools/codex resume 0199a3f2-7c4e-7d10-9a2b-5e6f7a8b9c0d");
    let opencode_resume = Some("opencode --session ses_4b1e2c3d4e5fA6b7C8d9E0f1");
    let cursor_resume = Some("cursor-agent --resume 5c2f8e1a-6b3d-4f7e-9a0b-1c2d3e4f5a6b");
    vec![
        c(Claude, "SessionStart", "claude/SessionStart.json", "claude", Some(L::Idle), None, Some(CLAUDE_ID), claude_resume, None, None),
        c(Claude, "SessionStart", "claude/SessionStart-compact.json", "claude", None, None, Some(CLAUDE_ID), claude_resume, None, None),
        c(Claude, "UserPromptSubmit", "claude/UserPromptSubmit.json", "claude", Some(L::Working), Some(A::None), Some(CLAUDE_ID), claude_resume, None, None),
        c(Claude, "PreToolUse", "claude/PreToolUse.json", "claude", None, None, Some(CLAUDE_ID), claude_resume, None, None),
        c(Claude, "PostToolUse", "claude/PostToolUse.json", "claude", None, None, Some(CLAUDE_ID), claude_resume, None, None),
        c(Claude, "PermissionRequest", "claude/PermissionRequest.json", "claude", Some(L::Blocked), Some(A::PermissionRequired), Some(CLAUDE_ID), claude_resume, Some("Bash"), Some("Allow Bash? rm -rf target/debug/incremental")),
        c(Claude, "Notification", "claude/Notification-idle.json", "claude", Some(L::Blocked), Some(A::InputRequired), Some(CLAUDE_ID), claude_resume, None, Some("Claude is waiting for your input")),
        c(Claude, "Notification", "claude/Notification-permission.json", "claude", Some(L::Blocked), Some(A::PermissionRequired), Some(CLAUDE_ID), claude_resume, None, None),
        c(Claude, "Stop", "claude/Stop.json", "claude", Some(L::Done), Some(A::Unread), Some(CLAUDE_ID), claude_resume, None, Some("All 42 tests pass. The handler now returns 404 for unknown ids.")),
        c(Claude, "SubagentStop", "claude/SubagentStop.json", "claude", None, None, Some(CLAUDE_ID), claude_resume, None, None),
        c(Claude, "PreCompact", "claude/PreCompact.json", "claude", None, None, Some(CLAUDE_ID), claude_resume, None, None),
        c(Claude, "SessionEnd", "claude/SessionEnd.json", "claude", Some(L::Done), Some(A::Unread), Some(CLAUDE_ID), claude_resume, None, Some("session ended (prompt_input_exit)")),
        c(Codex, "SessionStart", "codex/SessionStart.json", "/opt/tools/codex", Some(L::Idle), None, Some(CODEX_ID), codex_resume, None, None),
        c(Codex, "UserPromptSubmit", "codex/UserPromptSubmit.json", "/opt/tools/codex", Some(L::Working), Some(A::None), Some(CODEX_ID), codex_resume, None, None),
        c(Codex, "PermissionRequest", "codex/PermissionRequest.json", "/opt/tools/codex", Some(L::Blocked), Some(A::PermissionRequired), Some(CODEX_ID), codex_resume, Some("Bash"), None),
        c(Codex, "PreToolUse", "codex/PreToolUse.json", "/opt/tools/codex", None, None, Some(CODEX_ID), codex_resume, None, None),
        c(Codex, "Stop", "codex/Stop.json", "/opt/tools/codex", Some(L::Done), Some(A::Unread), Some(CODEX_ID), codex_resume, None, Some("Added limit/offset pagination and tests.")),
        c(Codex, "agent-turn-complete", "codex/agent-turn-complete.json", "/opt/tools/codex", Some(L::Done), Some(A::Unread), Some(CODEX_ID), codex_resume, None, Some("Rename complete and verified `cargo build` succeeds.")),
        c(Codex, "SessionEnd", "codex/SessionEnd.json", "codex", Some(L::Done), Some(A::Unread), Some(CODEX_ID), Some("codex resume 0199a3f2-7c4e-7d10-9a2b-5e6f7a8b9c0d"), None, None),
        c(Opencode, "session.created", "opencode/session.created.json", "opencode", Some(L::Idle), None, Some(OPENCODE_ID), opencode_resume, None, None),
        c(Opencode, "session.created", "opencode/session.created-raw.json", "opencode", Some(L::Idle), None, Some(OPENCODE_ID), opencode_resume, None, None),
        c(Opencode, "session.status", "opencode/session.status-busy.json", "opencode", Some(L::Working), Some(A::None), Some(OPENCODE_ID), opencode_resume, None, None),
        c(Opencode, "session.status", "opencode/session.status-raw.json", "opencode", Some(L::Working), Some(A::None), Some(OPENCODE_ID), opencode_resume, None, None),
        c(Opencode, "session.status", "opencode/session.status-retry.json", "opencode", None, None, Some(OPENCODE_ID), opencode_resume, None, None),
        c(Opencode, "session.idle", "opencode/session.idle.json", "opencode", Some(L::Done), Some(A::Unread), Some(OPENCODE_ID), opencode_resume, None, None),
        c(Opencode, "session.error", "opencode/session.error.json", "opencode", Some(L::Failed), Some(A::Error), Some(OPENCODE_ID), opencode_resume, None, Some("Invalid API key")),
        c(Cursor, "sessionStart", "cursor/sessionStart.json", "cursor-agent", Some(L::Idle), None, Some(CURSOR_ID), cursor_resume, None, None),
        c(Cursor, "beforeSubmitPrompt", "cursor/beforeSubmitPrompt.json", "cursor-agent", Some(L::Working), Some(A::None), Some(CURSOR_ID), cursor_resume, None, None),
        c(Cursor, "afterShellExecution", "cursor/afterShellExecution.json", "cursor-agent", None, None, Some(CURSOR_ID), cursor_resume, None, None),
        c(Cursor, "stop", "cursor/stop.json", "cursor-agent", Some(L::Done), Some(A::Unread), Some(CURSOR_ID), cursor_resume, None, Some("stopped: aborted")),
        c(Cursor, "stop", "cursor/stop-chatid.json", "/usr/local/bin/cursor-agent", Some(L::Done), Some(A::Unread), Some("chat-7e1d"), Some("/usr/local/bin/cursor-agent --resume chat-7e1d"), None, None),
        c(Cursor, "sessionEnd", "cursor/sessionEnd.json", "cursor-agent", Some(L::Done), Some(A::Unread), Some(CURSOR_ID), cursor_resume, None, Some("session ended")),
        c(Generic, "done", "generic/done.json", "make", Some(L::Done), Some(A::Unread), Some("run-2026-12-01"), None, None, Some("nightly build finished")),
        c(Generic, "Stop", "generic/unknown-event.json", "make", None, None, None, None, None, None),
    ]
}

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hooks")
}

#[test]
fn fixtures_drive_the_documented_mapping() {
    let mut failures = Vec::new();
    for case in cases() {
        let bytes = std::fs::read(fixtures_dir().join(case.file)).expect("fixture readable");
        let payload = parse_payload(&bytes).expect("fixture is a valid payload");
        let effect = map_hook(case.agent, case.event, &payload).expect("fixture maps");
        let session = effect.session_id.as_ref().map(|s| s.as_str().to_owned());
        let resume = effect
            .session_id
            .as_ref()
            .and_then(|s| resume_argv(case.agent, s, Some(case.argv0)))
            .map(|argv| argv.join(" "));
        let tool = effect.permission.as_ref().map(|p| p.tool_name.clone());

        let mut pane = PaneState::new(SystemTime::UNIX_EPOCH);
        apply_hook(&mut pane, &effect, false, SystemTime::UNIX_EPOCH);
        let expected_pane = (
            case.lifecycle.unwrap_or(L::Unknown),
            case.attention.unwrap_or(A::None),
        );

        let got = (
            effect.lifecycle,
            effect.attention,
            session.as_deref(),
            resume.as_deref(),
            tool.as_deref(),
        );
        let want = (
            case.lifecycle,
            case.attention,
            case.session,
            case.resume,
            case.permission_tool,
        );
        if got != want {
            failures.push(format!("{}: got {got:?}, want {want:?}", case.file));
        }
        if (pane.lifecycle(), pane.attention()) != expected_pane {
            failures.push(format!(
                "{}: pane ended {:?}/{:?}",
                case.file,
                pane.lifecycle(),
                pane.attention()
            ));
        }
        if let Some(message) = case.message
            && effect.message.as_deref() != Some(message)
        {
            failures.push(format!(
                "{}: message {:?}, want {message:?}",
                case.file, effect.message
            ));
        }
        if case.lifecycle.is_none() && case.attention.is_none() && effect.clears_decision {
            failures.push(format!(
                "{}: a no-change event must not clear a decision",
                case.file
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "mapping mismatches:\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_fixture_is_in_the_table() {
    let listed: BTreeSet<String> = cases().iter().map(|c| c.file.to_owned()).collect();
    let mut on_disk = BTreeSet::new();
    for agent in std::fs::read_dir(fixtures_dir()).expect("fixtures dir") {
        let agent = agent.expect("dir entry").path();
        for file in std::fs::read_dir(&agent).expect("agent dir") {
            let file = file.expect("dir entry").path();
            let rel = file.strip_prefix(fixtures_dir()).expect("under fixtures");
            on_disk.insert(rel.to_string_lossy().into_owned());
        }
    }
    let unlisted: Vec<_> = on_disk.difference(&listed).collect();
    let missing: Vec<_> = listed.difference(&on_disk).collect();
    assert!(
        unlisted.is_empty() && missing.is_empty(),
        "unlisted {unlisted:?}, missing {missing:?}"
    );
}

#[test]
fn a_blocked_pane_survives_tool_hooks_and_moves_on_with_the_next_prompt() {
    let load = |file: &str| {
        parse_payload(&std::fs::read(fixtures_dir().join(file)).expect("fixture")).expect("payload")
    };
    let t = SystemTime::UNIX_EPOCH;
    let mut pane = PaneState::new(t);
    let ask = map_hook(
        Claude,
        "PermissionRequest",
        &load("claude/PermissionRequest.json"),
    )
    .expect("maps");
    apply_hook(&mut pane, &ask, false, t);
    for (event, file) in [
        ("PreToolUse", "claude/PreToolUse.json"),
        ("PostToolUse", "claude/PostToolUse.json"),
    ] {
        let e = map_hook(Claude, event, &load(file)).expect("maps");
        let out = apply_hook(&mut pane, &e, true, t);
        assert_eq!(
            out.clear_decision, None,
            "{event} must not clear the decision"
        );
    }
    assert_eq!(
        (pane.lifecycle(), pane.attention()),
        (L::Blocked, A::PermissionRequired)
    );
    let next = map_hook(
        Claude,
        "UserPromptSubmit",
        &load("claude/UserPromptSubmit.json"),
    )
    .expect("maps");
    let out = apply_hook(&mut pane, &next, true, t);
    assert!(out.clear_decision.is_some());
    assert_eq!((pane.lifecycle(), pane.attention()), (L::Working, A::None));
}
