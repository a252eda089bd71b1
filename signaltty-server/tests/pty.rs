//! Real children on real pseudo-terminals through `pane::pty`. Every wait is on output or exit
//! with a timeout (a process we cannot wait for, a grandchild, is polled in /proc with a timeout);
//! nothing sleeps to synchronise.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use std::path::Path;
use std::time::{Duration, Instant};

use signaltty_server::model::ids::PaneId;
use signaltty_server::pane::pty::{
    ExitStatus, HangupOutcome, MAX_INPUT_BYTES, Pty, PtyError, PtyEvent, PtyEvents, WriteError,
};
use signaltty_server::pane::signal::{PaneSignal, SignalScope};
use signaltty_server::pane::spawn::{PtySize, SpawnError, SpawnSpec};

const WAIT: Duration = Duration::from_secs(10);

fn spec(argv: &[&str]) -> SpawnSpec {
    SpawnSpec::new(
        argv.iter().map(|s| s.to_string()).collect(),
        std::env::temp_dir(),
    )
}

fn sh(script: &str) -> SpawnSpec {
    spec(&["sh", "-c", script])
}

fn spawn(spec: &SpawnSpec) -> (Pty, PtyEvents) {
    Pty::spawn(PaneId::new(), Path::new("/run/test.sock"), spec).expect("spawn")
}

/// Output and exit collected from a pane's events.
#[derive(Default)]
struct Seen {
    out: Vec<u8>,
    exit: Option<ExitStatus>,
    closed: bool,
}

impl Seen {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.out).into_owned()
    }
}

/// Feeds events into `seen` until `done` holds; panics with what was seen on timeout.
async fn until(rx: &mut PtyEvents, seen: &mut Seen, done: impl Fn(&Seen) -> bool) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !done(seen) {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(PtyEvent::Output { bytes })) => {
                assert!(seen.exit.is_none() || seen.closed, "output after exit");
                seen.out.extend_from_slice(&bytes);
            }
            Ok(Some(PtyEvent::Exited { status })) => {
                assert!(seen.exit.is_none(), "Exited twice");
                seen.exit = Some(status);
            }
            Ok(None) => {
                seen.closed = true;
                assert!(done(seen), "channel closed first; saw {:?}", seen.text());
                return;
            }
            Err(_) => panic!("timed out; saw {:?} exit {:?}", seen.text(), seen.exit),
        }
    }
}

async fn until_text(rx: &mut PtyEvents, seen: &mut Seen, needle: &str) {
    until(rx, seen, |s| s.text().contains(needle)).await;
}

/// Everything until the channel closes.
async fn to_end(rx: &mut PtyEvents) -> Seen {
    let mut seen = Seen::default();
    until(rx, &mut seen, |s| s.closed).await;
    seen
}

fn soon() -> Instant {
    Instant::now() + WAIT
}

