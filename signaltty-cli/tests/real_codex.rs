//! The real Codex (pinned in `real/npm_codex.rs`, installed from npm into
//! `target/agents-cache/`) in real signaltty panes, against a fake Responses API on loopback:
//! each scenario types into Codex's own TUI as a user would and asserts, at each step, the pane's
//! state, message and decision, and how long each change took. Skipped, loudly, when npm cannot
//! reach its registry. Run alone: `cargo test -p signaltty-cli --test real_codex`.

mod common;
#[allow(dead_code)] // each suite uses only its own agent's support modules.
mod real;

use std::time::Instant;

use real::codex::{CodexWorld, STEP, state};
use real::responses::Reply;

/// Two Codex TUIs share one `CODEX_HOME`, so one background `codex app-server` daemon (started
/// by the first, in pane A) runs every hook of both, with pane A's environment. Pane B's turn —
/// its permission request included — must show on pane B, name pane B, and answering it must
/// release pane B's Codex; pane A stays as it was.
#[test]
fn two_codex_panes_sharing_a_codex_home_get_their_own_events() {
    let Some(world) = CodexWorld::new(|seen| {
        if seen.user.contains("TASK-B") {
            match &seen.tool_output {
                None => Reply::Shell {
                    call_id: "call_b".into(),
                    command: "rm -rf victim".into(),
                },
                Some(_) => Reply::Text("B is done".into()),
            }
        } else {
            Reply::Text("A is done".into())
        }
    }) else {
        return;
    };
    let victim = world.project.join("victim");
    std::fs::create_dir_all(&victim).expect("victim dir");
    let a = world.spawn_codex(&world.project);
    let b = world.spawn_codex(&world.project);

    let asked = Instant::now();
    world.prompt(&b, "TASK-B clean up");
    let (pane_b, _) = world.until(&b, "pane B blocked on its permission request", asked, |p| {
        state(p) == ("blocked".into(), "permission_required".into())
    });
    let message = pane_b["last_message"].as_str().unwrap_or_default();
    assert!(message.contains("rm -rf victim"), "{pane_b}");
    let decisions = world.decisions();
    assert_eq!(decisions.len(), 1, "{decisions:?}");
    let decision = &decisions[0];
    assert_eq!(
        decision["pane_id"],
        b.as_str(),
        "the decision names pane B: {decision}"
    );
    assert!(
        decision["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("rm -rf victim"),
        "{decision}"
    );
    let pane_a = world.pane(&a);
    assert!(pane_a["pending_decision"].is_null(), "{pane_a}");
    assert_ne!(state(&pane_a).0, "blocked", "{pane_a}");
    assert_ne!(state(&pane_a).0, "working", "{pane_a}");

    let answered = Instant::now();
    world.answer(decision["id"].as_str().expect("decision id"), "once");
    world.model.wait_for("pane B's command output", STEP, |s| {
        s.user.contains("TASK-B") && s.tool_output.is_some()
    });
    let (pane_b, _) = world.until(&b, "pane B done after the answer", answered, |p| {
        p["lifecycle"] == "done" || p["lifecycle"] == "idle"
    });
    assert!(pane_b["pending_decision"].is_null(), "{pane_b}");
    let ran = world
        .model
        .seen()
        .into_iter()
        .find_map(|s| s.tool_output)
        .unwrap_or_default();
    let tools: Vec<String> = world.model.seen()[0].body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| format!("{} {}", t["name"], t["type"]))
        .collect();
    let outputs: Vec<_> = world
        .model
        .seen()
        .into_iter()
        .map(|s| s.tool_output)
        .collect();
    assert!(
        !victim.exists(),
        "pane B's approved command ran: {ran} {tools:?} {outputs:?}\n{}",
        world.screen(&b)
    );
    let pane_a = world.pane(&a);
    assert_ne!(state(&pane_a).0, "done", "pane A did nothing: {pane_a}");

    let asked = Instant::now();
    world.prompt(&a, "TASK-A say hi");
    world.until(&a, "pane A done with its own turn", asked, |p| {
        p["lifecycle"] == "done" || p["lifecycle"] == "idle" && p["last_message"].is_string()
    });
    assert!(world.decisions().is_empty());
}

/// A model that asks to run `rm -rf victim` once, then ends the turn with `final_text`.
fn remove_victim(final_text: &'static str) -> impl Fn(&real::responses::Seen) -> Reply {
    move |seen| match &seen.tool_output {
        None => Reply::Shell {
            call_id: "call_rm".into(),
            command: "rm -rf victim".into(),
        },
        Some(_) => Reply::Text(final_text.into()),
    }
}

