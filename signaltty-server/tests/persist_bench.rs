//! Measurements (ignored by default): saving and restoring 500 panes.
//!
//! Run: `cargo test -p signaltty-server --test persist_bench -- --ignored --nocapture`
//! (add `--release` for optimised figures). The state is written as snapshot JSON — the schema is
//! the contract — with 50 workspaces × 2 tabs × 5 panes in split layouts, realistic titles, argv,
//! agent sessions and last messages, 200 notifications, and a full 64 KiB tail per pane.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use serde_json::{Value, json};
use signaltty_server::config::Config;
use signaltty_server::daemon::Daemon;
use signaltty_server::model::state::Policy;
use signaltty_server::persist::{self, SaveInput, Saver, TAIL_BYTES, tails::TailDir};
use signaltty_server::store::Store;

const WORKSPACES: usize = 50;
const TABS: usize = 2;
const PANES_PER_TAB: usize = 5;

fn time(secs: u64) -> Value {
    json!({"secs_since_epoch": secs, "nanos_since_epoch": 123_456_789})
}

/// A right-leaning split tree over `ids`.
fn layout(ids: &[String]) -> Value {
    match ids {
        [one] => json!({"pane": one}),
        [first, rest @ ..] => json!({"split": {
            "direction": "right", "ratio": 0.37,
            "first": {"pane": first}, "second": layout(rest),
        }}),
        [] => unreachable!(),
    }
}

fn snapshot(cwd: &str) -> (Value, Vec<String>) {
    let mut workspaces = Vec::new();
    let mut tabs = serde_json::Map::new();
    let mut panes = serde_json::Map::new();
    let mut all = Vec::new();
    for w in 0..WORKSPACES {
        let ws_id = format!("ws_bench{w:04}");
        let mut tab_ids = Vec::new();
        for t in 0..TABS {
            let tab_id = format!("tab_bench{w:04}x{t}");
            let ids: Vec<String> = (0..PANES_PER_TAB)
                .map(|p| format!("pane_bench{w:04}x{t}x{p}"))
                .collect();
            for id in &ids {
                panes.insert(id.clone(), json!({
                    "id": id, "workspace_id": ws_id, "tab_id": tab_id,
                    "title": format!("claude · fixing the flaky test in module {id}"),
                    "argv": ["claude", "--model", "opus", "--permission-mode", "default"],
                    "cwd": cwd, "size": {"cols": 120, "rows": 40},
                    "status": {"state": "live", "pid": 12345},
                    "state": {
                        "lifecycle": "working", "attention": "unread",
                        "lifecycle_since": time(1_700_000_000),
                        "attention_since": time(1_700_000_000),
                        "working_since": time(1_700_000_000),
                        "last_run": {"secs": 42, "nanos": 0},
                    },
                    "agent": {
                        "kind": "claude", "session_id": format!("9b1f6c1e-3a52-4f0e-8d7c-{id}"),
                        "resume_argv": ["claude", "--resume", format!("9b1f6c1e-3a52-4f0e-8d7c-{id}")],
                        "env": {"CLAUDE_CONFIG_DIR": "/home/dev/.claude-work"},
                    },
                    "last_message": "Stop: I refactored the parser and all 213 tests pass; \
                        the flaky one was a race in the fixture setup. ".repeat(2),
                    "created_at": time(1_700_000_000),
                }));
            }
            tabs.insert(tab_id.clone(), json!({
                "id": tab_id, "workspace_id": ws_id, "title": format!("tab {t}"),
                "layout": layout(&ids), "active_pane": ids[0], "created_at": time(1_700_000_000),
            }));
            all.extend(ids);
            tab_ids.push(tab_id);
        }
        workspaces.push(json!({
            "id": ws_id, "name": format!("project-{w}"), "cwd": cwd,
            "git": {"repo_root": cwd, "repo_name": "project", "branch": "feature/x", "dirty": true},
            "tabs": tab_ids, "active_tab": format!("tab_bench{w:04}x0"),
            "created_at": time(1_700_000_000), "updated_at": time(1_700_000_000),
        }));
    }
    let notifications: Vec<Value> = (0..200)
        .map(|n| json!({
            "id": format!("notif_bench{n}"), "pane_id": all[n % all.len()],
            "title": "Claude Code", "body": "Claude needs your permission to use Bash",
            "severity": "warning", "source": "hook", "created_at": time(1_700_000_000 + n as u64),
            "read": n % 3 == 0,
        }))
        .collect();
    let snap = json!({
        "version": 1,
        "state": {
            "workspaces": workspaces, "tabs": tabs, "panes": panes,
            "notifications": {"items": notifications, "capacity": 200},
        },
    });
    (snap, all)
}

