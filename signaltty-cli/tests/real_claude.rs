//! The real Claude Code (pinned, from npm) in real signaltty panes against a fake Anthropic API
//! on loopback: what the pane says at each step of what a user does, and how long each change
//! took. Run alone: `cargo test -p signaltty-cli --test real_claude` (after `cargo build -p
//! signaltty-server`). Skips loudly when npm cannot reach its registry.

mod common;
#[allow(dead_code)]
mod real;

use std::sync::Arc;
use std::time::Duration;

use real::anthropic::{Reply, Script, Turn};
use real::claude::{HOOK_BUDGET, PaneView, Trust, World, with_world};
use serde_json::json;

const ESC: &[u8] = b"\x1b";
const ENTER: &[u8] = b"\r";
const DOWN: &[u8] = b"\x1b[B";

/// How long the pane may take to show an interruption, which Claude reports through no hook
/// (signaltty reads it from Claude's transcript).
const INTERRUPT_BUDGET: Duration = Duration::from_secs(10);

/// The model of every scenario, by the prompt's words.
fn script() -> Script {
    Arc::new(|turn: &Turn| match turn {
        Turn::ToolResult { text, is_error } => Reply::Text {
            text: format!(
                "finished ({}): {}",
                if *is_error { "error" } else { "ok" },
                text.lines().next().unwrap_or("")
            ),
        },
        Turn::Prompt(p) if p.contains("write the file") => Reply::ToolUse {
            name: "Bash".to_owned(),
            input: json!({"command": "echo signaltty-ok > done.txt", "description": "write done.txt"}),
        },
        Turn::Prompt(p) if p.contains("run the slow command") => Reply::ToolUse {
            name: "Bash".to_owned(),
            input: json!({"command": "tail -f /dev/null", "description": "wait a long time"}),
        },
        Turn::Prompt(p) if p.contains("talk forever") => Reply::Endless {
            every: Duration::from_millis(100),
        },
        Turn::Prompt(p) if p.contains("ask me") => Reply::ToolUse {
            name: "AskUserQuestion".to_owned(),
            input: json!({"questions": [{
                "question": "Which colour should the button be?",
                "header": "Colour",
                "multiSelect": false,
                "options": [
                    {"label": "Red", "description": "warm"},
                    {"label": "Blue", "description": "cool"}
                ]
            }]}),
        },
        Turn::Prompt(p) if p.contains("fail please") => Reply::Error {
            status: 400,
            kind: "invalid_request_error".to_owned(),
            message: "fake model refuses: the prompt is far too long".to_owned(),
        },
        Turn::Prompt(_) => Reply::Text {
            text: "hello from the fake model".to_owned(),
        },
    })
}

fn is(lifecycle: &str, attention: &str) -> impl Fn(&PaneView) -> bool {
    let (l, a) = (lifecycle.to_owned(), attention.to_owned());
    move |v| v.lifecycle == l && v.attention == a
}

/// Prompts for the Bash call and waits for the permission ask; returns the decision id.
fn ask_for_bash(world: &World, pane: &str, prompt: &str, command: &str) -> String {
    world.prompt(pane, prompt);
    world.wait_screen(pane, "Do you want to proceed?");
    let (view, _) = world.expect(
        pane,
        "the permission dialog",
        HOOK_BUDGET,
        is("blocked", "permission_required"),
    );
    assert_eq!(
        view.message.as_deref(),
        Some(format!("Allow Bash? {command}").as_str())
    );
    let decision = view.decision.expect("a pending decision");
    assert_eq!(decision["answerable"], true, "{decision}");
    assert_eq!(real::option_ids(&decision), ["once", "deny"]);
    decision["id"].as_str().expect("decision id").to_owned()
}

/// The pane is idle after an interruption: no stale ask, no decision.
fn interrupted(v: &PaneView) -> bool {
    v.lifecycle == "idle" && v.attention == "none" && v.decision.is_none()
}

