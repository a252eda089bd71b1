//! The diff view driven through `update` with the key DSL: opening, the file list and hunks
//! arriving, stale replies, refresh by key and by event, mouse, closing; and snapshots of each
//! state it can show.

use std::time::Instant;

use crate::catalog::FeedMsg;
use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use signaltty_proto::v1 as pb;

use super::*;
use crate::app::{Msg, Reply};
use crate::dsl::press;
use crate::git::{Failure, GitReply, GitRequest};
use crate::test_fixture::{app, render};
use crate::update::update;

/// The git requests among effects.
fn git(fx: &[Effect]) -> Vec<GitRequest> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Request(Request::Git(r)) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

fn reply(app: &mut App, reply: GitReply) -> Vec<Effect> {
    update(app, Msg::Reply(Reply::Git(Box::new(reply))), Instant::now())
}

fn view(app: &App) -> &DiffView {
    match &app.overlay {
        Some(Overlay::Diff(view)) => view,
        other => panic!("no diff view: {other:?}"),
    }
}

fn change(path: &str, kind: pb::ChangeKind, added: u32, removed: u32) -> pb::FileChange {
    pb::FileChange {
        path: path.into(),
        added,
        removed,
        kind: kind as i32,
        ..Default::default()
    }
}

/// A modified file, a rename, an untracked file, a binary and a too-large one.
fn files() -> pb::GetWorkspaceDiffResponse {
    let mut renamed = change("src/new_name.rs", pb::ChangeKind::Renamed, 1, 1);
    renamed.old_path = "src/old_name.rs".into();
    let mut untracked = change("notes.txt", pb::ChangeKind::Added, 2, 0);
    untracked.untracked = true;
    let mut binary = change("logo.png", pb::ChangeKind::Modified, 0, 0);
    binary.binary = true;
    let mut big = change("data.csv", pb::ChangeKind::Modified, 0, 0);
    big.too_large = true;
    pb::GetWorkspaceDiffResponse {
        files: vec![
            change("src/main.rs", pb::ChangeKind::Modified, 2, 1),
            renamed,
            untracked,
            binary,
            big,
            change("old.txt", pb::ChangeKind::Deleted, 0, 3),
        ],
        unborn: false,
        truncated: false,
        repo_root: "/proj".into(),
    }
}

fn line(kind: pb::LineKind, old: u32, new: u32, text: &str) -> pb::DiffLine {
    pb::DiffLine {
        kind: kind as i32,
        old_line: old,
        new_line: new,
        text: text.into(),
    }
}

fn main_rs() -> pb::GetFileDiffResponse {
    use pb::LineKind::{Added, Context, Removed};
    pb::GetFileDiffResponse {
        path: "src/main.rs".into(),
        kind: pb::DiffKind::Text as i32,
        hunks: vec![pb::Hunk {
            old_start: 1,
            old_lines: 3,
            new_start: 1,
            new_lines: 4,
            lines: vec![
                line(Context, 1, 1, "fn main() {"),
                line(Removed, 2, 0, "    println!(\"hi\");"),
                line(Added, 0, 2, "    let name = \"world\";"),
                line(Added, 0, 3, "    println!(\"hi {name}\");"),
                line(Context, 3, 4, "}"),
            ],
        }],
        truncated: false,
        reason: String::new(),
        added: 2,
        removed: 1,
    }
}

/// Opens the view and delivers the file list and the first file's hunks.
fn loaded() -> App {
    let mut app = app();
    let fx = press(&mut app, "d", Instant::now());
    let [GitRequest::WorkspaceDiff { seq, .. }] = git(&fx)[..] else {
        panic!("{fx:?}")
    };
    let fx = reply(
        &mut app,
        GitReply::WorkspaceDiff {
            seq,
            result: Ok(files()),
        },
    );
    let [GitRequest::FileDiff { seq, .. }] = git(&fx)[..] else {
        panic!("{fx:?}")
    };
    reply(
        &mut app,
        GitReply::FileDiff {
            seq,
            result: Ok(main_rs()),
        },
    );
    app
}

#[test]
fn d_opens_the_view_on_the_focused_workspace_and_loads_the_first_file() {
    let mut app = app();
    let fx = press(&mut app, "d", Instant::now());
    assert_eq!(
        git(&fx),
        [GitRequest::WorkspaceDiff {
            workspace_id: "w".into(),
            seq: 1
        }]
    );
    assert_eq!(view(&app).files, Files::Loading);
    let fx = reply(
        &mut app,
        GitReply::WorkspaceDiff {
            seq: 1,
            result: Ok(files()),
        },
    );
    assert_eq!(
        git(&fx),
        [GitRequest::FileDiff {
            workspace_id: "w".into(),
            path: "src/main.rs".into(),
            old_path: String::new(),
            seq: 2
        }]
    );
    assert_eq!(
        view(&app).file,
        Some(("src/main.rs".into(), Hunks::Loading))
    );
    reply(
        &mut app,
        GitReply::FileDiff {
            seq: 2,
            result: Ok(main_rs()),
        },
    );
    assert_eq!(view(&app).hunk_rows(), 6);
}

