//! Hooks go where the launched agent will read them: a pane started with `CLAUDE_CONFIG_DIR`,
//! `CODEX_HOME` or `OPENCODE_CONFIG_DIR` gets its hooks in that directory (relative values
//! against the pane's cwd), the variables are kept in `AgentInfo.config_env` for a resume, and
//! what the user must do themselves (trust new Codex hooks in `/hooks`) reaches the pane as a
//! notification, not only the server log.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use std::os::unix::fs::PermissionsExt;

use common::{TestServer, until_event};
use signaltty_proto::v1 as pb;

fn fake_agent(srv: &TestServer, name: &str) -> String {
    let bin = srv.dir_path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join(name);
    std::fs::write(&fake, "#!/bin/sh\nexec sleep 600\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    fake.display().to_string()
}

#[tokio::test]
async fn hooks_follow_the_agents_config_variables() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let cwd = srv.dir_path().join("project");
    std::fs::create_dir_all(&cwd).unwrap();
    let codex_home = srv.dir_path().join("codex-home");
    let mut notes = srv.subscribe(&[pb::EventKind::Notification]).await;
    let spawn = |argv0: String, env: Vec<(&str, String)>| {
        let srv = &srv;
        let req = pb::SpawnPaneRequest {
            workspace_id: ws.id.clone(),
            argv: vec![argv0],
            cwd: cwd.display().to_string(),
            env: env.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
            ..Default::default()
        };
        async move { srv.spawn_with(req).await }
    };

    let claude = spawn(
        fake_agent(&srv, "claude"),
        vec![("CLAUDE_CONFIG_DIR", "cfg/claude".into())],
    )
    .await;
    let settings = cwd.join("cfg/claude/settings.json");
    let text = std::fs::read_to_string(&settings).expect("hooks in $CLAUDE_CONFIG_DIR");
    assert!(text.contains("--event StopFailure"), "{text}");
    assert!(!srv.dir_path().join("home/.claude/settings.json").exists());
    let env = claude.agent.unwrap().config_env;
    assert_eq!(
        env.get("CLAUDE_CONFIG_DIR").map(String::as_str),
        Some(cwd.join("cfg/claude").to_str().unwrap())
    );

    let codex = spawn(
        fake_agent(&srv, "codex"),
        vec![("CODEX_HOME", codex_home.display().to_string())],
    )
    .await;
    let hooks =
        std::fs::read_to_string(codex_home.join("hooks.json")).expect("hooks in $CODEX_HOME");
    assert!(hooks.contains("--event Interrupt"), "{hooks}");
    let note = until_event(&mut notes, |k| match k {
        pb::event::Kind::NotificationCreated(n) => {
            n.notification.clone().filter(|n| n.pane_id == codex.id)
        }
        _ => None,
    })
    .await;
    assert!(note.body.contains("/hooks"), "{note:?}");
    let p = srv.pane(&codex.id).await;
    assert_eq!(
        p.attention,
        pb::Attention::Warning as i32,
        "the trust step needs the user"
    );

    let opencode_dir = srv.dir_path().join("oc");
    spawn(
        fake_agent(&srv, "opencode"),
        vec![("OPENCODE_CONFIG_DIR", opencode_dir.display().to_string())],
    )
    .await;
    // No `opencode` on PATH here: the OpenCode 2 plugin only (OpenCode 2 fails on a V1 one).
    assert!(!opencode_dir.join("plugins/signaltty.js").exists());
    assert!(opencode_dir.join("plugins/signaltty/tui.js").is_file());
}