/// A 64 KiB tail of styled lines, like a busy agent's.
fn tail() -> Vec<u8> {
    let mut out = Vec::new();
    let mut n = 0;
    while out.len() < TAIL_BYTES - 200 {
        out.extend_from_slice(
            format!("\x1b[0;32m✓\x1b[m test module::case_{n} ... \x1b[0;1mok\x1b[m (12 ms)\r\n")
                .as_bytes(),
        );
        n += 1;
    }
    out
}

fn ms(d: std::time::Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measurement; run with --ignored --nocapture"]
async fn save_and_restore_500_panes() {
    let dir = tempfile::tempdir().unwrap();
    let state_dir = dir.path().join("state");
    signaltty_server::listen::private_dir(&state_dir).unwrap();
    let cwd = dir.path().display().to_string();
    let (snap, ids) = snapshot(&cwd);
    assert_eq!(ids.len(), 500);
    std::fs::write(
        state_dir.join(persist::SNAPSHOT_FILE),
        serde_json::to_vec(&snap).unwrap(),
    )
    .unwrap();
    let tails = TailDir::new(&state_dir);
    let one_tail = tail();
    let started = Instant::now();
    for id in &ids {
        tails
            .write(
                &signaltty_server::model::ids::PaneId::parse(id).unwrap(),
                &one_tail,
            )
            .unwrap();
    }
    let tail_write = started.elapsed();

    // Restore: parse + checks + 500 tails read.
    let started = Instant::now();
    let loaded = persist::load(&state_dir, Policy::default()).unwrap();
    let load_time = started.elapsed();
    assert_eq!(loaded.state.pane_count(), 500);
    assert_eq!(loaded.tails.len(), 500);
    assert_eq!(loaded.state.notifications().len(), 200);
    assert!(
        loaded
            .state
            .all_panes()
            .iter()
            .all(|p| p.status == signaltty_server::model::pane::PaneStatus::Resumable)
    );

    // Save: the clone under the store's lock, then serialize + atomic write + fsync.
    let store = Store::new(loaded.state, 16, 16);
    let started = Instant::now();
    let (state, head) = store.clone_state();
    let clone_time = started.elapsed();
    let saver = Saver::new(state_dir.clone());
    let started = Instant::now();
    let report = saver
        .save(SaveInput {
            state,
            head: head + 1,
            panes: Vec::new(),
        })
        .await
        .unwrap();
    let save_time = started.elapsed();
    let size = std::fs::metadata(state_dir.join(persist::SNAPSHOT_FILE))
        .unwrap()
        .len();

    // A whole server start on that state dir (load, dormant panes with tails, socket).
    let started = Instant::now();
    let daemon = Daemon::start(Config::new(
        dir.path().join("run/s.sock"),
        state_dir.clone(),
    ))
    .await
    .unwrap();
    let start_time = started.elapsed();
    let panes = daemon.hub().store().read(|s| s.pane_count());
    assert_eq!(panes, 500);
    // One tail render from a dormant pane's screen, for scale.
    let started = Instant::now();
    let screen_lines = daemon
        .hub()
        .persistence()
        .restored_view(&signaltty_server::model::ids::PaneId::parse(&ids[0]).unwrap())
        .unwrap();
    let view_time = started.elapsed();
    assert!(!screen_lines.snapshot.repaint.is_empty());
    daemon.hub().shutdown(true, "bench").await.unwrap();
    daemon.wait().await;

    // Rendering one live pane's tail (done under its screen lock, off the runtime): a screen with
    // full 10,000-line history.
    let mut screen = signaltty_server::term::Screen::new(120, 40);
    for n in 0..10_000 {
        screen.feed(format!("\x1b[32mline {n}\x1b[m of some build output here\r\n").as_bytes());
    }
    let started = Instant::now();
    let rendered = persist::tails::render(&screen);
    let render_time = started.elapsed();
    assert!(rendered.len() > TAIL_BYTES / 2);

    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!(
        "persistence, 500 panes / 50 workspaces / 100 tabs / 200 notifications ({profile} build):"
    );
    println!("  snapshot.json size:           {size} bytes ({report:?})");
    println!("  clone under the store lock:   {}", ms(clone_time));
    println!("  save (serialize+write+fsync): {}", ms(save_time));
    println!(
        "  500 tails × {} KiB written:    {}",
        one_tail.len() / 1024,
        ms(tail_write)
    );
    println!("  load (parse+check+500 tails): {}", ms(load_time));
    println!("  Daemon::start on it:          {}", ms(start_time));
    println!("  attach view of one restored pane: {}", ms(view_time));
    println!(
        "  render one live tail (10k-line history): {}",
        ms(render_time)
    );
}