#[test]
fn allow_from_signaltty_runs_the_command() {
    with_world(script(), Trust::Accepted, |world| {
        let pane = world.start_claude();
        world.expect(&pane, "ready", HOOK_BUDGET, is("idle", "none"));
        let decision = ask_for_bash(
            world,
            &pane,
            "please write the file",
            "echo signaltty-ok > done.txt",
        );
        world.answer(&pane, &decision, "once");
        let (view, _) = world.expect(&pane, "the turn ended", HOOK_BUDGET, is("done", "unread"));
        assert!(view.decision.is_none());
        assert_eq!(
            view.message.as_deref(),
            Some("finished (ok): (Bash completed with no output)")
        );
        let written = std::fs::read_to_string(world.project.join("done.txt")).expect("done.txt");
        assert_eq!(written.trim(), "signaltty-ok");
    });
}

#[test]
fn deny_from_signaltty_refuses_the_command() {
    with_world(script(), Trust::Accepted, |world| {
        let pane = world.start_claude();
        let decision = ask_for_bash(
            world,
            &pane,
            "please write the file",
            "echo signaltty-ok > done.txt",
        );
        world.answer(&pane, &decision, "deny");
        let (view, _) = world.expect(&pane, "the turn ended", HOOK_BUDGET, is("done", "unread"));
        assert!(view.decision.is_none());
        let said = view.message.unwrap_or_default();
        assert!(said.starts_with("finished (error)"), "{said}");
        assert!(!world.project.join("done.txt").exists());
        let told = format!("{:?}", world.api.turns());
        assert!(told.contains("Denied in signaltty"), "{told}");
    });
}

#[test]
fn yes_in_claude_clears_the_decision() {
    with_world(script(), Trust::Accepted, |world| {
        let pane = world.start_claude();
        ask_for_bash(
            world,
            &pane,
            "please write the file",
            "echo signaltty-ok > done.txt",
        );
        // "Yes" is the dialog's first option; its digit picks it.
        world.press_in_dialog(&pane, "Do you want to proceed?", b"1");
        world.expect(&pane, "decision cleared after Yes", HOOK_BUDGET, |v| {
            v.decision.is_none() && v.lifecycle != "blocked"
        });
        world.expect(&pane, "the turn ended", HOOK_BUDGET, is("done", "unread"));
        assert!(world.project.join("done.txt").exists());
        // The request was settled in Claude: its "needs approval" notice needs no one now.
        let unread = world
            .env
            .json(&["notifications", "--unread", "--pane", &pane]);
        let stale: Vec<_> = unread
            .as_array()
            .into_iter()
            .flatten()
            .filter(|n| n["title"].as_str().unwrap_or_default().contains("approval"))
            .collect();
        assert!(stale.is_empty(), "{stale:?}");
    });
}

#[test]
fn no_in_claude_leaves_the_pane_idle() {
    with_world(script(), Trust::Accepted, |world| {
        let pane = world.start_claude();
        ask_for_bash(
            world,
            &pane,
            "please write the file",
            "echo signaltty-ok > done.txt",
        );
        // "No" is the dialog's last option; its digit picks it.
        world.press_in_dialog(&pane, "Do you want to proceed?", b"4");
        world.wait_screen(&pane, "Interrupted");
        let (view, _) = world.expect(&pane, "idle after No", INTERRUPT_BUDGET, interrupted);
        assert_eq!(view.message.as_deref(), Some("interrupted"));
        assert!(!world.project.join("done.txt").exists());
    });
}

#[test]
fn esc_in_claudes_dialog_leaves_the_pane_idle() {
    with_world(script(), Trust::Accepted, |world| {
        let pane = world.start_claude();
        ask_for_bash(
            world,
            &pane,
            "please write the file",
            "echo signaltty-ok > done.txt",
        );
        world.press_in_dialog(&pane, "Do you want to proceed?", ESC);
        world.wait_screen(&pane, "Interrupted");
        let (view, _) = world.expect(&pane, "idle after Esc", INTERRUPT_BUDGET, interrupted);
        assert_eq!(view.message.as_deref(), Some("interrupted"));
    });
}

