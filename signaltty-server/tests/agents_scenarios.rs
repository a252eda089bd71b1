//! A whole turn per agent, end to end: a fake agent — a shell script in a real pane — runs the
//! real `signaltty hook-event` exactly as the hooks our installer writes do, with payloads from
//! the fixture corpus, while this test, as another client, watches the pane and answers. A
//! waiting hook runs in the background (as the agent's own dialog races it) and its stdout — what
//! the agent would act on — lands in a file. Covered: answering locally (a later event settles
//! the request and ends the waiting hook with no verdict), answering remotely (allow, deny),
//! interruption, an API error, compaction, and the no-waiting rule with and without opt-in.
//!
//! Needs the CLI binary: `cargo build -p signaltty-cli` (or `SIGNALTTY_CLI_BIN`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{Attached, TestServer, WAIT, attach, cli_bin, until_event};
use signaltty_proto::v1 as pb;

/// The fake agent: `$1` the CLI, `$2` the fixtures, `$3` where outputs go, `$4` the agent. Each
/// line it reads is `MODE EVENT FIXTURE`: `fg` runs the hook, `wait` runs it with
/// `--wait-for-answer` in the background (its stdout lands in `$3/<n>` once it returned), `argv`
/// passes the payload as the last argument with stdin closed (Codex's `notify`). After each line
/// it prints `@<n>@`.
const FAKE_AGENT: &str = r#"
S="$1"; F="$2"; O="$3"; A="$4"; n=0
while read mode ev fx; do
  n=$((n+1))
  case "$mode" in
    fg) "$S" hook-event --agent "$A" --event "$ev" --payload-stdin < "$F/$fx.json" > "$O/$n" ;;
    wait) ( "$S" hook-event --agent "$A" --event "$ev" --payload-stdin --wait-for-answer \
              < "$F/$fx.json" > "$O/$n.part"; mv "$O/$n.part" "$O/$n" ) & ;;
    argv) "$S" hook-event --agent "$A" --event "$ev" "$(cat "$F/$fx.json")" < /dev/null > "$O/$n" ;;
  esac
  echo "@$n@"
done
"#;

fn corpus(agent: &str, version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/corpus")
        .join(agent)
        .join(version)
}

struct Fake<'a> {
    srv: &'a TestServer,
    ws: String,
    pane: String,
    out: PathBuf,
    screen: Attached,
    events: tonic::Streaming<pb::SubscribeResponse>,
    n: usize,
}

