//! Agent panes across restarts, with the real server binary and a fake `claude` on its PATH:
//! the session reported by the agent's hooks makes the pane RESUMABLE and its interrupted turn `exited`; attention,
//! last message and notifications come back; the resume runs `claude --resume <id>` with the
//! remembered config dir and no other launch variable — only when asked, or at start in a
//! workspace that opted in to auto-resume.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod server_process;

use server_process::{RealServer, Root, runs, wait_file, wait_file_contains};
use signaltty_proto::v1 as pb;

const SECRET: &str = "agent-launch-secret-5c4b3a";

/// Installs the fake `claude`: records its arguments and two variables, prints a marker, then
/// echoes input. Returns the record file.
fn fake_claude(root: &Root) -> std::path::PathBuf {
    let record = root.path().join("claude-runs.txt");
    root.script(
        "claude",
        &format!(
            "#!/bin/sh\nprintf 'run %s cfg=%s secret=%s\\n' \"$*\" \"$CLAUDE_CONFIG_DIR\" \"$SECRET_TOKEN\" >> '{}'\n\
             echo \"fake-claude $*\"\nexec cat\n",
            record.display()
        ),
    );
    record
}

async fn spawn_claude(srv: &RealServer, ws: &str, cfg: &std::path::Path) -> pb::Pane {
    srv.spawn_with(pb::SpawnPaneRequest {
        workspace_id: ws.into(),
        argv: vec!["claude".into()],
        env: [
            ("SECRET_TOKEN".to_string(), SECRET.to_string()),
            ("CLAUDE_CONFIG_DIR".to_string(), cfg.display().to_string()),
        ]
        .into(),
        skip_hook_install: true,
        ..Default::default()
    })
    .await
}

/// Reports Claude's hook `event` for `pane` with the payload of fixture `file`.
async fn hook(srv: &RealServer, pane: &str, event: &str, file: &str) {
    let payload = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/hooks/claude")
            .join(file),
    )
    .unwrap();
    srv.agents()
        .report_hook_event(pb::ReportHookEventRequest {
            agent: pb::AgentKind::Claude.into(),
            event: event.into(),
            payload,
            pane_id: pane.into(),
            ..Default::default()
        })
        .await
        .unwrap();
}

