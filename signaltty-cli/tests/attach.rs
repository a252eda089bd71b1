//! End to end: `signaltty attach` inside a real pseudo-terminal. The terminal must come back
//! exactly as it was after a detach key, a SIGTERM, or the server going away.
//! Needs `cargo build -p signaltty-server` first (see tests/common).

mod common;

use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::process::{Child, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use common::{TestEnv, WAIT};
use nix::pty::OpenptyResult;
use nix::sys::termios::{LocalFlags, tcgetattr};

/// Output of the terminal's master side, collected by a reader thread.
#[derive(Clone, Default)]
struct Screen(Arc<(Mutex<Vec<u8>>, Condvar)>);

impl Screen {
    fn follow(master: OwnedFd) -> Screen {
        let screen = Screen::default();
        let feed = screen.clone();
        std::thread::spawn(move || {
            let mut master = std::fs::File::from(master);
            let mut buf = [0u8; 4096];
            // EIO once every slave is closed: the end of the terminal's life.
            while let Ok(n) = master.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let (data, changed) = &*feed.0;
                data.lock()
                    .expect("screen lock")
                    .extend_from_slice(&buf[..n]);
                changed.notify_all();
            }
        });
        screen
    }

    /// Waits until the output contains `needle` `times` times.
    fn wait_for(&self, needle: &str, times: usize, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let (data, changed) = &*self.0;
        let mut data = data.lock().expect("screen lock");
        loop {
            let text = String::from_utf8_lossy(&data);
            if text.matches(needle).count() >= times {
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "timed out waiting for {needle:?} x{times} in {text:?}"
            );
            data = changed.wait_timeout(data, left).expect("screen lock").0;
        }
    }
}

struct Attached {
    child: Child,
    master_writer: std::fs::File,
    slave: OwnedFd,
    screen: Screen,
}

fn attach(env: &TestEnv, pane: &str) -> Attached {
    attach_with(env, &["attach", pane])
}

fn attach_with(env: &TestEnv, args: &[&str]) -> Attached {
    attach_env(env, args, &[])
}

fn attach_env(env: &TestEnv, args: &[&str], vars: &[(&str, &str)]) -> Attached {
    let OpenptyResult { master, slave } = common::pty_80x24();
    let slave_io = |fd: &OwnedFd| Stdio::from(fd.try_clone().expect("dup slave"));
    let child = env
        .command(args)
        .envs(vars.iter().copied())
        .stdin(slave_io(&slave))
        .stdout(slave_io(&slave))
        .stderr(slave_io(&slave))
        .spawn()
        .expect("spawn attach");
    let master_writer = std::fs::File::from(master.try_clone().expect("dup master"));
    Attached {
        child,
        master_writer,
        slave,
        screen: Screen::follow(master),
    }
}

impl Attached {
    /// Types the detach key; the attach exits 0, says so, and the terminal is cooked again.
    fn detach(mut self) {
        self.master_writer.write_all(&[0x1c]).expect("detach key");
        assert_eq!(wait_exit(&mut self.child, WAIT), Some(0));
        self.screen.wait_for("[detached]", 1, WAIT);
        assert!(cooked(&self.slave), "the terminal is back in cooked mode");
    }
}

fn cooked(fd: impl AsFd) -> bool {
    let flags = tcgetattr(fd).expect("tcgetattr").local_flags;
    flags.contains(LocalFlags::ICANON) && flags.contains(LocalFlags::ECHO)
}

fn wait_exit(child: &mut Child, timeout: Duration) -> Option<i32> {
    let deadline = Instant::now() + timeout;
    let mut delay = Duration::from_millis(5);
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status.code();
        }
        assert!(Instant::now() < deadline, "attach did not exit");
        std::thread::sleep(delay);
        delay = (delay * 2).min(Duration::from_millis(100));
    }
}

fn cat_pane(env: &TestEnv) -> String {
    let ws = env.workspace("attach");
    let spawned = env.json(&["pane", "spawn", &ws, "--", "cat"]);
    spawned["pane"]["id"].as_str().expect("pane id").to_string()
}