impl<'a> Fake<'a> {
    async fn start(srv: &'a TestServer, agent: &str, version: &str) -> Fake<'a> {
        let ws = srv.workspace(agent).await;
        let out = srv.dir_path().join(format!("out-{agent}"));
        std::fs::create_dir_all(&out).unwrap();
        let events = srv.subscribe(&[pb::EventKind::Decision]).await;
        let pane = srv
            .spawn_with(pb::SpawnPaneRequest {
                workspace_id: ws.id.clone(),
                argv: vec![
                    "sh".into(),
                    "-c".into(),
                    FAKE_AGENT.into(),
                    format!("fake-{agent}"),
                    cli_bin().display().to_string(),
                    corpus(agent, version).display().to_string(),
                    out.display().to_string(),
                    agent.into(),
                ],
                ..Default::default()
            })
            .await;
        let (screen, _) = attach(srv, &pane.id, 120, 40, true).await;
        Fake {
            srv,
            ws: ws.id,
            pane: pane.id,
            out,
            screen,
            events,
            n: 0,
        }
    }

    /// Runs one line of the fake agent; returns its number once the script went past it.
    async fn run(&mut self, mode: &str, event: &str, fixture: &str) -> usize {
        self.n += 1;
        self.srv
            .write_input(&self.pane, format!("{mode} {event} {fixture}\n").as_bytes())
            .await
            .expect("input");
        self.screen.until_output(&format!("@{}@", self.n)).await;
        self.n
    }

    /// What hook `n` printed on stdout, once it returned.
    async fn output(&self, n: usize) -> String {
        let path = self.out.join(n.to_string());
        let deadline = Instant::now() + WAIT;
        while !path.exists() {
            assert!(Instant::now() < deadline, "hook {n} did not return");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        std::fs::read_to_string(path).unwrap()
    }

    async fn state(&self) -> (pb::Lifecycle, pb::Attention, Option<pb::Decision>, String) {
        let p = self.srv.pane(&self.pane).await;
        (
            pb::Lifecycle::try_from(p.lifecycle).unwrap(),
            pb::Attention::try_from(p.attention).unwrap(),
            p.pending_decision,
            p.last_message,
        )
    }

    async fn assert_state(&self, lifecycle: pb::Lifecycle, attention: pb::Attention) {
        let (l, a, d, m) = self.state().await;
        assert_eq!(
            (l, a),
            (lifecycle, attention),
            "decision {d:?}, message {m:?}"
        );
    }

    async fn created(&mut self) -> pb::Decision {
        let pane = self.pane.clone();
        until_event(&mut self.events, |k| match k {
            pb::event::Kind::DecisionCreated(d) => d.decision.clone().filter(|d| d.pane_id == pane),
            _ => None,
        })
        .await
    }

    async fn cleared(&mut self, d: &pb::Decision) -> String {
        until_event(&mut self.events, |k| match k {
            pb::event::Kind::DecisionCleared(c) if c.decision_id == d.id => Some(c.reason.clone()),
            _ => None,
        })
        .await
    }

    async fn answer(&self, d: &pb::Decision, option: &str) {
        self.srv
            .decisions()
            .answer_decision(pb::AnswerDecisionRequest {
                pane_id: d.pane_id.clone(),
                decision_id: d.id.clone(),
                option_id: option.into(),
                message: String::new(),
            })
            .await
            .expect("answered while the hook waits");
    }

    async fn opt_in(&self, agents: &[pb::AgentKind]) {
        self.srv
            .workspaces()
            .update_workspace_settings(pb::UpdateWorkspaceSettingsRequest {
                workspace_id: self.ws.clone(),
                settings: Some(pb::WorkspaceSettings {
                    answer_from_signaltty: agents.iter().map(|a| *a as i32).collect(),
                    ..Default::default()
                }),
            })
            .await
            .expect("settings");
    }
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{text:?} is not JSON: {e}"))
}

use pb::Attention as A;
use pb::Lifecycle as L;

#[tokio::test]
async fn claude_through_a_whole_turn() {
    let srv = TestServer::start().await;
    let mut f = Fake::start(&srv, "claude", "2026-12").await;
    f.run("fg", "SessionStart", "SessionStart").await;
    f.assert_state(L::Idle, A::None).await;
    f.run("fg", "UserPromptSubmit", "UserPromptSubmit").await;
    f.assert_state(L::Working, A::None).await;

    // Answered locally: Claude's dialog won, the tool ran; PostToolUse settles the request and
    // the waiting hook returns with nothing to say.
    let n = f
        .run("wait", "PermissionRequest", "PermissionRequest")
        .await;
    let d = f.created().await;
    assert!(
        d.answerable,
        "Claude's main session races its dialog: {d:?}"
    );
    f.assert_state(L::Blocked, A::PermissionRequired).await;
    f.run("fg", "PostToolUse", "PostToolUse").await;
    assert_eq!(f.cleared(&d).await, "agent_moved_on");
    assert_eq!(
        f.output(n).await,
        "",
        "no verdict: the agent already went on"
    );
    let (l, a, pending, _) = f.state().await;
    assert_eq!((l, a, pending), (L::Working, A::None, None));

    // Answered remotely: allow, then deny.
    for (option, behavior) in [("once", "allow"), ("deny", "deny")] {
        let n = f
            .run("wait", "PermissionRequest", "PermissionRequest")
            .await;
        let d = f.created().await;
        f.answer(&d, option).await;
        let printed = json(&f.output(n).await);
        assert_eq!(
            printed["hookSpecificOutput"]["decision"]["behavior"],
            behavior
        );
        f.assert_state(L::Working, A::None).await;
        f.run("fg", "PostToolUseFailure", "PostToolUseFailure")
            .await;
    }

    // A sub-agent awaits its hook before it shows a prompt: reported, never held.
    let n = f
        .run("wait", "PermissionRequest", "PermissionRequest-subagent")
        .await;
    let d = f.created().await;
    assert!(!d.answerable, "{d:?}");
    assert_eq!(f.output(n).await, "");
    f.assert_state(L::Blocked, A::PermissionRequired).await;
    // Interrupted: the user typed a new prompt instead of answering.
    f.run("fg", "UserPromptSubmit", "UserPromptSubmit").await;
    assert_eq!(f.cleared(&d).await, "agent_moved_on");
    f.assert_state(L::Working, A::None).await;

    // Compaction mid-turn changes nothing.
    f.run("fg", "PreCompact", "PreCompact").await;
    f.run("fg", "SessionStart", "SessionStart-compact").await;
    f.run("fg", "PostCompact", "PostCompact").await;
    f.assert_state(L::Working, A::None).await;

    // An API error ends the turn as failed.
    f.run("fg", "StopFailure", "StopFailure").await;
    let (l, a, _, m) = f.state().await;
    assert_eq!((l, a), (L::Failed, A::Error));
    assert!(m.contains("rate_limit"), "{m}");

    // A turn that ends while a permission is unanswered: done + unread, nothing pending.
    f.run("fg", "UserPromptSubmit", "UserPromptSubmit").await;
    let n = f
        .run("wait", "PermissionRequest", "PermissionRequest")
        .await;
    let d = f.created().await;
    f.run("fg", "Stop", "Stop").await;
    assert_eq!(f.cleared(&d).await, "agent_moved_on");
    assert_eq!(f.output(n).await, "");
    let (l, a, pending, m) = f.state().await;
    assert_eq!((l, a, pending), (L::Done, A::Unread, None));
    assert_eq!(m, "All 42 tests pass.");
    // idle_prompt a minute later does not make it blocked.
    f.run("fg", "Notification", "Notification-idle_prompt")
        .await;
    f.assert_state(L::Done, A::Unread).await;
}

#[tokio::test]
async fn codex_is_never_held_unless_the_workspace_opted_in() {
    let srv = TestServer::start().await;
    let mut f = Fake::start(&srv, "codex", "2026-12").await;
    f.run("fg", "SessionStart", "SessionStart").await;
    f.run("fg", "UserPromptSubmit", "UserPromptSubmit").await;

    // Codex awaits PermissionRequest before its own prompt: the hook returns at once.
    let n = f
        .run("wait", "PermissionRequest", "PermissionRequest")
        .await;
    let d = f.created().await;
    assert!(!d.answerable, "{d:?}");
    assert_eq!(f.output(n).await, "");
    f.assert_state(L::Blocked, A::PermissionRequired).await;
    // Answered in Codex: the tool ran.
    f.run("fg", "PostToolUse", "PostToolUse").await;
    assert_eq!(f.cleared(&d).await, "agent_moved_on");
    f.assert_state(L::Working, A::None).await;

    // Interrupted with Esc while Codex asked.
    f.run("wait", "PermissionRequest", "PermissionRequest")
        .await;
    let d = f.created().await;
    f.run("fg", "Interrupt", "Interrupt").await;
    assert_eq!(f.cleared(&d).await, "agent_moved_on");
    let (l, a, pending, _) = f.state().await;
    assert_eq!((l, a, pending), (L::Idle, A::None, None));

    // Opted in: the hook is held (shortly) and the answer reaches Codex.
    f.opt_in(&[pb::AgentKind::Codex]).await;
    f.run("fg", "UserPromptSubmit", "UserPromptSubmit").await;
    let n = f
        .run("wait", "PermissionRequest", "PermissionRequest")
        .await;
    let d = f.created().await;
    assert!(d.answerable, "{d:?}");
    f.answer(&d, "once").await;
    assert_eq!(
        json(&f.output(n).await)["hookSpecificOutput"]["decision"]["behavior"],
        "allow"
    );
    f.run("fg", "PostToolUse", "PostToolUse").await;

    // Codex's legacy notify: the JSON is the last argument, stdin closed.
    f.run("argv", "notify", "notify").await;
    let (l, a, _, m) = f.state().await;
    assert_eq!((l, a), (L::Done, A::Unread));
    assert_eq!(m, "Tests pass now.");
}

#[tokio::test]
async fn cursor_pre_checks_are_answerable_only_on_opt_in() {
    let srv = TestServer::start().await;
    let mut f = Fake::start(&srv, "cursor", "2026-12").await;
    f.run("fg", "sessionStart", "sessionStart").await;
    f.run("fg", "beforeSubmitPrompt", "beforeSubmitPrompt")
        .await;

    // Every shell command passes this check; by default it is no ask and returns at once.
    let n = f
        .run("wait", "beforeShellExecution", "beforeShellExecution")
        .await;
    assert_eq!(f.output(n).await, "");
    let (l, a, pending, _) = f.state().await;
    assert_eq!((l, a, pending), (L::Working, A::None, None));

    f.opt_in(&[pb::AgentKind::Cursor]).await;
    let n = f
        .run("wait", "beforeShellExecution", "beforeShellExecution")
        .await;
    let d = f.created().await;
    assert_eq!(d.prompt, "Allow Shell?\ngit push origin main");
    f.assert_state(L::Blocked, A::PermissionRequired).await;
    f.answer(&d, "deny").await;
    let printed = json(&f.output(n).await);
    assert_eq!(printed["permission"], "deny");
    assert_eq!(printed["user_message"], "Denied in signaltty");

    // The turn ends on an error: failed, not done.
    f.run("fg", "stop", "stop-error").await;
    f.assert_state(L::Failed, A::Error).await;
    // The user aborts the next one.
    f.run("fg", "beforeSubmitPrompt", "beforeSubmitPrompt")
        .await;
    f.run("fg", "stop", "stop-aborted").await;
    f.assert_state(L::Idle, A::None).await;
}

#[tokio::test]
async fn a_claude_hook_fired_by_cursor_is_not_reported_as_claude() {
    let srv = TestServer::start().await;
    let mut f = Fake::start(&srv, "cursor", "2026-12").await;
    f.run("fg", "sessionStart", "sessionStart").await;
    // Cursor runs ~/.claude/settings.json hooks too: the same command, a Cursor payload.
    let payload = std::fs::read(corpus("cursor", "2026-12").join("stop.json")).unwrap();
    let reply = srv
        .agents()
        .report_hook_event(pb::ReportHookEventRequest {
            agent: pb::AgentKind::Claude as i32,
            event: "Stop".into(),
            payload,
            pane_id: f.pane.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.pane_id, "", "accepted, attributed to nothing");
    let p = srv.pane(&f.pane).await;
    assert_eq!(p.agent.map(|a| a.kind), Some(pb::AgentKind::Cursor as i32));
    assert_eq!(p.lifecycle, L::Idle as i32);
}