fn alive(pid: i32) -> bool {
    // A zombie has exited; only its parent's wait is missing.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits for a process we do not own (so cannot wait for) to die, by probing /proc.
async fn until_dead(pid: i32) {
    let deadline = Instant::now() + WAIT;
    while alive(pid) {
        assert!(Instant::now() < deadline, "pid {pid} still alive");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn field(text: &str, key: &str) -> String {
    text.lines()
        .find_map(|l| l.trim_end_matches('\r').strip_prefix(key))
        .unwrap_or_else(|| panic!("no {key} in {text:?}"))
        .to_owned()
}

#[tokio::test]
async fn echo_through_cat() {
    let (pty, mut rx) = spawn(&spec(&["cat"]));
    assert_eq!(pty.write_input(b"hello pty\n", soon()).await.unwrap(), 10);
    let mut seen = Seen::default();
    // Once echoed by the line discipline, once printed by cat.
    until(&mut rx, &mut seen, |s| {
        s.text().matches("hello pty\r\n").count() == 2
    })
    .await;
    pty.signal(PaneSignal::Term, SignalScope::Child).unwrap();
    assert_eq!(pty.wait_exit().await, ExitStatus::Signaled { signal: 15 });
}

#[tokio::test]
async fn stty_size_follows_spawn_size_and_resize() {
    let mut s = sh("stty size; read x; stty size; read x; stty size");
    (s.cols, s.rows) = (100, 30);
    let (pty, mut rx) = spawn(&s);
    assert_eq!(
        pty.size(),
        PtySize {
            cols: 100,
            rows: 30
        }
    );
    let mut seen = Seen::default();
    until_text(&mut rx, &mut seen, "30 100").await;

    assert_eq!(
        pty.resize(120, 40).unwrap(),
        PtySize {
            cols: 120,
            rows: 40
        }
    );
    pty.write_input(b"\n", soon()).await.unwrap();
    until_text(&mut rx, &mut seen, "40 120").await;

    // Out of range sizes are clamped, not refused.
    assert_eq!(
        pty.resize(1, 999).unwrap(),
        PtySize {
            cols: 20,
            rows: 200
        }
    );
    pty.write_input(b"\n", soon()).await.unwrap();
    until(&mut rx, &mut seen, |s| s.closed).await;
    assert!(seen.text().contains("200 20"), "{}", seen.text());
    assert_eq!(seen.exit, Some(ExitStatus::Exited { code: 0 }));
}

#[tokio::test]
async fn spawn_size_is_clamped() {
    let mut s = sh("stty size");
    (s.cols, s.rows) = (3, 3);
    let (pty, mut rx) = spawn(&s);
    assert_eq!(pty.size(), PtySize { cols: 20, rows: 5 });
    assert!(to_end(&mut rx).await.text().contains("5 20"));
}

#[tokio::test]
async fn child_runs_on_its_own_pts_as_session_leader() {
    let (pty, mut rx) = spawn(&sh("tty; ps -o pid=,sid=,tpgid= -p $$"));
    let seen = to_end(&mut rx).await;
    let text = seen.text();
    let tty = text.lines().next().unwrap().trim_end();
    assert!(tty.starts_with("/dev/pts/"), "{text:?}");
    assert_eq!(Path::new(tty), pty.tty());
    // pid == sid (setsid) and the terminal's foreground group is the child's (TIOCSCTTY).
    let ids: Vec<&str> = text.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(ids, vec![pty.pid().to_string(); 3], "{text:?}");
}

#[tokio::test]
async fn environment_has_ours_and_not_the_injected() {
    let mut s = sh(
        "echo P=$SIGNALTTY_PANE; echo S=$SIGNALTTY_SOCKET; echo T=$TERM; \
         echo L=${LD_PRELOAD-unset}; echo F=$FOO; pwd",
    );
    s.env = vec![
        ("LD_PRELOAD".into(), "/nonexistent/evil.so".into()),
        ("FOO".into(), "bar baz".into()),
        ("SIGNALTTY_PANE".into(), "pane_spoofed".into()),
    ];
    let dir = tempfile::tempdir().unwrap();
    s.cwd = dir.path().canonicalize().unwrap();
    let pane = PaneId::new();
    let (_pty, mut rx) = Pty::spawn(pane.clone(), Path::new("/run/x.sock"), &s).unwrap();
    let text = to_end(&mut rx).await.text();
    assert_eq!(field(&text, "P="), pane.as_str());
    assert_eq!(field(&text, "S="), "/run/x.sock");
    assert_eq!(field(&text, "T="), "xterm-256color");
    assert_eq!(field(&text, "L="), "unset");
    assert_eq!(field(&text, "F="), "bar baz");
    assert!(text.contains(s.cwd.to_str().unwrap()), "{text:?}");
}

#[tokio::test]
async fn exit_codes_are_reported_once_after_all_output() {
    for (script, status) in [
        ("exit 0", ExitStatus::Exited { code: 0 }),
        ("exit 3", ExitStatus::Exited { code: 3 }),
        ("kill -KILL $$", ExitStatus::Signaled { signal: 9 }),
    ] {
        let (pty, mut rx) = spawn(&sh(script));
        let seen = to_end(&mut rx).await;
        assert_eq!(seen.exit, Some(status), "{script}");
        assert_eq!(pty.exit_status(), Some(status));
        assert_eq!(pty.wait_exit().await, status);
    }
    assert_eq!(ExitStatus::Signaled { signal: 9 }.code(), 137);

    // The last bytes before exit arrive before Exited (`until` asserts no output follows it).
    let (_pty, mut rx) = spawn(&sh(
        "head -c 300000 /dev/zero | tr '\\0' x; printf END; exit 7",
    ));
    let seen = to_end(&mut rx).await;
    assert_eq!(seen.exit, Some(ExitStatus::Exited { code: 7 }));
    assert_eq!(seen.out.iter().filter(|&&b| b == b'x').count(), 300_000);
    assert!(seen.text().ends_with("END"));
}

#[tokio::test]
async fn exit_is_reported_while_a_survivor_holds_the_terminal() {
    // The background sleep ignores SIGHUP, so it outlives the shell (the kernel hangs up the
    // foreground group when the session leader exits) and keeps the slave open: no EOF comes,
    // and Exited must come anyway.
    let (pty, mut rx) = spawn(&sh("trap '' HUP; sleep 1000 & echo bg=$!; exit 5"));
    let mut seen = Seen::default();
    until(&mut rx, &mut seen, |s| s.exit.is_some()).await;
    assert_eq!(seen.exit, Some(ExitStatus::Exited { code: 5 }));
    assert!(!seen.closed);
    let bg: i32 = field(&seen.text(), "bg=").parse().unwrap();
    assert!(alive(bg));
    assert!(matches!(
        pty.signal(PaneSignal::Term, SignalScope::Child),
        Err(PtyError::Exited)
    ));
    // Hangup still reaches the survivor through the group (SIGKILL after the grace, since it
    // ignores SIGHUP), and the channel then closes.
    let outcome = pty.hangup(Duration::from_millis(300)).await;
    assert_eq!(
        outcome,
        HangupOutcome::Exited {
            status: ExitStatus::Exited { code: 5 }
        }
    );
    until(&mut rx, &mut seen, |s| s.closed).await;
    until_dead(bg).await;
}

#[tokio::test]
async fn spawn_failures_are_clear() {
    let err = Pty::spawn(
        PaneId::new(),
        Path::new("/s"),
        &spec(&["/nonexistent/signaltty-no-such-program"]),
    )
    .unwrap_err();
    match &err {
        SpawnError::Exec { source, .. } => {
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound)
        }
        other => panic!("{other:?}"),
    }
    assert!(
        err.to_string().contains("signaltty-no-such-program"),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("not-executable");
    std::fs::write(&script, "#!/bin/sh\n").unwrap();
    let err = Pty::spawn(
        PaneId::new(),
        Path::new("/s"),
        &spec(&[script.to_str().unwrap()]),
    )
    .unwrap_err();
    assert!(
        matches!(&err, SpawnError::Exec { source, .. } if source.kind() == std::io::ErrorKind::PermissionDenied),
        "{err:?}"
    );

    let mut s = spec(&["sh"]);
    s.cwd = dir.path().join("missing");
    let err = Pty::spawn(PaneId::new(), Path::new("/s"), &s).unwrap_err();
    assert!(matches!(err, SpawnError::Cwd { .. }), "{err:?}");
    assert!(matches!(
        Pty::spawn(PaneId::new(), Path::new("/s"), &spec(&[])),
        Err(SpawnError::EmptyArgv)
    ));
}

#[tokio::test]
async fn a_child_that_never_reads_times_out_without_stalling_other_panes() {
    let (stuck, mut stuck_rx) = spawn(&spec(&["sleep", "1000"]));
    let (cat, mut cat_rx) = spawn(&spec(&["cat"]));
    // Drain the stuck pane's echo so only its input side is full.
    let drain = tokio::spawn(async move { to_end(&mut stuck_rx).await });

    let too_big = vec![b'x'; 4 * MAX_INPUT_BYTES];
    assert!(matches!(
        stuck.write_input(&too_big, soon()).await,
        Err(WriteError::TooLarge { .. })
    ));

    let line = [b"y".repeat(79), b"\n".to_vec()].concat();
    let input = line.repeat(MAX_INPUT_BYTES / line.len());
    let started = Instant::now();
    let deadline = started + Duration::from_millis(1500);
    let stuck_write = {
        let stuck = stuck.clone();
        tokio::spawn(async move { stuck.write_input(&input, deadline).await })
    };
    // Meanwhile another pane answers at once.
    cat.write_input(b"ping\n", soon()).await.unwrap();
    let mut seen = Seen::default();
    until_text(&mut cat_rx, &mut seen, "ping\r\nping\r\n").await;
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "cat waited for the stuck pane"
    );
    assert!(!stuck_write.is_finished());

    let result = stuck_write.await.unwrap();
    let elapsed = started.elapsed();
    match result {
        Err(WriteError::Timeout { written }) => {
            assert!(written > 0 && written < MAX_INPUT_BYTES, "{written}");
        }
        other => panic!("{other:?}"),
    }
    assert!(elapsed >= Duration::from_millis(1500) && elapsed < Duration::from_secs(5));

    stuck.hangup(Duration::from_secs(2)).await;
    cat.hangup(Duration::from_secs(2)).await;
    assert!(drain.await.unwrap().exit.is_some());
}

#[tokio::test]
async fn a_flood_arrives_whole_and_in_order_before_the_exit() {
    // Megabytes as fast as the child can write: read in bursts off the reactor and back.
    let lines = 300_000;
    let (_pty, mut rx) = spawn(&sh(&format!("seq 1 {lines}; exit 7")));
    let seen = to_end(&mut rx).await;
    assert_eq!(seen.exit.map(|e| e.code()), Some(7));
    let text = seen.text();
    let numbers: Vec<u64> = text
        .split("\r\n")
        .filter(|l| !l.is_empty())
        .map(|l| l.parse().unwrap_or_else(|_| panic!("not a number: {l:?}")))
        .collect();
    assert_eq!(numbers.len(), lines);
    assert!(
        numbers.iter().zip(1..).all(|(n, i)| *n == i),
        "out of order"
    );
}

/// Waits for a process to be stopped (state `T` in /proc).
async fn until_stopped(pid: i32) {
    let deadline = Instant::now() + WAIT;
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('T'))
        {
            return;
        }
        assert!(Instant::now() < deadline, "pid {pid} never stopped");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_write_into_a_full_terminal_waits_for_the_child_and_completes() {
    // The shell stops itself before anything reads the terminal, so the input fills it.
    let (pty, mut rx) = spawn(&sh("stty -echo; kill -STOP $$; wc -l"));
    let pid = i32::try_from(pty.pid()).unwrap();
    until_stopped(pid).await;
    let line = [b"y".repeat(79), b"\n".to_vec()].concat();
    let lines = 4096;
    let input = line.repeat(lines);
    let now = pty.write_input_now(&input);
    assert!(
        now > 0 && now < input.len(),
        "{now}: the terminal took everything"
    );

    let rest = input[now..].to_vec();
    let write = {
        let pty = pty.clone();
        tokio::spawn(async move { pty.write_input(&rest, soon()).await })
    };
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGCONT,
    )
    .unwrap();
    assert_eq!(write.await.unwrap().unwrap(), input.len() - now);
    // End of file for `wc`: everything written arrived, in whole lines.
    pty.write_input(b"\x04", soon()).await.unwrap();
    let mut seen = Seen::default();
    until(&mut rx, &mut seen, |s| s.exit.is_some()).await;
    assert_eq!(seen.text().trim(), lines.to_string());
}

#[tokio::test]
async fn group_signal_reaches_background_children() {
    // The job ignores SIGHUP: otherwise the kernel's hangup of the foreground group, when the
    // shell (session leader) exits, would kill it too.
    // (It inherits the ignored disposition at fork, so there is no window.)
    let script = "trap '' HUP; sleep 1000 & trap - HUP; echo bg=$!; wait";
    // Child scope: the shell dies, its background job survives.
    let (pty, mut rx) = spawn(&sh(script));
    let mut seen = Seen::default();
    until_text(&mut rx, &mut seen, "bg=").await;
    let bg: i32 = field(&seen.text(), "bg=").parse().unwrap();
    pty.signal(PaneSignal::Term, SignalScope::Child).unwrap();
    assert_eq!(pty.wait_exit().await, ExitStatus::Signaled { signal: 15 });
    assert!(alive(bg));
    // The group still exists through the survivor, so a group signal reaches it.
    pty.signal(PaneSignal::Kill, SignalScope::Group).unwrap();
    until_dead(bg).await;
    until(&mut rx, &mut seen, |s| s.closed).await;

    // Group scope: both die.
    let (pty, mut rx) = spawn(&sh(script));
    let mut seen = Seen::default();
    until_text(&mut rx, &mut seen, "bg=").await;
    let bg: i32 = field(&seen.text(), "bg=").parse().unwrap();
    pty.signal(PaneSignal::Term, SignalScope::Group).unwrap();
    assert_eq!(pty.wait_exit().await, ExitStatus::Signaled { signal: 15 });
    until_dead(bg).await;
    until(&mut rx, &mut seen, |s| s.closed).await;
    assert!(matches!(
        pty.signal(PaneSignal::Term, SignalScope::Child),
        Err(PtyError::Exited)
    ));
}

#[tokio::test]
async fn foreground_signal_goes_to_the_foreground_job() {
    let (pty, mut rx) = spawn(&sh(
        "trap 'echo caught' INT; echo ready; read x; echo after",
    ));
    let mut seen = Seen::default();
    until_text(&mut rx, &mut seen, "ready").await;
    assert_eq!(pty.foreground_process_group(), Some(pty.pid()));
    pty.signal(PaneSignal::Int, SignalScope::Foreground)
        .unwrap();
    pty.write_input(b"\n", soon()).await.unwrap();
    until(&mut rx, &mut seen, |s| s.closed).await;
    assert!(seen.text().contains("caught"), "{}", seen.text());
    assert_eq!(seen.exit, Some(ExitStatus::Exited { code: 0 }));
}

#[tokio::test]
async fn hangup_kills_a_child_that_ignores_sighup_after_the_grace() {
    let (pty, mut rx) = spawn(&sh("trap '' HUP; echo ready; sleep 1000"));
    let mut seen = Seen::default();
    until_text(&mut rx, &mut seen, "ready").await;
    let grace = Duration::from_millis(300);
    let started = Instant::now();
    let outcome = pty.hangup(grace).await;
    let elapsed = started.elapsed();
    assert_eq!(
        outcome,
        HangupOutcome::Killed {
            status: ExitStatus::Signaled { signal: 9 }
        }
    );
    assert!(
        elapsed >= grace && elapsed < Duration::from_secs(5),
        "{elapsed:?}"
    );
    until(&mut rx, &mut seen, |s| s.closed).await;
    assert_eq!(seen.exit, Some(ExitStatus::Signaled { signal: 9 }));
}

#[tokio::test]
async fn hangup_of_an_ordinary_child_is_prompt_and_closes_everything() {
    let (pty, mut rx) = spawn(&spec(&["cat"]));
    let started = Instant::now();
    let outcome = pty.hangup(Duration::from_secs(10)).await;
    assert_eq!(
        outcome,
        HangupOutcome::Exited {
            status: ExitStatus::Signaled { signal: 1 }
        }
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(to_end(&mut rx).await.exit.is_some());
    assert!(matches!(
        pty.write_input(b"x", soon()).await,
        Err(WriteError::Exited | WriteError::Closed)
    ));
    assert!(matches!(pty.resize(80, 24), Err(PtyError::Closed)));
    assert!(matches!(pty.cwd(), Err(PtyError::Exited)));
}

#[tokio::test]
async fn cwd_and_pid_come_from_the_child() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = sh("read x; cd sub && echo moved && read x");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    s.cwd = dir.path().to_path_buf();
    let (pty, mut rx) = spawn(&s);
    assert_eq!(pty.cwd().unwrap(), dir.path().canonicalize().unwrap());
    pty.write_input(b"\n", soon()).await.unwrap();
    let mut seen = Seen::default();
    until_text(&mut rx, &mut seen, "moved").await;
    assert_eq!(
        pty.cwd().unwrap(),
        dir.path().join("sub").canonicalize().unwrap()
    );
    assert!(alive(pty.pid() as i32));
    pty.write_input(b"\n", soon()).await.unwrap();
    assert_eq!(pty.wait_exit().await, ExitStatus::Exited { code: 0 });
    assert!(matches!(
        pty.write_input(b"late\n", soon()).await,
        Err(WriteError::Exited)
    ));
}

#[tokio::test]
async fn a_dropped_consumer_does_not_leave_a_zombie() {
    let (pty, rx) = spawn(&sh("yes"));
    drop(rx);
    pty.signal(PaneSignal::Kill, SignalScope::Group).unwrap();
    assert_eq!(pty.wait_exit().await, ExitStatus::Signaled { signal: 9 });
    assert!(!Path::new(&format!("/proc/{}", pty.pid())).exists());
}
