//! The real OpenCode in signaltty panes: a private signaltty server (`common::TestEnv`), a fake
//! chat-completions API, and a project whose `opencode.json` declares it as an OpenAI-compatible
//! custom provider (with `bash` set to ask). signaltty's plugin is installed with
//! `signaltty integration install opencode`, as a user would.

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::TestEnv;
use crate::real::chat::{FakeChat, Reply, Seen};

/// Longest a step may take: a first `opencode run` installs its plugin's dependencies with npm
/// (about 25 s on a busy machine).
pub const STEP: Duration = Duration::from_secs(90);

/// One OpenCode world.
pub struct OpencodeWorld {
    pub env: TestEnv,
    pub model: FakeChat,
    pub opencode: PathBuf,
    pub project: PathBuf,
    pub ws: String,
}

impl OpencodeWorld {
    /// A world whose model follows `script`; `None` when the pinned OpenCode cannot be
    /// installed (npm unreachable: the skip was announced).
    pub fn new(script: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Option<OpencodeWorld> {
        let opencode = super::npm_codex::opencode()?;
        let env = TestEnv::new();
        let model = FakeChat::start(script);
        let project = env.dir.path().join("proj");
        std::fs::create_dir_all(&project).expect("project dir");
        let project = project.canonicalize().expect("canonical project");
        let config = json!({
            "$schema": "https://opencode.ai/config.json",
            "provider": {"fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake",
                "options": {"baseURL": model.base_url(), "apiKey": "fake"},
                "models": {"fake-model": {"name": "Fake", "tool_call": true}},
            }},
            "model": "fake/fake-model",
            "permission": {"bash": "ask"},
            "autoupdate": false,
            "share": "disabled",
        });
        std::fs::write(project.join("opencode.json"), config.to_string()).expect("opencode.json");
        let world = OpencodeWorld {
            ws: env.workspace_at(&project),
            env,
            model,
            opencode,
            project,
        };
        let installed = world.env.json(&["integration", "install", "opencode"]);
        assert!(installed.to_string().contains("signaltty"), "{installed}");
        Some(world)
    }

    /// Starts `opencode ARGS…` in a new pane in the project; returns the pane id.
    pub fn spawn(&self, args: &[&str]) -> String {
        let mut argv = vec![
            "pane",
            "spawn",
            &self.ws,
            "--cwd",
            self.project.to_str().expect("utf-8"),
            "--env",
            "OPENCODE_DISABLE_MODELS_FETCH=1",
            "--env",
            "OPENCODE_DISABLE_AUTOUPDATE=1",
            "--",
            self.opencode.to_str().expect("utf-8"),
        ];
        argv.extend_from_slice(args);
        let spawned = self.env.json(&argv);
        spawned["pane"]["id"].as_str().expect("pane id").to_owned()
    }

    /// The pane as `pane get --json` shows it.
    pub fn pane(&self, pane: &str) -> Value {
        self.env.json(&["pane", "get", pane])
    }

    /// The pane's screen as text.
    pub fn screen(&self, pane: &str) -> String {
        let read = self.env.json(&["pane", "read", pane]);
        read["lines"]
            .as_array()
            .map(|l| {
                l.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
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
                "timed out waiting for {label}: the pane is {p}\nits screen:\n{}",
                self.screen(pane)
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let took = since.elapsed();
        eprintln!("[timing] {label}: {took:?}");
        (got, took)
    }
}
