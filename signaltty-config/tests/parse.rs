//! The config file end to end: a full valid file, an empty one, and files with several mistakes,
//! each reported with its line.

use signaltty_config::{AgentKind, DetachKey, Missing, Problem, parse};

const FULL: &str = r#"
# every key, set
[server]
scrollback_lines = 2_000
scrollback_bytes = 0x10000
event_ring = 500
default_shell = "/bin/bash"
close_tab_on_last_pane = false
max_connections = 64
keepalive_interval_secs = 30
keepalive_timeout_secs = 5

[agents.codex]
wait_for_answer = false

[agents.claude]
wait_for_answer = true
wait_timeout_ms = 30000

[policy]
pane_clients_may_answer_decisions = false
pane_clients_may_report_for_other_panes = true
pane_clients_may_control_other_workspaces = false

[attach]
detach_key = "C-a"

[tui]
theme = "dark"
[tui.keymap]
"ctrl-q" = "quit"
"#;

fn problems(text: &str) -> Vec<(usize, String, String)> {
    parse(text)
        .expect_err("has problems")
        .into_iter()
        .map(|p: Problem| (p.line, p.key, p.message))
        .collect()
}

#[test]
fn every_key_is_read() {
    let c = parse(FULL).expect("valid");
    assert_eq!(c.server.scrollback_lines, Some(2000));
    assert_eq!(c.server.scrollback_bytes, Some(65536));
    assert_eq!(c.server.event_ring, Some(500));
    assert_eq!(c.server.default_shell.as_deref(), Some("/bin/bash"));
    assert_eq!(c.server.close_tab_on_last_pane, Some(false));
    assert_eq!(c.server.max_connections, Some(64));
    assert_eq!(c.server.keepalive_interval_secs, Some(30));
    assert_eq!(c.server.keepalive_timeout_secs, Some(5));
    assert_eq!(c.agent(AgentKind::Codex).wait_for_answer, Some(false));
    assert_eq!(c.agent(AgentKind::Codex).wait_timeout_ms, None);
    assert_eq!(c.agent(AgentKind::Claude).wait_timeout_ms, Some(30_000));
    assert_eq!(c.agent(AgentKind::Cursor), Default::default());
    assert_eq!(c.policy.pane_clients_may_answer_decisions, Some(false));
    assert_eq!(c.policy.pane_clients_may_report_for_other_panes, Some(true));
    assert_eq!(
        c.policy.pane_clients_may_control_other_workspaces,
        Some(false)
    );
    assert_eq!(c.attach.detach_key, Some(DetachKey(1)));
    assert_eq!(c.tui.get("theme").and_then(|v| v.as_str()), Some("dark"));
    let keymap = c
        .tui
        .get("keymap")
        .and_then(|v| v.as_table())
        .expect("keymap");
    assert_eq!(keymap.get("ctrl-q").and_then(|v| v.as_str()), Some("quit"));
}

#[test]
fn an_empty_file_is_all_defaults() {
    let c = parse("# nothing set\n").expect("valid");
    assert_eq!(c, Default::default());
}

