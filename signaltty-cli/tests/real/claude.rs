//! The real Claude Code in a real signaltty pane, offline: a private HOME whose `~/.claude.json`
//! marks onboarding done, the fake API key approved and the project folder trusted (or not, for
//! the trust-dialog scenario), `~/.claude/settings.json` with signaltty's hooks installed by
//! `signaltty integration install`, and `ANTHROPIC_BASE_URL` pointing at [`FakeApi`].
//!
//! The test drives Claude's own TUI through `signaltty pane send` as a user types, reads the pane
//! through `signaltty pane get --json`, and times every state change it waits for.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::anthropic::{FakeApi, Script};
use super::npm::{self, Pinned, Unavailable};
use crate::common::TestEnv;

/// The Claude Code release this suite pins and was checked against.
pub const CLAUDE: Pinned = Pinned {
    package: "@anthropic-ai/claude-code",
    version: "2.1.332",
    bin: "claude",
};

/// The fake API key; Claude asks once to approve a key unless its last 20 characters are listed
/// as approved in `~/.claude.json`.
const API_KEY: &str = "sk-ant-api03-signaltty-fake-key-0123456789abcdefghij";

/// How long a state change the agent reports through a hook may take before the test fails
/// (CI's 2 cores run the whole suite at once; measured values are printed).
pub const HOOK_BUDGET: Duration = Duration::from_secs(15);

/// A Claude world: server, fake API, HOME, project directory, workspace.
pub struct World {
    pub env: TestEnv,
    pub api: FakeApi,
    pub claude: PathBuf,
    pub project: PathBuf,
    pub workspace: String,
}

/// What the test reads of a pane at one moment.
#[derive(Clone, Debug)]
pub struct PaneView {
    pub lifecycle: String,
    pub attention: String,
    pub message: Option<String>,
    pub decision: Option<Value>,
    pub agent: Option<String>,
    pub raw: Value,
}

/// Whether the project folder is already trusted.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    Accepted,
    Ask,
}

impl World {
    /// Installs the pinned Claude (cached) and sets up a world, or says why it cannot run.
    pub fn new(script: Script, trust: Trust) -> Result<World, Unavailable> {
        // A short path without `..` (it is typed into a shell in one scenario); the link's own
        // name is kept, since signaltty recognises the agent by it.
        let installed = npm::install(&CLAUDE)?;
        let claude = installed
            .parent()
            .and_then(|d| d.canonicalize().ok())
            .map(|d| d.join(CLAUDE.bin))
            .expect("the installed claude");
        let env = TestEnv::new();
        let api = FakeApi::start(script);
        let project = env.dir.path().join("project");
        std::fs::create_dir_all(&project).expect("project dir");
        let key_tail = &API_KEY[API_KEY.len() - 20..];
        let mut projects = serde_json::Map::new();
        projects.insert(
            project.to_str().expect("utf-8").to_owned(),
            json!({"hasTrustDialogAccepted": trust == Trust::Accepted, "allowedTools": []}),
        );
        let state = json!({
            "hasCompletedOnboarding": true,
            "lastOnboardingVersion": CLAUDE.version,
            "customApiKeyResponses": {"approved": [key_tail], "rejected": []},
            "projects": projects,
        });
        std::fs::write(env.home.join(".claude.json"), state.to_string()).expect(".claude.json");
        let settings = env.home.join(".claude");
        std::fs::create_dir_all(&settings).expect("~/.claude");
        std::fs::write(settings.join("settings.json"), "{}").expect("settings.json");
        let install = env.run(&["integration", "install"]);
        assert!(install.success(), "integration install: {install:?}");
        let workspace = env.workspace_at(&project);
        Ok(World {
            env,
            api,
            claude,
            project,
            workspace,
        })
    }

    /// The environment Claude runs with: offline, no updater, no telemetry.
    pub fn agent_env(&self) -> Vec<String> {
        vec![
            format!("ANTHROPIC_BASE_URL={}", self.api.base_url()),
            format!("ANTHROPIC_API_KEY={API_KEY}"),
            "DISABLE_AUTOUPDATER=1".to_owned(),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1".to_owned(),
            "DISABLE_TELEMETRY=1".to_owned(),
            "DISABLE_ERROR_REPORTING=1".to_owned(),
        ]
    }

    /// Spawns `argv` (its first word a path or a name on the pane's PATH) in a new pane with
    /// the agent environment; returns the pane id.
    pub fn spawn(&self, argv: &[&str]) -> String {
        let env = self.agent_env();
        let mut args = vec!["pane", "spawn", &self.workspace, "--size", "120x40"];
        for e in &env {
            args.push("--env");
            args.push(e);
        }
        args.push("--");
        args.extend_from_slice(argv);
        let out = self.env.json(&args);
        out["pane"]["id"].as_str().expect("pane id").to_owned()
    }

    /// The command line of Claude's interactive TUI: in the default permission mode, which
    /// asks before each command (2.1.x defaults to "auto", which asks no one; setting
    /// `defaultMode` in settings.json instead makes Claude ask whether to keep it).
    pub fn claude_argv(&self) -> Vec<String> {
        vec![
            self.claude.to_str().expect("utf-8").to_owned(),
            "--permission-mode".to_owned(),
            "default".to_owned(),
        ]
    }

