//! Hibernation with the real server binary and fake agents on its PATH (one per agent kind,
//! named like the real binary): each records the argv, cwd, config-dir variable and terminal
//! size it was started with, answers typed lines, and quits on its agent's exit command. An idle
//! agent with a session is stopped (exit command, else SIGTERM, else SIGKILL) and comes back
//! with its resume command in the same pane, cwd, size and config dir, its screen kept; typing
//! or WriteInput wakes it; working, blocked, shells and agents without a session are refused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod server_process;

use std::path::{Path, PathBuf};

use server_process::{RealServer, Root, runs, wait_file_contains};
use signaltty_proto::v1 as pb;

/// Test timings: a "minute" of `hibernate_after_minutes` and each stop step's grace.
const FAST: &[(&str, &str)] = &[
    ("SIGNALTTY_HIBERNATE_MINUTE_MS", "300"),
    ("SIGNALTTY_HIBERNATE_GRACE_MS", "1500"),
];

struct Kind {
    binary: &'static str,
    pb: pb::AgentKind,
    config_var: Option<&'static str>,
    resume: fn(&str) -> Vec<String>,
}

fn kinds() -> Vec<Kind> {
    vec![
        Kind {
            binary: "claude",
            pb: pb::AgentKind::Claude,
            config_var: Some("CLAUDE_CONFIG_DIR"),
            resume: |s| vec!["--resume".into(), s.into()],
        },
        Kind {
            binary: "codex",
            pb: pb::AgentKind::Codex,
            config_var: Some("CODEX_HOME"),
            resume: |s| vec!["resume".into(), s.into()],
        },
        Kind {
            binary: "opencode",
            pb: pb::AgentKind::Opencode,
            config_var: Some("OPENCODE_CONFIG_DIR"),
            resume: |s| vec!["--session".into(), s.into()],
        },
        Kind {
            binary: "cursor-agent",
            pb: pb::AgentKind::Cursor,
            config_var: None,
            resume: |s| vec!["--resume".into(), s.into()],
        },
    ]
}

/// `on_exit`: what the fake does with its exit command ("quit", "ignore" = keeps reading,
/// "ignore-term" = also ignores SIGTERM). Returns the record file.
fn fake_agent(root: &Root, binary: &str, on_exit: &str) -> PathBuf {
    let record = root.path().join(format!("{binary}-runs.txt"));
    let trap = if on_exit == "ignore-term" {
        "trap '' TERM\n"
    } else {
        ""
    };
    let quit = if on_exit == "quit" {
        "echo bye-from-agent; exit 0"
    } else {
        "echo ignoring-exit"
    };
    root.script(
        binary,
        &format!(
            "#!/bin/sh\n[ \"$1\" = --version ] && {{ echo 1.2.3; exit 0; }}\n{trap}printf 'run %s|cwd=%s|cfg=%s%s%s|size=%s|secret=%s\\n' \"$*\" \"$PWD\" \
             \"$CLAUDE_CONFIG_DIR\" \"$CODEX_HOME\" \"$OPENCODE_CONFIG_DIR\" \"$(stty size)\" \
             \"$SECRET_TOKEN\" >> '{record}'\n\
             echo \"fake-agent-started $*\"\n\
             while IFS= read -r line; do\n\
               case \"$line\" in\n\
                 /exit|/quit) {quit} ;;\n\
                 *) echo \"got-$line\" ;;\n\
               esac\n\
             done\n",
            record = record.display()
        ),
    );
    record
}

fn reason(status: &tonic::Status) -> String {
    signaltty_proto::error_reason(status).unwrap_or_default()
}

async fn spawn_agent(
    srv: &RealServer,
    ws: &str,
    binary: &str,
    cwd: &Path,
    env: &[(&str, &str)],
) -> pb::Pane {
    std::fs::create_dir_all(cwd).unwrap();
    srv.spawn_with(pb::SpawnPaneRequest {
        workspace_id: ws.into(),
        argv: vec![binary.into()],
        cwd: cwd.display().to_string(),
        env: env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        cols: 101,
        rows: 31,
        skip_hook_install: true,
        ..Default::default()
    })
    .await
}

