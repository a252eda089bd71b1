//! The spawn form through `update` with the key DSL: env rows (values with spaces, `=` in
//! values, bad and repeated rows refused in place, rows added and removed), the checkout
//! choice (current, new worktree with its branch, an existing worktree from ListWorktrees),
//! the chain's reply focusing the new workspace; and a snapshot of the form.

use std::time::Instant;

use signaltty_proto::v1 as pb;

use super::*;
use crate::app::{Msg, Reply};
use crate::dsl::press;
use crate::git::{Checkout, GitRequest};
use crate::test_fixture::{app, render};
use crate::update::update;

fn requests(fx: &[Effect]) -> Vec<Request> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Request(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

fn form(app: &App) -> &SpawnForm {
    match &app.overlay {
        Some(Overlay::Spawn(form)) => form,
        other => panic!("no spawn form: {other:?}"),
    }
}

fn worktrees() -> Vec<pb::Worktree> {
    vec![
        pb::Worktree {
            path: "/proj".into(),
            branch: "main".into(),
            is_main: true,
            workspace_ids: vec!["w".into()],
            ..Default::default()
        },
        pb::Worktree {
            path: "/proj-worktrees/fix-login".into(),
            branch: "fix-login".into(),
            ..Default::default()
        },
        pb::Worktree {
            path: "/gone".into(),
            branch: "gone".into(),
            missing: true,
            ..Default::default()
        },
    ]
}

/// The fixture's workspace as a repository rooted at /proj.
fn repo_app() -> App {
    let mut app = app();
    if let Some(git) = app.catalog.workspaces[0].git.as_mut() {
        git.repo_root = "/proj".into();
    }
    app
}

fn list_reply(app: &mut App, workspace_id: &str) {
    update(
        app,
        Msg::Reply(Reply::Git(Box::new(GitReply::Worktrees {
            workspace_id: workspace_id.into(),
            result: Ok(worktrees()),
        }))),
        Instant::now(),
    );
}

#[test]
fn env_rows_keep_spaces_and_equals_signs_in_values() {
    let mut app = app();
    let now = Instant::now();
    let fx = press(&mut app, "s", now);
    assert_eq!(
        requests(&fx),
        [Request::Git(GitRequest::ListWorktrees {
            workspace_id: "w".into()
        })]
    );
    // command → label → env row 0; typing there grows a new empty row below.
    press(
        &mut app,
        "claude <tab> <tab> GREETING=hello <space> world",
        now,
    );
    assert_eq!(form(&app).env.len(), 2);
    let fx = press(&mut app, "<tab> OPTS=--x=1 <space> --y <enter>", now);
    match &requests(&fx)[..] {
        [Request::Spawn { env, argv, .. }] => {
            assert_eq!(argv, &["claude".to_owned()]);
            assert_eq!(
                env,
                &[
                    ("GREETING".to_owned(), "hello world".to_owned()),
                    ("OPTS".to_owned(), "--x=1 --y".to_owned()),
                ]
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(app.overlay.is_none());
}

#[test]
fn a_bad_or_repeated_env_row_is_refused_in_place() {
    let mut app = app();
    let now = Instant::now();
    press(&mut app, "s <tab> <tab> A=1 <tab> oops <enter>", now);
    assert_eq!(
        form(&app).row,
        FormRow::Env(1),
        "the cursor is on the bad row"
    );
    assert!(
        app.toasts
            .last()
            .is_some_and(|t| t.text.contains("KEY=VALUE"))
    );
    // ctrl-d drops the bad row; a repeated key is refused too.
    let fx = press(&mut app, "ctrl-d A=2 <enter>", now);
    assert!(requests(&fx).is_empty());
    assert!(
        app.toasts
            .last()
            .is_some_and(|t| t.text.contains("A is set twice"))
    );
    assert_eq!(form(&app).row, FormRow::Env(1));
    // ctrl-n opens an empty row under the cursor; empty rows are skipped.
    let fx = press(&mut app, "ctrl-u B=3 <up> ctrl-n <enter>", now);
    match &requests(&fx)[..] {
        [Request::Spawn { env, .. }] => assert_eq!(
            env,
            &[
                ("A".to_owned(), "1".to_owned()),
                ("B".to_owned(), "3".to_owned())
            ]
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_new_worktree_needs_a_branch_and_sends_one_chain() {
    let mut app = repo_app();
    let now = Instant::now();
    press(&mut app, "s", now);
    list_reply(&mut app, "w");
    // The main checkout (the workspace's own) and a missing one are not offered.
    assert!(matches!(&form(&app).worktrees, Worktrees::Loaded(l) if l.len() == 1));
    // command → cwd → checkout; → new worktree: the cwd row becomes the branch row.
    press(&mut app, "<up> <up> <right>", now);
    assert_eq!(form(&app).checkout_text(), "new worktree");
    assert!(form(&app).rows().contains(&FormRow::Branch));
    assert!(!form(&app).rows().contains(&FormRow::Cwd));
    let fx = press(&mut app, "<down> <down> claude <enter>", now);
    assert!(requests(&fx).is_empty());
    assert_eq!(form(&app).row, FormRow::Branch);
    assert!(app.toasts.last().is_some_and(|t| t.text.contains("branch")));
    let fx = press(&mut app, "agent/login-fix <enter>", now);
    match &requests(&fx)[..] {
        [Request::Git(GitRequest::SpawnInWorktree(spawn))] => {
            assert_eq!(spawn.workspace_id, "w");
            assert_eq!(
                spawn.checkout,
                Checkout::New {
                    branch: "agent/login-fix".into()
                }
            );
            assert_eq!(spawn.argv, ["claude"]);
        }
        other => panic!("{other:?}"),
    }
    assert!(app.overlay.is_none());
}

#[test]
fn an_existing_worktree_is_chosen_from_the_list() {
    let mut app = repo_app();
    let now = Instant::now();
    press(&mut app, "s", now);
    // Until the list comes, only the current checkout, a new worktree and a race are offered.
    press(&mut app, "<up> <up> <right> <right> <right>", now);
    assert_eq!(form(&app).checkout, 0);
    list_reply(&mut app, "w");
    // A list for a workspace the form is not on is ignored.
    list_reply(&mut app, "elsewhere");
    // Left of the current checkout: the race (the last choice), then the worktree.
    press(&mut app, "<left> <left>", now);
    assert_eq!(
        form(&app).checkout_text(),
        "worktree /proj-worktrees/fix-login (fix-login)"
    );
    let fx = press(&mut app, "<enter>", now);
    match &requests(&fx)[..] {
        [Request::Git(GitRequest::SpawnInWorktree(spawn))] => assert_eq!(
            spawn.checkout,
            Checkout::Existing {
                path: "/proj-worktrees/fix-login".into()
            }
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_chain_reply_shows_the_new_workspace_and_focuses_its_pane() {
    let mut app = app();
    let ws = pb::Workspace {
        id: "w2".into(),
        name: "agent/login-fix".into(),
        cwd: "/proj-worktrees/agent-login-fix".into(),
        ..Default::default()
    };
    update(
        &mut app,
        Msg::Reply(Reply::Git(Box::new(GitReply::SpawnedInWorktree {
            workspace: Box::new(ws),
            tab_id: "t9".into(),
            pane_id: "p9".into(),
            note: "worktree /proj-worktrees/agent-login-fix on new branch agent/login-fix".into(),
        }))),
        Instant::now(),
    );
    // Shown before its WorkspaceCreated event arrives, and not replaced by the start
    // directory's workspace when another event comes first.
    assert_eq!(app.workspace.as_deref(), Some("w2"));
    assert_eq!(app.active_pane.get("t9").map(String::as_str), Some("p9"));
    let seq = app.catalog.seq + 1;
    update(
        &mut app,
        Msg::Feed(crate::catalog::FeedMsg::Event(Box::new(pb::Event {
            seq,
            ..Default::default()
        }))),
        Instant::now(),
    );
    assert_eq!(app.workspace.as_deref(), Some("w2"));
    assert!(
        app.toasts
            .last()
            .is_some_and(|t| t.text.contains("new branch"))
    );
}

#[test]
fn snapshot_new_worktree_with_env_rows() {
    let mut app = repo_app();
    let now = Instant::now();
    press(&mut app, "s", now);
    list_reply(&mut app, "w");
    press(
        &mut app,
        "<up> <up> <right> <down> agent/login-fix <tab> claude <tab> reviewer <tab> MODE=fast <space> and <space> careful <tab> TOKEN=x",
        now,
    );
    insta::assert_snapshot!("spawn_new_worktree", render(&app));
}

#[test]
fn changed_worktrees_are_listed_again_and_the_choice_kept() {
    let mut app = repo_app();
    let now = Instant::now();
    press(&mut app, "s", now);
    list_reply(&mut app, "w");
    press(&mut app, "<up> <up> <left> <left>", now);
    assert_eq!(form(&app).checkout, 2);
    let seq = app.catalog.seq + 1;
    let fx = update(
        &mut app,
        Msg::Feed(crate::catalog::FeedMsg::Event(Box::new(pb::Event {
            seq,
            kind: Some(pb::event::Kind::WorktreeChanged(pb::WorktreeChanged {
                repo_root: "/proj".into(),
            })),
            ..Default::default()
        }))),
        now,
    );
    assert_eq!(
        requests(&fx),
        [Request::Git(GitRequest::ListWorktrees {
            workspace_id: "w".into()
        })]
    );
    // A new checkout sorts before the chosen one: the choice follows its path.
    let mut list = worktrees();
    list.insert(
        1,
        pb::Worktree {
            path: "/proj-worktrees/agent-1".into(),
            branch: "agent-1".into(),
            ..Default::default()
        },
    );
    update(
        &mut app,
        Msg::Reply(Reply::Git(Box::new(GitReply::Worktrees {
            workspace_id: "w".into(),
            result: Ok(list),
        }))),
        now,
    );
    assert_eq!(form(&app).checkout, 3);
    assert_eq!(
        form(&app).checkout_text(),
        "worktree /proj-worktrees/fix-login (fix-login)"
    );
}

#[test]
fn a_race_is_started_from_the_form_with_agents_copies_base_and_a_prompt_of_lines() {
    let mut app = repo_app();
    let now = Instant::now();
    press(&mut app, "s", now);
    list_reply(&mut app, "w");
    // The race is the last checkout choice; its rows replace the pane's.
    press(&mut app, "<up> <up> <left>", now);
    assert!(form(&app).is_race());
    assert_eq!(
        form(&app).rows(),
        [
            FormRow::Workspace,
            FormRow::Checkout,
            FormRow::Agents,
            FormRow::Copies,
            FormRow::Base,
            FormRow::Check,
            FormRow::Prompt
        ]
    );
    insta::assert_snapshot!("spawn_race", render(&app));
    // No prompt: refused in place.
    press(&mut app, "<tab> ctrl-u claude <space> codex <tab> 0", now);
    let fx = press(&mut app, "<enter>", now);
    assert!(requests(&fx).is_empty());
    assert_eq!(
        form(&app).row,
        FormRow::Copies,
        "copies must be a number from 1"
    );
    press(
        &mut app,
        "<backspace> 2 <tab> <tab> <tab> fix <space> it ctrl-j then <space> test",
        now,
    );
    let fx = press(&mut app, "<enter>", now);
    assert_eq!(
        requests(&fx),
        [
            Request::Race(crate::race_view::RaceRequest::Start {
                workspace_id: "w".into(),
                race: crate::race_view::NewRace {
                    agents: vec!["claude".into(), "codex".into()],
                    copies: 2,
                    prompt: "fix it\nthen test".into(),
                    base: String::new(),
                    check_command: String::new(),
                },
            }),
            Request::Race(crate::race_view::RaceRequest::List),
        ]
    );
    assert!(
        matches!(app.overlay, Some(Overlay::Race(_))),
        "{:?}",
        app.overlay
    );
}
