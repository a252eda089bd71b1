//! Agent hooks and decisions over gRPC against a real server with real panes: attribution (by
//! pane id and by process ancestry), payload checks, sessions, permission waits and every way
//! they end (answer once/deny, supersession, the agent moving on, timeout, pane exit, the hook
//! hanging up, shutdown), decisions consumed exactly once, and the hook installers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use common::{Attached, TestServer, WAIT, assert_error, attach, fixtures, spawn, until_event};
use signaltty_proto::v1 as pb;
use tonic::Code;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixtures("claude").join(format!("{name}.json"))).expect("fixture")
}

fn hook(event: &str, pane: &str) -> pb::ReportHookEventRequest {
    pb::ReportHookEventRequest {
        agent: pb::AgentKind::Claude as i32,
        event: event.into(),
        payload: fixture(event),
        pane_id: pane.into(),
        ..Default::default()
    }
}

fn waiting(pane: &str, timeout_ms: u32) -> pb::ReportHookEventRequest {
    pb::ReportHookEventRequest {
        wait_for_answer: true,
        timeout_ms,
        ..hook("PermissionRequest", pane)
    }
}

/// Starts a waiting permission hook in the background and returns its task and the decision
/// it created (seen on `events`).
async fn start_wait(
    srv: &TestServer,
    events: &mut tonic::Streaming<pb::SubscribeResponse>,
    req: pb::ReportHookEventRequest,
) -> (
    tokio::task::JoinHandle<Result<tonic::Response<pb::ReportHookEventResponse>, tonic::Status>>,
    pb::Decision,
) {
    let pane = req.pane_id.clone();
    let mut client = srv.agents();
    let task = tokio::spawn(async move { client.report_hook_event(req).await });
    let decision = until_event(events, |k| match k {
        pb::event::Kind::DecisionCreated(d) => d.decision.clone().filter(|d| d.pane_id == pane),
        _ => None,
    })
    .await;
    (task, decision)
}

async fn finished(
    task: tokio::task::JoinHandle<
        Result<tonic::Response<pb::ReportHookEventResponse>, tonic::Status>,
    >,
) -> pb::ReportHookEventResponse {
    tokio::time::timeout(WAIT, task)
        .await
        .expect("the hook returns in time")
        .expect("task")
        .expect("hook call")
        .into_inner()
}

async fn answer(
    srv: &TestServer,
    d: &pb::Decision,
    option: &str,
    message: &str,
) -> Result<pb::AnswerDecisionResponse, tonic::Status> {
    srv.decisions()
        .answer_decision(pb::AnswerDecisionRequest {
            pane_id: d.pane_id.clone(),
            decision_id: d.id.clone(),
            option_id: option.into(),
            message: message.into(),
        })
        .await
        .map(tonic::Response::into_inner)
}

async fn cleared(events: &mut tonic::Streaming<pb::SubscribeResponse>, d: &pb::Decision) -> String {
    until_event(events, |k| match k {
        pb::event::Kind::DecisionCleared(c) if c.decision_id == d.id => Some(c.reason.clone()),
        _ => None,
    })
    .await
}

