//! The OpenCode plugins as OpenCode loads them, in Node: the installer writes them, a harness
//! imports them the way the docs describe — V2: the `./tui` part's default export `{id, setup}`,
//! `setup(context)` subscribing with `context.data.on(type, handler)` to events `{type, data}`;
//! V1: a named export returning `{event}` fed `{event: {type, properties}}` — and feeds them
//! events. Each plugin runs the real `signaltty hook-event` against a real server for a real
//! pane, and the pane's lifecycle follows. The harness also checks that no handler blocks (each
//! returns in well under 50 ms while the reports run in the background).
//!
//! Needs `node` (20+) on PATH and the CLI binary (`cargo build -p signaltty-cli` or
//! `SIGNALTTY_CLI_BIN`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use std::process::Command;

use common::{TestServer, cli_bin, spawn, until_event};
use signaltty_proto::v1 as pb;
use signaltty_server::agents::AgentKind;
use signaltty_server::agents::install::{ConfigRoots, install_in, opencode};

const HARNESS: &str = r#"
const [, , which, file, sid] = process.argv;
const blocked = (t0, what) => {
  const dt = performance.now() - t0;
  if (dt > 50) throw new Error(`${what}: the handler held the event loop for ${dt} ms`);
};
if (which === "v2") {
  const def = (await import(file)).default;
  if (typeof def?.id !== "string" || typeof def?.setup !== "function") {
    throw new Error("the default export is not a V2 plugin definition {id, setup}");
  }
  const handlers = new Map();
  const context = {
    options: {},
    data: {
      on(type, fn) { handlers.set(type, fn); return () => handlers.delete(type); },
      listen() { return () => {}; },
      session: {
        get: (id) => (id === "ses_child" ? { id, parentID: sid } : { id }),
        root: (id) => (id === "ses_child" ? sid : id),
      },
    },
    ui: {
      router: { current: () => ({ type: "session", sessionID: sid }) },
      tabs: { list: () => [] },
    },
  };
  const stop = def.setup(context);
  const emit = (type, data) => {
    const t0 = performance.now();
    handlers.get(type)?.({ type, data });
    blocked(t0, type);
  };
  emit("session.execution.started", { sessionID: sid });
  emit("session.status", { sessionID: sid, status: { type: "retry", attempt: 1, message: "Cannot connect to API: refused", next: 0 } });
  emit("session.status", { sessionID: sid, status: { type: "busy" } });
  emit("session.execution.started", { sessionID: "ses_elsewhere" });
  emit("session.execution.failed", { sessionID: "ses_child", error: { name: "APIError" } });
  emit("permission.asked", { id: "per_1", sessionID: "ses_child", permission: "bash", patterns: ["git push"] });
  emit("permission.replied", { sessionID: sid, requestID: "per_1", reply: "once" });
  emit("session.execution.succeeded", { sessionID: sid });
  if (typeof stop === "function") stop();
} else {
  const mod = await import(file);
  const hooks = await mod.SignalttyPlugin({});
  const emit = (type, properties) => {
    const t0 = performance.now();
    hooks.event({ event: { type, properties } });
    blocked(t0, type);
  };
  emit("session.created", { info: { id: sid, title: "New session" } });
  emit("session.created", { info: { id: "ses_child", parentID: sid } });
  emit("session.status", { sessionID: sid, status: { type: "busy" } });
  emit("session.error", { sessionID: "ses_child", error: { name: "APIError" } });
  emit("question.asked", { id: "que_1", sessionID: sid, questions: [{ question: "Which branch?" }] });
  emit("question.replied", { sessionID: sid, requestID: "que_1", answers: [["main"]] });
  emit("session.idle", { sessionID: sid });
}
"#;

/// What the pane went through: its lifecycles, and every message it showed on the way.
struct Seen {
    lifecycles: Vec<pb::Lifecycle>,
    messages: Vec<String>,
}

