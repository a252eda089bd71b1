//! Surviving restarts, with the real server binary: state saved, the server SIGKILLed (or
//! stopped), started again on the same state dir, and everything compared.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod server_process;

use std::os::unix::fs::PermissionsExt;
use std::time::Instant;

use server_process::{RealServer, Root, wait_file, wait_file_contains, wait_file_gone};
use signaltty_proto::v1 as pb;

const SECRET: &str = "s3cr3t-token-value-9f8e7d";

/// A pane that prints a marker and 40 numbered lines, then waits.
const CHATTY: &[&str] = &[
    "/bin/sh",
    "-c",
    "echo tail-marker; i=0; while [ $i -lt 40 ]; do echo line-$i; i=$((i+1)); done; exec cat",
];

/// Every workspace with its tabs and panes, without what belongs to a process instance.
async fn world(srv: &RealServer) -> Vec<pb::GetWorkspaceResponse> {
    let list = srv.list_workspaces().await;
    let mut out = Vec::new();
    for ws in list {
        let mut got = srv.get_workspace(&ws.id).await;
        for p in &mut got.panes {
            p.status = 0;
            p.pid = 0;
            p.output_offset = 0;
            p.last_activity_at = None;
        }
        out.push(got);
    }
    out
}

fn status_of(p: &pb::Pane) -> pb::PaneStatus {
    pb::PaneStatus::try_from(p.status).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_comes_back_after_sigkill_without_running_anything() {
    let root = Root::new();
    let srv = root.start().await;
    let alpha = srv.workspace("alpha", &root.path().join("alpha")).await;
    let beta = srv.workspace("beta", &root.path().join("beta")).await;

    // alpha: a chatty pane split with a second one (ratio moved), and a second tab.
    let chatty = srv
        .spawn_with(pb::SpawnPaneRequest {
            workspace_id: alpha.id.clone(),
            argv: CHATTY.iter().map(|s| s.to_string()).collect(),
            env: [
                ("SECRET_TOKEN".to_string(), SECRET.to_string()),
                (
                    "CLAUDE_CONFIG_DIR".to_string(),
                    "/tmp/claude-cfg".to_string(),
                ),
            ]
            .into(),
            ..Default::default()
        })
        .await;
    let split = srv
        .split_with(pb::SplitPaneRequest {
            pane_id: chatty.id.clone(),
            direction: pb::Direction::Down.into(),
            argv: vec!["/bin/cat".into()],
            ..Default::default()
        })
        .await;
    srv.tabs()
        .set_ratio(pb::SetRatioRequest {
            tab_id: chatty.tab_id.clone(),
            path: vec![],
            ratio: 0.3,
        })
        .await
        .unwrap();
    srv.panes()
        .rename_pane(pb::RenamePaneRequest {
            pane_id: split.id.clone(),
            title: "the split".into(),
        })
        .await
        .unwrap();
    let tab2 = srv
        .tabs()
        .create_tab(pb::CreateTabRequest {
            workspace_id: alpha.id.clone(),
            title: "second".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .tab
        .unwrap();
    let in_tab2 = srv.spawn(&alpha.id, &tab2.id, &["/bin/cat"]).await;
    // beta: a pane whose process exits with 3.
    let exits = srv
        .spawn(&beta.id, "", &["/bin/sh", "-c", "echo bye; exit 3"])
        .await;
    srv.until_output(&chatty.id, "line-39").await;

    // Wait until the files on disk say all of it, then kill without warning.
    wait_file_contains(&root.tail(&chatty.id), &["tail-marker", "line-39"]).await;
    wait_file_contains(&root.tail(&exits.id), &["bye"]).await;
    wait_file(&root.snapshot(), {
        let (split, exits) = (split.id.clone(), exits.id.clone());
        move |c| {
            let v: serde_json::Value = serde_json::from_slice(c?).ok()?;
            let panes = &v["state"]["panes"];
            let ok = panes[&split]["title"] == "the split"
                && panes[&exits]["status"]["code"] == 3
                && v.to_string().contains("0.3");
            ok.then_some(())
        }
    })
    .await;
    let before = world(&srv).await;
    srv.kill();

    let srv = root.start().await;
    let after = world(&srv).await;
    assert_eq!(
        after, before,
        "workspaces, tabs, layouts and panes come back"
    );
    let tab = &after[0].tabs[0];
    let root_node = tab.flat_layout.as_ref().and_then(|l| l.nodes.first());
    let Some(pb::layout_node::Node::Split(root_split)) = root_node.and_then(|n| n.node.as_ref())
    else {
        panic!("the split layout is back: {tab:?}")
    };
    assert!((root_split.ratio - 0.3).abs() < 1e-6);
    assert_eq!(after[0].tabs[1].title, "second");

    // No process runs: plain panes are RESTORED, the exited one EXITED with its code.
    for id in [&chatty.id, &split.id, &in_tab2.id] {
        let p = srv.pane(id).await;
        assert_eq!(status_of(&p), pb::PaneStatus::Restored, "{p:?}");
        assert_eq!(p.pid, 0);
    }
    let gone = srv.pane(&exits.id).await;
    assert_eq!(status_of(&gone), pb::PaneStatus::Exited);
    assert_eq!(gone.exit_code, Some(3));
    // A plain command's non-zero exit is `failed` (agent awareness); it stays so.
    assert_eq!(gone.lifecycle, pb::Lifecycle::Failed as i32);
    assert_error_reason(srv.write_input(&chatty.id, b"x").await, "PANE_EXITED");

    // What the panes last said is shown: ReadPane and an attach snapshot.
    let text = srv.scrollback(&chatty.id).await;
    assert!(
        text.contains("tail-marker") && text.contains("line-39"),
        "{text}"
    );
    let (_tx, _stream, snap) = srv.attach(&chatty.id).await;
    let screen = String::from_utf8_lossy(&snap.screen);
    assert!(screen.contains("line-39"), "{screen}");
    assert_eq!(snap.title, chatty.title);
    assert!(srv.scrollback(&exits.id).await.contains("bye"));

    // The secret never reached the disk; the files are private.
    for file in root.state_files() {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(SECRET),
            "{} holds the secret",
            file.display()
        );
        if file.file_name().unwrap() != "server.log" {
            let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", file.display());
        }
    }
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&root.state()), 0o700);
    assert_eq!(mode(&root.state().join("history")), 0o700);
}