#[test]
fn esc_while_the_model_answers_leaves_the_pane_idle() {
    with_world(script(), Trust::Accepted, |world| {
        let pane = world.start_claude();
        world.prompt(&pane, "talk forever");
        world.expect(&pane, "working", HOOK_BUDGET, is("working", "none"));
        world.wait_screen(&pane, "word3");
        world.keys(&pane, ESC);
        world.wait_screen(&pane, "Interrupted");
        let (view, _) = world.expect(&pane, "idle after Esc", INTERRUPT_BUDGET, interrupted);
        assert_eq!(view.message.as_deref(), Some("interrupted"));
        // `pane wait … done,idle` returns rather than hanging.
        world.env.ok(&[
            "pane",
            "wait",
            &pane,
            "--until",
            "idle,done",
            "--timeout",
            "5",
        ]);
    });
}

#[test]
fn esc_during_an_allowed_command_leaves_the_pane_idle() {
    with_world(script(), Trust::Accepted, |world| {
        let pane = world.start_claude();
        let decision = ask_for_bash(world, &pane, "run the slow command", "tail -f /dev/null");
        world.answer(&pane, &decision, "once");
        let (view, _) = world.expect(&pane, "the command runs", HOOK_BUDGET, |v| {
            v.lifecycle == "working" && v.decision.is_none()
        });
        assert_eq!(view.attention, "none");
        world.wait_screen(&pane, "esc to interrupt");
        world.keys(&pane, ESC);
        world.wait_screen(&pane, "Interrupted");
        let (view, _) = world.expect(&pane, "idle after Esc", INTERRUPT_BUDGET, interrupted);
        assert_eq!(view.message.as_deref(), Some("interrupted"));
    });
}

/// "Yes" in Claude's own dialog: while the allowed command runs, the pane is working and no
/// longer says "Allow Bash? …" (docs/agents.md listed this as stale).
#[test]
fn a_command_allowed_in_claude_no_longer_asks_while_it_runs() {
    with_world(script(), Trust::Accepted, |world| {
        let pane = world.start_claude();
        ask_for_bash(world, &pane, "run the slow command", "tail -f /dev/null");
        world.press_in_dialog(&pane, "Do you want to proceed?", b"1");
        world.wait_screen(&pane, "esc to interrupt");
        let (view, _) = world.expect(&pane, "the command runs", HOOK_BUDGET, |v| {
            v.lifecycle == "working" && v.decision.is_none()
        });
        let said = view.message.unwrap_or_default();
        assert!(!said.starts_with("Allow"), "{said:?}");
        world.keys(&pane, ESC);
        world.expect(&pane, "idle after Esc", INTERRUPT_BUDGET, interrupted);
    });
}

#[test]
fn a_question_is_shown_as_a_question_not_a_permission() {
    with_world(script(), Trust::Accepted, |world| {
        let pane = world.start_claude();
        world.prompt(&pane, "ask me something");
        world.wait_screen(&pane, "Which colour should the button be?");
        let (view, _) = world.expect(&pane, "the question", HOOK_BUDGET, |v| {
            v.lifecycle == "blocked"
        });
        assert_eq!(view.attention, "input_required", "{view:?}");
        let said = view.message.clone().unwrap_or_default();
        assert!(
            said.contains("Which colour should the button be?") && said.contains("Red"),
            "{said}"
        );
        if let Some(decision) = &view.decision {
            let options = decision["options"].to_string();
            assert!(
                !options.contains("\"once\"") && !options.contains("\"deny\""),
                "a question offered allow/deny: {decision}"
            );
        }
        // The user answers in Claude: Red is first.
        world.press_in_dialog(&pane, "Enter to select", ENTER);
        let (view, _) = world.expect(&pane, "the turn ended", HOOK_BUDGET, is("done", "unread"));
        assert!(view.decision.is_none());
        let told = format!("{:?}", world.api.turns());
        assert!(told.contains("Red"), "Claude told the model: {told}");
    });
}