#[test]
fn typing_reaches_the_pane_and_the_detach_key_restores_the_terminal() {
    let env = TestEnv::new();
    let pane = cat_pane(&env);
    let mut a = attach(&env, &pane);
    assert!(cooked(&a.slave), "a fresh pty starts cooked");
    a.master_writer.write_all(b"ping\r").expect("type");
    // The pane's terminal echoes "ping", then cat prints it again.
    a.screen.wait_for("ping", 2, WAIT);
    a.master_writer.write_all(&[0x1c]).expect("detach key");
    assert_eq!(wait_exit(&mut a.child, WAIT), Some(0));
    a.screen.wait_for("[detached]", 1, WAIT);
    assert!(cooked(&a.slave), "the terminal is back in cooked mode");
    let pane_state = env.json(&["pane", "get", &pane]);
    assert_eq!(
        pane_state["status"], "live",
        "detaching never stops the process"
    );
}

/// The server took the terminal: it reads the keys and writes the echo itself, so the pane
/// answers even while the `signaltty attach` process is stopped.
#[test]
fn the_server_serves_a_handed_over_terminal_while_the_client_is_stopped() {
    let env = TestEnv::new();
    let pane = cat_pane(&env);
    let mut a = attach(&env, &pane);
    a.master_writer.write_all(b"first\r").expect("type");
    a.screen.wait_for("first", 2, WAIT);
    let pid = nix::unistd::Pid::from_raw(a.child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGSTOP).expect("stop");
    a.master_writer.write_all(b"while-stopped\r").expect("type");
    a.screen.wait_for("while-stopped", 2, WAIT);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGCONT).expect("continue");
    a.detach();
}

/// Without the hand-off (`[fast_paths] attach_handoff = false`, or a server that does not offer
/// it) the attach goes over gRPC with the same behaviour.
#[test]
fn over_grpc_typing_reaches_the_pane_and_the_detach_key_restores_the_terminal() {
    let env = TestEnv::new();
    let pane = cat_pane(&env);
    let config = env.side_config("grpc", "[fast_paths]\nattach_handoff = false\n");
    let mut a = attach_env(
        &env,
        &["attach", &pane],
        &[("SIGNALTTY_CONFIG", config.to_str().expect("utf-8"))],
    );
    a.master_writer.write_all(b"grpc-ping\r").expect("type");
    a.screen.wait_for("grpc-ping", 2, WAIT);
    a.detach();
}