fn assert_error_reason<T: std::fmt::Debug>(r: Result<T, tonic::Status>, reason: &str) {
    let status = r.expect_err("call should fail");
    assert_eq!(
        signaltty_proto::error_reason(&status).as_deref(),
        Some(reason),
        "{status:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_is_on_disk_within_the_debounce_window_and_survives_sigkill() {
    let root = Root::new();
    let srv = root.start().await;
    let ws = srv.workspace("before", &root.path().join("w")).await;
    wait_file_contains(&root.snapshot(), &["before"]).await;

    // A burst of changes: debounced into few writes, the last one on disk promptly.
    let started = Instant::now();
    for n in 0..20 {
        srv.workspaces()
            .rename_workspace(pb::RenameWorkspaceRequest {
                workspace_id: ws.id.clone(),
                name: format!("name-{n}"),
            })
            .await
            .unwrap();
    }
    let writes = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let last: std::sync::Arc<std::sync::Mutex<Option<Vec<u8>>>> = Default::default();
    wait_file(&root.snapshot(), {
        let (writes, last) = (writes.clone(), last.clone());
        move |c| {
            let mut last = last.lock().unwrap();
            if c.map(<[u8]>::to_vec) != *last {
                writes.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                *last = c.map(<[u8]>::to_vec);
            }
            String::from_utf8_lossy(c?)
                .contains("name-19")
                .then_some(())
        }
    })
    .await;
    let took = started.elapsed();
    // The first write of the burst may be immediate, the last one waits out the interval.
    assert!(
        took < signaltty_server::persist::MIN_SAVE_INTERVAL * 3,
        "took {took:?}"
    );
    // At most one write per interval (+1 for the immediate one); each observed distinct content
    // is at least one write.
    let max = 2 + (took.as_secs_f64() / 2.0) as usize;
    let seen = writes.load(std::sync::atomic::Ordering::Relaxed);
    assert!(seen <= max, "{seen} writes in {took:?}");
    srv.kill();

    let srv = root.start().await;
    let got = srv.get_workspace(&ws.id).await;
    assert_eq!(got.workspace.unwrap().name, "name-19");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_saves_at_once_and_live_panes_come_back_restored_not_exited() {
    let root = Root::new();
    let srv = root.start().await;
    let ws = srv.workspace("w", &root.path().join("w")).await;
    let pane = srv.spawn(&ws.id, "", &["/bin/cat"]).await;
    wait_file_contains(&root.snapshot(), &[&pane.id]).await;
    // Inside the debounce window of the previous write: only the shutdown save can have it.
    srv.workspaces()
        .rename_workspace(pb::RenameWorkspaceRequest {
            workspace_id: ws.id.clone(),
            name: "renamed-just-before-sigterm".into(),
        })
        .await
        .unwrap();
    assert!(srv.signal_and_wait(nix::sys::signal::Signal::SIGTERM));
    let log = std::fs::read_to_string(root.log()).unwrap();
    assert!(log.contains("saved the state for the next start"), "{log}");

    let srv = root.start().await;
    let p = srv.pane(&pane.id).await;
    assert_eq!(status_of(&p), pb::PaneStatus::Restored, "{p:?}");
    assert_ne!(p.lifecycle, pb::Lifecycle::Exited as i32);
    let got = srv.get_workspace(&ws.id).await;
    assert_eq!(got.workspace.unwrap().name, "renamed-just-before-sigterm");
    // And the Shutdown RPC saves too.
    srv.workspaces()
        .rename_workspace(pb::RenameWorkspaceRequest {
            workspace_id: ws.id.clone(),
            name: "renamed-before-shutdown".into(),
        })
        .await
        .unwrap();
    assert!(srv.shutdown().await);
    let text = std::fs::read_to_string(root.snapshot()).unwrap();
    assert!(text.contains("renamed-before-shutdown"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disable_tails_deletes_them_and_writes_no_more() {
    let root = Root::new();
    let srv = root.start().await;
    let ws = srv.workspace("w", &root.path().join("w")).await;
    let pane = srv.spawn(&ws.id, "", CHATTY).await;
    wait_file_contains(&root.tail(&pane.id), &["line-39"]).await;
    srv.workspaces()
        .update_workspace_settings(pb::UpdateWorkspaceSettingsRequest {
            workspace_id: ws.id.clone(),
            settings: Some(pb::WorkspaceSettings {
                auto_resume_agents: false,
                disable_tails: true,
                ..Default::default()
            }),
        })
        .await
        .unwrap();
    wait_file_gone(&root.tail(&pane.id)).await;
    // New output is not written either: type into the pane, wait for the echo and a save.
    srv.write_input(&pane.id, b"more-output\n").await.unwrap();
    srv.until_output(&pane.id, "more-output").await;
    srv.workspaces()
        .rename_workspace(pb::RenameWorkspaceRequest {
            workspace_id: ws.id.clone(),
            name: "after-output".into(),
        })
        .await
        .unwrap();
    wait_file_contains(&root.snapshot(), &["after-output"]).await;
    assert!(!root.tail(&pane.id).exists());
    srv.kill();

    let srv = root.start().await;
    let text = srv.scrollback(&pane.id).await;
    assert!(!text.contains("line-"), "no tail after restart: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_pane_removes_its_tail() {
    let root = Root::new();
    let srv = root.start().await;
    let ws = srv.workspace("w", &root.path().join("w")).await;
    let keep = srv.spawn(&ws.id, "", CHATTY).await;
    let close = srv.spawn(&ws.id, "", CHATTY).await;
    wait_file_contains(&root.tail(&close.id), &["line-39"]).await;
    srv.panes()
        .close_pane(pb::ClosePaneRequest {
            pane_id: close.id.clone(),
        })
        .await
        .unwrap();
    wait_file_gone(&root.tail(&close.id)).await;
    wait_file_contains(&root.tail(&keep.id), &["line-39"]).await;
}
