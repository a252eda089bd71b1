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
    /// `XDG_CACHE_HOME=…` for OpenCode: where it installs its provider package from npm on
    /// first use (10 s), kept beside the pinned install so that only the first run pays it.
    cache: String,
}

impl OpencodeWorld {
    /// A world whose model follows `script`; `None` when the pinned OpenCode cannot be
    /// installed (npm unreachable: the skip was announced).
    pub fn new(script: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> Option<OpencodeWorld> {
        let opencode = super::npm_codex::opencode()?;
        let env = TestEnv::new();
        start_server_with(&env, &opencode);
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
            cache: format!(
                "XDG_CACHE_HOME={}",
                super::npm::cache_root().join("opencode-cache").display()
            ),
        };
        let installed = world.env.json(&["integration", "install", "opencode"]);
        assert!(installed.to_string().contains("signaltty"), "{installed}");
        // OpenCode 1.18 loads `plugins/*.js` of its config directory: the V1 plugin, and no V2
        // directory beside it (which only an OpenCode the install could not ask writes).
        let plugins = world.env.dir.path().join("xdg-config/opencode/plugins");
        assert!(
            plugins.join("signaltty.js").is_file() && !plugins.join("signaltty").exists(),
            "the install wrote the wrong plugin for OpenCode 1.18: {installed}"
        );
        Some(world)
    }

    /// Starts `opencode ARGS…` in a new pane in the project; returns the pane id.
    pub fn spawn(&self, args: &[&str]) -> String {
        let mut argv = vec![
            "pane",
            "spawn",
            &self.ws,
            "--size",
            "120x40",
            "--cwd",
            self.project.to_str().expect("utf-8"),
            "--env",
            "OPENCODE_DISABLE_MODELS_FETCH=1",
            "--env",
            "OPENCODE_DISABLE_AUTOUPDATE=1",
            "--env",
            &self.cache,
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

/// Starts the world's server with the pinned OpenCode's directory first on its PATH: the
/// server installs the plugin, and asks `opencode --version` which generation to write — with
/// no `opencode` on its PATH it could not tell and wrote only the OpenCode 2 plugin, which
/// OpenCode 1.18 never loads (no event of the real OpenCode reached signaltty then). The panes
/// inherit that PATH, as a user's do.
fn start_server_with(env: &TestEnv, opencode: &std::path::Path) {
    let dir = opencode.parent().expect("the launcher's directory");
    let path = std::env::join_paths(std::iter::once(dir.to_owned()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let out = env
        .command(&["server", "start"])
        .env("PATH", path)
        .output()
        .expect("signaltty server start");
    assert!(out.status.success(), "server start: {out:?}");
}