#[test]
fn an_api_error_shows_the_agents_error_text() {
    with_world(script(), Trust::Accepted, |world| {
        let pane = world.start_claude();
        world.prompt(&pane, "fail please");
        let (view, _) = world.expect(&pane, "the turn failed", HOOK_BUDGET, is("failed", "error"));
        let said = view.message.unwrap_or_default();
        assert!(said.contains("far too long"), "{said}");
    });
}

#[test]
fn a_restarted_api_server_is_used_again() {
    with_world(script(), Trust::Accepted, |world| {
        let pane = world.start_claude();
        world.prompt(&pane, "hello");
        world.expect(&pane, "first turn", HOOK_BUDGET, is("done", "unread"));
        world.api.restart();
        world.prompt(&pane, "hello again");
        let (view, _) = world.expect(&pane, "second turn", HOOK_BUDGET, |v| {
            v.lifecycle == "done" && v.message.as_deref() == Some("hello from the fake model")
        });
        assert_eq!(view.attention, "unread");
    });
}

#[test]
fn exit_ends_the_pane() {
    with_world(script(), Trust::Accepted, |world| {
        let pane = world.start_claude();
        world.prompt(&pane, "/exit");
        world.expect(&pane, "exited", HOOK_BUDGET, |v| v.lifecycle == "exited");
    });
}

#[test]
fn exit_back_to_the_shell_drops_the_agent() {
    with_world(script(), Trust::Accepted, |world| {
        let pane = world.spawn(&["/bin/sh"]);
        world.prompt(&pane, &world.claude_argv().join(" "));
        world.wait_screen(&pane, "for shortcuts");
        world.expect(&pane, "claude runs", HOOK_BUDGET, |v| {
            v.lifecycle == "idle" && v.agent.as_deref() == Some("claude")
        });
        world.prompt(&pane, "hello");
        world.expect(&pane, "turn ended", HOOK_BUDGET, is("done", "unread"));
        world.prompt(&pane, "/exit");
        let (view, _) = world.expect(&pane, "back in the shell", HOOK_BUDGET, |v| {
            v.agent.is_none() || v.agent.as_deref() == Some("")
        });
        assert_ne!(view.lifecycle, "done", "{view:?}");
    });
}

#[test]
fn print_mode_reports_the_answer() {
    with_world(script(), Trust::Accepted, |world| {
        let bin = world.claude.to_str().expect("utf-8").to_owned();
        let pane = world.spawn(&[&bin, "-p", "hello"]);
        let (view, _) = world.expect(&pane, "answer", HOOK_BUDGET, |v| {
            v.message.as_deref() == Some("hello from the fake model")
        });
        assert!(
            view.lifecycle == "done" || view.lifecycle == "exited",
            "{view:?}"
        );
        world.expect(&pane, "exited", HOOK_BUDGET, |v| v.lifecycle == "exited");
    });
}

/// No hook runs before the folder-trust dialog is answered: the pane reads it from Claude's
/// screen (issue 35, finding 4).
#[test]
fn the_trust_dialog_is_not_unknown() {
    with_world(script(), Trust::Ask, |world| {
        let argv = world.claude_argv();
        let pane = world.spawn(&argv.iter().map(String::as_str).collect::<Vec<_>>());
        world.wait_screen(&pane, "trust");
        let (view, _) = world.expect(&pane, "the trust dialog", HOOK_BUDGET, |v| {
            v.lifecycle != "unknown"
        });
        assert_eq!(view.attention, "input_required", "{view:?}");
        assert_eq!(view.lifecycle, "blocked", "{view:?}");
        assert!(
            view.message
                .as_deref()
                .unwrap_or_default()
                .contains("trust"),
            "{view:?}"
        );
        // The dialog opens on "No, exit": move to "Yes, I trust this folder" first.
        world.press_until(&pane, "❯ Yes, I trust", DOWN);
        world.press_in_dialog(&pane, "Quick safety check", ENTER);
        world.wait_screen(&pane, "for shortcuts");
        world.expect(&pane, "ready", HOOK_BUDGET, is("idle", "none"));
    });
}