async fn run_plugin(srv: &TestServer, which: &str, file: &std::path::Path) -> Seen {
    let ws = srv.workspace(which).await;
    let pane = spawn(srv, &ws.id, &["sleep", "600"]).await;
    let mut events = srv
        .subscribe(&[pb::EventKind::Lifecycle, pb::EventKind::Pane])
        .await;
    let harness = srv.dir_path().join("harness.mjs");
    std::fs::write(&harness, HARNESS).unwrap();
    let sid = format!("ses_{which}_node");
    let out = tokio::task::spawn_blocking({
        let (file, socket, pane) = (file.to_owned(), srv.socket().to_owned(), pane.id.clone());
        let which = which.to_owned();
        move || {
            Command::new("node")
                .arg("--experimental-detect-module")
                .arg(&harness)
                .args([which.as_str(), &file.display().to_string(), &sid])
                .env("SIGNALTTY_PANE", pane)
                .env("SIGNALTTY_SOCKET", socket)
                .output()
        }
    })
    .await
    .unwrap()
    .expect("node runs (node 20+ must be on PATH)");
    assert!(
        out.status.success(),
        "{which}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Node exits once every report finished; the pane saw them in order.
    let mut seen = Vec::new();
    let mut messages: Vec<String> = Vec::new();
    while seen.last() != Some(&pb::Lifecycle::Done) {
        let new = until_event(&mut events, |k| match k {
            pb::event::Kind::LifecycleChanged(c) if c.pane_id == pane.id => Some(Some(c.new)),
            pb::event::Kind::PaneUpdated(u) => {
                let p = u.pane.as_ref().filter(|p| p.id == pane.id)?;
                let said = p.last_message.clone();
                if messages.last() != Some(&said) {
                    messages.push(said);
                }
                Some(None)
            }
            _ => None,
        })
        .await;
        if let Some(new) = new {
            seen.push(pb::Lifecycle::try_from(new).unwrap());
        }
    }
    let p = srv.pane(&pane.id).await;
    assert_eq!(
        p.agent.map(|a| a.session_id),
        Some(format!("ses_{which}_node"))
    );
    assert!(p.pending_decision.is_none());
    Seen {
        lifecycles: seen,
        messages,
    }
}

#[tokio::test]
async fn the_installed_plugins_load_in_node_and_report_state() {
    let srv = TestServer::start().await;
    let dir = srv.dir_path().join("opencode-config");
    let roots = ConfigRoots {
        opencode: Some(dir.clone()),
        ..ConfigRoots::home(&srv.dir_path().join("home"))
    };
    let report = install_in(
        AgentKind::Opencode,
        &roots,
        &cli_bin().display().to_string(),
    )
    .expect("install");
    assert_eq!(report.path, dir.join("plugins/signaltty/tui.js"));
    use pb::Lifecycle as L;
    let v2 = run_plugin(&srv, "v2", &dir.join("plugins/signaltty/tui.js")).await;
    assert_eq!(
        v2.lifecycles,
        [L::Working, L::Blocked, L::Working, L::Done],
        "V2: {:?}",
        v2.lifecycles
    );
    // A retry shows OpenCode's error text; the next busy takes it away (issue 35, finding 5).
    let retrying = v2
        .messages
        .iter()
        .position(|m| m == "retrying: Cannot connect to API: refused");
    assert!(retrying.is_some(), "V2 messages: {:?}", v2.messages);
    assert_eq!(
        v2.messages
            .get(retrying.unwrap_or(0) + 1)
            .map(String::as_str),
        Some(""),
        "V2 messages: {:?}",
        v2.messages
    );
    // No `opencode` on this test's PATH: the install wrote V2 only. The V1 plugin as an install
    // for OpenCode 1 writes it:
    let v1_file = dir.join("plugins/signaltty.js");
    assert!(!v1_file.exists(), "OpenCode 2 would fail on a V1 plugin");
    std::fs::write(
        &v1_file,
        opencode::plugin_source(&cli_bin().display().to_string()),
    )
    .unwrap();
    let v1 = run_plugin(&srv, "v1", &v1_file).await;
    assert_eq!(
        v1.lifecycles,
        [L::Idle, L::Working, L::Blocked, L::Working, L::Done],
        "V1: {:?}",
        v1.lifecycles
    );
}