/// One Codex pane asks to run `rm -rf victim`; the decision is answered with `option`. Returns
/// the world, the pane and what the model got back from the tool.
fn one_permission(option: &str) -> Option<(CodexWorld, String, String)> {
    let world = CodexWorld::new(remove_victim("finished"))?;
    std::fs::create_dir_all(world.project.join("victim")).expect("victim dir");
    let pane = world.spawn_codex(&world.project);

    let asked = Instant::now();
    world.prompt(&pane, "clean up the victim");
    let (got, took) = world.until(&pane, "blocked on the permission request", asked, |p| {
        state(p) == ("blocked".into(), "permission_required".into())
    });
    assert!(took < STEP, "{took:?}");
    assert!(
        got["last_message"]
            .as_str()
            .is_some_and(|m| m.contains("rm -rf victim")),
        "{got}"
    );
    let decision = &got["pending_decision"];
    assert_eq!(decision["pane_id"], pane.as_str(), "{got}");
    assert_eq!(decision["answerable"], true, "{got}");

    let answered = Instant::now();
    world.answer(decision["id"].as_str().expect("decision id"), option);
    world
        .model
        .wait_for("the tool's result", STEP, |s| s.tool_output.is_some());
    let (done, _) = world.until(&pane, "the turn's end after the answer", answered, |p| {
        p["lifecycle"] == "done" || p["lifecycle"] == "idle"
    });
    assert!(done["pending_decision"].is_null(), "{done}");
    assert!(world.decisions().is_empty());
    // Codex asks the model twice per step (the first answer's tool call comes back as an
    // "unsupported call"): what counts is the last tool result.
    let output = world
        .model
        .seen()
        .into_iter()
        .rev()
        .find_map(|s| s.tool_output)
        .unwrap_or_default();
    Some((world, pane, output))
}

#[test]
fn codex_permission_allowed_in_signaltty_runs_the_command() {
    let Some((world, _pane, _output)) = one_permission("once") else {
        return;
    };
    assert!(
        !world.project.join("victim").exists(),
        "the allowed command ran"
    );
}

#[test]
fn codex_permission_denied_in_signaltty_does_not_run_the_command() {
    let Some((world, _pane, output)) = one_permission("deny") else {
        return;
    };
    assert!(
        world.project.join("victim").exists(),
        "the denied command did not run"
    );
    assert!(
        output.to_lowercase().contains("denied") || output.to_lowercase().contains("reject"),
        "the model learns it was denied: {output}"
    );
}

/// The model's API fails: the pane must not stay `working` as if the turn went on.
/// Codex 0.171 runs no hook when a turn fails (no StopFailure): the pane reads the error Codex
/// draws and fails with its text (issue 29, point 13; docs/agents.md).
#[test]
fn codex_api_error_ends_the_turn() {
    let Some(world) = CodexWorld::new(|_| Reply::Error {
        status: 400,
        message: "the fake model refuses".into(),
    }) else {
        return;
    };
    let pane = world.spawn_codex(&world.project);
    let asked = Instant::now();
    world.prompt(&pane, "this will fail");
    world.model.wait_for("the failing request", STEP, |_| true);
    wait_for_screen(&world, &pane, "refuses");
    let (got, took) = world.until(&pane, "the turn's end after the API error", asked, |p| {
        p["lifecycle"] != "working" && p["lifecycle"] != "unknown"
    });
    eprintln!(
        "[state] after the API error: {:?} {:?} ({took:?})",
        state(&got),
        got["last_message"]
    );
    assert_eq!(state(&got), ("failed".into(), "error".into()), "{got}");
    let said = got["last_message"].as_str().unwrap_or_default();
    assert!(said.contains("the fake model refuses"), "{got}");
    assert!(got["pending_decision"].is_null(), "{got}");
}

fn wait_for_screen(world: &CodexWorld, pane: &str, text: &str) {
    common::wait_for(&format!("{text:?} on the screen"), STEP, || {
        world.screen(pane).contains(text).then_some(())
    });
}