/// What the agent's hooks would report: a prompt (WORKING, with the fixture's session id), then
/// its session explicitly.
async fn report(srv: &RealServer, pane: &str, session: &str) {
    hook(srv, pane, "UserPromptSubmit", "UserPromptSubmit.json").await;
    let reply = srv
        .agents()
        .report_session(pb::ReportSessionRequest {
            agent: pb::AgentKind::Claude.into(),
            session_id: session.into(),
            pane_id: pane.into(),
            client_pid: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(reply.resume_argv, vec!["claude", "--resume", session]);
}

async fn notifications(srv: &RealServer) -> Vec<pb::Notification> {
    srv.notifications()
        .list_notifications(pb::ListNotificationsRequest::default())
        .await
        .unwrap()
        .into_inner()
        .notifications
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_pane_comes_back_resumable_and_resumes_its_session_only_when_asked() {
    let root = Root::new();
    let record = fake_claude(&root);
    let cfg = root.path().join("claude-config");
    let srv = root.start().await;
    let ws = srv.workspace("agents", &root.path().join("w")).await;
    let pane = spawn_claude(&srv, &ws.id, &cfg).await;
    srv.until_output(&pane.id, "fake-claude").await;
    report(&srv, &pane.id, "sess-persist-1").await;
    srv.notifications()
        .notify(pb::NotifyRequest {
            pane_id: pane.id.clone(),
            title: "tests".into(),
            body: "three tests fail".into(),
            severity: pb::Severity::Warning.into(),
        })
        .await
        .unwrap();
    let before = srv.pane(&pane.id).await;
    assert_eq!(before.lifecycle, pb::Lifecycle::Working as i32);
    assert_eq!(before.attention, pb::Attention::Warning as i32);
    let before_notes = notifications(&srv).await;
    assert_eq!(before_notes.len(), 1);
    wait_file_contains(
        &root.snapshot(),
        &["sess-persist-1", "three tests fail", "working"],
    )
    .await;
    wait_file_contains(&root.tail(&pane.id), &["fake-claude"]).await;
    srv.kill();
    assert_eq!(runs(&record).len(), 1);

    let srv = root.start().await;
    let p = srv.pane(&pane.id).await;
    assert_eq!(p.status, pb::PaneStatus::Resumable as i32, "{p:?}");
    let agent = p.agent.clone().unwrap();
    assert_eq!(agent.session_id, "sess-persist-1");
    assert_eq!(
        agent.resume_argv,
        vec!["claude", "--resume", "sess-persist-1"]
    );
    // The process that was working is gone: the restored pane says so, with no run clock.
    assert_eq!(p.lifecycle, pb::Lifecycle::Exited as i32, "{p:?}");
    assert_eq!(p.attention, before.attention);
    assert_eq!(p.last_message, before.last_message);
    assert!(p.last_message.contains("three tests fail"), "{p:?}");
    assert_eq!(
        notifications(&srv).await,
        before_notes,
        "notifications are back"
    );
    assert_eq!(runs(&record).len(), 1, "nothing ran at start");

    // The secret reached no file under the state dir; the config dir did (it is allow-listed).
    let mut saw_cfg = false;
    for file in root.state_files() {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
        assert!(
            !text.contains(SECRET),
            "{} holds the secret",
            file.display()
        );
        saw_cfg |= text.contains("CLAUDE_CONFIG_DIR");
    }
    assert!(saw_cfg);

    let resumed = srv
        .resume(&pane.id, pb::ResumeMode::AgentSession)
        .await
        .unwrap();
    assert_eq!(resumed.status, pb::PaneStatus::Live as i32);
    assert_eq!(resumed.lifecycle, pb::Lifecycle::Unknown as i32);
    let text = wait_file_contains(&record, &["run --resume sess-persist-1"]).await;
    assert!(
        text.contains(&format!(
            "run --resume sess-persist-1 cfg={} secret=\n",
            cfg.display()
        )),
        "resumed with the remembered config dir and without the secret: {text}"
    );
    srv.until_output(&pane.id, "fake-claude --resume sess-persist-1")
        .await;
    let scrollback = srv.scrollback(&pane.id).await;
    assert!(scrollback.contains("fake-claude \n") || scrollback.contains("fake-claude\n"));
}

/// An agent stopped on a permission prompt when the server stopped: its process and the prompt are
/// gone, so the restored pane is neither blocked nor waiting for an answer nobody can give; the
/// attention becomes `unread` (something happened there).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_blocked_on_the_user_comes_back_exited_and_unread_not_waiting() {
    let root = Root::new();
    fake_claude(&root);
    let cfg = root.path().join("claude-config");
    let srv = root.start().await;
    let ws = srv.workspace("agents", &root.path().join("w")).await;
    let pane = spawn_claude(&srv, &ws.id, &cfg).await;
    srv.until_output(&pane.id, "fake-claude").await;
    report(&srv, &pane.id, "sess-blocked-1").await;
    hook(
        &srv,
        &pane.id,
        "Notification",
        "Notification-permission.json",
    )
    .await;
    let before = srv.pane(&pane.id).await;
    assert_eq!(
        before.lifecycle,
        pb::Lifecycle::Blocked as i32,
        "{before:?}"
    );
    assert!(
        before.attention == pb::Attention::PermissionRequired as i32
            || before.attention == pb::Attention::InputRequired as i32,
        "{before:?}"
    );
    wait_file_contains(&root.snapshot(), &["\"blocked\"", "resume_argv"]).await;
    srv.kill();

    let srv = root.start().await;
    let p = srv.pane(&pane.id).await;
    assert_eq!(p.status, pb::PaneStatus::Resumable as i32, "{p:?}");
    assert_eq!(p.lifecycle, pb::Lifecycle::Exited as i32, "{p:?}");
    assert_eq!(p.attention, pb::Attention::Unread as i32, "{p:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_resume_starts_only_agent_panes_of_workspaces_that_opted_in() {
    let root = Root::new();
    let record = fake_claude(&root);
    let plain_record = root.path().join("plain-runs.txt");
    root.script(
        "plain",
        &format!(
            "#!/bin/sh\necho run >> '{}'\nexec cat\n",
            plain_record.display()
        ),
    );
    let cfg = root.path().join("cfg");
    let srv = root.start().await;
    let auto = srv.workspace("auto", &root.path().join("a")).await;
    srv.workspaces()
        .update_workspace_settings(pb::UpdateWorkspaceSettingsRequest {
            workspace_id: auto.id.clone(),
            settings: Some(pb::WorkspaceSettings {
                auto_resume_agents: true,
                disable_tails: false,
                ..Default::default()
            }),
        })
        .await
        .unwrap();
    let manual = srv.workspace("manual", &root.path().join("m")).await;
    let auto_agent = spawn_claude(&srv, &auto.id, &cfg).await;
    let auto_plain = srv.spawn(&auto.id, "", &["plain"]).await;
    let manual_agent = spawn_claude(&srv, &manual.id, &cfg).await;
    report(&srv, &auto_agent.id, "sess-auto").await;
    report(&srv, &manual_agent.id, "sess-manual").await;
    wait_file_contains(&root.snapshot(), &["sess-auto", "sess-manual"]).await;
    wait_file(&plain_record, |c| c.map(|_| ())).await;
    srv.kill();

    let srv = root.start().await;
    wait_file_contains(&record, &["run --resume sess-auto"]).await;
    // The resumed process writes its record before the server marks the pane LIVE: wait for
    // the record's change, not the file.
    srv.until_status(&auto_agent.id, pb::PaneStatus::Live).await;
    assert_eq!(
        srv.pane(&auto_plain.id).await.status,
        pb::PaneStatus::Restored as i32
    );
    assert_eq!(
        srv.pane(&manual_agent.id).await.status,
        pb::PaneStatus::Resumable as i32
    );
    let runs = runs(&record);
    assert!(
        !runs.iter().any(|r| r.contains("sess-manual")),
        "the other workspace's agent did not run: {runs:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&plain_record).unwrap(),
        "run\n",
        "a plain command is never re-run by auto-resume"
    );
}
