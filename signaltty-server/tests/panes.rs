//! PaneService with real children in real PTYs: spawn, attach, input, capture, resize, signals,
//! exit, and the layouts that panes make.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use common::{TestServer, WAIT, assert_error, attach, spawn, spawn_sized, stty_size, until_exited};
use signaltty_proto::v1 as pb;
use tonic::Code;

#[tokio::test]
async fn echo_through_cat_via_attach() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let pane = spawn(&srv, &ws.id, &["cat"]).await;
    assert!(pane.id.starts_with("pane_"));
    assert_eq!(pane.status, pb::PaneStatus::Live as i32);
    assert_eq!(pane.title, "cat");
    let (mut client, _) = attach(&srv, &pane.id, 80, 24, false).await;
    client.input(b"hello signaltty\n").await;
    client.until_output("hello signaltty").await;
}

#[tokio::test]
async fn a_late_attacher_repaints_a_full_screen_program_identically() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    // Alternate screen, colours, cursor moves, a title; then wait forever.
    let script = r#"read x; printf '\033]2;full\007\033[?1049h\033[2J\033[3;5H\033[1;31mRED\033[0m\033[10;20H\033[48;5;27mBLUE\033[0m\033[38;2;1;2;3mRGB\033[5;1Hdone'; exec sleep 1000"#;
    let pane = spawn(&srv, &ws.id, &["sh", "-c", script]).await;
    // A first client follows the output until the program has drawn everything.
    let (mut first, _) = attach(&srv, &pane.id, 80, 24, false).await;
    first.input(b"\n").await;
    first.until_output("done").await;
    let expected = {
        let mut p = vt100::Parser::new(nz(24), nz(80), 0);
        p.process(&first.seen);
        p
    };
    let (late, snap) = attach(&srv, &pane.id, 80, 24, false).await;
    assert_eq!(snap.output_offset, first.offset);
    assert_eq!(snap.title, "full");
    let mut replay = vt100::Parser::new(nz(24), nz(80), 0);
    replay.process(&snap.screen);
    assert_eq!(
        replay.screen().contents_formatted(),
        expected.screen().contents_formatted()
    );
    assert_eq!(
        replay.screen().cursor_position(),
        expected.screen().cursor_position()
    );
    assert!(replay.screen().alternate_screen());
    drop(late);
}

#[tokio::test]
async fn two_clients_see_the_same_bytes_and_offsets() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let pane = spawn(&srv, &ws.id, &["cat"]).await;
    let (mut a, sa) = attach(&srv, &pane.id, 80, 24, false).await;
    let (mut b, sb) = attach(&srv, &pane.id, 80, 24, false).await;
    assert_eq!(sa.output_offset, sb.output_offset);
    for n in 0..20 {
        a.input(format!("line {n}\n").as_bytes()).await;
    }
    a.until_output("line 19").await;
    b.until_output("line 19").await;
    let end = a.offset.max(b.offset);
    // Both reach the same end offset with the same bytes.
    while a.offset < end {
        a.until(|k| matches!(k, pb::attach_response::Kind::Output(_)).then_some(()))
            .await;
    }
    while b.offset < end {
        b.until(|k| matches!(k, pb::attach_response::Kind::Output(_)).then_some(()))
            .await;
    }
    assert_eq!(a.seen, b.seen);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_delays_nobody_and_gets_a_resync() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    // Lots of output on demand: each line typed makes the child print ~1 MiB.
    let script =
        r#"while read -r n; do head -c 1048576 /dev/zero | tr '\0' x; echo " END$n"; done"#;
    let pane = spawn(&srv, &ws.id, &["sh", "-c", script]).await;
    let (stalled, _) = attach(&srv, &pane.id, 80, 24, false).await;
    let (mut reader, _) = attach(&srv, &pane.id, 80, 24, false).await;
    for n in 0..12 {
        reader.input(format!("{n}\n").as_bytes()).await;
        reader.until_output(&format!("END{n}")).await;
    }
    // The pane's offset kept advancing (12 MiB) although one client never read.
    let got = srv.pane(&pane.id).await;
    assert!(
        got.output_offset > 12 * 1024 * 1024,
        "offset {}",
        got.output_offset
    );
    // When the stalled client finally reads, it is told to resync and gets a fresh snapshot.
    let mut stalled = stalled;
    let resynced = stalled
        .until(|k| match k {
            pb::attach_response::Kind::Resync(r) => Some(r.reason.clone()),
            _ => None,
        })
        .await;
    assert!(!resynced.is_empty());
    let snap = stalled
        .until(|k| match k {
            pb::attach_response::Kind::Snapshot(s) => Some(s.output_offset),
            _ => None,
        })
        .await;
    assert!(snap > 1024 * 1024);
}

