//! End to end with the real `signaltty` CLI: a fake Claude Code — a shell script in a real pane —
//! runs `signaltty hook-event` exactly the way Claude Code's hooks do (the command line our
//! installer writes, the JSON payload on stdin, `SIGNALTTY_PANE`/`SIGNALTTY_SOCKET` from the
//! pane), while this test, as another client, watches the events and answers its permission
//! requests. What the hook printed on stdout is what Claude Code would act on.
//!
//! Needs the CLI binary: `cargo build -p signaltty-cli` (or `SIGNALTTY_CLI_BIN`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;
mod server_process;

use common::{TestServer, assert_error, cli_bin, fixtures, until_event};
use server_process::wait_file_contains;
use signaltty_proto::v1 as pb;
use tonic::Code;

/// The fake agent. `$1` = the CLI, `$2` = the payload fixtures, `$3` = where verdicts go. It
/// reports SessionStart, then for every line it reads (a "run"): UserPromptSubmit, a waiting
/// PermissionRequest whose stdout goes to `$3/verdict<n>`, and Stop. The run `exit` leaves the
/// permission hook waiting in the background (immune to the hangup) and exits the pane; once that
/// hook returns, it writes `$3/finished<n>` (not a notification: a process whose pane is gone may
/// not raise one, by the pane policy).
const FAKE_CLAUDE: &str = r#"
S="$1"; F="$2"; O="$3"
hook() { ev="$1"; shift; "$S" hook-event --agent claude --event "$ev" --payload-stdin "$@" < "$F/$ev.json"; }
hook SessionStart
n=0
while read mode; do
  n=$((n+1))
  hook UserPromptSubmit
  case "$mode" in
    timeout) hook PermissionRequest --wait-for-answer --timeout 1 > "$O/verdict$n" ;;
    exit)
      ( trap '' HUP
        hook PermissionRequest --wait-for-answer > "$O/verdict$n"
        echo "hook $n finished" > "$O/finished$n" ) </dev/null >/dev/null 2>&1 &
      read x
      exit 0 ;;
    *) hook PermissionRequest --wait-for-answer > "$O/verdict$n" ;;
  esac
  hook Stop
done
"#;

async fn type_line(srv: &TestServer, pane: &str, line: &str) {
    srv.write_input(pane, format!("{line}\n").as_bytes())
        .await
        .expect("input");
}

fn lifecycle_now(k: &pb::event::Kind, pane: &str, want: pb::Lifecycle) -> Option<()> {
    match k {
        pb::event::Kind::LifecycleChanged(c) if c.pane_id == pane && c.new == want as i32 => {
            Some(())
        }
        _ => None,
    }
}

#[tokio::test]
async fn a_fake_claude_gets_allow_deny_and_silence_through_the_real_cli() {
    let cli = cli_bin();
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let out = srv.dir_path().join("verdicts");
    std::fs::create_dir_all(&out).unwrap();
    let mut events = srv
        .subscribe(&[
            pb::EventKind::Decision,
            pb::EventKind::Lifecycle,
            pb::EventKind::Notification,
        ])
        .await;
    let pane = srv
        .spawn_with(pb::SpawnPaneRequest {
            workspace_id: ws.id.clone(),
            argv: vec![
                "sh".into(),
                "-c".into(),
                FAKE_CLAUDE.into(),
                "fake-claude".into(),
                cli.display().to_string(),
                fixtures("claude").display().to_string(),
                out.display().to_string(),
            ],
            ..Default::default()
        })
        .await;
    let id = pane.id.clone();
    until_event(&mut events, |k| lifecycle_now(k, &id, pb::Lifecycle::Idle)).await;
    let agent = srv
        .pane(&id)
        .await
        .agent
        .expect("SessionStart names the agent");
    assert_eq!(agent.kind, pb::AgentKind::Claude as i32);
    assert_eq!(
        agent.resume_argv,
        ["claude", "--resume", "9b1f6c1e-3a52-4f0e-8d7c-2e5a4b6c8d01"]
    );

    let verdict = |n: usize| std::fs::read_to_string(out.join(format!("verdict{n}"))).unwrap();
    for (n, mode) in [(1, "once"), (2, "deny"), (3, "timeout")] {
        type_line(&srv, &id, mode).await;
        let d = until_event(&mut events, |k| match k {
            pb::event::Kind::DecisionCreated(d) => d.decision.clone().filter(|d| d.pane_id == id),
            _ => None,
        })
        .await;
        assert!(d.answerable, "the hook waits: {d:?}");
        assert_eq!(d.prompt, "Allow Bash?\nrm -rf target/debug/incremental");
        let answer = |option: &'static str| {
            let mut decisions = srv.decisions();
            let req = pb::AnswerDecisionRequest {
                pane_id: id.clone(),
                decision_id: d.id.clone(),
                option_id: option.into(),
                message: String::new(),
            };
            async move { decisions.answer_decision(req).await }
        };
        match mode {
            "once" | "deny" => {
                answer(mode).await.expect("answered while the hook waits");
            }
            _ => {
                let reason = until_event(&mut events, |k| match k {
                    pb::event::Kind::DecisionCleared(c) if c.decision_id == d.id => {
                        Some(c.reason.clone())
                    }
                    _ => None,
                })
                .await;
                assert_eq!(reason, "timeout");
                assert_error(answer("once").await, Code::NotFound, "NO_SUCH_DECISION");
            }
        }
        // Stop runs after the permission hook returned and its stdout was closed.
        until_event(&mut events, |k| lifecycle_now(k, &id, pb::Lifecycle::Done)).await;
        let printed = verdict(n);
        match mode {
            "once" => assert_eq!(
                serde_json::from_str::<serde_json::Value>(&printed).expect("JSON on stdout"),
                serde_json::json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}),
            ),
            "deny" => assert_eq!(
                serde_json::from_str::<serde_json::Value>(&printed).expect("JSON on stdout"),
                serde_json::json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "Denied in signaltty"}}}),
            ),
            _ => assert_eq!(printed, "", "no verdict: the agent asks in its own prompt"),
        }
    }

    // The pane exits while its permission hook waits.
    type_line(&srv, &id, "exit").await;
    let d = until_event(&mut events, |k| match k {
        pb::event::Kind::DecisionCreated(d) => d.decision.clone().filter(|d| d.pane_id == id),
        _ => None,
    })
    .await;
    type_line(&srv, &id, "").await;
    let reason = until_event(&mut events, |k| match k {
        pb::event::Kind::DecisionCleared(c) if c.decision_id == d.id => Some(c.reason.clone()),
        _ => None,
    })
    .await;
    assert_eq!(reason, "pane_exited");
    wait_file_contains(&out.join("finished4"), &["hook 4 finished"]).await;
    assert_eq!(verdict(4), "", "an exit is never an allow");
    let p = srv.pane(&id).await;
    assert_eq!(p.lifecycle, pb::Lifecycle::Exited as i32);
    assert!(p.pending_decision.is_none());

    // Every hook was accepted: the CLI prints refusals on stderr, i.e. on the pane's screen.
    let screen = srv
        .panes()
        .read_pane(pb::ReadPaneRequest {
            pane_id: id.clone(),
            mode: pb::ReadMode::Scrollback as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .lines
        .join("\n");
    assert!(!screen.contains("signaltty hook-event:"), "{screen}");
}
