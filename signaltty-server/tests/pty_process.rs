//! Process-wide properties of `pane::pty` that other tests running in the same process would
//! disturb, so they live in their own test binary and take turns: a failed spawn leaves no
//! descriptor and no child behind, and idle panes never wake up and hold no threads.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use signaltty_server::model::ids::PaneId;
use signaltty_server::pane::pty::{Pty, PtyEvent, PtyEvents};
use signaltty_server::pane::spawn::{SpawnError, SpawnSpec};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn spec(argv: &[&str]) -> SpawnSpec {
    SpawnSpec::new(
        argv.iter().map(|s| s.to_string()).collect(),
        std::env::temp_dir(),
    )
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

fn my_children() -> String {
    std::fs::read_to_string("/proc/thread-self/children").unwrap()
}

#[test]
fn failed_spawns_leave_nothing_behind() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    runtime().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let not_executable = dir.path().join("script");
        std::fs::write(&not_executable, "#!/bin/sh\n").unwrap();
        let fds = open_fds();
        assert_eq!(my_children(), "");
        for argv in [
            vec!["/nonexistent/program"],
            vec!["signaltty-no-such-program-in-path"],
            vec![not_executable.to_str().unwrap()],
        ] {
            let err = Pty::spawn(PaneId::new(), Path::new("/s"), &spec(&argv)).unwrap_err();
            assert!(matches!(err, SpawnError::Exec { .. }), "{err:?}");
            // std reaped the failed child before returning; no zombie is listed.
            assert_eq!(my_children(), "", "{argv:?}");
            assert_eq!(open_fds(), fds, "{argv:?} leaked a descriptor");
        }
    });
}

/// Voluntary + involuntary context switches of every thread whose name starts with `prefix`.
fn switches(prefix: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let Ok(status) = std::fs::read_to_string(task.path().join("status")) else {
            continue;
        };
        let value = |key: &str| -> u64 {
            status
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim().parse().unwrap())
                .unwrap_or(0)
        };
        let name = status
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches("Name:\t");
        if name.starts_with(prefix) {
            let tid = task.file_name().to_string_lossy().into_owned();
            let n = value("voluntary_ctxt_switches:") + value("nonvoluntary_ctxt_switches:");
            out.insert(format!("{name}/{tid}"), n);
        }
    }
    out
}

async fn until_output(rx: &mut PtyEvents, needle: &str) {
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !text.contains(needle) {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(PtyEvent::Output { bytes })) => text.push_str(&String::from_utf8_lossy(&bytes)),
            other => panic!("waiting for {needle:?}: {other:?}, saw {text:?}"),
        }
    }
}

#[test]
fn idle_panes_never_wake_up() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // Named workers, so their wake-ups can be counted; the test itself runs on the
    // `block_on` thread, which is not one of them.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("idle-worker")
        .enable_all()
        .build()
        .unwrap();
    let threads_before = std::fs::read_dir("/proc/self/task").unwrap().count();
    runtime.block_on(async {
        let mut panes = Vec::new();
        for argv in [
            &["cat"][..],
            &["sleep", "1000"],
            &["sh", "-c", "echo up; read x"],
        ] {
            panes.push(Pty::spawn(PaneId::new(), Path::new("/s"), &spec(argv)).unwrap());
        }
        // Some traffic first, so every task has run and gone back to sleep.
        let (cat, cat_rx) = &mut panes[0];
        cat.write_input(b"warm\n", Instant::now() + Duration::from_secs(10))
            .await
            .unwrap();
        until_output(cat_rx, "warm\r\nwarm\r\n").await;
        until_output(&mut panes[2].1, "up").await;

        // Measuring, not synchronising: give the workers a moment to park, then watch them
        // while this thread blocks (no timer of ours runs in the window).
        std::thread::sleep(Duration::from_millis(200));
        let before = switches("idle-worker");
        std::thread::sleep(Duration::from_millis(1000));
        let after = switches("idle-worker");
        assert_eq!(before.len(), 2, "the runtime's workers: {before:?}");
        assert_eq!(before, after, "the runtime woke up for idle panes");
        // Panes hold no threads of their own: only the runtime's were added.
        let threads = std::fs::read_dir("/proc/self/task").unwrap().count();
        assert!(
            threads <= threads_before + 2,
            "{threads} threads with 3 panes, {threads_before} before the runtime"
        );
        for (pty, _) in &panes {
            pty.hangup(Duration::from_secs(2)).await;
        }
    });
}
