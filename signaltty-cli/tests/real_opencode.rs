//! The real OpenCode (pinned in `real/npm_codex.rs`, installed from npm into
//! `target/agents-cache/`) in real signaltty panes, against a fake chat-completions API on
//! loopback. Skipped, loudly, when npm cannot reach its registry. Run alone:
//! `cargo test -p signaltty-cli --test real_opencode`.

mod common;
#[allow(dead_code)] // each suite uses only its own agent's support modules.
mod real;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use real::chat::{Reply, Seen};
use real::opencode::OpencodeWorld;
use real::opencode_tui::{ENTER, ESC, RIGHT, is, message};

/// How long the pane is watched for a late, wrong "done" after the event that told the truth
/// (OpenCode sends its idle events a few milliseconds after an error or an interruption).
const NO_LATE_DONE: Duration = Duration::from_secs(3);

/// The model of the TUI scenarios, by the prompt's words.
fn script() -> impl Fn(&Seen) -> Reply + Send + Sync + 'static {
    let retried = AtomicUsize::new(0);
    move |seen| {
        if let Some(out) = &seen.tool_output {
            return Reply::Text(format!("finished: {}", out.lines().next().unwrap_or("")));
        }
        let prompt = seen.last_user.as_str();
        if prompt.contains("write the file") {
            Reply::Shell {
                call_id: "call_write".into(),
                command: "echo signaltty-ok > done.txt".into(),
            }
        } else if prompt.contains("ask me") {
            Reply::Question {
                question: "Which colour should the button be?".into(),
                options: vec!["Red".into(), "Blue".into()],
            }
        } else if prompt.contains("talk forever") {
            Reply::Endless
        } else if prompt.contains("refuse please") {
            Reply::Error {
                status: 400,
                kind: "invalid_request_error".into(),
                message: "the fake model refuses".into(),
            }
        } else if prompt.contains("retry please") && retried.fetch_add(1, Ordering::SeqCst) == 0 {
            Reply::Error {
                status: 500,
                kind: "server_error".into(),
                message: "the fake model is overloaded".into(),
            }
        } else {
            Reply::Text("hello from the fake model".into())
        }
    }
}

/// The TUI prompts for `write the file` and asks to run it; returns the pane at the ask.
fn ask_for_bash(world: &OpencodeWorld, pane: &str) -> serde_json::Value {
    let started = Instant::now();
    world.prompt(pane, "please write the file");
    world.until(pane, "working", started, |p| p["lifecycle"] == "working");
    world.wait_screen(pane, "Permission required");
    let shown = Instant::now();
    eprintln!(
        "[timing] OpenCode's dialog on screen: {:?}",
        started.elapsed()
    );
    let (got, _) = world.until(
        pane,
        "blocked on the permission (after the dialog showed)",
        shown,
        is("blocked", "permission_required"),
    );
    assert_eq!(message(&got), "Allow bash? echo signaltty-ok > done.txt");
    assert!(!got["pending_decision"].is_null(), "{got}");
    got
}

/// Allow once in OpenCode's own dialog: working → blocked → done, then `/exit` ends the pane
/// with no request left on it.
#[test]
fn allow_in_opencode_then_exit() {
    let Some(world) = OpencodeWorld::new(script()) else {
        return;
    };
    let pane = world.start_tui();
    ask_for_bash(&world, &pane);
    let allowed = Instant::now();
    // "Allow once" is the dialog's first, selected choice.
    world.press_until_gone(&pane, "Permission required", ENTER);
    let (got, _) = world.until(&pane, "done after allow", allowed, is("done", "unread"));
    assert!(got["pending_decision"].is_null(), "{got}");
    assert!(
        !message(&got).starts_with("Allow"),
        "a stale request: {got}"
    );
    let written = std::fs::read_to_string(world.project.join("done.txt")).expect("done.txt");
    assert_eq!(written.trim(), "signaltty-ok");
    let exiting = Instant::now();
    world.prompt(&pane, "/exit");
    let (got, _) = world.until(&pane, "exited", exiting, |p| p["lifecycle"] == "exited");
    assert!(got["pending_decision"].is_null(), "{got}");
    assert!(
        !message(&got).starts_with("Allow"),
        "a stale request: {got}"
    );
}

