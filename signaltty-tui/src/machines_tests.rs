//! `update()` and the view with one remote machine: the sidebar groups by machine (local
//! first), a remote's decision is listed with its options and named in the status line, and
//! answering it asks the remote (AnswerOn), never this machine.

use std::time::Instant;

use signaltty_proto::v1 as pb;

use crate::app::{Effect, Focus, Msg, Request, Row};
use crate::catalog::FeedMsg;
use crate::dsl::press;
use crate::test_fixture::{app, catalog, render};
use crate::update::update;

fn machine(name: &str, state: pb::MachineState) -> pb::Machine {
    pb::Machine {
        name: name.into(),
        host: format!("{name}.example"),
        state: state as i32,
        ..Default::default()
    }
}

fn with_gpu() -> crate::app::App {
    let mut app = app();
    let now = Instant::now();
    update(
        &mut app,
        Msg::Machines(vec![
            machine("local", pb::MachineState::Connected),
            machine("gpu", pb::MachineState::Connected),
        ]),
        now,
    );
    update(
        &mut app,
        Msg::RemoteFeed {
            machine: "gpu".into(),
            feed: FeedMsg::Loaded(Box::new(catalog())),
        },
        now,
    );
    app
}

#[test]
fn without_remotes_the_sidebar_has_no_machine_headers() {
    let app = app();
    assert!(
        !app.sidebar_rows()
            .iter()
            .any(|r| matches!(r, Row::Machine(_) | Row::Remote(..)))
    );
}

#[test]
fn the_sidebar_lists_local_first_then_each_remote_under_its_state() {
    let app = with_gpu();
    let rows = app.sidebar_rows();
    assert_eq!(rows[0], Row::Machine("local".into()));
    let gpu = rows
        .iter()
        .position(|r| *r == Row::Machine("gpu".into()))
        .expect("gpu header");
    assert_eq!(
        rows[gpu + 1],
        Row::Remote("gpu".into(), Box::new(Row::Workspace("w".into())))
    );
    let screen = render(&app);
    assert!(screen.contains("gpu ● connected"), "{screen}");
    // The remote's decision is named with its machine in the status line.
    assert!(screen.contains("⚠ gpu: Allow Bash?"), "{screen}");
}

#[test]
fn enter_on_a_remote_option_answers_it_on_that_machine_once() {
    let mut app = with_gpu();
    let row = Row::Remote("gpu".into(), Box::new(Row::Option("a".into(), 3)));
    app.highlight = app
        .sidebar_rows()
        .iter()
        .position(|r| *r == row)
        .expect("option row");
    app.focus = Focus::Sidebar;
    let now = Instant::now();
    let fx = press(&mut app, "enter", now);
    let asked: Vec<_> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Request(r @ (Request::AnswerOn { .. } | Request::Answer { .. })) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(
        asked,
        [&Request::AnswerOn {
            machine: "gpu".into(),
            pane_id: "a".into(),
            decision_id: "dec_1".into(),
            option_id: "deny".into(),
        }]
    );
    // A second Enter before the answer comes back sends nothing more.
    let again = press(&mut app, "enter", now);
    assert!(
        !again
            .iter()
            .any(|e| matches!(e, Effect::Request(Request::AnswerOn { .. })))
    );
}

#[test]
fn a_failed_remote_says_why() {
    let mut app = app();
    let mut gpu = machine("gpu", pb::MachineState::Failed);
    gpu.detail = "ssh: Could not resolve hostname".into();
    update(
        &mut app,
        Msg::Machines(vec![machine("local", pb::MachineState::Connected), gpu]),
        Instant::now(),
    );
    let screen = render(&app);
    assert!(screen.contains("gpu ✗ failed: ssh"), "{screen}");
}

#[test]
fn a_decision_created_on_the_remote_is_listed_and_named() {
    let mut app = app();
    let now = Instant::now();
    update(
        &mut app,
        Msg::Machines(vec![
            machine("local", pb::MachineState::Connected),
            machine("gpu", pb::MachineState::Connected),
        ]),
        now,
    );
    let mut before = catalog();
    for pane in before.panes.values_mut() {
        pane.pending_decision = None;
        pane.attention = pb::Attention::None as i32;
    }
    update(
        &mut app,
        Msg::RemoteFeed {
            machine: "gpu".into(),
            feed: FeedMsg::Loaded(Box::new(before)),
        },
        now,
    );
    let event = pb::Event {
        seq: 11,
        kind: Some(pb::event::Kind::DecisionCreated(pb::DecisionCreated {
            decision: Some(crate::test_fixture::decision()),
        })),
        ..Default::default()
    };
    update(
        &mut app,
        Msg::RemoteFeed {
            machine: "gpu".into(),
            feed: FeedMsg::Event(Box::new(event)),
        },
        now,
    );
    let screen = render(&app);
    assert!(screen.contains("⚠ gpu: Allow Bash?"), "{screen}");
    assert!(screen.contains("[1] Allow once"), "{screen}");
}
