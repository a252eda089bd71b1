//! Hook installers against a temporary HOME with real files: foreign entries survive, malformed
//! files stay byte-identical, re-installs write nothing, uninstall removes only ours.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

use serde_json::{Value, json};
use signaltty_server::agents::AgentKind;
use signaltty_server::agents::install::{
    HookState, InstallError, WriteOutcome, config_path, install, is_managed, opencode, status,
    uninstall,
};

const PROGRAM: &str = "/usr/local/bin/signaltty";

fn home() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp HOME")
}

fn write(path: &Path, content: &str) {
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, content).expect("write");
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).expect("read")).expect("valid JSON")
}

/// Every managed command in a claude/codex/cursor document, in file order.
fn managed_commands(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    collect(doc, &mut out);
    out
}

fn collect(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(c)) = m.get("command")
                && is_managed(c)
            {
                out.push(c.clone());
            }
            m.values().for_each(|v| collect(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| collect(v, out)),
        _ => {}
    }
}

fn foreign_claude_settings() -> Value {
    json!({
        "model": "opus",
        "permissions": { "allow": ["Bash(npm test:*)"] },
        "hooks": {
            "PreToolUse": [
                { "matcher": "Bash", "hooks": [{ "type": "command", "command": "~/bin/audit-bash", "timeout": 5 }] }
            ],
            "Stop": [
                { "matcher": "", "hooks": [{ "type": "command", "command": "notify-send done" }] }
            ]
        },
        "statusLine": { "type": "command", "command": "~/bin/status" }
    })
}

