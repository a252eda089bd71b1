//! A race entry's diff driven through `update` with the key DSL: opened from the race view,
//! CompareRace's answer shown, a comment put on a line and sent as ReviewRaceEntry, the next
//! entry, the matrix, back to the race view; snapshots of the diff with a comment, the matrix
//! and the keep confirmation.

use std::time::Instant;

use signaltty_proto::v1 as pb;

use super::*;
use crate::app::{Msg, Overlay, Reply};
use crate::dsl::press;
use crate::race_view::{RaceReply, RaceRequest};
use crate::test_fixture::{app, render};
use crate::update::update;

const PATCH_1: &str = "diff --git a/a.txt b/a.txt
--- a/a.txt
+++ b/a.txt
@@ -1,2 +1,3 @@
 one
+two
 three
diff --git a/new.txt b/new.txt
new file mode 100644
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+hello
";

fn file(path: &str, added: u32, removed: u32) -> pb::FileChange {
    pb::FileChange {
        path: path.into(),
        added,
        removed,
        kind: pb::ChangeKind::Modified as i32,
        ..Default::default()
    }
}

fn race() -> pb::Race {
    let entry = |index: u32, agent: &str| pb::RaceEntry {
        index,
        agent: agent.into(),
        state: pb::RaceEntryState::TurnEnded as i32,
        pane_id: format!("p{index}"),
        ..Default::default()
    };
    pb::Race {
        id: "race_1".into(),
        workspace_id: "w".into(),
        base_commit: "abcdef1234567890".into(),
        base_branch: "main".into(),
        prompt: "fix it".into(),
        state: pb::RaceState::Running as i32,
        check_command: "make test".into(),
        entries: vec![entry(1, "claude"), entry(2, "codex")],
        ..Default::default()
    }
}

fn compared() -> Vec<pb::RaceEntryDiff> {
    vec![
        pb::RaceEntryDiff {
            index: 1,
            files: vec![file("a.txt", 1, 0), file("new.txt", 1, 0)],
            added: 2,
            patch: PATCH_1.into(),
            check: Some(pb::RaceCheck {
                command: "make test".into(),
                exit_code: 2,
                output: "ok 1\nnot ok 2 - the answer\n".into(),
                ..Default::default()
            }),
            ..Default::default()
        },
        pb::RaceEntryDiff {
            index: 2,
            files: vec![file("a.txt", 0, 1)],
            removed: 1,
            patch: "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1 @@\n one\n-three\n"
                .into(),
            ..Default::default()
        },
    ]
}

fn reply(app: &mut App, reply: RaceReply) -> Vec<Effect> {
    update(
        app,
        Msg::Reply(Reply::Race(Box::new(reply))),
        Instant::now(),
    )
}

fn races(fx: &[Effect]) -> Vec<RaceRequest> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Request(Request::Race(r)) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

/// The race view open on [`race`], then `d` on entry 1 with CompareRace answered.
fn opened() -> App {
    let mut app = app();
    let now = Instant::now();
    crate::race_view::open(&mut app, &mut Vec::new());
    reply(&mut app, RaceReply::Races(Ok(vec![race()])));
    let fx = press(&mut app, "d", now);
    let [
        RaceRequest::Compare {
            race_id,
            seq,
            run_check: false,
        },
    ] = &races(&fx)[..]
    else {
        panic!("{fx:?}");
    };
    assert_eq!(race_id, "race_1");
    let seq = *seq;
    reply(
        &mut app,
        RaceReply::Compared {
            seq,
            result: Ok(compared()),
        },
    );
    app
}

fn view(app: &App) -> &DiffView {
    match &app.overlay {
        Some(Overlay::Diff(view)) => view,
        other => panic!("no diff view: {other:?}"),
    }
}

#[test]
fn a_comment_on_a_line_is_sent_to_that_entrys_agent() {
    let mut app = opened();
    let now = Instant::now();
    assert_eq!(
        view(&app).file.as_ref().map(|(p, _)| p.as_str()),
        Some("a.txt")
    );
    // Cursor on `+two` (row 2: @@, one, two) and a comment there.
    press(&mut app, "J J c", now);
    press(&mut app, "why <space> two? <enter>", now);
    let race = view(&app).race.as_deref().expect("race");
    assert_eq!(
        race.comments,
        [Comment {
            entry: 1,
            path: "a.txt".into(),
            line: 2,
            text: "why two?".into()
        }]
    );
    let fx = press(&mut app, "s", now);
    assert_eq!(
        races(&fx),
        [RaceRequest::Review {
            race_id: "race_1".into(),
            index: 1,
            comments: vec![pb::ReviewComment {
                path: "a.txt".into(),
                line: 2,
                text: "why two?".into()
            }]
        }]
    );
    reply(
        &mut app,
        RaceReply::Reviewed {
            index: 1,
            result: Ok(1),
        },
    );
    assert!(
        view(&app)
            .race
            .as_deref()
            .expect("race")
            .comments
            .is_empty()
    );
}

#[test]
fn comments_are_listed_and_removed_and_n_steps_to_the_next_entry() {
    let mut app = opened();
    let now = Instant::now();
    press(&mut app, "c first <enter> J c second <enter> l", now);
    assert_eq!(view(&app).race.as_deref().expect("race").comments.len(), 2);
    press(&mut app, "j d <esc>", now);
    let rd = view(&app).race.as_deref().expect("race");
    assert_eq!(rd.comments.len(), 1);
    assert_eq!(rd.comments[0].text, "first");
    press(&mut app, "n", now);
    let v = view(&app);
    assert_eq!(v.race.as_deref().expect("race").shown, 2);
    assert_eq!(v.file_list().len(), 1);
    assert!(
        render(&app).contains("entry 2 (2/2) codex · base"),
        "{}",
        render(&app)
    );
    // Back to the race view, on entry 2.
    let fx = press(&mut app, "q", now);
    assert_eq!(races(&fx), [RaceRequest::List]);
    reply(&mut app, RaceReply::Races(Ok(vec![race()])));
    let Some(Overlay::Race(rv)) = &app.overlay else {
        panic!("{:?}", app.overlay);
    };
    assert_eq!(rv.selected, 1);
}

#[test]
fn snapshots_of_a_comment_the_matrix_the_check_and_the_keep_confirmation() {
    let mut app = opened();
    let now = Instant::now();
    press(&mut app, "J J c why <space> two? <enter> J", now);
    insta::assert_snapshot!("race_diff_comment", render(&app));
    press(&mut app, "c", now);
    insta::assert_snapshot!("race_diff_input", render(&app));
    press(&mut app, "<esc> m", now);
    insta::assert_snapshot!("race_diff_matrix", render(&app));
    press(&mut app, "o", now);
    insta::assert_snapshot!("race_diff_check", render(&app));
    press(&mut app, "<esc> q", now);
    reply(&mut app, RaceReply::Races(Ok(vec![race()])));
    press(&mut app, "K s b <enter>", now);
    insta::assert_snapshot!("race_keep_confirm", render(&app));
    let fx = press(&mut app, "y", now);
    assert_eq!(
        races(&fx),
        [RaceRequest::Keep {
            race_id: "race_1".into(),
            index: 1,
            mode: pb::MergeMode::Squash,
            delete_branches: true
        }]
    );
    reply(
        &mut app,
        RaceReply::Kept(Box::new(Err(
            "merging entry 1 conflicts in a.txt: the base checkout was left as it was".into(),
        ))),
    );
    insta::assert_snapshot!("race_keep_conflict", render(&app));
}