#[test]
fn every_mistake_is_reported_with_its_line() {
    let text = "\
[server]
scrollback_lines = -5
scrolback_bytes = 100
event_ring = \"many\"
default_shell = \"\"

[agents.codexx]
wait_for_answer = false

[agents.claude]
wait_timeout_ms = 5
wait = true

[policy]
pane_clients_may_answer_decisions = \"no\"

[attach]
detach_key = \"alt-x\"

[colours]
";
    let found = problems(text);
    let lines: Vec<usize> = found.iter().map(|p| p.0).collect();
    assert_eq!(lines, [2, 3, 4, 5, 7, 11, 12, 15, 18, 20], "{found:#?}");
    let expect = [
        (
            "server.scrollback_lines",
            "-5 is out of range: expected an integer from 0 to 1000000",
        ),
        (
            "server.scrolback_bytes",
            "unknown key; expected one of: scrollback_lines, scrollback_bytes",
        ),
        (
            "server.event_ring",
            "expected an integer from 16 to 1000000, found the string \"many\"",
        ),
        (
            "server.default_shell",
            "expected a non-empty string, found an empty string",
        ),
        (
            "agents.codexx",
            "unknown key; expected one of: claude, codex, opencode, cursor, generic",
        ),
        ("agents.claude.wait_timeout_ms", "5 is out of range"),
        (
            "agents.claude.wait",
            "unknown key; expected one of: wait_for_answer, wait_timeout_ms",
        ),
        (
            "policy.pane_clients_may_answer_decisions",
            "expected true or false, found the string \"no\"",
        ),
        ("attach.detach_key", "bad detach key \"alt-x\""),
        (
            "colours",
            "unknown key; expected one of: server, agents, policy, attach, tui",
        ),
    ];
    for ((_, key, message), (want_key, want_message)) in found.iter().zip(expect) {
        assert_eq!(key, want_key);
        assert!(message.starts_with(want_message), "{key}: {message}");
    }
}

#[test]
fn a_syntax_error_has_its_line_and_later_keys_are_still_checked() {
    let found = problems("[server]\nscrollback_lines = \nevent_ring = 1\n");
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(found[0].0, 2);
    assert_eq!(found[0].1, "");
    assert_eq!((found[1].0, found[1].1.as_str()), (3, "server.event_ring"));
}

#[test]
fn a_section_of_the_wrong_type_is_named() {
    let found = problems("server = 3\n[agents]\nclaude = true\n");
    assert_eq!(
        found,
        [
            (
                1,
                "server".into(),
                "expected a table ([server]), found integer".into()
            ),
            (
                3,
                "agents.claude".into(),
                "expected a table ([agents.claude]), found boolean".into()
            ),
        ]
    );
}

#[test]
fn load_reports_the_path_and_treats_a_missing_default_file_as_empty() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    let loaded = signaltty_config::load(&path, Missing::Default).expect("missing is fine");
    assert_eq!(loaded.path, None);
    let err = signaltty_config::load(&path, Missing::Required).expect_err("must exist");
    assert!(err.to_string().contains("cannot read it"), "{err}");

    std::fs::write(&path, "[server]\nevent_ring = 1\n").expect("write");
    let err = signaltty_config::load(&path, Missing::Default).expect_err("bad value");
    assert_eq!(
        err.to_string(),
        format!(
            "{}:2:14: server.event_ring: 1 is out of range: expected an integer from 16 to 1000000",
            path.display()
        )
    );
}

#[test]
fn connection_limits_are_checked_with_their_line_and_column() {
    let c = parse("[server]\nmax_connections = 8\nkeepalive_interval_secs = 1\n").expect("valid");
    assert_eq!(c.server.max_connections, Some(8));
    assert_eq!(c.server.keepalive_interval_secs, Some(1));
    assert_eq!(c.server.keepalive_timeout_secs, None);

    let text = "[server]\nmax_connections = 0\nkeepalive_interval_secs = \"1m\"\nkeepalive_timeout_secs = 601\n";
    let found: Vec<(usize, usize, String, String)> = parse(text)
        .expect_err("has problems")
        .into_iter()
        .map(|p| (p.line, p.column, p.key, p.message))
        .collect();
    assert_eq!(
        found,
        [
            (
                2,
                19,
                "server.max_connections".to_owned(),
                "0 is out of range: expected an integer from 1 to 65536".to_owned()
            ),
            (
                3,
                27,
                "server.keepalive_interval_secs".to_owned(),
                "expected an integer from 1 to 3600, found the string \"1m\"".to_owned()
            ),
            (
                4,
                26,
                "server.keepalive_timeout_secs".to_owned(),
                "601 is out of range: expected an integer from 1 to 600".to_owned()
            ),
        ]
    );
}
