//! What a pane shows through a turn, end to end (issue 29, points 9–14): a fake agent in a real
//! pane runs the real `signaltty hook-event` — for the hooks the installer adds, exactly the
//! command it wrote — with payloads from the fixture corpus, shaped like each agent's current
//! docs. Covered: a Claude sub-agent's tool events leave the main session's dialog open; Claude's
//! `idle_prompt` after Esc, `elicitation_url_dialog`, `agent_needs_input` and `/clear`; the
//! Elicitation hooks the installer now adds; Codex's StopFailure; and that a message belongs to
//! its turn (Cursor after a failed turn, OpenCode after an answered question).
//!
//! Needs the CLI binary: `cargo build -p signaltty-cli` (or `SIGNALTTY_CLI_BIN`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;
mod fake_agent;

use common::{TestServer, cli_bin};
use fake_agent::Fake;
use serde_json::Value;
use signaltty_proto::v1 as pb;
use signaltty_server::agents::AgentKind;
use signaltty_server::agents::install;

use pb::Attention as A;
use pb::Lifecycle as L;

/// The command the installer writes for `event` of `kind`, running the CLI under test.
fn installed_command(kind: AgentKind, event: &str) -> String {
    let home = tempfile::tempdir().unwrap();
    let program = cli_bin().display().to_string();
    let report = install::install(kind, home.path(), &program).expect("installed");
    let doc: Value = serde_json::from_slice(&std::fs::read(&report.path).unwrap()).unwrap();
    let groups = doc["hooks"][event]
        .as_array()
        .unwrap_or_else(|| panic!("the installer adds {kind} {event}"));
    groups
        .iter()
        .flat_map(|g| {
            g["hooks"]
                .as_array()
                .cloned()
                .unwrap_or_else(|| vec![g.clone()])
        })
        .find_map(|h| h["command"].as_str().map(str::to_owned))
        .filter(|c| install::is_managed(c))
        .expect("our command")
}

#[tokio::test]
async fn a_claude_sub_agent_does_not_close_the_main_dialog() {
    let srv = TestServer::start().await;
    let mut f = Fake::start(&srv, "claude", "2026-12").await;
    f.run("fg", "SessionStart", "SessionStart").await;
    f.run("fg", "UserPromptSubmit", "UserPromptSubmit").await;
    let n = f
        .run("wait", "PermissionRequest", "PermissionRequest")
        .await;
    let d = f.created().await;
    assert!(d.answerable, "the main session races its dialog: {d:?}");
    // A sub-agent keeps working meanwhile: its next tool says nothing about the main dialog.
    f.run("fg", "PreToolUse", "PreToolUse-subagent").await;
    f.run("fg", "PostToolUse", "PostToolUse-other-call").await;
    let (l, a, pending, _) = f.state().await;
    assert_eq!((l, a), (L::Blocked, A::PermissionRequired));
    assert_eq!(pending.map(|p| p.id), Some(d.id.clone()), "still pending");
    // The held hook is still there to take an answer.
    f.answer(&d, "once").await;
    let printed: Value = serde_json::from_str(&f.output(n).await).unwrap();
    assert_eq!(
        printed["hookSpecificOutput"]["decision"]["behavior"],
        "allow"
    );
}

#[tokio::test]
async fn claude_notifications_and_clear_say_what_is_true() {
    let srv = TestServer::start().await;
    let mut f = Fake::start(&srv, "claude", "2026-12").await;
    f.run("fg", "SessionStart", "SessionStart").await;
    f.run("fg", "UserPromptSubmit", "UserPromptSubmit").await;
    // Esc interrupts the turn: no Stop. A minute later Claude says it waits at its prompt.
    f.run("fg", "Notification", "Notification-idle_prompt-interrupted")
        .await;
    f.assert_state(L::Idle, A::None).await;

    // An MCP server asks the user to open a URL: waiting for input.
    f.run("fg", "UserPromptSubmit", "UserPromptSubmit").await;
    f.run("fg", "Notification", "Notification-elicitation_url_dialog")
        .await;
    f.assert_state(L::Blocked, A::InputRequired).await;
    f.run("fg", "Notification", "Notification-elicitation_complete")
        .await;
    f.assert_state(L::Working, A::None).await;

    // Some agent needs the user; the turn goes on.
    f.run("fg", "Notification", "Notification-agent_needs_input")
        .await;
    let (l, a, _, m) = f.state().await;
    assert_eq!((l, a), (L::Working, A::InputRequired));
    assert_eq!(m, "An agent needs your input");

    // The turn ends, then the user types /clear: an empty conversation, nothing to read.
    f.run("fg", "Stop", "Stop").await;
    f.assert_state(L::Done, A::Unread).await;
    f.run("fg", "SessionEnd", "SessionEnd-clear").await;
    f.run("fg", "SessionStart", "SessionStart-clear").await;
    f.assert_state(L::Idle, A::None).await;
    // idle_prompt on an idle or done pane changes nothing.
    f.run("fg", "Notification", "Notification-idle_prompt")
        .await;
    f.assert_state(L::Idle, A::None).await;
}