/// The daemon outlives a server restart (it left its pane's session): a Codex started in a pane
/// of the new server reuses it, with the old server's pane id in its environment. Its events
/// must still reach its pane.
#[test]
fn codex_after_a_server_restart_reports_to_its_new_pane() {
    let Some(mut world) = CodexWorld::new(remove_victim("finished")) else {
        return;
    };
    let first = world.spawn_codex(&world.project);
    world.prompt(&first, "warm up");
    world.model.wait_for("the first turn", STEP, |_| true);
    let daemons = world.daemons();
    assert!(!daemons.is_empty(), "Codex's daemon runs the hooks");
    world.env.ok(&["server", "stop", "--force"]);
    common::wait_for("the old server gone", STEP, || {
        std::os::unix::net::UnixStream::connect(&world.env.socket)
            .is_err()
            .then_some(())
    });
    // The next command starts a new server on the same socket.
    world.ws = world.env.workspace_at(&world.project);
    std::fs::create_dir_all(world.project.join("victim")).expect("victim dir");
    let pane = world.spawn_codex(&world.project);
    let asked = Instant::now();
    world.prompt(&pane, "clean up the victim");
    let (got, _) = world.until(&pane, "the new pane blocked on its request", asked, |p| {
        state(p) == ("blocked".into(), "permission_required".into())
    });
    assert_eq!(got["pending_decision"]["pane_id"], pane.as_str(), "{got}");
    let answered = Instant::now();
    world.answer(
        got["pending_decision"]["id"].as_str().expect("decision id"),
        "once",
    );
    world.until(&pane, "the new pane done", answered, |p| {
        p["lifecycle"] == "done" || p["lifecycle"] == "idle"
    });
    assert_eq!(
        world.daemons(),
        daemons,
        "the old server's daemon ran the new pane's hooks"
    );
}

/// `signaltty pane send PANE TEXT` submits to Codex: text and Enter in one write is a paste to
/// Codex (the Enter becomes a newline in the composer), so the text goes as a bracketed paste.
#[test]
fn pane_send_submits_a_prompt_to_codex() {
    let Some(world) = CodexWorld::new(|_| Reply::Text("hello back".into())) else {
        return;
    };
    let pane = world.spawn_codex(&world.project);
    let sent = Instant::now();
    world
        .env
        .ok(&["pane", "send", &pane, "hello from pane send"]);
    world
        .model
        .wait_for("the prompt sent with pane send", STEP, |s| {
            s.user.contains("hello from pane send")
        });
    world.until(&pane, "the turn's end", sent, |p| {
        p["lifecycle"] == "done" || p["lifecycle"] == "idle" && p["agent"]["session_id"].is_string()
    });
}

/// While Codex waits on a permission it blinks its title (`[ ! ]`/`[ . ] Action Required`) once
/// a second: the pane must not change (an event, a save, a redraw everywhere) with every frame.
#[test]
fn a_blocked_codex_does_not_update_its_pane_every_second() {
    let Some(world) = CodexWorld::without_hold(remove_victim("finished")) else {
        return;
    };
    std::fs::create_dir_all(world.project.join("victim")).expect("victim dir");
    let pane = world.spawn_codex(&world.project);
    let asked = Instant::now();
    world.prompt(&pane, "clean up the victim");
    world.until(&pane, "blocked on the permission request", asked, |p| {
        state(p) == ("blocked".into(), "permission_required".into())
    });
    // Codex's own dialog is up.
    wait_for_screen(&world, &pane, "Would you like to run");
    let head = || {
        world.env.json(&["server", "status"])["head_seq"]
            .as_u64()
            .expect("head_seq")
    };
    let before = head();
    // A window to count the events in, not a wait for something.
    let window = std::time::Duration::from_millis(3500);
    std::thread::sleep(window);
    let events = head() - before;
    let title = world.pane(&pane)["title"].clone();
    eprintln!("[measure] {events} events in {window:?} while blocked; title {title}");
    assert!(
        events <= 1,
        "{events} events in {window:?} while blocked (title {title})"
    );
}

/// Launching Codex in a pane makes sure signaltty's hooks are in its config; when they already
/// are, byte for byte, and Codex trusts them, nothing must tell the user to review them again.
#[test]
fn a_codex_launch_with_trusted_hooks_raises_no_hook_warning() {
    let Some(world) = CodexWorld::new(|_| Reply::Text("hi".into())) else {
        return;
    };
    let first = world.spawn_codex(&world.project);
    let hooks = std::fs::read(world.codex_home.join("hooks.json")).expect("hooks.json");
    let second = world.spawn_codex(&world.project);
    assert_eq!(
        std::fs::read(world.codex_home.join("hooks.json")).expect("hooks.json"),
        hooks,
        "the second launch left the hooks as they were"
    );
    let listed = world.env.json(&["notifications"]);
    eprintln!("[notifications] {listed}");
    let warnings: Vec<_> = listed
        .as_array()
        .into_iter()
        .flatten()
        .filter(|n| n["title"] == "Agent hooks need you")
        .filter(|n| n["pane_id"] == second.as_str() || n["pane_id"] == first.as_str())
        .collect();
    assert!(warnings.is_empty(), "{warnings:?}");
}

