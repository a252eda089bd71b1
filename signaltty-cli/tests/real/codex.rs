//! The real Codex in signaltty panes: a private signaltty server (`common::TestEnv`), a fake
//! Responses API, and a `CODEX_HOME` (`$HOME/.codex` of the test's home) whose `config.toml`
//! points Codex at the fake model, trusts the project folder and turns hooks on; signaltty's hooks
//! are installed with `signaltty integration install codex`, as a user would. The TUI is driven
//! through `pane send` as a user types: text first, Enter once the text is on the screen.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{TestEnv, wait_for};
use crate::real::responses::{FakeResponses, Reply, Seen};

/// Longest a step may take: a state change is expected within this (Codex runs hooks at once,
/// but CI's two cores are shared with the rest of the suite).
pub const STEP: Duration = Duration::from_secs(30);

/// Whether signaltty holds Codex's permission hook for an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    Yes,
    No,
}

/// One Codex world.
pub struct CodexWorld {
    pub env: TestEnv,
    pub model: FakeResponses,
    pub codex: PathBuf,
    pub codex_home: PathBuf,
    pub project: PathBuf,
    pub ws: String,
}

impl CodexWorld {
    /// A world whose model follows `script`; `None` when the pinned Codex cannot be installed
    /// (npm unreachable: the caller returns, the skip was announced).
    pub fn new(script: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Option<CodexWorld> {
        Self::build(script, Hold::Yes)
    }

    /// A world where signaltty does not hold Codex's permission hook: Codex asks in its own
    /// dialog at once (signaltty's default).
    pub fn without_hold(
        script: impl Fn(&Seen) -> Reply + Send + Sync + 'static,
    ) -> Option<CodexWorld> {
        Self::build(script, Hold::No)
    }

    fn build(
        script: impl Fn(&Seen) -> Reply + Send + Sync + 'static,
        hold: Hold,
    ) -> Option<CodexWorld> {
        let codex = super::npm_codex::codex()?;
        let env = TestEnv::new();
        if hold == Hold::Yes {
            // Codex awaits its PermissionRequest hook before its own dialog: let signaltty hold
            // it, so that the decision can be answered from signaltty.
            env.write_config("[agents.codex]\nwait_for_answer = true\n");
        }
        let model = FakeResponses::start(script);
        let project = env.dir.path().join("proj");
        std::fs::create_dir_all(&project).expect("project dir");
        let project = project.canonicalize().expect("canonical project");
        let codex_home = env.home.join(".codex");
        std::fs::create_dir_all(&codex_home).expect("CODEX_HOME");
        let world = CodexWorld {
            ws: env.workspace_at(&project),
            env,
            model,
            codex,
            codex_home,
            project,
        };
        world.write_config();
        let installed = world.env.json(&["integration", "install", "codex"]);
        assert!(installed.to_string().contains("hooks.json"), "{installed}");
        Some(world)
    }

    fn write_config(&self) {
        let config = format!(
            r#"model = "fake-model"
model_provider = "fake"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "{base}"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[features]
hooks = true

# Offline: nothing leaves the machine but requests to the fake model on loopback.
[analytics]
enabled = false

[tui]
screen_reader_detection_done = true

[projects."{project}"]
trust_level = "trusted"
"#,
            base = self.model.base_url(),
            project = self.project.display()
        );
        std::fs::write(self.codex_home.join("config.toml"), config).expect("config.toml");
    }

    /// Starts the Codex TUI in a new pane of the world's workspace, in `cwd`; returns the pane
    /// id once Codex is ready for a prompt (trusting the new hooks in its review dialog when it
    /// asks, as a user does).
    pub fn spawn_codex(&self, cwd: &Path) -> String {
        let pane = self.start_codex(cwd);
        self.until_ready(&pane);
        pane
    }

    /// Starts the Codex TUI in a new pane of the world's workspace, in `cwd`, and returns at
    /// once with the pane id.
    pub fn start_codex(&self, cwd: &Path) -> String {
        let spawned = self.env.json(&[
            "pane",
            "spawn",
            &self.ws,
            "--cwd",
            cwd.to_str().expect("utf-8"),
            "--",
            self.codex.to_str().expect("utf-8"),
        ]);
        spawned["pane"]["id"].as_str().expect("pane id").to_owned()
    }

    /// Takes a Codex just started in `pane` to its prompt, trusting the new hooks in its review
    /// dialog when it asks, as a user does.
    pub fn until_ready(&self, pane: &str) {
        let pane = pane.to_owned();
        if !self.hooks_trusted() {
            // Codex shows its composer first and the review a moment later: wait for the review.
            wait_for("Codex's hook review", STEP, || {
                self.screen(&pane)
                    .contains("Hooks need review")
                    .then_some(())
            });
            // Move to "2. Trust all and continue"; a key the dialog was not ready for is sent
            // again (at most twice a second), and an overshoot is walked back.
            let mut last_key = Instant::now() - Duration::from_secs(1);
            wait_for("\"Trust all and continue\" selected", STEP, || {
                let screen = self.screen(&pane);
                if screen.contains("› 2. Trust all") {
                    return Some(());
                }
                if last_key.elapsed() >= Duration::from_millis(500) {
                    if screen.contains("› 1.") {
                        self.keys(&pane, b"\x1b[B");
                    } else if screen.contains("› 3.") {
                        self.keys(&pane, b"\x1b[A");
                    }
                    last_key = Instant::now();
                }
                None
            });
            self.keys(&pane, b"\r");
            let mut last_key = Instant::now();
            wait_for("the trust saved", STEP, || {
                if self.hooks_trusted() {
                    return Some(());
                }
                if last_key.elapsed() >= Duration::from_millis(500)
                    && self.screen(&pane).contains("› 2. Trust all")
                {
                    self.keys(&pane, b"\r");
                    last_key = Instant::now();
                }
                None
            });
        }
        wait_for("Codex's prompt", STEP, || {
            let screen = self.screen(&pane);
            (screen.contains("Ask Codex") && !screen.contains("Hooks need review")).then_some(())
        });
    }

    /// Whether Codex has saved its trust in our hooks (`[hooks.state]` in `config.toml`).
    pub fn hooks_trusted(&self) -> bool {
        std::fs::read_to_string(self.codex_home.join("config.toml"))
            .is_ok_and(|c| c.contains("trusted_hash"))
    }

    /// The pane's screen as text.
    pub fn screen(&self, pane: &str) -> String {
        let read = self.env.json(&["pane", "read", pane]);
        read["lines"]
            .as_array()
            .map(|lines| {
                lines
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    }

    /// Writes raw key bytes to the pane.
    pub fn keys(&self, pane: &str, bytes: &[u8]) {
        let run = self
            .env
            .run_with_stdin(&["pane", "send", pane, "--stdin"], Some(bytes));
        assert!(run.success(), "pane send: {run:?}");
    }

    /// Types `prompt` into Codex's composer and submits it: the text, then Enter on its own once
    /// the text shows (text and Enter in one write is a paste to Codex).
    pub fn prompt(&self, pane: &str, prompt: &str) {
        self.keys(pane, prompt.as_bytes());
        wait_for("the prompt in Codex's composer", STEP, || {
            self.screen(pane).contains(prompt).then_some(())
        });
        self.keys(pane, b"\r");
    }

    /// The pane as `pane get --json` shows it.
    pub fn pane(&self, pane: &str) -> Value {
        self.env.json(&["pane", "get", pane])
    }

    /// Waits until the pane satisfies `what`; returns it and how long that took from `since`.
    pub fn until(
        &self,
        pane: &str,
        label: &str,
        since: Instant,
        what: impl Fn(&Value) -> bool,
    ) -> (Value, Duration) {
        let deadline = Instant::now() + STEP;
        let got = loop {
            let p = self.pane(pane);
            if what(&p) {
                break p;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {label}: the pane is {p}\nits screen:\n{}\ndecisions: {:?}",
                self.screen(pane),
                self.decisions()
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let took = since.elapsed();
        eprintln!("[timing] {label}: {took:?}");
        (got, took)
    }

    /// Every pending decision.
    pub fn decisions(&self) -> Vec<Value> {
        self.env
            .json(&["decision", "list"])
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Answers decision `id` with `option` (`once` or `deny`).
    pub fn answer(&self, id: &str, option: &str) {
        self.env.ok(&["decision", "answer", id, option]);
    }
}

impl CodexWorld {
    /// The pids of the Codex app-server daemons of this world's `CODEX_HOME`.
    pub fn daemons(&self) -> Vec<i32> {
        self.own_processes()
            .into_iter()
            .filter(|(_, argv)| {
                argv.iter().any(|a| a == "app-server")
                    && argv.iter().any(|a| a == "--managed-daemon")
            })
            .map(|(pid, _)| pid)
            .collect()
    }

    /// Every process whose program lies under this world's `CODEX_HOME`, with its argv.
    fn own_processes(&self) -> Vec<(i32, Vec<String>)> {
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        let home = self.codex_home.to_string_lossy().into_owned();
        dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter_map(|pid| {
                let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
                let argv: Vec<String> = raw
                    .split(|b| *b == 0)
                    .filter(|a| !a.is_empty())
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect();
                argv.first()?.starts_with(&home).then_some((pid, argv))
            })
            .collect()
    }
}

impl Drop for CodexWorld {
    /// Ends the Codex daemon of this world's `CODEX_HOME` (it leaves its pane's session and
    /// would outlive the test): every process whose program lies under that directory.
    fn drop(&mut self) {
        for (pid, _) in self.own_processes() {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

/// A pane's lifecycle and attention, e.g. `("blocked", "permission_required")`.
pub fn state(pane: &Value) -> (String, String) {
    (
        pane["lifecycle"].as_str().unwrap_or_default().to_owned(),
        pane["attention"].as_str().unwrap_or_default().to_owned(),
    )
}
