//! End to end: `signaltty attach` on a terminal that reads slower than the pane prints skips to
//! a fresh screen instead of writing every byte, and still ends on the pane's exact screen.
//! The "slow terminal" is this test's reader of the pseudo-terminal's master side: it reads a
//! little, then pauses on a timer before reading again. Needs `cargo build -p signaltty-server`
//! first (see tests/common).

mod common;

use std::io::{Read, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use common::TestEnv;
use nix::pty::OpenptyResult;

/// The pane prints this many lines of `seq` (about 15 MB).
const LINES: u32 = 2_000_000;

/// Everything the slow terminal has read so far.
#[derive(Clone, Default)]
struct Received(Arc<(Mutex<Vec<u8>>, Condvar)>);

impl Received {
    /// Waits until `done` holds for the bytes read so far, re-checked at every read.
    fn wait_until(&self, what: &str, timeout: Duration, mut done: impl FnMut(&[u8]) -> bool) {
        let deadline = Instant::now() + timeout;
        let (data, changed) = &*self.0;
        let mut data = data.lock().expect("lock");
        while !done(&data) {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "timed out waiting for {what}; the terminal shows:\n{}",
                screen_of(&data)
            );
            data = changed.wait_timeout(data, left).expect("lock").0;
        }
    }

    fn len(&self) -> usize {
        self.0.0.lock().expect("lock").len()
    }
}

/// The visible screen `bytes` draw on an 80×24 terminal, as `pane read` prints it.
fn screen_of(bytes: &[u8]) -> String {
    let mut screen = signaltty_term::Screen::new(80, 24);
    screen.feed(bytes);
    normalise(&screen.contents(false))
}

fn normalise(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    lines.join("\n").trim_end().to_owned()
}

/// The server writes the terminal itself (the hand-off, the default).
#[test]
fn a_slow_terminal_gets_fresh_screens_not_every_byte_and_ends_on_the_exact_screen() {
    slow_terminal(true);
}

/// The CLI writes the terminal (attach over gRPC, `[fast_paths] attach_handoff = false`).
#[test]
fn over_grpc_a_slow_terminal_gets_fresh_screens_and_ends_on_the_exact_screen() {
    slow_terminal(false);
}

fn slow_terminal(handoff: bool) {
    let env = TestEnv::new();
    let ws = env.workspace("slow");
    let script = format!(
        "printf READY; read x; seq 1 {LINES}; printf 'FINISHED-%s\\n' ok; exec sleep 100000"
    );
    let spawned = env.json(&["pane", "spawn", &ws, "--", "sh", "-c", &script]);
    let pane = spawned["pane"]["id"].as_str().expect("pane id").to_string();

    let OpenptyResult { master, slave } = common::pty_80x24();
    let slave_io = || Stdio::from(slave.try_clone().expect("dup slave"));
    let config = env.side_config(
        "handoff",
        &format!("[fast_paths]\nattach_handoff = {handoff}\n"),
    );
    let mut child = env
        .command(&["attach", &pane])
        .env("SIGNALTTY_CONFIG", config)
        .stdin(slave_io())
        .stdout(slave_io())
        .stderr(slave_io())
        .spawn()
        .expect("spawn attach");
    let mut keyboard = std::fs::File::from(master.try_clone().expect("dup master"));

    // The slow terminal: 1 KiB at a time, then a 2 ms pause (about 500 KB/s at best).
    let received = Received::default();
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    let reader = {
        let received = received.clone();
        std::thread::spawn(move || {
            let mut master = std::fs::File::from(master);
            let mut buf = [0u8; 1024];
            // The pause: a timer (the channel only says when to stop).
            while let Err(mpsc::RecvTimeoutError::Timeout) =
                stop_rx.recv_timeout(Duration::from_millis(2))
            {
                let n = match master.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let (data, changed) = &*received.0;
                data.lock().expect("lock").extend_from_slice(&buf[..n]);
                changed.notify_all();
            }
        })
    };

    received.wait_until("the first screen", Duration::from_secs(60), |b| {
        String::from_utf8_lossy(b).contains("READY")
    });
    keyboard.write_all(b"\n").expect("type");

    // The pane's own screen once it finished printing.
    let expected = common::wait_for("the pane to finish", Duration::from_secs(180), || {
        let text = env.ok(&["pane", "read", &pane]);
        text.contains("FINISHED-ok").then(|| normalise(&text))
    });
    assert!(expected.contains(&LINES.to_string()), "{expected}");

    // The terminal ends on exactly that screen.
    received.wait_until(
        "the terminal to show the pane's final screen",
        Duration::from_secs(120),
        |bytes| screen_of(bytes) == expected,
    );
    let produced = spawned_output_bytes(&env, &pane);
    let written = received.len() as u64;
    eprintln!("pane produced {produced} bytes; the terminal read {written}");
    assert!(
        produced > 14_000_000,
        "the pane printed everything: {produced}"
    );
    assert!(
        written * 10 < produced,
        "the client skipped most of the output: wrote {written} of {produced} bytes"
    );

    // Still attached and live: typing reaches the pane (sleep ignores it; the detach key ends).
    keyboard.write_all(&[0x1c]).expect("detach key");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("try_wait").is_none() {
        assert!(Instant::now() < deadline, "attach did not detach");
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = stop_tx.send(());
    drop(keyboard);
    drop(slave);
    let _ = reader.join();
}

/// The pane's output offset: every byte its program wrote.
fn spawned_output_bytes(env: &TestEnv, pane: &str) -> u64 {
    let pane = env.json(&["pane", "get", pane]);
    pane["output_offset"]
        .as_u64()
        .or_else(|| pane["pane"]["output_offset"].as_u64())
        .unwrap_or_else(|| panic!("no output_offset in {pane}"))
}
