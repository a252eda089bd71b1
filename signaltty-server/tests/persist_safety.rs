//! What the server does with a snapshot it cannot trust, with the real server binary: a newer
//! schema stops the start and leaves the file alone; a corrupt one is moved aside, loudly; an
//! older, sparser one loads with defaults.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod server_process;

use server_process::Root;
use signaltty_proto::v1 as pb;

fn write_snapshot(root: &Root, text: &str) {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .mode(0o700)
        .recursive(true)
        .create(root.state())
        .unwrap();
    std::fs::write(root.snapshot(), text).unwrap();
    std::fs::set_permissions(root.snapshot(), std::fs::Permissions::from_mode(0o600)).unwrap();
}

fn corrupt_copies(root: &Root) -> Vec<std::path::PathBuf> {
    set_aside(root, "snapshot.json.corrupt-")
}

/// The entries of the state dir whose names start with `prefix`.
fn set_aside(root: &Root, prefix: &str) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(root.state())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
        .collect()
}

#[tokio::test]
async fn a_snapshot_from_a_newer_version_stops_the_start_and_is_left_untouched() {
    let root = Root::new();
    let text = r#"{"version": 2, "state": {"something": "new"}, "future_field": [1, 2, 3]}"#;
    write_snapshot(&root, text);
    let out = root.start_refused();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("newer signaltty"), "{stderr}");
    assert!(stderr.contains("snapshot schema 2"), "{stderr}");
    assert_eq!(std::fs::read_to_string(root.snapshot()).unwrap(), text);
    assert!(corrupt_copies(&root).is_empty());
    assert!(!root.socket().exists(), "no socket left behind");
}

#[tokio::test]
async fn a_corrupt_snapshot_is_moved_aside_and_the_server_starts_empty_loudly() {
    for (what, text) in [
        ("not JSON", "{\"version\": 1, \"state\": {\"workspa"),
        (
            "no version",
            r#"{"state": {"workspaces": [], "tabs": {}, "panes": {}}}"#,
        ),
        (
            "wrong shape",
            r#"{"version": 1, "state": {"workspaces": 7}}"#,
        ),
        (
            "broken invariants",
            r#"{"version": 1, "state": {"workspaces": [{"id": "ws_a", "name": "a", "cwd": "/",
               "tabs": ["tab_missing"], "created_at": {"secs_since_epoch": 1, "nanos_since_epoch": 0},
               "updated_at": {"secs_since_epoch": 1, "nanos_since_epoch": 0}}], "tabs": {}, "panes": {}}}"#,
        ),
    ] {
        let root = Root::new();
        write_snapshot(&root, text);
        let srv = root.start().await;
        let list = srv.list_workspaces().await;
        assert!(list.is_empty(), "{what}: starts empty");
        let copies = corrupt_copies(&root);
        assert_eq!(copies.len(), 1, "{what}: kept aside");
        assert_eq!(std::fs::read_to_string(&copies[0]).unwrap(), text, "{what}");
        assert!(!root.snapshot().exists(), "{what}: not loaded again");
        let log = std::fs::read_to_string(root.log()).unwrap();
        assert!(
            log.contains("ERROR") && log.contains("CORRUPT"),
            "{what}: loud: {log}"
        );
        // The server works and saves afresh.
        srv.workspace("fresh", &root.path().join("fresh")).await;
        server_process::wait_file_contains(&root.snapshot(), &["fresh"]).await;
        srv.kill();
    }
}