#[test]
fn moving_the_highlight_loads_that_file_and_a_late_reply_for_another_is_dropped() {
    let mut app = loaded();
    let now = Instant::now();
    let fx = press(&mut app, "j", now);
    // The rename is asked for with its old path.
    let [
        GitRequest::FileDiff {
            ref path,
            ref old_path,
            seq: stale,
            ..
        },
    ] = git(&fx)[..]
    else {
        panic!("{fx:?}")
    };
    assert_eq!(
        (path.as_str(), old_path.as_str()),
        ("src/new_name.rs", "src/old_name.rs")
    );
    let fx = press(&mut app, "j", now);
    let [GitRequest::FileDiff { seq, .. }] = git(&fx)[..] else {
        panic!("{fx:?}")
    };
    // The rename's answer comes late: not shown for notes.txt.
    reply(
        &mut app,
        GitReply::FileDiff {
            seq: stale,
            result: Ok(main_rs()),
        },
    );
    assert_eq!(view(&app).file, Some(("notes.txt".into(), Hunks::Loading)));
    let failed = Failure {
        reason: "BAD_PARAMS".into(),
        message: "bad path (BAD_PARAMS)".into(),
    };
    reply(
        &mut app,
        GitReply::FileDiff {
            seq,
            result: Err(failed),
        },
    );
    assert_eq!(
        view(&app).file,
        Some((
            "notes.txt".into(),
            Hunks::Failed("bad path (BAD_PARAMS)".into())
        ))
    );
    // The highlight stops at the ends without asking again.
    assert!(git(&press(&mut app, "k k k k k", now)).len() == 2);
    assert_eq!(view(&app).selected, 0);
}

#[test]
fn r_and_a_git_event_for_the_workspace_refresh_others_do_not() {
    let mut app = loaded();
    let now = Instant::now();
    let fx = press(&mut app, "r", now);
    assert!(matches!(git(&fx)[..], [GitRequest::WorkspaceDiff { .. }]));
    let seq = app.catalog.seq;
    let event = |n: u64, kind: pb::event::Kind| {
        Msg::Feed(FeedMsg::Event(Box::new(pb::Event {
            seq: seq + n,
            kind: Some(kind),
            ..Default::default()
        })))
    };
    let git_of = |branch: &str| pb::GitContext {
        is_repo: true,
        branch: branch.into(),
        dirty: true,
        ..Default::default()
    };
    let fx = update(
        &mut app,
        event(
            1,
            pb::event::Kind::GitContextChanged(pb::GitContextChanged {
                workspace_id: "w".into(),
                git: Some(git_of("feature")),
            }),
        ),
        now,
    );
    assert!(
        matches!(git(&fx)[..], [GitRequest::WorkspaceDiff { .. }]),
        "{fx:?}"
    );
    let fx = update(
        &mut app,
        event(
            2,
            pb::event::Kind::GitContextChanged(pb::GitContextChanged {
                workspace_id: "other".into(),
                git: Some(git_of("x")),
            }),
        ),
        now,
    );
    assert!(git(&fx).is_empty());
    // A WorkspaceUpdated refreshes only when the git facts in it differ.
    let mut ws = app.catalog.workspaces[0].clone();
    ws.name = "renamed".into();
    let fx = update(
        &mut app,
        event(
            3,
            pb::event::Kind::WorkspaceUpdated(pb::WorkspaceUpdated {
                workspace: Some(ws.clone()),
            }),
        ),
        now,
    );
    assert!(git(&fx).is_empty());
    ws.git = Some(git_of("main"));
    let fx = update(
        &mut app,
        event(
            4,
            pb::event::Kind::WorkspaceUpdated(pb::WorkspaceUpdated {
                workspace: Some(ws),
            }),
        ),
        now,
    );
    assert!(matches!(git(&fx)[..], [GitRequest::WorkspaceDiff { .. }]));
}

#[test]
fn a_refresh_keeps_the_highlighted_file_when_it_is_still_changed() {
    let mut app = loaded();
    let now = Instant::now();
    press(&mut app, "j j", now);
    let fx = press(&mut app, "r", now);
    let [GitRequest::WorkspaceDiff { seq, .. }] = git(&fx)[..] else {
        panic!()
    };
    let mut fewer = files();
    fewer.files.remove(0);
    let fx = reply(
        &mut app,
        GitReply::WorkspaceDiff {
            seq,
            result: Ok(fewer),
        },
    );
    assert_eq!(view(&app).selected, 1);
    assert!(matches!(&git(&fx)[..], [GitRequest::FileDiff { path, .. }] if path == "notes.txt"));
}