#[tokio::test]
async fn exit_codes_are_kept_on_the_tombstone() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let mut events = srv.subscribe(&[pb::EventKind::Pane]).await;
    for (argv, code) in [
        (vec!["sh", "-c", "exit 3"], 3),
        (vec!["true"], 0),
        (vec!["sh", "-c", "kill -9 $$"], 137),
    ] {
        let pane = spawn(&srv, &ws.id, &argv).await;
        assert_eq!(until_exited(&mut events, &pane.id).await, code);
        let p = srv.pane(&pane.id).await;
        assert_eq!(p.status, pb::PaneStatus::Exited as i32);
        assert_eq!(p.exit_code, Some(code));
        // A plain command follows the generic exit rules: 0 is done, anything else failed.
        let expected = if code == 0 {
            pb::Lifecycle::Done
        } else {
            pb::Lifecycle::Failed
        };
        assert_eq!(p.lifecycle, expected as i32);
        // The screen stays readable after exit.
        srv.panes()
            .read_pane(pb::ReadPaneRequest {
                pane_id: pane.id.clone(),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_error(
            srv.write_input(&pane.id, b"x").await,
            Code::FailedPrecondition,
            "PANE_EXITED",
        );
    }
}

#[tokio::test]
async fn signals_follow_the_allow_list_and_the_group_flag() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let marker = srv.dir_path().join("bg-alive");
    // A shell with a background child in its process group; the child touches a file when it dies.
    let script = format!(
        "(trap '' HUP; trap 'touch {}; exit 0' TERM; echo armed; while :; do sleep 0.2; done) & wait",
        marker.display()
    );
    let pane = spawn(&srv, &ws.id, &["sh", "-c", &script]).await;
    // The job says "armed" once its trap is set, so the signal cannot arrive before it.
    let (mut watch, _) = attach(&srv, &pane.id, 80, 24, true).await;
    watch.until_output("armed").await;
    let mut panes = srv.panes();
    assert_error(
        panes
            .signal_pane(pb::SignalPaneRequest {
                pane_id: pane.id.clone(),
                signal: "STOPME".into(),
                group: false,
            })
            .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    assert_error(
        panes
            .signal_pane(pb::SignalPaneRequest {
                pane_id: pane.id.clone(),
                signal: "SIGSEGV".into(),
                group: false,
            })
            .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    let mut events = srv
        .events()
        .subscribe(pb::SubscribeRequest {
            from_seq: Some(0),
            kinds: vec![pb::EventKind::Pane as i32],
        })
        .await
        .unwrap()
        .into_inner();
    panes
        .signal_pane(pb::SignalPaneRequest {
            pane_id: pane.id.clone(),
            signal: "sigterm".into(),
            group: true,
        })
        .await
        .unwrap();
    until_exited(&mut events, &pane.id).await;
    // The background child got the group's TERM too (it traps it and leaves a mark).
    let deadline = std::time::Instant::now() + WAIT;
    while !marker.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "background job did not receive the group signal"
        );
        tokio::task::yield_now().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_to_a_stuck_pane_times_out_while_another_pane_answers() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    // Raw mode: a full input queue then blocks the writer (canonical mode would discard).
    let stuck = spawn(
        &srv,
        &ws.id,
        &["sh", "-c", "stty raw -echo; echo ready; exec sleep 1000"],
    )
    .await;
    let (mut ready, _) = attach(&srv, &stuck.id, 80, 24, true).await;
    ready.until_output("ready").await;
    let live = spawn(&srv, &ws.id, &["cat"]).await;
    let mut panes = srv.panes();
    let big = vec![b'a'; 1024 * 1024];
    let stuck_id = stuck.id.clone();
    let mut stuck_client = srv.panes();
    let started = std::time::Instant::now();
    let stuck_write = tokio::spawn(async move {
        stuck_client
            .write_input(pb::WriteInputRequest {
                pane_id: stuck_id,
                data: big,
                timeout_ms: 1500,
            })
            .await
    });
    // Meanwhile the other pane echoes.
    let (mut client, _) = attach(&srv, &live.id, 80, 24, false).await;
    client.input(b"still here\n").await;
    client.until_output("still here").await;
    let status = stuck_write
        .await
        .unwrap()
        .expect_err("stuck write must time out");
    assert_eq!(status.code(), Code::DeadlineExceeded);
    assert_eq!(
        signaltty_proto::error_reason(&status).as_deref(),
        Some("TIMEOUT")
    );
    assert!(
        status.message().contains("bytes were written"),
        "{}",
        status.message()
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(10));

    // Oversize input is refused and nothing is written.
    assert_error(
        panes
            .write_input(pb::WriteInputRequest {
                pane_id: live.id.clone(),
                data: vec![b'z'; 1024 * 1024 + 1],
                timeout_ms: 0,
            })
            .await,
        Code::ResourceExhausted,
        "INPUT_TOO_LARGE",
    );
    client.input(b"after\n").await;
    client.until_output("after").await;
    assert!(!String::from_utf8_lossy(&client.seen).contains('z'));
}

fn rand_tag() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(1);
    N.fetch_add(1, Ordering::Relaxed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resize_reaches_the_child_and_the_smallest_client_wins() {
    // `window_size = "smallest"`; the default (`latest`) is tested in window_size.rs.
    let srv =
        TestServer::start_with(|c| c.window_size = signaltty_config::WindowSize::Smallest).await;
    let ws = srv.workspace("w").await;
    let pane = spawn_sized(&srv, &ws.id, &["sh"], 100, 30).await;
    assert_eq!(
        stty_size(&srv, &pane.id, &rand_tag().to_string()).await,
        "30 100"
    );
    let resized = srv
        .panes()
        .resize_pane(pb::ResizePaneRequest {
            pane_id: pane.id.clone(),
            cols: 1000,
            rows: 2,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!((resized.cols, resized.rows), (500, 5), "clamped");
    assert_eq!(
        stty_size(&srv, &pane.id, &rand_tag().to_string()).await,
        "5 500"
    );

    let (big, _) = attach(&srv, &pane.id, 120, 40, false).await;
    let (small, _) = attach(&srv, &pane.id, 90, 50, false).await;
    // Smallest of each dimension: 90 cols, 40 rows. A read-only client does not count.
    let (_watcher, _) = attach(&srv, &pane.id, 20, 5, true).await;
    assert_eq!(
        stty_size(&srv, &pane.id, &rand_tag().to_string()).await,
        "40 90"
    );
    drop(small);
    // The remaining client's size applies once the small one left.
    let mut big = big;
    big.until(|k| match k {
        pb::attach_response::Kind::Resized(r) if r.cols == 120 => Some(()),
        _ => None,
    })
    .await;
    assert_eq!(
        stty_size(&srv, &pane.id, &rand_tag().to_string()).await,
        "40 120"
    );
    big.resize(100, 20).await;
    big.until(|k| match k {
        pb::attach_response::Kind::Resized(r) if r.cols == 100 => Some(()),
        _ => None,
    })
    .await;
    drop(big);
    // With no client the last size is kept.
    assert_eq!(
        stty_size(&srv, &pane.id, &rand_tag().to_string()).await,
        "20 100"
    );
}

#[tokio::test]
async fn read_only_clients_cannot_type() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let pane = spawn(&srv, &ws.id, &["cat"]).await;
    let (watcher, _) = attach(&srv, &pane.id, 80, 24, true).await;
    watcher.input(b"from-watcher\n").await;
    let (mut typer, _) = attach(&srv, &pane.id, 80, 24, false).await;
    typer.input(b"from-typer\n").await;
    typer.until_output("from-typer").await;
    assert!(!String::from_utf8_lossy(&typer.seen).contains("from-watcher"));
}

#[tokio::test]
async fn capture_screen_and_scrollback_with_and_without_ansi() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let pane = spawn(
        &srv,
        &ws.id,
        &[
            "sh",
            "-c",
            "seq 1 500; printf '\\033[31mred\\033[0m\\n'; exec sleep 1000",
        ],
    )
    .await;
    let (mut c, _) = attach(&srv, &pane.id, 80, 24, true).await;
    c.until_output("red").await;
    let read = |mode, lines, keep_ansi| srv.read(&pane.id, mode, lines, keep_ansi);
    let screen = read(pb::ReadMode::Screen, 0, false).await;
    assert!(screen.iter().any(|l| l == "red"));
    assert!(screen.len() <= 24);
    let all = read(pb::ReadMode::Scrollback, 0, false).await;
    assert_eq!(all.first().map(String::as_str), Some("1"));
    assert!(all.iter().any(|l| l == "500"));
    let last = read(pb::ReadMode::Scrollback, 3, false).await;
    assert_eq!(last.len(), 3);
    let ansi = read(pb::ReadMode::Screen, 0, true).await;
    assert!(
        ansi.iter()
            .any(|l| l.contains("\u{1b}[") && l.contains("red"))
    );
}

/// A history larger than is rendered inline (it goes to the blocking pool) comes back whole, in
/// order, with and without its colours.
#[tokio::test]
async fn a_long_scrollback_is_captured_whole() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let script = r#"seq -f '%060g' 1 3000; printf '\033[32mEND\033[0m\n'; exec sleep 1000"#;
    let pane = spawn(&srv, &ws.id, &["sh", "-c", script]).await;
    let (mut c, _) = attach(&srv, &pane.id, 80, 24, true).await;
    c.until_output("END").await;
    let read = |lines, keep_ansi| srv.read(&pane.id, pb::ReadMode::Scrollback, lines, keep_ansi);
    let number = |line: &str| line.trim_start_matches('0').parse::<u32>().ok();
    let all = read(0, false).await;
    // 3000 numbers, END, and the empty row the cursor is on.
    assert_eq!(all.len(), 3002);
    assert!(
        all[..3000]
            .iter()
            .map(|l| number(l))
            .eq((1..=3000).map(Some))
    );
    assert_eq!(&all[3000..], ["END", ""]);
    let last = read(2000, false).await;
    assert_eq!(last.len(), 2000);
    assert_eq!(number(&last[0]), Some(1003));
    let styled = read(0, true).await;
    assert_eq!(styled.len(), 3002);
    assert!(styled[3000].contains("\u{1b}[") && styled[3000].contains("END"));
}

#[tokio::test]
async fn a_spawn_that_fails_leaves_no_pane_and_no_tab() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let mut panes = srv.panes();
    assert_error(
        panes
            .spawn_pane(pb::SpawnPaneRequest {
                workspace_id: ws.id.clone(),
                argv: vec!["/definitely/not/a/program".into()],
                ..Default::default()
            })
            .await,
        Code::FailedPrecondition,
        "SPAWN_FAILED",
    );
    let file = srv.dir_path().join("f");
    std::fs::write(&file, "").unwrap();
    assert_error(
        panes
            .spawn_pane(pb::SpawnPaneRequest {
                workspace_id: ws.id.clone(),
                argv: vec!["true".into()],
                cwd: file.display().to_string(),
                ..Default::default()
            })
            .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    assert_error(
        panes
            .spawn_pane(pb::SpawnPaneRequest {
                workspace_id: "ws_nope".into(),
                ..Default::default()
            })
            .await,
        Code::NotFound,
        "NO_SUCH_WORKSPACE",
    );
    let got = srv.get_workspace(&ws.id).await;
    assert!(got.tabs.is_empty() && got.panes.is_empty());
}

#[tokio::test]
async fn the_child_environment_names_its_pane_and_socket() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let pane = srv
        .spawn_with(pb::SpawnPaneRequest {
            workspace_id: ws.id.clone(),
            argv: vec!["sh".into(), "-c".into(), "echo P=$SIGNALTTY_PANE S=$SIGNALTTY_SOCKET T=$TERM L=${LD_PRELOAD:-none} END; exec sleep 1000".into()],
            env: [("LD_PRELOAD".to_string(), "/evil.so".to_string())].into(),
            ..Default::default()
        })
        .await;
    let (mut c, _) = attach(&srv, &pane.id, 80, 24, true).await;
    // The line may arrive in the attach snapshot (a repaint, without newlines) or as output.
    c.until_output(" END").await;
    let text = String::from_utf8_lossy(&c.seen);
    assert!(text.contains(&format!("P={}", pane.id)), "{text}");
    assert!(
        text.contains(&format!("S={}", srv.socket().display())),
        "{text}"
    );
    assert!(text.contains("T=xterm-256color"), "{text}");
    assert!(text.contains("L=none"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_pane_hangs_up_even_a_child_that_ignores_sighup() {
    let srv =
        TestServer::start_with(|c| c.hangup_grace = std::time::Duration::from_millis(300)).await;
    let ws = srv.workspace("w").await;
    let pane = spawn(
        &srv,
        &ws.id,
        &["sh", "-c", "trap '' HUP; echo ready; exec sleep 1000"],
    )
    .await;
    let (mut c, _) = attach(&srv, &pane.id, 80, 24, true).await;
    c.until_output("ready").await;
    let pid = pane.pid as i32;
    srv.panes()
        .close_pane(pb::ClosePaneRequest {
            pane_id: pane.id.clone(),
        })
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + WAIT;
    // The process disappears (killed after the grace period).
    while std::path::Path::new(&format!("/proc/{pid}/stat")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(") Z")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "child survived the close"
        );
        tokio::task::yield_now().await;
    }
}

fn nz(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).expect("non-zero")
}

#[tokio::test]
async fn the_pane_cwd_follows_the_process() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let pane = spawn(&srv, &ws.id, &["sh"]).await;
    let target = srv.dir_path().join("elsewhere");
    std::fs::create_dir_all(&target).unwrap();
    let (mut c, _) = attach(&srv, &pane.id, 80, 24, false).await;
    c.input(format!("cd {} && echo MOVED-$((40+2))\n", target.display()).as_bytes())
        .await;
    // The shell prints the marker only after the cd ran.
    c.until_output("MOVED-42").await;
    let got = srv.pane(&pane.id).await;
    assert_eq!(
        got.cwd,
        std::fs::canonicalize(&target)
            .unwrap()
            .display()
            .to_string()
    );
}

/// A program that asks its terminal where the cursor is and what it is gets answers from the
/// pane itself, with no client attached (tmux does the same; before, such a program hung until
/// someone attached).
#[tokio::test]
async fn queries_are_answered_by_the_pane_with_no_client_attached() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let mut events = srv.subscribe(&[pb::EventKind::Pane]).await;
    // Each `dd` reads exactly one answer's bytes; a missing answer leaves it waiting and the
    // exit never comes.
    let script = r#"stty raw -echo
printf '\033[4;7H\033[6n'; cpr=$(dd bs=1 count=6 2>/dev/null)
printf '\033[c'; da=$(dd bs=1 count=9 2>/dev/null)
printf '\033[H\033[2J'; printf '%s|%s' "$cpr" "$da" | tr '\033' E"#;
    let pane = spawn(&srv, &ws.id, &["sh", "-c", script]).await;
    assert_eq!(until_exited(&mut events, &pane.id).await, 0);
    let screen = srv.read(&pane.id, pb::ReadMode::Screen, 0, false).await;
    assert_eq!(screen.first().map(String::as_str), Some("E[4;7R|E[?62;22c"));
}