#[test]
fn claude_install_keeps_foreign_hooks_and_uninstall_restores_them() {
    let h = home();
    let path = config_path(AgentKind::Claude, h.path()).expect("claude path");
    assert!(path.ends_with(".claude/settings.json"));
    let original = foreign_claude_settings();
    write(
        &path,
        &serde_json::to_string_pretty(&original).expect("json"),
    );
    assert_eq!(
        status(AgentKind::Claude, h.path(), PROGRAM).expect("status"),
        HookState::NotInstalled
    );

    let report = install(AgentKind::Claude, h.path(), PROGRAM).expect("install");
    assert_eq!(report.outcome, WriteOutcome::Changed);
    assert_eq!(
        status(AgentKind::Claude, h.path(), PROGRAM).expect("status"),
        HookState::Installed
    );
    let doc = read_json(&path);
    assert_eq!(doc["model"], "opus");
    assert_eq!(doc["statusLine"], original["statusLine"]);
    assert_eq!(
        doc["hooks"]["PreToolUse"][0], original["hooks"]["PreToolUse"][0],
        "foreign PreToolUse hook first and intact"
    );
    assert_eq!(doc["hooks"]["PreToolUse"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        doc["hooks"]["Stop"][0], original["hooks"]["Stop"][0],
        "foreign Stop hook first and intact"
    );
    assert_eq!(doc["hooks"]["Stop"].as_array().map(Vec::len), Some(2));
    let perm = &doc["hooks"]["PermissionRequest"][0]["hooks"][0];
    assert_eq!(perm["timeout"], 125);
    assert!(
        perm["command"]
            .as_str()
            .is_some_and(|c| c.contains("--wait-for-answer"))
    );
    assert_eq!(managed_commands(&doc).len(), 13);
    // Key order of the user's file is kept.
    let keys: Vec<_> = doc.as_object().expect("object").keys().cloned().collect();
    assert_eq!(keys, ["model", "permissions", "hooks", "statusLine"]);

    let report = uninstall(AgentKind::Claude, h.path()).expect("uninstall");
    assert_eq!(report.outcome, WriteOutcome::Changed);
    assert_eq!(read_json(&path), original);
    assert_eq!(
        uninstall(AgentKind::Claude, h.path())
            .expect("again")
            .outcome,
        WriteOutcome::Unchanged
    );
}

#[test]
fn reinstall_is_unchanged_and_writes_nothing() {
    for kind in [
        AgentKind::Claude,
        AgentKind::Codex,
        AgentKind::Cursor,
        AgentKind::Opencode,
    ] {
        let h = home();
        assert_eq!(
            install(kind, h.path(), PROGRAM).expect("install").outcome,
            WriteOutcome::Changed
        );
        let mut path = config_path(kind, h.path()).expect("path");
        if kind == AgentKind::Opencode {
            // No `opencode` on PATH here: only the V2 plugin is written.
            path = path.with_extension("").join("tui.js");
        }
        let before = fs::read(&path).expect("read");
        let inode_before = fs::metadata(&path)
            .expect("meta")
            .modified()
            .expect("mtime");
        let again = install(kind, h.path(), PROGRAM).expect("reinstall");
        assert_eq!(again.outcome, WriteOutcome::Unchanged, "{kind}");
        assert_eq!(again.notice, None);
        assert_eq!(fs::read(&path).expect("read"), before);
        assert_eq!(
            fs::metadata(&path)
                .expect("meta")
                .modified()
                .expect("mtime"),
            inode_before
        );
        assert_eq!(
            status(kind, h.path(), PROGRAM).expect("status"),
            HookState::Installed,
            "{kind}"
        );
        if kind != AgentKind::Opencode {
            assert_eq!(
                fs::metadata(&path).expect("meta").permissions().mode() & 0o777,
                0o600
            );
        }
    }
}

#[test]
fn malformed_files_are_refused_and_left_byte_identical() {
    let bad = [
        (AgentKind::Claude, "{ \"hooks\": { \"Stop\": [ }"),
        (AgentKind::Claude, "[1, 2, 3]\n"),
        (
            AgentKind::Codex,
            "{\"hooks\": [\"not\", \"an\", \"object\"]}",
        ),
        (
            AgentKind::Codex,
            "{\"hooks\": {\"Stop\": {\"matcher\": \"\"}}}",
        ),
        (
            AgentKind::Cursor,
            "{\"version\": 1, \"hooks\": {\"stop\": \"echo\"}}",
        ),
        (AgentKind::Cursor, "not json at all"),
    ];
    for (kind, content) in bad {
        let h = home();
        let path = config_path(kind, h.path()).expect("path");
        write(&path, content);
        let err = install(kind, h.path(), PROGRAM).expect_err("malformed must be refused");
        assert!(
            matches!(err, InstallError::Malformed { .. }),
            "{kind}: {err}"
        );
        assert_eq!(
            fs::read_to_string(&path).expect("read"),
            content,
            "{kind} file touched"
        );
        assert!(matches!(
            uninstall(kind, h.path()),
            Err(InstallError::Malformed { .. })
        ));
        assert_eq!(fs::read_to_string(&path).expect("read"), content);
        assert!(matches!(
            status(kind, h.path(), PROGRAM).expect("status"),
            HookState::Malformed(_)
        ));
        let names: Vec<_> = fs::read_dir(path.parent().expect("dir"))
            .expect("ls")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 1, "no temp file left behind: {names:?}");
    }
}

