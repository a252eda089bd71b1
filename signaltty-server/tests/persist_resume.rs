//! ResumePane with the real server binary: nothing restored runs until asked; a resumed pane
//! keeps its id, title, place and tail; refusals say NOT_RESUMABLE.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod server_process;

use server_process::{Root, next, runs, wait_file_contains};
use signaltty_proto::v1 as pb;

/// Installs `bin/recorder`: appends its arguments to `record.txt`, prints a marker, then echoes
/// input. Returns the record file.
fn recorder(root: &Root) -> std::path::PathBuf {
    let record = root.path().join("record.txt");
    root.script(
        "recorder",
        &format!(
            "#!/bin/sh\nprintf 'run %s\\n' \"$*\" >> '{}'\necho \"recorder-started $*\"\nexec cat\n",
            record.display()
        ),
    );
    record
}

fn reason(status: &tonic::Status) -> String {
    signaltty_proto::error_reason(status).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restored_pane_runs_again_only_when_asked_in_the_same_slot_with_its_tail() {
    let root = Root::new();
    let record = recorder(&root);
    let srv = root.start().await;
    let ws = srv.workspace("w", &root.path().join("w")).await;
    let first = srv.spawn(&ws.id, "", &["/bin/cat"]).await;
    let pane = srv
        .split_with(pb::SplitPaneRequest {
            pane_id: first.id.clone(),
            direction: pb::Direction::Right.into(),
            argv: vec!["recorder".into(), "--flag".into(), "x y".into()],
            title: "my recorder".into(),
            ..Default::default()
        })
        .await;
    wait_file_contains(&root.tail(&pane.id), &["recorder-started --flag x y"]).await;
    wait_file_contains(&root.snapshot(), &[&pane.id]).await;
    assert_eq!(runs(&record), vec!["run --flag x y"]);
    srv.kill();

    let srv = root.start().await;
    let restored = srv.pane(&pane.id).await;
    assert_eq!(restored.status, pb::PaneStatus::Restored as i32);
    assert_eq!(runs(&record).len(), 1, "nothing ran at start");

    // A client attached to the restored pane sees its tail, then follows the resume.
    let (_tx, mut stream, snap) = srv.attach(&pane.id).await;
    assert!(String::from_utf8_lossy(&snap.screen).contains("recorder-started"));
    assert_eq!(snap.title, "my recorder");

    // No agent session: AGENT_SESSION (and the default mode) refuse, and nothing runs.
    for mode in [pb::ResumeMode::AgentSession, pb::ResumeMode::Unspecified] {
        let err = srv.resume(&pane.id, mode).await.unwrap_err();
        assert_eq!(err.code(), tonic::Code::FailedPrecondition, "{err:?}");
        assert_eq!(reason(&err), "NOT_RESUMABLE");
        // It names the command that does it, not a proto enum.
        assert!(
            err.message()
                .contains(&format!("signaltty pane resume {} --respawn", pane.id)),
            "{err:?}"
        );
        assert!(!err.message().contains("RESUME_MODE"), "{err:?}");
    }
    assert_eq!(runs(&record).len(), 1);

    let resumed = srv
        .resume(&pane.id, pb::ResumeMode::RespawnArgv)
        .await
        .unwrap();
    assert_eq!(resumed.status, pb::PaneStatus::Live as i32);
    assert_ne!(resumed.pid, 0);
    assert_eq!(
        (&resumed.id, &resumed.tab_id, &resumed.title, &resumed.argv),
        (&pane.id, &pane.tab_id, &pane.title, &pane.argv)
    );
    wait_file_contains(&record, &["run --flag x y\nrun --flag x y\n"]).await;

    // The attached client is told, repainted, and then gets the new process's output.
    let mut resynced = false;
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains("recorder-started") || !resynced {
        match next(&mut stream).await.kind {
            Some(pb::attach_response::Kind::Resync(_)) => resynced = true,
            Some(pb::attach_response::Kind::Snapshot(s)) if resynced => {
                seen.extend_from_slice(&s.screen)
            }
            Some(pb::attach_response::Kind::Output(o)) if resynced => {
                seen.extend_from_slice(&o.data)
            }
            _ => {}
        }
    }

    // Old tail above, new output below, in the same pane; input reaches the new process.
    srv.until_output(&pane.id, "recorder-started").await;
    srv.write_input(&pane.id, b"typed-after-resume\n")
        .await
        .unwrap();
    srv.until_output(&pane.id, "typed-after-resume").await;
    let text = srv.scrollback(&pane.id).await;
    assert_eq!(
        text.matches("recorder-started --flag x y").count(),
        2,
        "{text}"
    );

    // Its place in the layout is unchanged, and a running pane cannot be resumed.
    let tab = srv.get_workspace(&ws.id).await.tabs.remove(0);
    assert_eq!(tab.pane_ids, vec![first.id.clone(), pane.id.clone()]);
    let err = srv
        .resume(&pane.id, pb::ResumeMode::RespawnArgv)
        .await
        .unwrap_err();
    assert_eq!(reason(&err), "NOT_RESUMABLE");
    // The other restored pane still has no process.
    assert_eq!(
        srv.pane(&first.id).await.status,
        pb::PaneStatus::Restored as i32
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exited_pane_can_be_respawned_in_place() {
    let root = Root::new();
    let srv = root.start().await;
    let ws = srv.workspace("w", &root.path().join("w")).await;
    let pane = srv
        .spawn(&ws.id, "", &["/bin/sh", "-c", "echo said-once; exit 2"])
        .await;
    let (_tx, mut stream, _) = srv.attach(&pane.id).await;
    loop {
        if let Some(pb::attach_response::Kind::Exited(e)) = next(&mut stream).await.kind {
            assert_eq!(e.code, 2);
            break;
        }
    }
    let resumed = srv
        .resume(&pane.id, pb::ResumeMode::RespawnArgv)
        .await
        .unwrap();
    assert_eq!(resumed.status, pb::PaneStatus::Live as i32);
    assert_ne!(resumed.lifecycle, pb::Lifecycle::Exited as i32);
    // The old process's attached client was let go (its stream ends) to re-attach.
    while let Ok(Some(_)) = stream.message().await {}
    let (_tx, mut stream, _) = srv.attach(&pane.id).await;
    let mut exits = 0;
    while exits == 0 {
        if let Some(pb::attach_response::Kind::Exited(_)) = next(&mut stream).await.kind {
            exits += 1;
        }
    }
    let text = srv.scrollback(&pane.id).await;
    assert_eq!(text.matches("said-once").count(), 2, "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_an_unknown_or_live_pane_is_refused_clearly() {
    let root = Root::new();
    let srv = root.start().await;
    let ws = srv.workspace("w", &root.path().join("w")).await;
    let live = srv.spawn(&ws.id, "", &["/bin/cat"]).await;
    let err = srv
        .resume(&live.id, pb::ResumeMode::RespawnArgv)
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::FailedPrecondition);
    assert_eq!(reason(&err), "NOT_RESUMABLE");
    assert!(err.message().contains("running"), "{err:?}");
    let err = srv
        .resume("pane_doesnotexist", pb::ResumeMode::RespawnArgv)
        .await
        .unwrap_err();
    assert_eq!(reason(&err), "NO_SUCH_PANE");
    let err = srv
        .panes()
        .resume_pane(pb::ResumePaneRequest {
            pane_id: live.id.clone(),
            mode: 7,
        })
        .await
        .unwrap_err();
    assert_eq!(reason(&err), "BAD_PARAMS");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_resumes_at_once_start_one_process_and_closing_a_restored_pane_lets_go() {
    let root = Root::new();
    let record = recorder(&root);
    let srv = root.start().await;
    let ws = srv.workspace("w", &root.path().join("w")).await;
    let a = srv.spawn(&ws.id, "", &["recorder", "a"]).await;
    let b = srv.spawn(&ws.id, "", &["recorder", "b"]).await;
    wait_file_contains(&root.tail(&a.id), &["recorder-started a"]).await;
    wait_file_contains(&root.tail(&b.id), &["recorder-started b"]).await;
    // Tails are written just before the snapshot of the same save: wait for the snapshot too.
    wait_file_contains(&root.snapshot(), &[&a.id, &b.id]).await;
    srv.kill();
    std::fs::remove_file(&record).unwrap();

    let srv = root.start().await;
    let (r1, r2) = tokio::join!(
        srv.resume(&a.id, pb::ResumeMode::RespawnArgv),
        srv.resume(&a.id, pb::ResumeMode::RespawnArgv)
    );
    assert!(r1.is_ok() != r2.is_ok(), "exactly one wins: {r1:?} {r2:?}");
    let err = r1.err().or(r2.err()).unwrap();
    assert_eq!(reason(&err), "NOT_RESUMABLE");
    // Wait for the new process itself: its marker is already on screen from the restored
    // tail, so waiting for output would not prove the new process has run yet.
    wait_file_contains(&record, &["run a\n"]).await;
    assert_eq!(runs(&record), vec!["run a"]);

    // Closing a restored pane ends its attached clients and forgets its tail.
    let (_tx, mut stream, _) = srv.attach(&b.id).await;
    srv.panes()
        .close_pane(pb::ClosePaneRequest {
            pane_id: b.id.clone(),
        })
        .await
        .unwrap();
    let end = tokio::time::timeout(server_process::WAIT, stream.message())
        .await
        .expect("the stream ends");
    assert!(matches!(end, Ok(None) | Err(_)), "{end:?}");
    server_process::wait_file_gone(&root.tail(&b.id)).await;
    assert_eq!(runs(&record), vec!["run a"], "b never ran");
}
