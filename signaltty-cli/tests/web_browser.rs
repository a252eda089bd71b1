//! The web client in a real headless browser: Debian's `chromium`, driven by playwright-core
//! (pinned in web/package.json; `web/test/browser.mjs` holds the steps), against the real
//! `signaltty web`, the real server, a fake agent (the real `signaltty hook-event`, as an
//! agent's hooks run it) and a line echoer in a real PTY. The page must follow state changes,
//! show a permission in the inbox within a second and release the agent with the verdict
//! tapped on a 390×844 viewport, and show a pane's output and take typed keys. Screenshots
//! and the measured figures go to `target/web-test/`.
//!
//! Needs `chromium` (`apt-get install -y chromium`; `.ci/run` installs it) and node; the npm
//! packages are installed here (`npm ci` in web/) when missing.

mod common;
mod web;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::TestEnv;
use web::Web;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn chromium() -> PathBuf {
    let path = std::env::var_os("CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    assert!(
        path.is_file(),
        "no browser at {}: install Debian's chromium (`apt-get install -y chromium`, as .ci/run does) or set CHROMIUM",
        path.display()
    );
    path
}

fn npm_packages() {
    let web = repo().join("web");
    if web
        .join("node_modules/playwright-core/package.json")
        .is_file()
    {
        return;
    }
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(&web)
        .status()
        .expect("run npm ci in web/");
    assert!(status.success(), "npm ci in web/ failed");
}

#[test]
fn the_page_follows_state_answers_a_permission_on_a_phone_and_types_into_a_pane() {
    let browser = chromium();
    npm_packages();
    let env = TestEnv::new();
    let ws = env.workspace("webby");
    let spawn = |title: &str, argv: &[&str]| {
        let mut args = vec!["pane", "spawn", &ws, "--title", title, "--"];
        args.extend_from_slice(argv);
        env.json(&args)["pane"]["id"]
            .as_str()
            .expect("pane id")
            .to_string()
    };
    let agent = spawn("agent", &["sleep", "600"]);
    let echo = spawn(
        "echo",
        &[
            "sh",
            "-c",
            "echo ready-web; while read l; do echo \"got:$l\"; done",
        ],
    );
    let web = Web::start(&env, &[]);
    let out = repo().join("target/web-test");

    // The script runs the CLI (the fake agent's hooks) with this test's private environment.
    let cli = env.command(&[]);
    let mut node = Command::new("timeout");
    node.arg("300")
        .arg("node")
        .arg("test/browser.mjs")
        .current_dir(repo().join("web"));
    for (k, v) in cli.get_envs() {
        match v {
            Some(v) => node.env(k, v),
            None => node.env_remove(k),
        };
    }
    let output = node
        .env("WEB_URL", &web.url)
        .env("SIGNALTTY", env!("CARGO_BIN_EXE_signaltty"))
        .env("SIGNALTTY_ARGS_SOCKET", &env.socket)
        .env("AGENT_PANE", &agent)
        .env("ECHO_PANE", &echo)
        .env("OUT_DIR", &out)
        .env("CHROMIUM", &browser)
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "browser steps failed:\n{stdout}\n{stderr}"
    );
    let figures: serde_json::Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default())
            .unwrap_or_else(|e| panic!("no figures ({e}): {stdout}"));
    println!("web figures: {figures}");
    let to_inbox = figures["permission_to_inbox_ms"].as_f64().expect("figure");
    assert!(
        to_inbox < 1000.0,
        "the permission took {to_inbox} ms to reach the inbox"
    );
    for shot in [
        "web-inbox-phone.png",
        "web-pane-desktop.png",
        "web-tree-phone.png",
    ] {
        assert!(out.join(shot).is_file(), "screenshot {shot} saved");
    }
}