/// A pane whose shell started a child; returns the pane and the child's pid.
async fn pane_with_child(srv: &TestServer, ws: &str) -> (pb::Pane, u32, Attached) {
    let pane = spawn(
        srv,
        ws,
        &["sh", "-c", r#"sleep 600 & echo "child=$!."; wait"#],
    )
    .await;
    let (mut client, _) = attach(srv, &pane.id, 80, 24, true).await;
    client.until_output(".").await;
    let text = String::from_utf8_lossy(&client.seen).into_owned();
    let child = text
        .split("child=")
        .nth(1)
        .and_then(|rest| rest.split('.').next())
        .and_then(|pid| pid.trim().parse().ok())
        .expect("the child's pid on screen");
    (pane, child, client)
}

#[tokio::test]
async fn hooks_are_attributed_by_pane_or_ancestry_and_bad_reports_refused() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let (pane, child, _screen) = pane_with_child(&srv, &ws.id).await;
    assert!(pane.agent.is_none(), "sh is no agent");

    let reply = srv
        .agents()
        .report_hook_event(pb::ReportHookEventRequest {
            client_pid: child,
            ..hook("SessionStart", "")
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        reply.pane_id, pane.id,
        "found by walking up from a process inside the pane"
    );
    let p = srv.pane(&pane.id).await;
    assert_eq!(p.lifecycle, pb::Lifecycle::Idle as i32);
    let agent = p.agent.expect("the hook told us the agent");
    assert_eq!(agent.kind, pb::AgentKind::Claude as i32);
    assert_eq!(agent.session_id, "9b1f6c1e-3a52-4f0e-8d7c-2e5a4b6c8d01");
    assert_eq!(agent.resume_argv, ["claude", "--resume", &agent.session_id]);

    // A process outside every pane: accepted, nothing changes.
    let head = srv.head().await;
    let reply = srv
        .agents()
        .report_hook_event(pb::ReportHookEventRequest {
            client_pid: std::process::id(),
            ..hook("UserPromptSubmit", "")
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.pane_id, "");
    assert_eq!(srv.head().await, head, "no event");
    assert_eq!(
        srv.pane(&pane.id).await.lifecycle,
        pb::Lifecycle::Idle as i32
    );

    let refused = [
        pb::ReportHookEventRequest {
            agent: pb::AgentKind::Unspecified as i32,
            ..hook("Stop", &pane.id)
        },
        pb::ReportHookEventRequest {
            agent: 42,
            ..hook("Stop", &pane.id)
        },
        pb::ReportHookEventRequest {
            payload: {
                let mut big = br#"{"x":""#.to_vec();
                big.resize(256 * 1024 + 1, b'x');
                big
            },
            ..hook("Stop", &pane.id)
        },
        pb::ReportHookEventRequest {
            payload: b"{not json".to_vec(),
            ..hook("Stop", &pane.id)
        },
        pb::ReportHookEventRequest {
            payload: br#"{"tool_name": 7}"#.to_vec(),
            ..hook("PermissionRequest", &pane.id)
        },
        pb::ReportHookEventRequest {
            payload: br#"{"session_id": "--dangerously-skip-permissions"}"#.to_vec(),
            ..hook("Stop", &pane.id)
        },
        waiting(&pane.id, 500),
        waiting(&pane.id, 120_001),
        pb::ReportHookEventRequest {
            wait_for_answer: true,
            ..hook("Stop", &pane.id)
        },
        pb::ReportHookEventRequest {
            agent: pb::AgentKind::Opencode as i32,
            ..waiting(&pane.id, 0)
        },
    ];
    for req in refused {
        let what = format!("{} {} bytes", req.event, req.payload.len());
        let result = srv.agents().report_hook_event(req).await;
        assert!(result.is_err(), "{what} accepted");
        assert_error(result, Code::InvalidArgument, "BAD_PARAMS");
    }
    assert_error(
        srv.agents()
            .report_hook_event(hook("Stop", "pane_nothere"))
            .await,
        Code::NotFound,
        "NO_SUCH_PANE",
    );
    assert_eq!(srv.head().await, head, "refused reports change nothing");
}

#[tokio::test]
async fn a_waiting_permission_hook_gets_only_what_was_answered_once() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let pane = spawn(&srv, &ws.id, &["sleep", "600"]).await;
    let mut events = srv.subscribe(&[pb::EventKind::Decision]).await;
    srv.agents()
        .report_hook_event(hook("UserPromptSubmit", &pane.id))
        .await
        .unwrap();

    // Allow once.
    let (task, d) = start_wait(&srv, &mut events, waiting(&pane.id, 0)).await;
    assert!(d.answerable);
    assert_eq!(d.tool_name, "Bash");
    assert_eq!(d.prompt, "Allow Bash?\nrm -rf target/debug/incremental");
    let ids: Vec<_> = d.options.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(ids, ["once", "deny"]);
    let listed = srv.pending_decisions().await;
    assert_eq!(listed.iter().map(|d| &d.id).collect::<Vec<_>>(), [&d.id]);
    let p = srv.pane(&pane.id).await;
    assert_eq!(
        (p.lifecycle, p.attention),
        (
            pb::Lifecycle::Blocked as i32,
            pb::Attention::PermissionRequired as i32
        )
    );
    assert_error(
        answer(&srv, &d, "always", "").await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    let answered = answer(&srv, &d, "once", "").await.unwrap();
    assert_eq!(answered.verdict, pb::Verdict::Allow as i32);
    let reply = finished(task).await;
    assert_eq!(reply.verdict, pb::Verdict::Allow as i32);
    assert_eq!(reply.wait_end_reason, "answered");
    assert_eq!(reply.decision_id, d.id);
    let event = until_event(&mut events, |k| match k {
        pb::event::Kind::DecisionAnswered(a) => Some(a.clone()),
        _ => None,
    })
    .await;
    assert_eq!(
        (event.decision_id.as_str(), event.option_id.as_str()),
        (d.id.as_str(), "once")
    );
    assert_error(
        answer(&srv, &d, "once", "").await,
        Code::NotFound,
        "NO_SUCH_DECISION",
    );
    assert_error(
        answer(&srv, &d, "deny", "").await,
        Code::NotFound,
        "NO_SUCH_DECISION",
    );
    let p = srv.pane(&pane.id).await;
    assert!(p.pending_decision.is_none());
    assert_eq!(
        (p.lifecycle, p.attention),
        (pb::Lifecycle::Working as i32, pb::Attention::None as i32)
    );

    // Deny, with the answering client's message.
    let (task, d) = start_wait(&srv, &mut events, waiting(&pane.id, 0)).await;
    let stale = pb::Decision {
        id: "dec_0000".into(),
        ..d.clone()
    };
    assert_error(
        answer(&srv, &stale, "once", "").await,
        Code::NotFound,
        "NO_SUCH_DECISION",
    );
    assert_eq!(
        answer(&srv, &d, "deny", "not in prod")
            .await
            .unwrap()
            .verdict,
        pb::Verdict::Deny as i32
    );
    let reply = finished(task).await;
    assert_eq!(
        (reply.verdict, reply.message.as_str()),
        (pb::Verdict::Deny as i32, "not in prod")
    );

    // Timeout: no verdict, and too late to answer.
    let (task, d) = start_wait(&srv, &mut events, waiting(&pane.id, 1000)).await;
    let reply = finished(task).await;
    assert_eq!(reply.verdict, pb::Verdict::Unspecified as i32);
    assert_eq!(reply.wait_end_reason, "timeout");
    assert_eq!(cleared(&mut events, &d).await, "timeout");
    assert_error(
        answer(&srv, &d, "once", "").await,
        Code::NotFound,
        "NO_SUCH_DECISION",
    );
    assert_eq!(
        srv.pane(&pane.id).await.attention,
        pb::Attention::PermissionRequired as i32,
        "the agent falls back to its own prompt: the user is still needed"
    );
}

#[tokio::test]
async fn supersession_moving_on_and_hanging_up_end_a_wait_without_a_verdict() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let pane = spawn(&srv, &ws.id, &["sleep", "600"]).await;
    let mut events = srv.subscribe(&[pb::EventKind::Decision]).await;

    let (first, old) = start_wait(&srv, &mut events, waiting(&pane.id, 0)).await;
    // The old decision is cleared before the new one is announced.
    let (second, new) = start_wait(&srv, &mut events, waiting(&pane.id, 0)).await;
    assert_ne!(old.id, new.id);
    let reply = finished(first).await;
    assert_eq!(
        (reply.verdict, reply.wait_end_reason.as_str()),
        (pb::Verdict::Unspecified as i32, "superseded")
    );
    let mut replay = srv
        .events()
        .subscribe(pb::SubscribeRequest {
            from_seq: Some(0),
            kinds: vec![pb::EventKind::Decision as i32],
        })
        .await
        .unwrap()
        .into_inner();
    let order: Vec<String> = {
        let mut seen = Vec::new();
        while seen.len() < 3 {
            if let Some(pb::subscribe_response::Kind::Event(e)) =
                common::next(&mut replay).await.kind
            {
                seen.push(match e.kind {
                    Some(pb::event::Kind::DecisionCreated(c)) => {
                        format!("created {}", c.decision.unwrap().id)
                    }
                    Some(pb::event::Kind::DecisionCleared(c)) => {
                        format!("cleared {} {}", c.decision_id, c.reason)
                    }
                    other => format!("{other:?}"),
                });
            }
        }
        seen
    };
    assert_eq!(
        order,
        [
            format!("created {}", old.id),
            format!("cleared {} superseded", old.id),
            format!("created {}", new.id),
        ]
    );
    assert_error(
        answer(&srv, &old, "once", "").await,
        Code::NotFound,
        "NO_SUCH_DECISION",
    );
    let pending = srv
        .decisions()
        .list_pending_decisions(pb::ListPendingDecisionsRequest {
            workspace_id: ws.id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .decisions;
    assert_eq!(pending.len(), 1, "one decision per pane");

    // The agent goes on (the user answered in the agent itself).
    srv.agents()
        .report_hook_event(hook("UserPromptSubmit", &pane.id))
        .await
        .unwrap();
    let reply = finished(second).await;
    assert_eq!(
        (reply.verdict, reply.wait_end_reason.as_str()),
        (pb::Verdict::Unspecified as i32, "agent_moved_on")
    );
    assert_eq!(cleared(&mut events, &new).await, "agent_moved_on");

    // The hook hangs up (its RPC is dropped).
    let (task, d) = start_wait(&srv, &mut events, waiting(&pane.id, 0)).await;
    task.abort();
    assert_eq!(cleared(&mut events, &d).await, "waiter_gone");
    assert_error(
        answer(&srv, &d, "once", "").await,
        Code::NotFound,
        "NO_SUCH_DECISION",
    );
}

#[tokio::test]
async fn a_pane_exit_or_close_ends_its_wait() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let pane = spawn(&srv, &ws.id, &["sh", "-c", "read x; exit 0"]).await;
    let mut events = srv.subscribe(&[pb::EventKind::Decision]).await;
    let (task, d) = start_wait(&srv, &mut events, waiting(&pane.id, 0)).await;
    srv.write_input(&pane.id, b"\n").await.unwrap();
    let reply = finished(task).await;
    assert_eq!(
        (reply.verdict, reply.wait_end_reason.as_str()),
        (pb::Verdict::Unspecified as i32, "pane_exited")
    );
    assert_eq!(cleared(&mut events, &d).await, "pane_exited");
    let p = srv.pane(&pane.id).await;
    assert_eq!(
        (p.lifecycle, p.attention),
        (pb::Lifecycle::Exited as i32, pb::Attention::Unread as i32),
        "an interactive agent's exit: exited, and nobody can answer a dead process"
    );

    let closing = spawn(&srv, &ws.id, &["sleep", "600"]).await;
    let (task, _) = start_wait(&srv, &mut events, waiting(&closing.id, 0)).await;
    srv.panes()
        .close_pane(pb::ClosePaneRequest {
            pane_id: closing.id.clone(),
        })
        .await
        .unwrap();
    assert_eq!(finished(task).await.wait_end_reason, "pane_exited");
}

#[tokio::test]
async fn shutdown_ends_a_wait_without_a_verdict() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let pane = spawn(&srv, &ws.id, &["sleep", "600"]).await;
    let mut events = srv.subscribe(&[pb::EventKind::Decision]).await;
    let (task, _) = start_wait(&srv, &mut events, waiting(&pane.id, 0)).await;
    srv.server()
        .shutdown(pb::ShutdownRequest { force: true })
        .await
        .unwrap();
    let reply = finished(task).await;
    assert_eq!(
        (reply.verdict, reply.wait_end_reason.as_str()),
        (pb::Verdict::Unspecified as i32, "shutdown")
    );
}

#[tokio::test]
async fn sessions_yield_resume_commands() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let (pane, child, _screen) = pane_with_child(&srv, &ws.id).await;
    let reply = srv
        .agents()
        .report_session(pb::ReportSessionRequest {
            agent: pb::AgentKind::Codex as i32,
            session_id: "thread-1".into(),
            pane_id: String::new(),
            client_pid: child,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.pane_id, pane.id);
    assert_eq!(reply.resume_argv, ["codex", "resume", "thread-1"]);
    let agent = srv.pane(&pane.id).await.agent.unwrap();
    assert_eq!(agent.kind, pb::AgentKind::Codex as i32);
    assert_error(
        srv.agents()
            .report_session(pb::ReportSessionRequest {
                agent: pb::AgentKind::Codex as i32,
                session_id: "-x".into(),
                pane_id: pane.id.clone(),
                client_pid: 0,
            })
            .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    let nowhere = srv
        .agents()
        .report_session(pb::ReportSessionRequest {
            agent: pb::AgentKind::Codex as i32,
            session_id: "t2".into(),
            pane_id: String::new(),
            client_pid: std::process::id(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(nowhere, pb::ReportSessionResponse::default());
}

#[tokio::test]
async fn hooks_install_on_request_and_before_a_detected_agent_launches() {
    let srv = TestServer::start().await;
    let home = srv.dir_path().join("someone");
    std::fs::create_dir_all(&home).unwrap();
    let home_str = home.display().to_string();
    let installed = srv
        .agents()
        .install_hooks(pb::InstallHooksRequest {
            agents: vec![],
            home: home_str.clone(),
            uninstall: false,
        })
        .await
        .unwrap()
        .into_inner()
        .reports;
    assert_eq!(installed.len(), 4, "{installed:?}");
    for r in &installed {
        assert!(r.changed, "{r:?}");
        assert_eq!(r.state, pb::HookState::Installed as i32, "{r:?}");
        assert_eq!(r.error, "", "{r:?}");
        assert!(std::path::Path::new(&r.path).is_file(), "{r:?}");
    }
    assert!(
        installed
            .iter()
            .any(|r| r.agent == pb::AgentKind::Codex as i32 && !r.notice.is_empty())
    );
    let status = srv
        .agents()
        .hook_status(pb::HookStatusRequest {
            agents: vec![pb::AgentKind::Claude as i32],
            home: home_str.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .reports;
    assert_eq!(status[0].state, pb::HookState::Installed as i32);
    let removed = srv
        .agents()
        .install_hooks(pb::InstallHooksRequest {
            agents: vec![pb::AgentKind::Claude as i32],
            home: home_str,
            uninstall: true,
        })
        .await
        .unwrap()
        .into_inner()
        .reports;
    assert_eq!(removed[0].state, pb::HookState::NotInstalled as i32);
    assert_error(
        srv.agents()
            .install_hooks(pb::InstallHooksRequest {
                agents: vec![pb::AgentKind::Claude as i32],
                home: "relative/home".into(),
                uninstall: false,
            })
            .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );

    // A pane launching `claude` directly gets the hooks (into the configured home) first.
    let bin = srv.dir_path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("claude");
    std::fs::write(&fake, "#!/bin/sh\nexec sleep 600\n").unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let ws = srv.workspace("w").await;
    let settings = srv.dir_path().join("home/.claude/settings.json");
    let spawn_claude = |skip: bool| {
        let srv = &srv;
        let req = pb::SpawnPaneRequest {
            workspace_id: ws.id.clone(),
            argv: vec![fake.display().to_string()],
            skip_hook_install: skip,
            ..Default::default()
        };
        async move { srv.spawn_with(req).await }
    };
    let skipped = spawn_claude(true).await;
    assert_eq!(skipped.agent.unwrap().kind, pb::AgentKind::Claude as i32);
    assert!(!settings.exists(), "skip_hook_install writes nothing");
    let pane = spawn_claude(false).await;
    assert_eq!(pane.agent.unwrap().kind, pb::AgentKind::Claude as i32);
    let text = std::fs::read_to_string(&settings).expect("hooks installed before the launch");
    assert!(
        text.contains("signaltty hook-event --agent claude --event PermissionRequest"),
        "{text}"
    );
    assert!(text.contains("--wait-for-answer"), "{text}");
}

/// A launch of an agent that cannot start (no such program, or not executable) changes
/// nothing: no hooks in the agent's config, no pane, no tab, no event.
#[tokio::test]
async fn an_agent_launch_that_cannot_start_installs_no_hooks_and_leaves_nothing() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let bin = srv.dir_path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let not_executable = bin.join("codex");
    std::fs::write(&not_executable, "#!/bin/sh\nexec sleep 600\n").unwrap();
    let head = srv.head().await;
    // (argv, env, what the error says)
    type Case<'a> = (Vec<String>, Vec<(String, String)>, &'a str);
    let cases: Vec<Case> = vec![
        (
            vec![bin.join("claude").display().to_string()],
            vec![],
            "No such file",
        ),
        (
            vec!["claude".into()],
            vec![("PATH".into(), bin.display().to_string())],
            "No such file",
        ),
        (
            vec![not_executable.display().to_string()],
            vec![],
            "Permission denied",
        ),
    ];
    for (argv, env, says) in cases {
        let result = srv
            .panes()
            .spawn_pane(pb::SpawnPaneRequest {
                workspace_id: ws.id.clone(),
                argv: argv.clone(),
                env: env.into_iter().collect(),
                ..Default::default()
            })
            .await;
        let message = result.as_ref().err().map(|s| s.message().to_owned());
        assert_error(result, Code::FailedPrecondition, "SPAWN_FAILED");
        assert!(message.unwrap_or_default().contains(says), "{argv:?}");
    }
    let home = srv.dir_path().join("home");
    assert!(
        !home.join(".claude").exists() && !home.join(".codex").exists(),
        "no hooks were written"
    );
    let got = srv.get_workspace(&ws.id).await;
    assert!(got.tabs.is_empty() && got.panes.is_empty(), "{got:?}");
    assert_eq!(srv.head().await, head, "no event");
}