#[test]
fn codex_uses_the_nested_shape_without_notification_and_asks_for_trust() {
    let h = home();
    let path = config_path(AgentKind::Codex, h.path()).expect("path");
    assert!(path.ends_with(".codex/hooks.json"));
    write(
        &path,
        r#"{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"echo hi"}]}]}}"#,
    );
    let report = install(AgentKind::Codex, h.path(), PROGRAM).expect("install");
    assert!(report.notice.is_some());
    let doc = read_json(&path);
    assert!(doc["hooks"].get("Notification").is_none());
    assert_eq!(
        doc["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "echo hi"
    );
    assert_eq!(doc["hooks"]["Stop"][0]["hooks"][0]["timeout"], 3);
    // Codex awaits this hook before its own prompt: held only on opt-in, and briefly.
    assert_eq!(
        doc["hooks"]["PermissionRequest"][0]["hooks"][0]["timeout"],
        30
    );
    assert!(doc["hooks"].get("Interrupt").is_some());
    uninstall(AgentKind::Codex, h.path()).expect("uninstall");
    assert_eq!(
        read_json(&path),
        json!({"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"echo hi"}]}]}})
    );
}

#[test]
fn cursor_uses_the_flat_shape_with_a_version() {
    let h = home();
    let path = config_path(AgentKind::Cursor, h.path()).expect("path");
    assert!(path.ends_with(".cursor/hooks.json"));
    write(
        &path,
        r#"{"hooks":{"afterFileEdit":[{"command":"./fmt.sh"}],"stop":[{"command":"./log.sh"}]}}"#,
    );
    install(AgentKind::Cursor, h.path(), PROGRAM).expect("install");
    let doc = read_json(&path);
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["hooks"]["stop"][0]["command"], "./log.sh");
    assert!(
        doc["hooks"]["stop"][1]["command"]
            .as_str()
            .is_some_and(is_managed)
    );
    assert_eq!(doc["hooks"]["beforeSubmitPrompt"][0]["timeout"], 10);
    uninstall(AgentKind::Cursor, h.path()).expect("uninstall");
    assert_eq!(
        read_json(&path),
        json!({"hooks":{"afterFileEdit":[{"command":"./fmt.sh"}],"stop":[{"command":"./log.sh"}]},"version":1})
    );
}

#[test]
fn a_moved_program_is_partial_and_reinstall_replaces_not_duplicates() {
    let h = home();
    install(AgentKind::Claude, h.path(), "/old/signaltty").expect("install");
    assert_eq!(
        status(AgentKind::Claude, h.path(), PROGRAM).expect("status"),
        HookState::Partial
    );
    assert_eq!(
        install(AgentKind::Claude, h.path(), PROGRAM)
            .expect("repair")
            .outcome,
        WriteOutcome::Changed
    );
    let doc = read_json(&config_path(AgentKind::Claude, h.path()).expect("path"));
    let cmds = managed_commands(&doc);
    assert_eq!(cmds.len(), 13);
    assert!(cmds.iter().all(|c| c.starts_with(PROGRAM)));
    // Dropping one of ours by hand makes it partial.
    let path = config_path(AgentKind::Claude, h.path()).expect("path");
    let mut doc = read_json(&path);
    doc["hooks"].as_object_mut().expect("hooks").remove("Stop");
    write(&path, &doc.to_string());
    assert_eq!(
        status(AgentKind::Claude, h.path(), PROGRAM).expect("status"),
        HookState::Partial
    );
}

#[test]
fn uninstall_of_a_file_we_created_leaves_an_empty_object() {
    let h = home();
    install(AgentKind::Claude, h.path(), PROGRAM).expect("install");
    uninstall(AgentKind::Claude, h.path()).expect("uninstall");
    assert_eq!(
        read_json(&config_path(AgentKind::Claude, h.path()).expect("path")),
        json!({})
    );
    assert_eq!(
        status(AgentKind::Claude, h.path(), PROGRAM).expect("status"),
        HookState::NotInstalled
    );
}

#[test]
fn symlinked_configs_stay_symlinks_and_keep_their_mode() {
    let h = home();
    let real = h.path().join("dotfiles/claude-settings.json");
    write(&real, r#"{"model":"opus"}"#);
    fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).expect("chmod");
    let link = config_path(AgentKind::Claude, h.path()).expect("path");
    fs::create_dir_all(link.parent().expect("parent")).expect("mkdir");
    symlink(&real, &link).expect("symlink");
    install(AgentKind::Claude, h.path(), PROGRAM).expect("install");
    assert!(
        fs::symlink_metadata(&link)
            .expect("meta")
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        fs::metadata(&real).expect("meta").permissions().mode() & 0o777,
        0o640
    );
    assert_eq!(managed_commands(&read_json(&real)).len(), 13);
    assert_eq!(read_json(&real)["model"], "opus");
}

#[test]
fn opencode_plugin_is_ours_or_left_alone() {
    // No `opencode` on this test's PATH: the version cannot be told, so only the OpenCode 2
    // plugin (a directory OpenCode 1 never loads) is written.
    let h = home();
    let path = config_path(AgentKind::Opencode, h.path()).expect("path");
    assert!(path.ends_with(".config/opencode/plugins/signaltty.js"));
    let v2 = path.with_extension("").join("tui.js");
    let foreign = "export const Mine = async () => ({});\n";
    write(&v2, foreign);
    assert!(matches!(
        install(AgentKind::Opencode, h.path(), PROGRAM),
        Err(InstallError::Foreign(_))
    ));
    assert_eq!(fs::read_to_string(&v2).expect("read"), foreign);
    assert_eq!(
        uninstall(AgentKind::Opencode, h.path())
            .expect("uninstall")
            .outcome,
        WriteOutcome::Unchanged
    );
    assert_eq!(fs::read_to_string(&v2).expect("read"), foreign);
    assert!(matches!(
        status(AgentKind::Opencode, h.path(), PROGRAM).expect("status"),
        HookState::Malformed(_)
    ));

    fs::remove_file(&v2).expect("rm");
    assert_eq!(
        status(AgentKind::Opencode, h.path(), PROGRAM).expect("status"),
        HookState::NotInstalled
    );
    let report = install(AgentKind::Opencode, h.path(), PROGRAM).expect("install");
    assert_eq!(
        report.notice.as_deref(),
        Some(opencode::UNKNOWN_VERSION_NOTICE),
        "the install says it could not tell the version"
    );
    assert!(!path.exists(), "no V1 file for OpenCode 2 to fail on");
    let js = fs::read_to_string(&v2).expect("read");
    assert!(js.lines().next().is_some_and(is_managed));
    assert!(js.contains(r#"const PROGRAM = "/usr/local/bin/signaltty";"#));
    assert!(js.contains("SIGNALTTY_PANE"));
    for event in [
        "session.created",
        "session.status",
        "session.idle",
        "session.error",
    ] {
        assert!(js.contains(event), "{event} forwarded");
    }
    assert_eq!(
        status(AgentKind::Opencode, h.path(), PROGRAM).expect("status"),
        HookState::Installed
    );
    assert_eq!(
        status(AgentKind::Opencode, h.path(), "/elsewhere/signaltty").expect("status"),
        HookState::Partial
    );
    assert_eq!(
        uninstall(AgentKind::Opencode, h.path())
            .expect("uninstall")
            .outcome,
        WriteOutcome::Changed
    );
    assert!(!path.exists());
    assert!(
        !path.with_extension("").exists(),
        "the V2 directory went too"
    );
}

#[test]
fn a_v1_plugin_of_ours_left_from_an_earlier_install_is_removed() {
    // An earlier install that could not tell the version wrote both generations; OpenCode 2
    // loads every .js file in plugins/ and fails on the V1 one.
    let h = home();
    let path = config_path(AgentKind::Opencode, h.path()).expect("path");
    write(&path, &opencode::plugin_source(PROGRAM));
    assert_eq!(
        status(AgentKind::Opencode, h.path(), PROGRAM).expect("status"),
        HookState::Partial,
        "a stale V1 plugin is not a good install"
    );
    let report = install(AgentKind::Opencode, h.path(), PROGRAM).expect("install");
    assert_eq!(report.outcome, WriteOutcome::Changed);
    assert!(!path.exists(), "the V1 plugin is gone");
    assert!(path.with_extension("").join("tui.js").exists());
    assert_eq!(
        install(AgentKind::Opencode, h.path(), PROGRAM)
            .expect("reinstall")
            .outcome,
        WriteOutcome::Unchanged
    );
    // A file the user wrote at that path is theirs: left alone.
    write(&path, "export const Mine = async () => ({});\n");
    install(AgentKind::Opencode, h.path(), PROGRAM).expect("install");
    assert!(path.exists());
}

#[test]
fn codex_hooks_kept_inline_in_config_toml_get_no_hooks_json_beside_them() {
    let h = home();
    let path = config_path(AgentKind::Codex, h.path()).expect("path");
    let config = path.with_file_name("config.toml");
    // Codex's own trust table is not inline hooks.
    write(
        &config,
        "model = \"gpt-5.5\"\n[hooks.state.\"a:b\"]\ntrusted_hash = \"x\"\n",
    );
    install(AgentKind::Codex, h.path(), PROGRAM).expect("install beside a trust table");
    assert!(path.exists());
    fs::remove_file(&path).expect("rm");

    let inline = "model = \"gpt-5.5\"\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\n\
                  command = \"notify-send done\"\n";
    write(&config, inline);
    let err = install(AgentKind::Codex, h.path(), PROGRAM).expect_err("refused");
    assert!(
        matches!(&err, InstallError::CodexInlineHooks { events, .. } if events == "Stop"),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains("config.toml") && text.contains("hooks.json"),
        "{text}"
    );
    assert!(!path.exists(), "no hooks.json written");
    assert_eq!(
        fs::read_to_string(&config).expect("read"),
        inline,
        "config.toml untouched"
    );
}

#[test]
fn config_roots_follow_the_agents_variables() {
    use signaltty_server::agents::install::{ConfigRoots, install_in};
    let h = home();
    let env = |var: &str| match var {
        "CLAUDE_CONFIG_DIR" => Some(h.path().join("c").display().to_string()),
        "CODEX_HOME" => Some("relative/ignored".to_owned()),
        "XDG_CONFIG_HOME" => Some(h.path().join("xdg").display().to_string()),
        _ => None,
    };
    let roots = ConfigRoots::from_env(h.path(), env);
    assert_eq!(
        roots.config_path(AgentKind::Claude).expect("path"),
        h.path().join("c/settings.json")
    );
    assert_eq!(
        roots.config_path(AgentKind::Codex).expect("path"),
        h.path().join(".codex/hooks.json"),
        "relative values are the caller's to resolve"
    );
    assert_eq!(
        roots.config_path(AgentKind::Opencode).expect("path"),
        h.path().join("xdg/opencode/plugins/signaltty.js")
    );
    let with_dir = ConfigRoots {
        opencode: Some(h.path().join("oc")),
        ..roots.clone()
    };
    assert_eq!(
        with_dir.config_path(AgentKind::Opencode).expect("path"),
        h.path().join("oc/plugins/signaltty.js")
    );
    install_in(AgentKind::Claude, &roots, PROGRAM).expect("install");
    assert!(h.path().join("c/settings.json").is_file());
    assert!(!h.path().join(".claude").exists());
}

#[test]
fn generic_has_no_installer() {
    let h = home();
    assert!(matches!(
        install(AgentKind::Generic, h.path(), PROGRAM),
        Err(InstallError::Unsupported(_))
    ));
    assert!(matches!(
        status(AgentKind::Generic, h.path(), PROGRAM),
        Err(InstallError::Unsupported(_))
    ));
}

/// Runs the generated OpenCode plugin under node (when installed) with a recording stand-in for
/// the signaltty program, and feeds what it reported back through the mapping.
#[test]
fn opencode_plugin_reports_normalized_events_that_map() {
    use signaltty_server::agents::mapping::{map_hook, parse_payload};
    use signaltty_server::model::lifecycle::{Attention, Lifecycle};
    use std::process::Command;

    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("node not installed: skipping the plugin run");
        return;
    }
    let h = home();
    let log = h.path().join("calls.log");
    let recorder = h.path().join("record-signaltty");
    write(
        &recorder,
        &format!(
            "#!/bin/sh\n{{ printf '%s ' \"$@\"; printf '\\n'; cat; printf '\\n'; }} >> '{}'\n",
            log.display()
        ),
    );
    fs::set_permissions(&recorder, fs::Permissions::from_mode(0o755)).expect("chmod");
    let program = recorder.to_str().expect("utf-8 path");
    // The V1 plugin exactly as an install for OpenCode 1 writes it; node 20 needs the .mjs
    // extension for ES module syntax (OpenCode, on Bun, loads .js directly).
    let module = h.path().join("plugin.mjs");
    write(&module, &opencode::plugin_source(program));
    let driver = h.path().join("driver.mjs");
    write(
        &driver,
        r#"const { SignalttyPlugin } = await import(process.argv[2]);
const hooks = await SignalttyPlugin({});
const send = (type, properties) => hooks.event({ event: { type, properties } });
await send("session.created", { info: { id: "ses_main" } });
await send("session.created", { info: { id: "ses_child", parentID: "ses_main" } });
await send("session.status", { sessionID: "ses_child", status: { type: "busy" } });
await send("session.status", { sessionID: "ses_main", status: { type: "busy" } });
await send("session.status", { sessionID: "ses_main", status: { type: "retry", attempt: 1 } });
await send("message.updated", { info: {} });
await send("session.error", { sessionID: "ses_main", error: { name: "APIError", data: { message: "boom" } } });
await send("session.idle", { sessionID: "ses_main" });
"#,
    );
    let run = |pane: Option<&str>| {
        let mut cmd = Command::new("node");
        cmd.arg(&driver).arg(&module).env_remove("SIGNALTTY_PANE");
        if let Some(p) = pane {
            cmd.env("SIGNALTTY_PANE", p);
        }
        let out = cmd.output().expect("node runs");
        assert!(
            out.status.success(),
            "node failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };

    run(None);
    assert!(!log.exists(), "outside a pane the plugin reports nothing");

    run(Some("pane_test"));
    let text = fs::read_to_string(&log).expect("calls recorded");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 10, "five reports of two lines each: {text}");
    let mut states = Vec::new();
    for pair in lines.chunks(2) {
        let args: Vec<&str> = pair[0].split_whitespace().collect();
        assert_eq!(args[..4], ["hook-event", "--agent", "opencode", "--event"]);
        assert_eq!(args[5], "--payload-stdin");
        let payload = parse_payload(pair[1].as_bytes()).expect("payload JSON");
        let effect = map_hook(AgentKind::Opencode, args[4], &payload).expect("maps");
        assert_eq!(
            effect.session_id.as_ref().map(|s| s.as_str()),
            Some("ses_main")
        );
        states.push((args[4].to_owned(), effect.lifecycle, effect.attention));
    }
    assert_eq!(
        states,
        [
            ("session.created".to_owned(), Some(Lifecycle::Idle), None),
            (
                "session.status".to_owned(),
                Some(Lifecycle::Working),
                Some(Attention::None)
            ),
            // A retry: still working, with a warning that says why (the retry's text).
            (
                "session.status".to_owned(),
                Some(Lifecycle::Working),
                Some(Attention::Warning)
            ),
            (
                "session.error".to_owned(),
                Some(Lifecycle::Failed),
                Some(Attention::Error)
            ),
            (
                "session.idle".to_owned(),
                Some(Lifecycle::Done),
                Some(Attention::Unread)
            ),
        ]
    );
}

/// Issue 14 §4: an empty config file gets our entries; nothing is lost because there was nothing.
#[test]
fn an_empty_config_file_gets_our_entries() {
    let h = home();
    let path = config_path(AgentKind::Claude, h.path()).expect("claude path");
    write(&path, "");
    assert_eq!(
        install(AgentKind::Claude, h.path(), PROGRAM)
            .expect("installs")
            .outcome,
        WriteOutcome::Changed
    );
    assert!(!managed_commands(&read_json(&path)).is_empty());
}

/// Issue 14 §4: duplicate keys would be merged (one value dropped) by a rewrite: refused, the
/// file byte-identical.
#[test]
fn a_config_with_duplicate_keys_is_refused_untouched() {
    for kind in [AgentKind::Claude, AgentKind::Codex, AgentKind::Cursor] {
        let h = home();
        let path = config_path(kind, h.path()).expect("path");
        let text = r#"{"model": "opus", "model": "sonnet", "hooks": {}}"#;
        write(&path, text);
        let err = install(kind, h.path(), PROGRAM).expect_err("refused");
        assert!(err.to_string().contains("appears twice"), "{kind:?}: {err}");
        assert_eq!(fs::read_to_string(&path).expect("read"), text, "{kind:?}");
    }
}
