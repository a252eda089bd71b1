//! The README's and the user guide's command blocks marked ```` ```sh runnable ```` are run as
//! they are written, each with `bash -e -o pipefail`, against a server of its own: the real
//! `signaltty` binary first on `PATH`, the socket and state dir in a private temp dir (through
//! `SIGNALTTY_SOCKET` / `SIGNALTTY_STATE_DIR`), the temp dir as the current directory and HOME.
//! A block that fails fails the test with its text, stdout and stderr. Each file must keep at
//! least one runnable block, so the marker cannot quietly disappear.
//! Needs `cargo build -p signaltty-server` first (see tests/common).

mod common;

use std::path::Path;
use std::process::Command;

use common::{TestEnv, server_bin};

/// The runnable blocks of a Markdown file: (line of the opening fence, the block's text).
fn runnable_blocks(markdown: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (n, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut current {
            None if trimmed.starts_with("```sh runnable") => current = Some((n + 1, String::new())),
            None => {}
            Some(_) if trimmed.starts_with("```") => blocks.extend(current.take()),
            Some((_, text)) => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    blocks
}

fn run_blocks(doc: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(doc);
    let markdown = std::fs::read_to_string(&path).expect("read the doc");
    let blocks = runnable_blocks(&markdown);
    assert!(
        !blocks.is_empty(),
        "{doc} has no ```sh runnable block any more"
    );
    let cli = Path::new(env!("CARGO_BIN_EXE_signaltty"));
    let bin_dir = cli.parent().expect("the CLI's directory");
    for (line, text) in blocks {
        let env = TestEnv::new();
        let path_var = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))
        .expect("PATH");
        let out = Command::new("bash")
            .args(["-e", "-o", "pipefail", "-c", &text])
            .current_dir(env.dir.path())
            .env("PATH", path_var)
            .env("SIGNALTTY_SOCKET", &env.socket)
            .env("SIGNALTTY_STATE_DIR", &env.state)
            .env("SIGNALTTY_SERVER_BIN", server_bin())
            .env("HOME", &env.home)
            .env("XDG_STATE_HOME", env.dir.path().join("xdg-state"))
            .env("XDG_CONFIG_HOME", env.dir.path().join("xdg-config"))
            .env("XDG_RUNTIME_DIR", env.dir.path().join("run"))
            .env("SHELL", "/bin/sh")
            .env_remove("SIGNALTTY_CONFIG")
            .env_remove("SIGNALTTY_PANE")
            .output()
            .expect("run bash");
        assert!(
            out.status.success(),
            "{doc}:{line}: the block failed ({}):\n{text}\n--- stdout\n{}\n--- stderr\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn the_readme_s_runnable_blocks_run() {
    run_blocks("README.md");
}

#[test]
fn the_guide_s_runnable_blocks_run() {
    run_blocks("docs/guide.md");
}

#[test]
fn only_marked_blocks_are_picked() {
    let text = "```sh\nno\n```\n```sh runnable\nyes\n```\n";
    assert_eq!(runnable_blocks(text), vec![(4, "yes\n".to_owned())]);
}

/// Issue 29 §25: one install command that builds the three binaries once (three `cargo
/// install` runs rebuild every dependency each), in the README and the guide alike.
#[test]
fn the_install_command_builds_the_three_binaries_once() {
    for doc in ["README.md", "docs/guide.md"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(doc);
        let text = std::fs::read_to_string(&path).expect("read the doc");
        let line = text
            .lines()
            .find(|l| l.contains("install -D"))
            .unwrap_or_else(|| panic!("{doc}: no install command"));
        assert_eq!(
            line.matches("cargo ").count(),
            1,
            "{doc}: one build: {line}"
        );
        for package in ["signaltty-cli", "signaltty-tui", "signaltty-server"] {
            assert!(line.contains(&format!("-p {package}")), "{doc}: {line}");
        }
        for binary in ["signaltty ", "signaltty-tui ", "signaltty-server"] {
            assert!(
                line.contains(&format!("target/release/{binary}")),
                "{doc}: {line}"
            );
        }
        assert!(
            !text.contains("cargo install --locked --path signaltty-cli\ncargo install"),
            "{doc}: still three installs"
        );
    }
}