#[tokio::test]
async fn an_older_sparse_snapshot_loads_with_defaults_and_a_saved_pid_is_dropped() {
    let root = Root::new();
    let cwd = root.path().join("w");
    std::fs::create_dir(&cwd).unwrap();
    // Only the fields the first schema required: no git, settings, active ids, title_locked,
    // lifecycle, attention, last_message, saved_at, notifications. The pane was saved LIVE
    // (as by a server that crashed mid-save logic) with a pid.
    let t = r#"{"secs_since_epoch": 1700000000, "nanos_since_epoch": 0}"#;
    let text = format!(
        r#"{{"version": 1, "state": {{
            "workspaces": [{{"id": "ws_old", "name": "old", "cwd": "{cwd}", "tabs": ["tab_old"],
                            "created_at": {t}, "updated_at": {t}}}],
            "tabs": {{"tab_old": {{"id": "tab_old", "workspace_id": "ws_old", "title": "t",
                                   "layout": {{"pane": "pane_old"}}, "created_at": {t}}}}},
            "panes": {{"pane_old": {{"id": "pane_old", "workspace_id": "ws_old", "tab_id": "tab_old",
                                    "title": "old pane", "argv": ["/bin/cat"], "cwd": "{cwd}",
                                    "size": {{"cols": 100, "rows": 30}},
                                    "status": {{"state": "live", "pid": 4242}},
                                    "lifecycle_since": {t}, "created_at": {t}}}}}
        }}}}"#,
        cwd = cwd.display()
    );
    write_snapshot(&root, &text);
    let srv = root.start().await;
    let p = srv.pane("pane_old").await;
    assert_eq!(p.status, pb::PaneStatus::Restored as i32);
    assert_eq!(p.pid, 0);
    assert_eq!((p.cols, p.rows), (100, 30));
    assert_eq!(p.title, "old pane");
    assert_eq!(p.lifecycle, pb::Lifecycle::Unknown as i32);
    assert_eq!(p.attention, pb::Attention::None as i32);
    let ws = srv.get_workspace("ws_old").await;
    let settings = ws.workspace.unwrap().settings.unwrap();
    assert!(!settings.auto_resume_agents && !settings.disable_tails);
    assert!(corrupt_copies(&root).is_empty());
}

#[tokio::test]
async fn a_second_server_on_the_same_state_dir_is_refused() {
    let root = Root::new();
    let srv = root.start().await;
    srv.workspace("mine", &root.path().join("w")).await;
    server_process::wait_file_contains(&root.snapshot(), &["mine"]).await;
    let before = std::fs::read(root.snapshot()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_signaltty-server"))
        .arg("--socket")
        .arg(root.path().join("other-run/s.sock"))
        .arg("--state-dir")
        .arg(root.state())
        .arg("--log-file")
        .arg(root.path().join("other.log"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("uses the state dir"), "{stderr}");
    assert_eq!(std::fs::read(root.snapshot()).unwrap(), before);
    assert!(!root.path().join("other-run/s.sock").exists());
}

/// Issue 14 §4: a version too large for any integer type is "newer", not "corrupt".
#[tokio::test]
async fn a_version_beyond_every_integer_is_newer_and_left_untouched() {
    for version in [
        "18446744073709551616",
        "1e30",
        "1e999",
        "99999999999999999999999999999999",
    ] {
        let root = Root::new();
        let text = format!(r#"{{"version": {version}, "state": {{}}}}"#);
        write_snapshot(&root, &text);
        let out = root.start_refused();
        assert!(!out.status.success(), "{version}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("newer signaltty"), "{version}: {stderr}");
        assert_eq!(std::fs::read_to_string(root.snapshot()).unwrap(), text);
        assert!(
            corrupt_copies(&root).is_empty(),
            "{version}: not quarantined"
        );
    }
}

/// Issue 14 §4: the tails of a corrupt snapshot's panes survive the first save: they are set
/// aside next to the snapshot, not deleted because the (empty) state does not name them.
#[tokio::test]
async fn tails_of_a_corrupt_snapshot_are_set_aside_not_deleted() {
    let root = Root::new();
    write_snapshot(&root, "{\"version\": 1, \"state\": {\"workspa");
    let history = root.state().join("history");
    std::fs::create_dir_all(&history).unwrap();
    let tails = [
        "pane_0b7c3f5e2a9d4e1f8c6b5a4d3e2f1a0b.tail",
        "pane_1c8d4a6f3b0e5f2a9d7c6b5e4f3a2b1c.tail",
    ];
    for t in tails {
        std::fs::write(history.join(t), b"precious output\r\n").unwrap();
    }
    let srv = root.start().await;
    // A first save happens after a change.
    srv.workspace("fresh", &root.path().join("fresh")).await;
    server_process::wait_file_contains(&root.snapshot(), &["fresh"]).await;
    let aside = set_aside(&root, "history.corrupt-");
    assert_eq!(aside.len(), 1, "set aside with the snapshot");
    for t in tails {
        assert_eq!(
            std::fs::read(aside[0].join(t)).unwrap(),
            b"precious output\r\n",
            "{t} kept"
        );
    }
    srv.kill();
}
