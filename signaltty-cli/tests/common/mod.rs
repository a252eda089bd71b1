//! Harness for the end-to-end tests: the real `signaltty` binary against the real
//! `signaltty-server` binary, each test in its own temp dir (socket, state dir, HOME).
//!
//! The server binary is not built by this crate's tests. Build it first:
//! `cargo build -p signaltty-server`, or point `SIGNALTTY_SERVER_BIN` at one.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;
use tempfile::TempDir;

/// Longest a single CLI invocation may take before the test kills it and fails.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// Longest a test waits for something it knows will happen (an echo, an exit): generous, as
/// CI's 2 cores run the whole suite at once; a wait that holds returns as soon as it holds.
pub const WAIT: Duration = Duration::from_secs(60);

/// The `signaltty-server` binary: `$SIGNALTTY_SERVER_BIN`, else next to the `signaltty` binary
/// under test, else `target/debug/signaltty-server` of this workspace.
pub fn server_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("SIGNALTTY_SERVER_BIN").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let cli = PathBuf::from(env!("CARGO_BIN_EXE_signaltty"));
    let candidates = [
        cli.with_file_name("signaltty-server"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/debug/signaltty-server"),
    ];
    for candidate in &candidates {
        if candidate.is_file() {
            return candidate.clone();
        }
    }
    panic!(
        "signaltty-server not found (looked at {candidates:?}); build it first with \
         `cargo build -p signaltty-server` or set SIGNALTTY_SERVER_BIN"
    );
}

/// One finished CLI run.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

/// A private server world: temp dir with socket, state dir and HOME. Dropping it stops the
/// server (forcefully) if one runs.
pub struct TestEnv {
    pub dir: TempDir,
    pub socket: PathBuf,
    pub state: PathBuf,
    pub home: PathBuf,
}