async fn hook(srv: &RealServer, pane: &str, kind: pb::AgentKind, event: &str, payload: &str) {
    srv.agents()
        .report_hook_event(pb::ReportHookEventRequest {
            agent: kind.into(),
            event: event.into(),
            payload: payload.as_bytes().to_vec(),
            pane_id: pane.into(),
            ..Default::default()
        })
        .await
        .unwrap();
}

async fn report_session(srv: &RealServer, pane: &str, kind: pb::AgentKind, session: &str) {
    srv.agents()
        .report_session(pb::ReportSessionRequest {
            agent: kind.into(),
            session_id: session.into(),
            pane_id: pane.into(),
            client_pid: 0,
        })
        .await
        .unwrap();
}

/// The agent's hooks as its turn starts and ends.
async fn turn_starts(srv: &RealServer, pane: &str, kind: pb::AgentKind) {
    match kind {
        pb::AgentKind::Claude | pb::AgentKind::Codex => {
            hook(srv, pane, kind, "UserPromptSubmit", r#"{"prompt":"hi"}"#).await
        }
        pb::AgentKind::Opencode => {
            hook(
                srv,
                pane,
                kind,
                "session.status",
                r#"{"status":{"type":"busy"}}"#,
            )
            .await
        }
        _ => hook(srv, pane, kind, "beforeSubmitPrompt", r#"{"prompt":"hi"}"#).await,
    }
}

async fn turn_ends(srv: &RealServer, pane: &str, kind: pb::AgentKind) {
    match kind {
        pb::AgentKind::Claude | pb::AgentKind::Codex => {
            hook(srv, pane, kind, "Stop", r#"{"stop_hook_active":false}"#).await
        }
        pb::AgentKind::Opencode => {
            hook(
                srv,
                pane,
                kind,
                "session.status",
                r#"{"status":{"type":"idle"}}"#,
            )
            .await
        }
        _ => hook(srv, pane, kind, "stop", r#"{"status":"completed"}"#).await,
    }
}

async fn hibernate(
    srv: &RealServer,
    pane: &str,
) -> Result<pb::HibernatePaneResponse, tonic::Status> {
    srv.panes()
        .hibernate_pane(pb::HibernatePaneRequest {
            pane_id: pane.into(),
        })
        .await
        .map(tonic::Response::into_inner)
}

async fn wake(srv: &RealServer, pane: &str) -> Result<pb::Pane, tonic::Status> {
    srv.panes()
        .wake_pane(pb::WakePaneRequest {
            pane_id: pane.into(),
        })
        .await
        .map(|r| r.into_inner().pane.unwrap())
}

/// An agent pane of `kind` with a session, its turn ended, and a marker line on its screen.
async fn idle_agent(
    srv: &RealServer,
    root: &Root,
    ws: &str,
    kind: &Kind,
    session: &str,
) -> pb::Pane {
    let cwd = root.path().join(format!("work-{}", kind.binary));
    let cfg = root.path().join(format!("cfg-{}", kind.binary));
    let cfg_text = cfg.display().to_string();
    let mut env = vec![("SECRET_TOKEN", "launch-secret-1f2e")];
    if let Some(var) = kind.config_var {
        env.push((var, cfg_text.as_str()));
    }
    let pane = spawn_agent(srv, ws, kind.binary, &cwd, &env).await;
    srv.until_output(&pane.id, "fake-agent-started").await;
    turn_starts(srv, &pane.id, kind.pb).await;
    report_session(srv, &pane.id, kind.pb, session).await;
    srv.write_input(&pane.id, b"marker-before-sleep\n")
        .await
        .unwrap();
    srv.until_output(&pane.id, "got-marker-before-sleep").await;
    turn_ends(srv, &pane.id, kind.pb).await;
    let p = srv.pane(&pane.id).await;
    assert_eq!(p.lifecycle, pb::Lifecycle::Done as i32, "{p:?}");
    p
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_agent_kind_hibernates_and_wakes_with_its_resume_command_in_the_same_pane() {
    let root = Root::new();
    let srv = root.start_with_env(FAST).await;
    let ws = srv.workspace("agents", &root.path().join("w")).await;
    for kind in kinds() {
        let record = fake_agent(&root, kind.binary, "quit");
        let session = format!("sess-{}-42", kind.binary.replace('-', ""));
        let pane = idle_agent(&srv, &root, &ws.id, &kind, &session).await;
        assert_eq!(runs(&record).len(), 1);

        let answer = hibernate(&srv, &pane.id).await.unwrap();
        assert_eq!(answer.stopped_by, "exit-command", "{}", kind.binary);
        let slept = answer.pane.unwrap();
        assert_eq!(slept.status, pb::PaneStatus::Hibernated as i32);
        assert_eq!(slept.pid, 0);
        // Shown as hibernated everywhere, never as exited; its screen is the one before the exit.
        let listed = srv.pane(&pane.id).await;
        assert_eq!(listed.status, pb::PaneStatus::Hibernated as i32);
        assert_ne!(listed.lifecycle, pb::Lifecycle::Exited as i32, "{listed:?}");
        let kept = srv.scrollback(&pane.id).await;
        assert!(kept.contains("got-marker-before-sleep"), "{kept}");
        assert!(!kept.contains("bye-from-agent"), "{kept}");

        let woken = wake(&srv, &pane.id).await.unwrap();
        assert_eq!(woken.status, pb::PaneStatus::Live as i32);
        assert_eq!((&woken.id, &woken.tab_id), (&pane.id, &pane.tab_id));
        let argv = (kind.resume)(&session).join(" ");
        let text = wait_file_contains(&record, &[&format!("\nrun {argv}|")]).await;
        let second = text.lines().nth(1).unwrap().to_owned();
        assert!(second.starts_with(&format!("run {argv}|")), "{second}");
        let cwd = root.path().join(format!("work-{}", kind.binary));
        assert!(
            second.contains(&format!("|cwd={}|", cwd.display())),
            "{second}"
        );
        if kind.config_var.is_some() {
            let cfg = root.path().join(format!("cfg-{}", kind.binary));
            assert!(
                second.contains(&format!("|cfg={}|", cfg.display())),
                "{second}"
            );
        }
        assert!(second.contains("|size=31 101|"), "{second}");
        // Only the config dir is carried over, never the rest of the launch environment.
        assert!(second.ends_with("|secret="), "{second}");
        // The kept screen is above the resumed agent's first words.
        srv.until_output(&pane.id, &format!("fake-agent-started {argv}"))
            .await;
        let text = srv.scrollback(&pane.id).await;
        assert!(text.contains("got-marker-before-sleep"), "{text}");
        // Waking twice: the second is refused, nothing else starts.
        let err = wake(&srv, &pane.id).await.unwrap_err();
        assert_eq!(reason(&err), "NOT_HIBERNATED", "{err:?}");
        assert_eq!(err.code(), tonic::Code::FailedPrecondition);
        assert_eq!(runs(&record).len(), 2);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_or_write_input_wakes_a_hibernated_agent_and_reaches_it() {
    let root = Root::new();
    let record = fake_agent(&root, "claude", "quit");
    let srv = root.start_with_env(FAST).await;
    let ws = srv.workspace("agents", &root.path().join("w")).await;
    let kind = &kinds()[0];
    let pane = idle_agent(&srv, &root, &ws.id, kind, "sess-typing-1").await;

    // Typing through an attached client.
    let (tx, mut stream, _) = srv.attach_sized(&pane.id, (101, 31), false).await;
    hibernate(&srv, &pane.id).await.unwrap();
    // Key by key, as a person types: the first wakes it, all arrive in order.
    for key in b"typed-while-asleep\n" {
        tx.send(input(&[*key])).await.unwrap();
    }
    // The client is let go when the woken agent takes over, to re-attach.
    while let Ok(Some(_)) = stream.message().await {}
    srv.until_status(&pane.id, pb::PaneStatus::Live).await;
    srv.until_output(&pane.id, "got-typed-while-asleep").await;
    assert_eq!(runs(&record).len(), 2);
    assert!(runs(&record)[1].starts_with("run --resume sess-typing-1|"));

    // A prompt through the API.
    turn_ends(&srv, &pane.id, kind.pb).await;
    hibernate(&srv, &pane.id).await.unwrap();
    srv.write_input(&pane.id, b"prompt-through-api\n")
        .await
        .unwrap();
    srv.until_output(&pane.id, "got-prompt-through-api").await;
    assert_eq!(srv.pane(&pane.id).await.status, pb::PaneStatus::Live as i32);
    assert_eq!(runs(&record).len(), 3);
}

fn input(data: &[u8]) -> pb::AttachRequest {
    pb::AttachRequest {
        kind: Some(pb::attach_request::Kind::Input(pb::attach_request::Input {
            data: data.to_vec(),
        })),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_ignores_its_exit_command_gets_sigterm_then_sigkill() {
    let root = Root::new();
    let srv = root
        .start_with_env(&[("SIGNALTTY_HIBERNATE_GRACE_MS", "400")])
        .await;
    let ws = srv.workspace("agents", &root.path().join("w")).await;
    let kind = &kinds()[0];
    for (behaviour, stopped_by) in [("ignore", "sigterm"), ("ignore-term", "sigkill")] {
        let record = fake_agent(&root, "claude", behaviour);
        let pane = idle_agent(&srv, &root, &ws.id, kind, "sess-stubborn-1").await;
        let answer = hibernate(&srv, &pane.id).await.unwrap();
        assert_eq!(answer.stopped_by, stopped_by);
        assert_eq!(
            srv.pane(&pane.id).await.status,
            pb::PaneStatus::Hibernated as i32
        );
        wake(&srv, &pane.id).await.unwrap();
        srv.until_output(&pane.id, "fake-agent-started --resume sess-stubborn-1")
            .await;
        assert_eq!(runs(&record).len(), 2);
        std::fs::remove_file(&record).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn working_blocked_shells_and_agents_without_a_session_are_never_hibernated() {
    let root = Root::new();
    let record = fake_agent(&root, "claude", "quit");
    let srv = root.start_with_env(FAST).await;
    let ws = srv.workspace("agents", &root.path().join("w")).await;
    let kind = &kinds()[0];
    let cwd = root.path().join("work");

    // No session id yet.
    let fresh = spawn_agent(&srv, &ws.id, "claude", &cwd, &[]).await;
    srv.until_output(&fresh.id, "fake-agent-started").await;
    let err = hibernate(&srv, &fresh.id).await.unwrap_err();
    assert_eq!(
        (err.code(), reason(&err).as_str()),
        (tonic::Code::FailedPrecondition, "NOT_HIBERNATABLE")
    );
    assert!(err.message().contains("session id"), "{err:?}");

    // Working.
    turn_starts(&srv, &fresh.id, kind.pb).await;
    report_session(&srv, &fresh.id, kind.pb, "sess-busy-1").await;
    let err = hibernate(&srv, &fresh.id).await.unwrap_err();
    assert_eq!(reason(&err), "NOT_HIBERNATABLE");
    assert!(err.message().contains("working"), "{err:?}");

    // Blocked on a permission decision.
    hook(
        &srv,
        &fresh.id,
        kind.pb,
        "PermissionRequest",
        r#"{"tool_name":"Bash","tool_input":{"command":"rm -rf build"}}"#,
    )
    .await;
    let p = srv.pane(&fresh.id).await;
    assert_eq!(p.lifecycle, pb::Lifecycle::Blocked as i32, "{p:?}");
    let err = hibernate(&srv, &fresh.id).await.unwrap_err();
    assert_eq!(reason(&err), "NOT_HIBERNATABLE");

    // A plain shell.
    let shell = srv.spawn(&ws.id, "", &["/bin/sh"]).await;
    let err = hibernate(&srv, &shell.id).await.unwrap_err();
    assert_eq!(reason(&err), "NOT_HIBERNATABLE");
    assert!(err.message().contains("no known agent"), "{err:?}");

    // Nothing changed: both still run, the agent ran once, the shell still answers.
    assert_eq!(
        srv.pane(&fresh.id).await.status,
        pb::PaneStatus::Live as i32
    );
    assert_eq!(
        srv.pane(&shell.id).await.status,
        pb::PaneStatus::Live as i32
    );
    assert_eq!(runs(&record).len(), 1);
    srv.write_input(&shell.id, b"echo shell-still-here\n")
        .await
        .unwrap();
    srv.until_output(&shell.id, "shell-still-here").await;

    // Waking a live pane, an unknown one.
    let err = wake(&srv, &shell.id).await.unwrap_err();
    assert_eq!(reason(&err), "NOT_HIBERNATED");
    let err = wake(&srv, "pane_doesnotexist").await.unwrap_err();
    assert_eq!(reason(&err), "NO_SUCH_PANE");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workspace_setting_hibernates_its_idle_agents_only() {
    let root = Root::new();
    fake_agent(&root, "claude", "quit");
    let srv = root.start_with_env(FAST).await;
    let ws = srv.workspace("agents", &root.path().join("w")).await;
    let kind = &kinds()[0];
    let idle = idle_agent(&srv, &root, &ws.id, kind, "sess-timer-1").await;
    let busy = spawn_agent(&srv, &ws.id, "claude", &root.path().join("busy"), &[]).await;
    srv.until_output(&busy.id, "fake-agent-started").await;
    turn_starts(&srv, &busy.id, kind.pb).await;
    report_session(&srv, &busy.id, kind.pb, "sess-timer-2").await;

    srv.workspaces()
        .update_workspace_settings(pb::UpdateWorkspaceSettingsRequest {
            workspace_id: ws.id.clone(),
            settings: Some(pb::WorkspaceSettings {
                hibernate_after_minutes: 1,
                ..Default::default()
            }),
        })
        .await
        .unwrap();
    srv.until_status(&idle.id, pb::PaneStatus::Hibernated).await;
    // The working agent keeps running, however long it works.
    let p = srv.pane(&busy.id).await;
    assert_eq!(p.status, pb::PaneStatus::Live as i32, "{p:?}");
    let listed = srv.get_workspace(&ws.id).await;
    let settings = listed.workspace.unwrap().settings.unwrap();
    assert_eq!(settings.hibernate_after_minutes, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_config_key_hibernates_it_where_no_workspace_setting_says_otherwise() {
    let root = Root::new();
    fake_agent(&root, "claude", "quit");
    fake_agent(&root, "codex", "quit");
    let config = root.path().join("config.toml");
    std::fs::write(&config, "[agents.claude]\nhibernate_after_minutes = 1\n").unwrap();
    let config = config.display().to_string();
    let mut env = FAST.to_vec();
    env.push(("SIGNALTTY_CONFIG", &config));
    let srv = root.start_with_env(&env).await;
    let ws = srv.workspace("agents", &root.path().join("w")).await;
    let kinds = kinds();
    let claude = idle_agent(&srv, &root, &ws.id, &kinds[0], "sess-cfg-1").await;
    let codex = idle_agent(&srv, &root, &ws.id, &kinds[1], "sess-cfg-2").await;
    srv.until_status(&claude.id, pb::PaneStatus::Hibernated)
        .await;
    // Codex has no such key: it keeps running.
    assert_eq!(
        srv.pane(&codex.id).await.status,
        pb::PaneStatus::Live as i32
    );
}