#[test]
fn not_a_repository_and_other_failures_are_states_of_the_view() {
    let mut app = app();
    press(&mut app, "d", Instant::now());
    reply(
        &mut app,
        GitReply::WorkspaceDiff {
            seq: 1,
            result: Err(Failure {
                reason: "NOT_A_REPO".into(),
                message: "not a git repository: /proj (NOT_A_REPO)".into(),
            }),
        },
    );
    assert_eq!(view(&app).files, Files::NotARepo);
    insta::assert_snapshot!("diff_not_a_repo", render(&app));
    press(&mut app, "r", Instant::now());
    reply(
        &mut app,
        GitReply::WorkspaceDiff {
            seq: 2,
            result: Err(Failure {
                reason: "TIMEOUT".into(),
                message: "the repository is too large to compare in 30 s (TIMEOUT)".into(),
            }),
        },
    );
    assert!(matches!(view(&app).files, Files::Unavailable(_)));
    insta::assert_snapshot!("diff_unavailable", render(&app));
}

#[test]
fn scrolling_by_keys_and_wheel_and_clicking_a_file() {
    let mut app = loaded();
    let now = Instant::now();
    // Six rows of hunks fit on screen: nothing to scroll.
    press(&mut app, "J J", now);
    assert_eq!(view(&app).scroll, 0);
    app.size = (100, 6);
    press(&mut app, "J", now);
    assert_eq!(view(&app).scroll, 1);
    let mouse = |kind, column, row| {
        Msg::Mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    let l = layout(&app);
    update(
        &mut app,
        mouse(MouseEventKind::ScrollUp, l.hunks.x + 5, l.hunks.y),
        now,
    );
    assert_eq!(view(&app).scroll, 0);
    update(
        &mut app,
        mouse(MouseEventKind::ScrollDown, l.hunks.x + 5, l.hunks.y),
        now,
    );
    assert_eq!(view(&app).scroll, 6 - usize::from(l.hunks.height));
    app.size = (100, 30);
    let l = layout(&app);
    let fx = update(
        &mut app,
        mouse(
            MouseEventKind::Down(MouseButton::Left),
            l.list.x + 4,
            l.list.y + 3,
        ),
        now,
    );
    assert_eq!(view(&app).selected, 3);
    assert!(matches!(&git(&fx)[..], [GitRequest::FileDiff { path, .. }] if path == "logo.png"));
    // The wheel over the list moves the highlight.
    update(
        &mut app,
        mouse(MouseEventKind::ScrollDown, l.list.x + 4, l.list.y),
        now,
    );
    assert_eq!(view(&app).selected, 4);
}

#[test]
fn q_and_esc_close_and_keys_do_not_reach_the_panes_meanwhile() {
    let mut app = loaded();
    let now = Instant::now();
    // `i` would enter Insert mode and `%` split: in the view they do nothing.
    let fx = press(&mut app, "i %", now);
    assert!(fx.iter().all(|e| !matches!(e, Effect::Request(_))));
    assert_eq!(app.mode, crate::app::Mode::Normal);
    press(&mut app, "q", now);
    assert!(app.overlay.is_none());
    press(&mut app, "d", now);
    press(&mut app, "<esc>", now);
    assert!(app.overlay.is_none());
    // A reply after closing is harmless.
    reply(
        &mut app,
        GitReply::FileDiff {
            seq: 2,
            result: Ok(main_rs()),
        },
    );
    assert!(app.overlay.is_none());
}

#[test]
fn snapshot_text_hunks_with_every_kind_of_file_in_the_list() {
    insta::assert_snapshot!("diff_text", render(&loaded()));
}

/// The loaded view, the highlight moved to `index`, and `answer` for that file.
fn showing(index: usize, answer: pb::GetFileDiffResponse) -> App {
    let mut app = loaded();
    let keys = vec!["j"; index].join(" ");
    let fx = press(&mut app, &keys, Instant::now());
    let Some(GitRequest::FileDiff { seq, .. }) = git(&fx).last().cloned() else {
        panic!("{fx:?}")
    };
    reply(
        &mut app,
        GitReply::FileDiff {
            seq,
            result: Ok(answer),
        },
    );
    app
}

fn kind_only(path: &str, kind: pb::DiffKind, reason: &str) -> pb::GetFileDiffResponse {
    pb::GetFileDiffResponse {
        path: path.into(),
        kind: kind as i32,
        reason: reason.into(),
        ..Default::default()
    }
}

#[test]
fn snapshot_binary_too_large_unchanged_and_unavailable_files() {
    let app = showing(3, kind_only("logo.png", pb::DiffKind::Binary, ""));
    insta::assert_snapshot!("diff_binary", render(&app));
    let app = showing(
        4,
        kind_only(
            "data.csv",
            pb::DiffKind::TooLarge,
            "the working tree's version is 20 MiB (the cap is 16 MiB)",
        ),
    );
    insta::assert_snapshot!("diff_too_large", render(&app));
    let app = showing(5, kind_only("old.txt", pb::DiffKind::Unchanged, ""));
    insta::assert_snapshot!("diff_unchanged", render(&app));
    // A pure rename: the file's content is the same under its new name.
    let app = showing(1, kind_only("src/new_name.rs", pb::DiffKind::Unchanged, ""));
    insta::assert_snapshot!("diff_renamed_unchanged", render(&app));
    let app = showing(
        2,
        kind_only("notes.txt", pb::DiffKind::Unavailable, "a submodule"),
    );
    insta::assert_snapshot!("diff_file_unavailable", render(&app));
}

#[test]
fn snapshot_loading_and_a_clean_checkout() {
    let mut app = app();
    press(&mut app, "d", Instant::now());
    insta::assert_snapshot!("diff_loading", render(&app));
    reply(
        &mut app,
        GitReply::WorkspaceDiff {
            seq: 1,
            result: Ok(pb::GetWorkspaceDiffResponse::default()),
        },
    );
    assert!(view(&app).file.is_none());
    insta::assert_snapshot!("diff_clean", render(&app));
}

#[test]
fn the_view_closes_with_its_workspace() {
    let mut app = loaded();
    let seq = app.catalog.seq;
    let closed = |n: u64, id: &str| {
        Msg::Feed(FeedMsg::Event(Box::new(pb::Event {
            seq: seq + n,
            kind: Some(pb::event::Kind::WorkspaceClosed(pb::WorkspaceClosed {
                workspace_id: id.into(),
            })),
            ..Default::default()
        })))
    };
    update(&mut app, closed(1, "elsewhere"), Instant::now());
    assert!(matches!(app.overlay, Some(Overlay::Diff(_))));
    // A replayed event (at or below the catalog's seq) is not news.
    update(&mut app, closed(0, "w"), Instant::now());
    assert!(matches!(app.overlay, Some(Overlay::Diff(_))));
    update(&mut app, closed(2, "w"), Instant::now());
    assert!(app.overlay.is_none());
    assert!(app.toasts.last().is_some_and(|t| t.text.contains("closed")));
}

#[test]
fn snapshot_an_unborn_repository_and_a_cut_diff() {
    let mut app = app();
    press(&mut app, "d", Instant::now());
    let mut list = files();
    list.files.truncate(1);
    list.files[0].kind = pb::ChangeKind::Added as i32;
    list.unborn = true;
    reply(
        &mut app,
        GitReply::WorkspaceDiff {
            seq: 1,
            result: Ok(list),
        },
    );
    let mut cut = main_rs();
    cut.truncated = true;
    cut.added = 12_000;
    cut.removed = 0;
    reply(
        &mut app,
        GitReply::FileDiff {
            seq: 2,
            result: Ok(cut),
        },
    );
    // The cut line counts as a row to scroll to.
    assert_eq!(view(&app).hunk_rows(), 7);
    insta::assert_snapshot!("diff_unborn_cut", render(&app));
}

#[test]
fn a_diff_that_disagrees_with_the_dirty_mark_refreshes_the_git_context() {
    let refreshes = |fx: &[Effect]| {
        fx.iter()
            .filter(|e| {
                matches!(
                    e,
                    Effect::Request(Request::Git(GitRequest::Refresh { workspace_id }))
                        if workspace_id == "w"
                )
            })
            .count()
    };
    // The fixture's workspace is marked dirty; the diff finds nothing: refresh.
    let mut app = crate::test_fixture::app();
    press(&mut app, "d", Instant::now());
    let fx = reply(
        &mut app,
        GitReply::WorkspaceDiff {
            seq: 1,
            result: Ok(pb::GetWorkspaceDiffResponse::default()),
        },
    );
    assert_eq!(refreshes(&fx), 1);
    // Marked clean, the diff shows an edit: refresh too; marked dirty with an edit: nothing.
    let mut app = crate::test_fixture::app();
    press(&mut app, "d", Instant::now());
    let edited = || GitReply::WorkspaceDiff {
        seq: 1,
        result: Ok(pb::GetWorkspaceDiffResponse {
            files: vec![change("src/lib.rs", pb::ChangeKind::Modified, 1, 0)],
            ..Default::default()
        }),
    };
    assert_eq!(refreshes(&reply(&mut app, edited())), 0);
    let mut app = crate::test_fixture::app();
    if let Some(git) = app.catalog.workspaces[0].git.as_mut() {
        git.dirty = false;
    }
    press(&mut app, "d", Instant::now());
    assert_eq!(refreshes(&reply(&mut app, edited())), 1);
}