/// The model's stream stalls mid-answer and the user presses Esc in Codex: the pane leaves
/// `working` (Codex's Interrupt hook) and asks nothing.
#[test]
fn codex_interrupted_mid_stream_goes_idle() {
    let Some(world) = CodexWorld::new(|_| Reply::Stall("Thinking about it".into())) else {
        return;
    };
    let pane = world.spawn_codex(&world.project);
    let asked = Instant::now();
    world.prompt(&pane, "take your time");
    world.until(&pane, "working on the stalled turn", asked, |p| {
        p["lifecycle"] == "working"
    });
    world.model.wait_for("the stalled request", STEP, |_| true);
    let pressed = Instant::now();
    world.keys(&pane, b"\x1b");
    let (got, _) = world.until(&pane, "idle after Esc", pressed, |p| {
        p["lifecycle"] == "idle"
    });
    assert_eq!(got["attention"], "none", "{got}");
    assert!(got["pending_decision"].is_null(), "{got}");
}

/// `codex exec` in its own pane, next to an idle Codex TUI in the same directory: its events go
/// to its own pane (the session id lands there), never to the TUI's.
#[test]
fn codex_exec_reports_to_its_own_pane() {
    let Some(world) = CodexWorld::new(|_| Reply::Text("exec says hi".into())) else {
        return;
    };
    let tui = world.spawn_codex(&world.project);
    let started = Instant::now();
    let spawned = world.env.json(&[
        "pane",
        "spawn",
        &world.ws,
        "--cwd",
        world.project.to_str().expect("utf-8"),
        "--",
        world.codex.to_str().expect("utf-8"),
        "exec",
        "--skip-git-repo-check",
        "EXEC-TASK say hi",
    ]);
    let exec = spawned["pane"]["id"].as_str().expect("pane id").to_owned();
    world
        .model
        .wait_for("the exec prompt", STEP, |s| s.user.contains("EXEC-TASK"));
    let (got, _) = world.until(&exec, "codex exec exited", started, |p| {
        p["status"] == "exited"
    });
    eprintln!("[state] codex exec: {got}");
    assert!(got["agent"]["session_id"].is_string(), "{got}");
    let idle = world.pane(&tui);
    assert!(
        idle["agent"]["session_id"].is_null(),
        "the TUI got exec's events: {idle}"
    );
    assert_ne!(idle["lifecycle"], "working", "{idle}");
    assert_ne!(idle["lifecycle"], "done", "{idle}");
}

/// Codex's "Hooks need review" dialog comes before any hook can run: the pane must say that
/// Codex waits on the user (read from Codex's own screen), and once the hooks are trusted and
/// the composer shows, that Codex is ready (idle) — before the first prompt, which is Codex's
/// first hook (issue 35, finding 4).
#[test]
fn the_hook_review_dialog_and_the_ready_composer_are_not_unknown() {
    let Some(world) = CodexWorld::new(|_| Reply::Text("hi".into())) else {
        return;
    };
    assert!(!world.hooks_trusted(), "a fresh world has untrusted hooks");
    let started = Instant::now();
    let pane = world.start_codex(&world.project);
    wait_for_screen(&world, &pane, "Hooks need review");
    let (got, _) = world.until(&pane, "blocked on the hook review", started, |p| {
        state(p) == ("blocked".into(), "input_required".into())
    });
    let said = got["last_message"].as_str().unwrap_or_default();
    assert!(said.contains("review its hooks"), "{got}");
    assert!(got["pending_decision"].is_null(), "{got}");
    let trusting = Instant::now();
    world.until_ready(&pane);
    let (got, _) = world.until(&pane, "idle at the composer", trusting, |p| {
        state(p) == ("idle".into(), "none".into())
    });
    assert_eq!(
        got["last_message"].as_str().unwrap_or_default(),
        "",
        "{got}"
    );
    // The first prompt is Codex's own first hook: from then on its hooks speak.
    let asked = Instant::now();
    world.prompt(&pane, "say hi");
    world.until(&pane, "the turn's end", asked, |p| p["lifecycle"] == "done");
}