#[test]
fn sigterm_restores_the_terminal() {
    let env = TestEnv::new();
    let pane = cat_pane(&env);
    let mut a = attach(&env, &pane);
    a.master_writer.write_all(b"plugh\r").expect("type");
    a.screen.wait_for("plugh", 2, WAIT);
    assert!(!cooked(&a.slave), "raw while attached");
    let pid = nix::unistd::Pid::from_raw(a.child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("kill");
    assert_eq!(wait_exit(&mut a.child, WAIT), Some(1));
    assert!(cooked(&a.slave), "the terminal is restored after SIGTERM");
}

#[test]
fn losing_the_server_restores_the_terminal_and_exits_3() {
    let env = TestEnv::new();
    let pane = cat_pane(&env);
    let mut a = attach(&env, &pane);
    a.master_writer.write_all(b"xyzzy\r").expect("type");
    a.screen.wait_for("xyzzy", 2, WAIT);
    env.ok(&["server", "stop", "--force"]);
    // The hung-up pane may report its exit (0) before the stream ends (3): both end the attach.
    let code = wait_exit(&mut a.child, WAIT);
    assert!(matches!(code, Some(0 | 3)), "exit code {code:?}");
    assert!(
        cooked(&a.slave),
        "the terminal is restored when the server goes away"
    );
}

#[test]
fn attach_takes_a_short_id_and_without_one_reattaches_to_the_last_pane() {
    let env = TestEnv::new();
    let pane = cat_pane(&env);
    let short = &pane["pane_".len().."pane_".len() + 6];
    let mut a = attach_with(&env, &["attach", short]);
    a.master_writer.write_all(b"first\r").expect("type");
    a.screen.wait_for("first", 2, WAIT);
    a.master_writer.write_all(&[0x1c]).expect("detach key");
    assert_eq!(wait_exit(&mut a.child, WAIT), Some(0));
    // The detach says which pane and how to come back.
    a.screen.wait_for(
        &format!("[detached] {pane} keeps running; come back with: signaltty attach"),
        1,
        WAIT,
    );
    // Another pane used meanwhile does not change what `attach` alone comes back to.
    let ws = env.workspace("other");
    env.json(&["pane", "spawn", &ws, "--", "sleep", "600"]);
    let mut b = attach_with(&env, &["attach"]);
    b.master_writer.write_all(b"second\r").expect("type");
    b.screen.wait_for("second", 2, WAIT);
    b.master_writer.write_all(&[0x1c]).expect("detach key");
    assert_eq!(wait_exit(&mut b.child, WAIT), Some(0));
    b.screen.wait_for(&format!("[detached] {pane}"), 1, WAIT);
}

/// A pane restored after a restart has no process: `signaltty attach` says so on the screen and
/// names the command that starts it; a key typed meanwhile is answered with the notice again,
/// not dropped in silence; after `pane resume --respawn` it runs again.
#[test]
fn attaching_to_a_restored_pane_says_so_and_names_the_resume_command() {
    let env = TestEnv::new();
    let pane = cat_pane(&env);
    env.ok(&["server", "stop", "--force"]);
    // The next command starts a server on the same state: the pane comes back without a process.
    let restored = env.json(&["pane", "get", &pane]);
    assert_eq!(restored["status"], "restored", "{restored}");

    let hint = format!("signaltty pane resume {pane} --respawn");
    // Nothing attached yet: `attach` alone takes the last pane used (the one `pane get` named).
    let mut a = attach_with(&env, &["attach"]);
    a.screen.wait_for("not running since a restart", 1, WAIT);
    a.screen.wait_for(&hint, 1, WAIT);
    a.master_writer.write_all(b"x").expect("type");
    a.screen.wait_for(&hint, 2, WAIT);
    a.master_writer.write_all(&[0x1c]).expect("detach key");
    assert_eq!(wait_exit(&mut a.child, WAIT), Some(0));
    assert!(cooked(&a.slave), "the terminal is restored");

    let resumed = env.json(&["pane", "resume", &pane, "--respawn"]);
    assert_eq!(resumed["status"], "live", "{resumed}");
    let mut b = attach(&env, &pane);
    b.master_writer.write_all(b"back-again\r").expect("type");
    b.screen.wait_for("back-again", 2, WAIT);
    b.master_writer.write_all(&[0x1c]).expect("detach key");
    assert_eq!(wait_exit(&mut b.child, WAIT), Some(0));
}

/// Once the server has the terminal the CLI's gRPC connection is closed: with
/// `max_connections = 2` the hand-off is one connection and another client still fits (an idle
/// connection kept open for the attach's life would leave no room).
#[test]
fn a_handed_over_attach_keeps_no_idle_grpc_connection() {
    let env = TestEnv::new();
    env.write_config(
        "[server]\nmax_connections = 2\nkeepalive_interval_secs = 30\nkeepalive_timeout_secs = 10\n\
         [fast_paths]\nreport_handoff_refusal = true\n",
    );
    // Starts the server (the file is read at its start); the auto-start's probe may still be
    // counted for a moment, so the first call is retried.
    common::wait_for("the first call under the cap", common::RUN_TIMEOUT, || {
        env.run(&["workspace", "list"]).success().then_some(())
    });
    let pane = cat_pane(&env);
    // (A hand-off refused, e.g. while the last call's connection was still counted, would say
    // so on the screen.)
    let mut a = attach(&env, &pane);
    a.master_writer.write_all(b"handed\r").expect("type");
    a.screen.wait_for("handed", 2, WAIT);
    // The hand-off holds one connection; a call from another client fits beside it (the
    // server sees the attach's gRPC connection close shortly after `go`).
    common::wait_for("room beside the attach", common::RUN_TIMEOUT, || {
        env.run(&["workspace", "list"]).success().then_some(())
    });
    a.detach();
}