/// Allow from signaltty (`decision answer`): the plugin's waiting report passes the verdict to
/// OpenCode, whose dialog closes and whose command runs; the decision is gone at once.
#[test]
fn allow_from_signaltty_runs_the_command() {
    let Some(world) = OpencodeWorld::new(script()) else {
        return;
    };
    let pane = world.start_tui();
    let asked = ask_for_bash(&world, &pane);
    let decision = &asked["pending_decision"];
    assert_eq!(decision["answerable"], true, "{asked}");
    assert_eq!(real::option_ids(decision), ["once", "deny"]);
    let id = decision["id"].as_str().expect("decision id");
    let answered = Instant::now();
    world.env.ok(&["decision", "answer", &pane, id, "once"]);
    world.until(&pane, "decision gone after the answer", answered, |p| {
        p["pending_decision"].is_null()
    });
    let (got, _) = world.until(&pane, "done after allow", answered, is("done", "unread"));
    assert!(
        !message(&got).starts_with("Allow"),
        "a stale request: {got}"
    );
    let written = std::fs::read_to_string(world.project.join("done.txt")).expect("done.txt");
    assert_eq!(written.trim(), "signaltty-ok");
    assert!(!world.screen(&pane).contains("Permission required"));
}

/// Reject in OpenCode's own dialog: the pane says it was rejected, holds no request, and does
/// not look like an ordinary finished turn — not even after OpenCode's idle events.
#[test]
fn reject_in_opencode_is_not_a_finished_turn() {
    let Some(world) = OpencodeWorld::new(script()) else {
        return;
    };
    let pane = world.start_tui();
    ask_for_bash(&world, &pane);
    // Reject is the third choice.
    world.keys(&pane, RIGHT);
    world.keys(&pane, RIGHT);
    let rejected = Instant::now();
    world.press_until_gone(&pane, "Permission required", ENTER);
    let (got, _) = world.until(&pane, "idle after reject", rejected, is("idle", "none"));
    assert!(got["pending_decision"].is_null(), "{got}");
    assert_eq!(message(&got), "rejected: bash echo signaltty-ok > done.txt");
    assert!(world.stays_away_from(&pane, "done", NO_LATE_DONE));
    assert!(!world.project.join("done.txt").exists());
}

/// OpenCode's question tool is a question with its text and options, never allow/deny; the
/// user's choice in OpenCode reaches the model.
#[test]
fn the_question_tool_is_a_question() {
    let Some(world) = OpencodeWorld::new(script()) else {
        return;
    };
    let pane = world.start_tui();
    let asked = Instant::now();
    world.prompt(&pane, "please ask me");
    world.wait_screen(&pane, "Which colour should the button be?");
    let (got, _) = world.until(&pane, "the question", asked, |p| {
        p["lifecycle"] == "blocked"
    });
    assert_eq!(got["attention"], "input_required", "{got}");
    assert_eq!(
        message(&got),
        "Which colour should the button be? (Red / Blue)"
    );
    let decision = got["pending_decision"].to_string();
    assert!(
        !decision.contains("\"once\"") && !decision.contains("\"deny\""),
        "a question offered allow/deny: {got}"
    );
    // Red is the first, selected option.
    let answered = Instant::now();
    world.press_until_gone(&pane, "enter submit", ENTER);
    world.until(
        &pane,
        "done after the answer",
        answered,
        is("done", "unread"),
    );
    world
        .model
        .wait_for("the answer", Duration::from_secs(10), |s| {
            s.tool_output.as_deref().is_some_and(|o| o.contains("Red"))
        });
}

/// Esc (twice, as OpenCode asks) while the model streams: the pane is idle and says it was
/// interrupted, not `working` and not done.
#[test]
fn esc_interrupts_a_streamed_answer() {
    let Some(world) = OpencodeWorld::new(script()) else {
        return;
    };
    let pane = world.start_tui();
    let started = Instant::now();
    world.prompt(&pane, "talk forever");
    world.until(&pane, "working", started, is("working", "none"));
    world.wait_screen(&pane, "word3");
    let pressed = Instant::now();
    world.press_until_gone(&pane, "esc interrupt", ESC);
    world.press_until_gone(&pane, "esc again to interrupt", ESC);
    let (got, _) = world.until(&pane, "idle after Esc", pressed, is("idle", "none"));
    assert_eq!(message(&got), "interrupted");
    assert!(world.stays_away_from(&pane, "done", NO_LATE_DONE));
}

