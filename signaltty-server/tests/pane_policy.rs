//! Every mutating RPC against the rule "a client inside a pane may change only its own
//! workspace" (issue 14 §1, `hub/guard.rs`): the real `signaltty` CLI runs inside a real pane and
//! tries each command against another workspace (refused, PERMISSION_DENIED `DENIED_IN_PANE`,
//! nothing changed) and the common ones against its own (allowed). The table in
//! `docs/security.md` names this test for each line.
//!
//! Needs the CLI binary: `cargo build -p signaltty-cli` (or `SIGNALTTY_CLI_BIN`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{TestServer, WAIT, cli_bin, spawn};
use signaltty_proto::v1 as pb;

/// Waits until `path` holds the line `rc=done`; returns its content. The CLI calls run one after
/// another in the pane, each a process of its own: on a loaded machine that takes a while.
async fn finished(path: &Path) -> String {
    let deadline = Instant::now() + WAIT * 6;
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.contains("rc=done")
        {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "{} never finished: {:?}",
            path.display(),
            std::fs::read_to_string(path)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// One line of the table: a name and the CLI's arguments.
type Case = (&'static str, String);

/// `"$S" ARGS > out/NAME 2>&1; echo NAME=$? >> results` for each case.
fn script(cases: &[Case], out: &Path) -> String {
    let o = out.display();
    let mut text = String::new();
    for (name, args) in cases {
        text.push_str(&format!(
            "\"$S\" {args} > {o}/{name} 2>&1 < /dev/null; echo {name}=$? >> {o}/results; "
        ));
    }
    text.push_str(&format!("echo rc=done >> {o}/results"));
    text
}

fn code(results: &str, name: &str) -> Option<i32> {
    results
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}=")))
        .and_then(|c| c.trim().parse().ok())
}

#[tokio::test]
async fn every_mutating_call_from_a_pane_is_confined_to_its_own_workspace() {
    let srv = TestServer::start().await;
    let mine = srv.workspace("mine").await;
    let other = srv.workspace("other").await;
    let neighbour = spawn(&srv, &mine.id, &["sh", "-c", "exec sleep 600"]).await;
    let stranger = spawn(&srv, &other.id, &["sh", "-c", "exec sleep 600"]).await;
    let note = srv
        .notifications()
        .notify(pb::NotifyRequest {
            pane_id: stranger.id.clone(),
            body: "the stranger's news".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .notification
        .unwrap();
    let before = srv.pane(&stranger.id).await;
    let tab_before = srv
        .workspaces()
        .get_workspace(pb::GetWorkspaceRequest {
            workspace_id: other.id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .tabs[0]
        .title
        .clone();
    let (ow, ot, sp) = (&other.id, &before.tab_id, &stranger.id);
    let (mw, np) = (&mine.id, &neighbour.id);
    let mt = srv.pane(np).await.tab_id;
    let out = srv.dir.path().join("policy");
    std::fs::create_dir(&out).unwrap();
    let layout = out.join("layout.json");
    std::fs::write(&layout, format!("{{\"pane\":\"{sp}\"}}")).unwrap();
    let elsewhere = srv.dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();

    // Against the other workspace (or beyond every workspace): each must be refused.
    let refused: Vec<Case> = vec![
        ("spawn", format!("pane spawn {ow} -- sleep 1")),
        ("split", format!("pane split --right {sp} -- sleep 1")),
        ("resize", format!("pane resize {sp} 100x30")),
        ("rename_pane", format!("pane rename {sp} hijacked")),
        ("seen", format!("pane seen {sp}")),
        ("focus_pane", format!("pane focus {sp}")),
        ("move_pane", format!("pane move --new-tab {sp}")),
        ("move_into", format!("pane move --to-tab {ot} {np}")),
        ("resume", format!("pane resume {sp}")),
        ("send", format!("pane send {sp} hello")),
        ("signal", format!("pane signal {sp} INT")),
        ("tab_create", format!("tab create {ow}")),
        ("tab_rename", format!("tab rename {ot} hijacked")),
        (
            "set_layout",
            format!("tab set-layout {ot} --file {}", layout.display()),
        ),
        ("set_ratio", format!("tab set-ratio {ot} 0.3")),
        ("tab_focus", format!("tab focus {ot}")),
        ("tab_move", format!("tab move --index 0 {ot}")),
        ("ws_rename", format!("workspace rename {ow} hijacked")),
        (
            "ws_create",
            format!("workspace create --name new --cwd {}", elsewhere.display()),
        ),
        ("wt_create", format!("worktree create --ws {ow} topic")),
        ("wt_create_own", format!("worktree create --ws {mw} topic")),
        (
            "wt_open",
            format!("worktree open --ws {ow} {}", elsewhere.display()),
        ),
        (
            "wt_remove",
            format!("worktree remove --ws {ow} {}", elsewhere.display()),
        ),
        ("notify", format!("notify --pane {sp} spoofed")),
        ("mark_read", format!("mark-read --id {}", note.id)),
        ("mark_read_pane", format!("mark-read --pane {sp}")),
        ("hooks", "integration install claude".to_owned()),
        ("stop", "server stop --force".to_owned()),
        ("tab_close", format!("tab close {ot}")),
        ("ws_close", format!("workspace close {ow}")),
    ];
    // Within its own workspace: allowed.
    let allowed: Vec<Case> = vec![
        ("own_rename_pane", format!("pane rename {np} renamed")),
        ("own_resize", format!("pane resize {np} 90x20")),
        ("own_tab_rename", format!("tab rename {mt} mine-tab")),
        ("own_ws_rename", format!("workspace rename {mw} mine-too")),
        ("own_tab_create", format!("tab create {mw}")),
        ("own_spawn", format!("pane spawn {mw} -- sleep 30")),
        ("own_notify", "notify for myself".to_owned()),
        ("own_seen", format!("pane seen {np}")),
    ];
    let all: Vec<Case> = refused.iter().chain(&allowed).cloned().collect();
    let full = format!(
        "export S='{}'; {}; exec sleep 600",
        cli_bin().display(),
        script(&all, &out)
    );
    spawn(&srv, mw, &["sh", "-c", &full]).await;
    let results = finished(&out.join("results")).await;
    let log = |name: &str| std::fs::read_to_string(out.join(name)).unwrap_or_default();

    for (name, _) in &refused {
        let said = log(name);
        assert!(
            code(&results, name).is_some_and(|c| c != 0),
            "{name} was not refused: {results}\n{said}"
        );
        assert!(
            said.contains("DENIED_IN_PANE") && said.contains("policy.pane_clients_may_"),
            "{name}: the refusal says why and how to allow it: {said}"
        );
    }
    for (name, _) in &allowed {
        assert_eq!(
            code(&results, name),
            Some(0),
            "{name} within its own workspace: {results}\n{}",
            log(name)
        );
    }

    // Nothing of the other workspace changed, and the server still runs.
    let after = srv.pane(sp).await;
    assert_eq!(after.title, before.title);
    assert_eq!((after.cols, after.rows), (before.cols, before.rows));
    assert_eq!(after.tab_id, before.tab_id);
    assert_eq!(after.status, pb::PaneStatus::Live as i32);
    let got = srv
        .workspaces()
        .get_workspace(pb::GetWorkspaceRequest {
            workspace_id: ow.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(got.workspace.unwrap().name, "other");
    assert_eq!(got.tabs.len(), 1);
    assert_eq!(got.tabs[0].title, tab_before);
    assert_eq!(got.tabs[0].id, *ot);
    assert_eq!(got.panes.len(), 1);
    let listed = srv.list_workspaces().await;
    assert_eq!(listed.len(), 2, "no workspace was opened: {listed:?}");
    let unread = srv
        .notifications()
        .list_notifications(pb::ListNotificationsRequest {
            unread_only: true,
            pane_id: sp.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .notifications;
    assert_eq!(
        unread.len(),
        1,
        "the stranger's notification is unread, alone"
    );
    assert_eq!(unread[0].id, note.id);
    // And what was allowed happened.
    assert_eq!(srv.pane(np).await.title, "renamed");
}
