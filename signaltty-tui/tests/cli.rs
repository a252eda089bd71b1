//! The binary's own checks, before any terminal is touched: `--keymap-check` and an
//! unreachable server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn tui() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_signaltty-tui"));
    cmd.env_remove("SIGNALTTY_SOCKET")
        .env_remove("SIGNALTTY_CONFIG")
        .env_remove("XDG_CONFIG_HOME");
    cmd
}

#[test]
fn keymap_check_reports_every_error_with_its_line_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[server]\nscrollback_lines = 100\n\n[tui.keymap.normal]\n\"ctrl-glorb\" = \"NewTab\"\n\"g t\" = \"Frobnicate\"\n",
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

#[test]
fn the_config_is_read_through_signaltty_config_and_signaltty_config_env_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("elsewhere.toml");
    // A mistake outside [tui] is reported as `signaltty config check` reports it.
    std::fs::write(&config, "[server]\nscrollback_lines = \"many\"\n").unwrap();
    let out = tui()
        .env("SIGNALTTY_CONFIG", &config)
        .arg("--keymap-check")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}:2:", config.display())),
        "{stderr}"
    );
    // The keys preset is checked with its line.
    std::fs::write(&config, "[tui]\nkeys = \"emacs\"\n").unwrap();
    let out = tui()
        .env("SIGNALTTY_CONFIG", &config)
        .arg("--keymap-check")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(":2: unknown keys preset \"emacs\""),
        "{stderr}"
    );
    std::fs::write(&config, "[tui]\nkeys = \"modal\"\n").unwrap();
    let out = tui()
        .env("SIGNALTTY_CONFIG", &config)
        .arg("--keymap-check")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&config.display().to_string()),
        "{out:?}"
    );
    // A path named with --config must exist.
    let out = tui()
        .arg("--config")
        .arg(dir.path().join("missing.toml"))
        .arg("--keymap-check")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}