#[tokio::test]
async fn claude_elicitation_hooks_are_installed_and_block_at_once() {
    let srv = TestServer::start().await;
    let mut f = Fake::start(&srv, "claude", "2026-12").await;
    for event in ["UserPromptSubmit", "Elicitation", "ElicitationResult"] {
        f.install_command(event, &installed_command(AgentKind::Claude, event));
    }
    f.run("installed", "UserPromptSubmit", "UserPromptSubmit")
        .await;
    f.run("installed", "Elicitation", "Elicitation").await;
    let (l, a, _, m) = f.state().await;
    assert_eq!((l, a), (L::Blocked, A::InputRequired));
    assert_eq!(m, "jira asks for input");
    f.run("installed", "ElicitationResult", "ElicitationResult")
        .await;
    let (l, a, _, m) = f.state().await;
    assert_eq!((l, a), (L::Working, A::None));
    assert_eq!(m, "", "the answered question is no longer the message");
}

#[tokio::test]
async fn codex_stop_failure_is_installed_and_fails_the_pane() {
    let srv = TestServer::start().await;
    let mut f = Fake::start(&srv, "codex", "2026-12").await;
    for event in ["UserPromptSubmit", "StopFailure"] {
        f.install_command(event, &installed_command(AgentKind::Codex, event));
    }
    f.run("installed", "UserPromptSubmit", "UserPromptSubmit")
        .await;
    f.assert_state(L::Working, A::None).await;
    f.run("installed", "StopFailure", "StopFailure").await;
    let (l, a, _, m) = f.state().await;
    assert_eq!((l, a), (L::Failed, A::Error));
    assert_eq!(m, "rate_limit: 429 Too Many Requests: retry in 60 s");
}

#[tokio::test]
async fn a_cursor_message_belongs_to_its_turn() {
    let srv = TestServer::start().await;
    let mut f = Fake::start(&srv, "cursor", "2026-12").await;
    f.run("fg", "sessionStart", "sessionStart").await;
    f.run("fg", "beforeSubmitPrompt", "beforeSubmitPrompt")
        .await;
    f.run("fg", "stop", "stop-error").await;
    let (l, _, _, m) = f.state().await;
    assert_eq!(l, L::Failed);
    assert_eq!(m, "the agent stopped on an error");
    // The next turn succeeds: the error is not its message.
    f.run("fg", "beforeSubmitPrompt", "beforeSubmitPrompt")
        .await;
    assert_eq!(f.state().await.3, "");
    f.run("fg", "stop", "stop").await;
    let (l, a, _, m) = f.state().await;
    assert_eq!((l, a), (L::Done, A::Unread));
    assert_eq!(m, "", "a done turn says nothing of the failed one");
    // A response the agent gave in this turn stays its message through the end of the turn.
    f.run("fg", "beforeSubmitPrompt", "beforeSubmitPrompt")
        .await;
    f.run("fg", "afterAgentResponse", "afterAgentResponse")
        .await;
    let said = f.state().await.3;
    assert!(!said.is_empty());
    f.run("fg", "stop", "stop").await;
    assert_eq!(f.state().await.3, said);
}

#[tokio::test]
async fn an_answered_opencode_question_is_no_longer_the_message() {
    let srv = TestServer::start().await;
    let mut f = Fake::start(&srv, "opencode", "v2").await;
    f.run(
        "fg",
        "session.execution.started",
        "session.execution.started",
    )
    .await;
    f.run("fg", "question.asked", "question.asked").await;
    let (l, a, _, m) = f.state().await;
    assert_eq!((l, a), (L::Blocked, A::InputRequired));
    assert_eq!(m, "Which branch should I push? (main)");
    f.run("fg", "question.replied", "question.replied").await;
    let (l, a, _, m) = f.state().await;
    assert_eq!((l, a), (L::Working, A::None));
    assert_eq!(m, "");
}