impl TestEnv {
    pub fn new() -> TestEnv {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new()
            .prefix("stty")
            .tempdir()
            .expect("tempdir");
        // The server refuses a socket in a directory others can enter.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("chmod 700 the temp dir");
        let socket = dir.path().join("s.sock");
        let state = dir.path().join("state");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).expect("home");
        TestEnv {
            dir,
            socket,
            state,
            home,
        }
    }

    /// A `signaltty --socket <ours> ARGS…` command with a clean, private environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_signaltty"));
        cmd.arg("--socket")
            .arg(&self.socket)
            .args(args)
            .current_dir(self.dir.path())
            .env("SIGNALTTY_SERVER_BIN", server_bin())
            .env("SIGNALTTY_STATE_DIR", &self.state)
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", self.dir.path().join("xdg-state"))
            .env("XDG_CONFIG_HOME", self.dir.path().join("xdg-config"))
            .env("XDG_RUNTIME_DIR", self.dir.path().join("run"))
            .env("SHELL", "/bin/sh")
            // The tests may themselves run inside a signaltty pane.
            .env_remove("SIGNALTTY_SOCKET")
            .env_remove("SIGNALTTY_CONFIG")
            .env_remove("SIGNALTTY_PANE");
        cmd
    }

    /// Runs `signaltty ARGS…` with stdin closed.
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_with_stdin(args, None)
    }

    /// Runs `signaltty ARGS…` feeding `stdin` (or /dev/null).
    pub fn run_with_stdin(&self, args: &[&str], stdin: Option<&[u8]>) -> Run {
        let (run, killed) = self.run_watched(args, stdin);
        assert!(
            !killed,
            "signaltty {args:?} ran longer than {RUN_TIMEOUT:?} and was killed"
        );
        run
    }

    /// Runs under a watchdog; also says whether the watchdog had to kill it.
    fn run_watched(&self, args: &[&str], stdin: Option<&[u8]>) -> (Run, bool) {
        let mut cmd = self.command(args);
        cmd.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn signaltty");
        if let Some(data) = stdin {
            let mut pipe = child.stdin.take().expect("stdin pipe");
            // The command may exit without reading (e.g. on a usage error).
            let _ = pipe.write_all(data);
        }
        let pid = child.id();
        let (done, watchdog) = mpsc::channel::<()>();
        let killer = std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = watchdog.recv_timeout(RUN_TIMEOUT) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid as i32),
                    nix::sys::signal::Signal::SIGKILL,
                );
                return true;
            }
            false
        });
        let output = child.wait_with_output().expect("wait for signaltty");
        drop(done);
        let killed = killer.join().unwrap_or(false);
        let run = Run {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        };
        (run, killed)
    }

    /// Runs and asserts success; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let run = self.run(args);
        assert!(run.success(), "signaltty {args:?} failed: {run:?}");
        run.stdout
    }

    /// Runs with `--json`, asserts success and parses stdout.
    pub fn json(&self, args: &[&str]) -> Value {
        // First, so that it never lands after a `--` among a pane's command words.
        let mut with_json = vec!["--json"];
        with_json.extend_from_slice(args);
        let out = self.ok(&with_json);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: bad JSON ({e}): {out}"))
    }

    /// Runs and asserts the exit code; returns the run.
    pub fn fails(&self, args: &[&str], code: i32) -> Run {
        let run = self.run(args);
        assert_eq!(run.code, Some(code), "signaltty {args:?}: {run:?}");
        run
    }

    /// A fresh workspace on the temp dir; returns its id.
    pub fn workspace(&self, name: &str) -> String {
        let ws = self.json(&[
            "workspace",
            "create",
            "--name",
            name,
            "--cwd",
            &self.dir_str(),
        ]);
        ws["id"].as_str().expect("workspace id").to_string()
    }

    /// A workspace on `cwd`, named after it; returns its id.
    pub fn workspace_at(&self, cwd: &Path) -> String {
        let ws = self.json(&["workspace", "create", "--cwd", cwd.to_str().expect("utf-8")]);
        ws["id"].as_str().expect("workspace id").to_string()
    }

    /// Writes the user config file where this env's CLI and server look for it
    /// (`$XDG_CONFIG_HOME/signaltty/config.toml`); returns its path.
    pub fn write_config(&self, text: &str) -> PathBuf {
        let dir = self.dir.path().join("xdg-config/signaltty");
        std::fs::create_dir_all(&dir).expect("config dir");
        let path = dir.join("config.toml");
        std::fs::write(&path, text).expect("write config");
        path
    }

    /// Writes a config file beside the default one, for a command to name with
    /// `SIGNALTTY_CONFIG` (e.g. one attach with a `[fast_paths]` switch off); returns its path.
    pub fn side_config(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(format!("{name}.toml"));
        std::fs::write(&path, text).expect("write config");
        path
    }

    /// What Claude Code's permission hook runs for `Bash ls` on `pane`, as a child whose stdout
    /// is piped: with `wait`, it holds until the decision is answered (answerable); without, it
    /// reports and exits (the decision is read-only).
    pub fn permission_hook(&self, pane: &str, wait: bool) -> std::process::Child {
        let mut args = vec![
            "hook-event",
            "--agent",
            "claude",
            "--event",
            "PermissionRequest",
            "--pane",
            pane,
        ];
        if wait {
            args.extend_from_slice(&["--wait-for-answer", "--timeout", "60"]);
        }
        let mut hook = self
            .command(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("hook");
        let payload = br#"{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}"#;
        hook.stdin
            .take()
            .expect("stdin")
            .write_all(payload)
            .expect("payload");
        hook
    }

    pub fn dir_str(&self) -> String {
        self.dir
            .path()
            .to_str()
            .expect("UTF-8 temp dir")
            .to_string()
    }
}

impl Drop for TestEnv {
    fn drop(&mut self) {
        // Stop whatever server this test started, even when the test failed.
        if self.socket.exists() {
            let _ = self.run_watched(&["server", "stop", "--force"], None);
        }
    }
}

/// Polls `probe` until it returns `Some`, with a short backoff, failing after `timeout`.
pub fn wait_for<T>(what: &str, timeout: Duration, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + timeout;
    let mut delay = Duration::from_millis(10);
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        std::thread::sleep(delay);
        delay = (delay * 2).min(Duration::from_millis(200));
    }
}

/// A new PTY pair of 80×24 cells: the terminal an attaching CLI is given.
pub fn pty_80x24() -> nix::pty::OpenptyResult {
    let size = nix::pty::Winsize {
        ws_row: 24,
        ws_col: 80,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    nix::pty::openpty(Some(&size), None).expect("openpty")
}