/// A 400 refusal: the pane fails with OpenCode's error text and stays failed through the idle
/// events OpenCode sends after it.
#[test]
fn an_api_refusal_fails_with_its_text() {
    let Some(world) = OpencodeWorld::new(script()) else {
        return;
    };
    let pane = world.start_tui();
    let started = Instant::now();
    world.prompt(&pane, "refuse please");
    let (got, _) = world.until(&pane, "failed", started, is("failed", "error"));
    assert_eq!(message(&got), "the fake model refuses");
    assert!(world.stays_away_from(&pane, "done", NO_LATE_DONE));
}

/// A 500 OpenCode retries: while it waits to retry the pane warns with the error text (not a
/// plain `working`), and the retried turn ends done.
#[test]
fn a_retried_server_error_is_a_warning() {
    let Some(world) = OpencodeWorld::new(script()) else {
        return;
    };
    let pane = world.start_tui();
    let started = Instant::now();
    world.prompt(&pane, "retry please");
    let (got, _) = world.until(&pane, "retrying", started, is("working", "warning"));
    assert!(
        message(&got).starts_with("retrying: ") && message(&got).contains("overloaded"),
        "{got}"
    );
    world.until(&pane, "done after the retry", started, is("done", "unread"));
}

/// The agent dies with its permission dialog open (killed: no event of its tells): the pane
/// offers no request any more and says what was left unanswered. (Stopped with SIGTERM,
/// OpenCode aborts the turn first and the pane says "interrupted".)
#[test]
fn death_with_an_open_request_says_it_went_unanswered() {
    let Some(world) = OpencodeWorld::new(script()) else {
        return;
    };
    let pane = world.start_tui();
    ask_for_bash(&world, &pane);
    let exiting = Instant::now();
    world.env.ok(&["pane", "signal", &pane, "KILL", "--group"]);
    let (got, _) = world.until(&pane, "exited", exiting, |p| p["lifecycle"] == "exited");
    assert!(got["pending_decision"].is_null(), "{got}");
    assert_eq!(
        message(&got),
        "exited without an answer to: Allow bash? echo signaltty-ok > done.txt"
    );
}

/// `opencode run` rejects a permission it cannot ask about: once it exited, the pane must not
/// still offer "Allow bash? …", and must not look like an ordinary finished turn.
#[test]
fn opencode_run_rejecting_a_permission_leaves_no_stale_request() {
    let Some(world) = OpencodeWorld::new(|seen| match &seen.tool_output {
        None => Reply::Shell {
            call_id: "call_rm".into(),
            command: "rm -rf victim".into(),
        },
        Some(_) => Reply::Text("finished".into()),
    }) else {
        return;
    };
    std::fs::create_dir_all(world.project.join("victim")).expect("victim");
    let started = Instant::now();
    let pane = world.spawn(&["run", "clean up the victim"]);
    let (got, _) = world.until(&pane, "opencode run exited", started, |p| {
        p["status"] == "exited"
    });
    eprintln!("[state] after the rejected run: {got}");
    assert!(
        !world.model.seen().is_empty(),
        "OpenCode never asked the model: {}",
        world.screen(&pane)
    );
    assert!(world.project.join("victim").exists());
    assert!(got["pending_decision"].is_null(), "{got}");
    let message = got["last_message"].as_str().unwrap_or_default();
    assert!(!message.starts_with("Allow bash"), "a stale request: {got}");
}

/// The model's API fails: the pane says so with the agent's own error text.
/// (A refusal must say `invalid_request_error`: OpenCode retries a `server_error` of any
/// status, which once made this run retry for 80 s.)
#[test]
fn opencode_run_api_error_shows_the_error() {
    let Some(world) = OpencodeWorld::new(|_| Reply::Error {
        status: 400,
        kind: "invalid_request_error".into(),
        message: "the fake model refuses".into(),
    }) else {
        return;
    };
    let started = Instant::now();
    let pane = world.spawn(&["run", "this will fail"]);
    let (got, _) = world.until(&pane, "opencode run exited", started, |p| {
        p["status"] == "exited"
    });
    assert!(
        !world.model.seen().is_empty(),
        "OpenCode never asked the model"
    );
    let message = got["last_message"].as_str().unwrap_or_default();
    assert!(message.contains("refuses"), "the agent's error text: {got}");
}