    /// Claude's interactive TUI in a new pane, waited for until it takes input.
    pub fn start_claude(&self) -> String {
        let argv = self.claude_argv();
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let pane = self.spawn(&argv);
        self.wait_screen(&pane, "for shortcuts");
        pane
    }

    pub fn view(&self, pane: &str) -> PaneView {
        let raw = self.env.json(&["pane", "get", pane]);
        let pane_json = if raw.get("pane").is_some() {
            raw["pane"].clone()
        } else {
            raw.clone()
        };
        PaneView {
            lifecycle: pane_json["lifecycle"].as_str().unwrap_or("").to_owned(),
            attention: pane_json["attention"].as_str().unwrap_or("").to_owned(),
            message: pane_json["last_message"].as_str().map(str::to_owned),
            decision: pane_json
                .get("pending_decision")
                .filter(|d| !d.is_null())
                .cloned(),
            agent: pane_json["agent"]["kind"].as_str().map(str::to_owned),
            raw: pane_json,
        }
    }

    /// Waits until the pane matches `want`; returns the view and how long it took. Fails with
    /// the last view and the screen after `budget`.
    pub fn expect(
        &self,
        pane: &str,
        step: &str,
        budget: Duration,
        want: impl Fn(&PaneView) -> bool,
    ) -> (PaneView, Duration) {
        let start = Instant::now();
        let deadline = start + budget;
        let mut delay = Duration::from_millis(5);
        loop {
            let view = self.view(pane);
            if want(&view) {
                let took = start.elapsed();
                eprintln!(
                    "[claude {}] {step}: {}/{} {:?} after {} ms",
                    CLAUDE.version,
                    view.lifecycle,
                    view.attention,
                    view.message,
                    took.as_millis()
                );
                return (view, took);
            }
            if Instant::now() >= deadline {
                panic!(
                    "{step}: not reached within {budget:?}; pane is {}/{} message {:?} decision {:?}\nscreen:\n{}",
                    view.lifecycle,
                    view.attention,
                    view.message,
                    view.decision,
                    self.screen(pane)
                );
            }
            std::thread::sleep(delay);
            delay = (delay * 2).min(Duration::from_millis(50));
        }
    }

    /// The pane's screen as text.
    pub fn screen(&self, pane: &str) -> String {
        self.env.run(&["pane", "read", pane]).stdout
    }

    /// Waits until the screen shows `needle`; fails with the screen after a minute.
    pub fn wait_screen(&self, pane: &str, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut delay = Duration::from_millis(5);
        loop {
            let screen = self.screen(pane);
            // A long line wraps at the pane's width.
            if screen.contains(needle) || screen.replace('\n', "").contains(needle) {
                return;
            }
            if Instant::now() >= deadline {
                panic!("{needle:?} never showed on pane {pane}; the screen:\n{screen}");
            }
            std::thread::sleep(delay);
            delay = (delay * 2).min(Duration::from_millis(50));
        }
    }

    /// Types `text` and presses Enter, as a user does.
    pub fn prompt(&self, pane: &str, text: &str) {
        self.keys(pane, text.as_bytes());
        // Claude treats a paste-fast Enter as part of the text; give it its own write.
        self.wait_screen(pane, text);
        self.keys(pane, b"\r");
    }

    /// Presses `key` in Claude's open dialog until the dialog (recognised by `dialog` on the
    /// screen) closes: a dialog ignores keys for a moment after it opens, so that a key typed
    /// ahead does not answer it.
    pub fn press_in_dialog(&self, pane: &str, dialog: &str, key: &[u8]) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.screen(pane).contains(dialog) {
            assert!(
                Instant::now() < deadline,
                "the dialog {dialog:?} never took {key:?}"
            );
            self.keys(pane, key);
            let settle = Instant::now() + Duration::from_millis(500);
            while Instant::now() < settle && self.screen(pane).contains(dialog) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }

    /// Presses `key` until `wanted` is on the screen (a dialog ignores keys for a moment after
    /// it opens, so one press may not be enough; presses are half a second apart).
    pub fn press_until(&self, pane: &str, wanted: &str, key: &[u8]) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.screen(pane).contains(wanted) {
            assert!(Instant::now() < deadline, "{key:?} never showed {wanted:?}");
            self.keys(pane, key);
            // Long enough that a press drawn late on a busy machine is not pressed again: a
            // second Down in a two-option dialog moves back (onto "No, exit" in the trust one).
            let settle = Instant::now() + Duration::from_millis(2000);
            while Instant::now() < settle && !self.screen(pane).contains(wanted) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }

    /// Sends raw key bytes (e.g. `b"\x1b"` for Esc, `b"\r"` for Enter).
    pub fn keys(&self, pane: &str, bytes: &[u8]) {
        let run = self
            .env
            .run_with_stdin(&["pane", "send", "--stdin", pane], Some(bytes));
        assert!(run.success(), "pane send: {run:?}");
    }

    /// Answers the pane's pending decision from signaltty.
    pub fn answer(&self, pane: &str, decision: &str, option: &str) {
        self.env.ok(&["decision", "answer", pane, decision, option]);
    }
}

/// Runs `body` with a world, or prints the loud skip when npm is unreachable.
pub fn with_world(script: Script, trust: Trust, body: impl FnOnce(&mut World)) {
    match World::new(script, trust) {
        Ok(mut world) => body(&mut world),
        Err(why) => npm::skip("Claude Code", &why),
    }
}
