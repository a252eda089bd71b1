//! The binary's own checks, before any terminal is touched: `--keymap-check` and an
//! unreachable server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn tui() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_signaltty-tui"));
    cmd.env_remove("SIGNALTTY_SOCKET")
        .env_remove("XDG_CONFIG_HOME");
    cmd
}

#[test]
fn keymap_check_reports_every_error_with_its_line_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[server]\nx = 1\n\n[tui.keymap.normal]\n\"ctrl-glorb\" = \"NewTab\"\n\"g t\" = \"Frobnicate\"\n",
    )
    .unwrap();
    let out = tui()
        .arg("--config")
        .arg(&config)
        .arg("--keymap-check")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{}:5: unknown key \"ctrl-glorb\"",
            config.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(":6: unknown action \"Frobnicate\""),
        "{stderr}"
    );

    std::fs::write(&config, "[tui.keymap.normal]\n\"ctrl-t\" = \"NewTab\"\n").unwrap();
    let out = tui()
        .arg("--config")
        .arg(&config)
        .arg("--keymap-check")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn an_unreachable_server_is_one_line_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = tui()
        .arg("--socket")
        .arg(dir.path().join("s.sock"))
        .env("SIGNALTTY_SERVER_BIN", dir.path().join("no-such-server"))
        .env("XDG_CONFIG_HOME", dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("signaltty-tui: "), "{stderr}");
    assert!(out.stdout.is_empty(), "the terminal was not touched");
}
