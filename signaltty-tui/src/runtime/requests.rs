//! Server requests, one task each. The result comes back as a [`Reply`]: a failure becomes a
//! toast with the server's message and reason, and changes nothing else; the effect of a
//! success arrives through the event stream like anyone else's change.

use signaltty_proto::v1 as pb;
use signaltty_proto::v1::decision_service_client::DecisionServiceClient;
use signaltty_proto::v1::git_service_client::GitServiceClient;
use signaltty_proto::v1::pane_service_client::PaneServiceClient;
use signaltty_proto::v1::tab_service_client::TabServiceClient;
use signaltty_proto::v1::workspace_service_client::WorkspaceServiceClient;
use tokio::sync::mpsc;
use tonic::transport::Channel;

use super::Slot;
use crate::action::Target;
use crate::app::{App, Msg, Reply, Request};
use crate::git::{Checkout, Failure, GitReply, GitRequest, WorktreeSpawn};
use crate::regions::regions;

/// Starts a request.
pub fn start(request: Request, app: &App, slot: Slot, tx: mpsc::UnboundedSender<Msg>) {
    // The pane area's size, for panes created before they are drawn.
    let area = regions(app).panes;
    let size = (
        u32::from(area.width),
        u32::from(area.height.saturating_sub(1)),
    );
    tokio::spawn(async move {
        let Some(channel) = slot.get().map(|c| c.channel()) else {
            let _ = tx.send(Msg::Reply(Reply::Failed(
                "not connected to the server".into(),
            )));
            return;
        };
        let replies = match run(request, channel, size).await {
            Ok(replies) => replies,
            Err(status) => vec![Reply::Failed(describe(&status))],
        };
        for reply in replies {
            let _ = tx.send(Msg::Reply(reply));
        }
    });
}

/// A failed request as one line: the server's message and its stable reason.
pub fn describe(status: &tonic::Status) -> String {
    match signaltty_proto::error_reason(status) {
        Some(reason) => format!("{} ({reason})", status.message()),
        None => status.message().to_owned(),
    }
}

fn spawned(response: Option<pb::Pane>) -> Vec<Reply> {
    match response {
        Some(pane) => vec![Reply::Spawned {
            workspace_id: pane.workspace_id,
            tab_id: pane.tab_id,
            pane_id: pane.id,
        }],
        None => vec![Reply::Done],
    }
}

async fn run(
    request: Request,
    channel: Channel,
    (cols, rows): (u32, u32),
) -> Result<Vec<Reply>, tonic::Status> {
    let mut panes = PaneServiceClient::new(channel.clone());
    let mut tabs = TabServiceClient::new(channel.clone());
    let mut workspaces = WorkspaceServiceClient::new(channel.clone());
    Ok(match request {
        Request::CreateWorkspace { cwd } => {
            let ws = workspaces
                .create_workspace(pb::CreateWorkspaceRequest {
                    name: String::new(),
                    cwd,
                    settings: None,
                })
                .await?
                .into_inner()
                .workspace
                .unwrap_or_default();
            let pane = panes
                .spawn_pane(pb::SpawnPaneRequest {
                    workspace_id: ws.id.clone(),
                    cols,
                    rows,
                    ..Default::default()
                })
                .await?
                .into_inner()
                .pane;
            let mut replies = vec![Reply::WorkspaceCreated(ws.id)];
            replies.extend(spawned(pane));
            replies
        }
        Request::Spawn {
            workspace_id,
            tab_id,
            argv,
            cwd,
            title,
            env,
            cols: c,
            rows: r,
        } => {
            let pane = panes
                .spawn_pane(pb::SpawnPaneRequest {
                    workspace_id,
                    tab_id,
                    argv,
                    cwd,
                    env: env.into_iter().collect(),
                    cols: u32::from(c),
                    rows: u32::from(r),
                    title,
                    skip_hook_install: false,
                })
                .await?
                .into_inner()
                .pane;
            spawned(pane)
        }
        Request::Split { pane_id, direction } => {
            let pane = panes
                .split_pane(pb::SplitPaneRequest {
                    pane_id,
                    direction: direction as i32,
                    ..Default::default()
                })
                .await?
                .into_inner()
                .pane;
            spawned(pane)
        }
        Request::ClosePane(pane_id) => {
            panes.close_pane(pb::ClosePaneRequest { pane_id }).await?;
            vec![Reply::Done]
        }
        Request::CloseTab(tab_id) => {
            tabs.close_tab(pb::CloseTabRequest { tab_id }).await?;
            vec![Reply::Done]
        }
        Request::SetLayout { tab_id, layout } => {
            tabs.set_layout(pb::SetLayoutRequest {
                tab_id,
                // The flat form: a deep nested tree is refused by generated decoders.
                flat_layout: Some(signaltty_client::layout_tree::flatten(&layout)),
                ..Default::default()
            })
            .await?;
            vec![Reply::Done]
        }
        Request::SetRatio {
            tab_id,
            path,
            ratio,
        } => {
            tabs.set_ratio(pb::SetRatioRequest {
                tab_id,
                path: path.into_iter().map(|s| s as i32).collect(),
                ratio,
            })
            .await?;
            vec![Reply::Done]
        }
        Request::AnswerOn {
            machine,
            pane_id,
            decision_id,
            option_id,
        } => answer(channel, Some(&machine), pane_id, decision_id, option_id).await?,
        Request::Answer {
            pane_id,
            decision_id,
            option_id,
        } => answer(channel, None, pane_id, decision_id, option_id).await?,
        Request::MarkSeen(pane_id) => {
            panes.mark_seen(pb::MarkSeenRequest { pane_id }).await?;
            vec![Reply::Done]
        }
        Request::Resume(pane_id) => {
            // An agent session when there is one, else the original command.
            let agent = panes
                .resume_pane(pb::ResumePaneRequest {
                    pane_id: pane_id.clone(),
                    mode: pb::ResumeMode::AgentSession as i32,
                })
                .await;
            if let Err(status) = agent {
                if signaltty_proto::error_reason(&status).as_deref() != Some("NOT_RESUMABLE") {
                    return Err(status);
                }
                panes
                    .resume_pane(pb::ResumePaneRequest {
                        pane_id,
                        mode: pb::ResumeMode::RespawnArgv as i32,
                    })
                    .await?;
            }
            vec![Reply::Done]
        }
        Request::Rename { target, id, name } => {
            match target {
                Target::Pane => {
                    panes
                        .rename_pane(pb::RenamePaneRequest {
                            pane_id: id,
                            title: name,
                        })
                        .await?;
                }
                Target::Tab => {
                    tabs.rename_tab(pb::RenameTabRequest {
                        tab_id: id,
                        title: name,
                    })
                    .await?;
                }
                Target::Workspace => {
                    workspaces
                        .rename_workspace(pb::RenameWorkspaceRequest {
                            workspace_id: id,
                            name,
                        })
                        .await?;
                }
            }
            vec![Reply::Done]
        }
        Request::WriteInput { pane_id, bytes } => {
            panes
                .write_input(pb::WriteInputRequest {
                    pane_id,
                    data: bytes,
                    timeout_ms: 0,
                })
                .await?;
            vec![Reply::Done]
        }
        Request::ReadScrollback(pane_id) => {
            // A full history with its colours can pass gRPC's 4 MiB default (see ReadPane).
            let lines = PaneServiceClient::new(channel)
                .max_decoding_message_size(64 << 20)
                .read_pane(pb::ReadPaneRequest {
                    pane_id: pane_id.clone(),
                    mode: pb::ReadMode::Scrollback as i32,
                    lines: 0,
                    // Colours, parsed for the scroll view by `styled`.
                    keep_ansi: true,
                })
                .await?
                .into_inner()
                .lines;
            // Parsing a long history takes a while: not on the thread that draws.
            let (lines, styled) = tokio::task::spawn_blocking(move || crate::styled::parse(&lines))
                .await
                .map_err(|e| tonic::Status::internal(format!("parsing the history: {e}")))?;
            vec![Reply::Lines {
                pane_id,
                lines,
                styled,
            }]
        }
        Request::SetActiveTab { tab_id, .. } => {
            workspaces.focus_tab(pb::FocusTabRequest { tab_id }).await?;
            vec![Reply::Done]
        }
        Request::SetActivePane { pane_id, .. } => {
            panes
                .focus_pane(pb::FocusPaneRequest {
                    pane_id,
                    mark_seen: false,
                })
                .await?;
            vec![Reply::Done]
        }
        Request::Git(request) => run_git(request, channel).await,
        Request::Race(request) => crate::race_view::run(request, channel).await,
        Request::MoveToNewTab(pane_id) => {
            let pane = panes
                .move_pane(pb::MovePaneRequest {
                    pane_id,
                    destination: Some(pb::move_pane_request::Destination::NewTab(
                        pb::NewTabDestination {
                            title: String::new(),
                        },
                    )),
                    ..Default::default()
                })
                .await?
                .into_inner()
                .pane;
            spawned(pane)
        }
    })
}

/// A failed request as the diff view and the spawn form keep it.
fn failure(status: &tonic::Status) -> Failure {
    Failure {
        reason: signaltty_proto::error_reason(status).unwrap_or_default(),
        message: describe(status),
    }
}

/// Carries out a git request. The diff reads and the worktree list answer with their result
/// either way (their views show a failure in place); the worktree chain fails as a toast.
pub async fn run_git(request: GitRequest, channel: Channel) -> Vec<Reply> {
    let mut git = GitServiceClient::new(channel.clone());
    let reply = match request {
        GitRequest::WorkspaceDiff { workspace_id, seq } => GitReply::WorkspaceDiff {
            seq,
            result: git
                .get_workspace_diff(pb::GetWorkspaceDiffRequest { workspace_id })
                .await
                .map(tonic::Response::into_inner)
                .map_err(|s| failure(&s)),
        },
        GitRequest::FileDiff {
            workspace_id,
            path,
            old_path,
            seq,
        } => GitReply::FileDiff {
            seq,
            result: git
                .get_file_diff(pb::GetFileDiffRequest {
                    workspace_id,
                    path,
                    old_path,
                })
                .await
                .map(tonic::Response::into_inner)
                .map_err(|s| failure(&s)),
        },
        GitRequest::ListWorktrees { workspace_id } => GitReply::Worktrees {
            result: git
                .list_worktrees(pb::ListWorktreesRequest {
                    workspace_id: workspace_id.clone(),
                })
                .await
                .map(|r| r.into_inner().worktrees)
                .map_err(|s| failure(&s)),
            workspace_id,
        },
        GitRequest::Refresh { workspace_id } => {
            // The fresh context arrives as an event; a failure only leaves the mark as it was.
            let _ = WorkspaceServiceClient::new(channel)
                .refresh_git(pb::RefreshGitRequest { workspace_id })
                .await;
            return vec![Reply::Done];
        }
        GitRequest::SpawnInWorktree(spawn) => {
            return match spawn_in_worktree(spawn, channel).await {
                Ok(reply) => vec![Reply::Git(Box::new(reply))],
                Err(text) => vec![Reply::Failed(text)],
            };
        }
    };
    vec![Reply::Git(Box::new(reply))]
}

/// "New agent in a worktree": the checkout and its workspace (CreateWorktree, or OpenWorktree
/// for an existing checkout), then the pane there. If the pane cannot start, what this chain
/// made is undone — the workspace it opened is closed, then the worktree it added is removed
/// (the branch stays: nothing in the API deletes branches, and retrying then checks it out) —
/// and the error says so.
pub async fn spawn_in_worktree(spawn: WorktreeSpawn, channel: Channel) -> Result<GitReply, String> {
    let mut git = GitServiceClient::new(channel.clone());
    let mut workspaces = WorkspaceServiceClient::new(channel.clone());
    let mut panes = PaneServiceClient::new(channel);
    let missing = |what: &str| format!("the server's answer had no {what}");
    // What to undo if the pane does not start: (close the workspace, remove this checkout).
    let (workspace, close, remove, note) = match &spawn.checkout {
        Checkout::New { branch } => {
            let made = git
                .create_worktree(pb::CreateWorktreeRequest {
                    workspace_id: spawn.workspace_id.clone(),
                    branch: branch.clone(),
                    ..Default::default()
                })
                .await
                .map_err(|s| describe(&s))?
                .into_inner();
            let path = made.worktree.map(|w| w.path).unwrap_or_default();
            let fresh = if made.created_branch { "new " } else { "" };
            let note = format!(
                "worktree {} on {fresh}branch {branch}",
                crate::git::display(&path)
            );
            let ws = made.workspace.ok_or_else(|| missing("workspace"))?;
            (ws, true, Some(path), note)
        }
        Checkout::Existing { path } => {
            let opened = git
                .open_worktree(pb::OpenWorktreeRequest {
                    workspace_id: spawn.workspace_id.clone(),
                    path: path.clone(),
                })
                .await
                .map_err(|s| describe(&s))?
                .into_inner();
            let note = format!("worktree {}", crate::git::display(path));
            let ws = opened.workspace.ok_or_else(|| missing("workspace"))?;
            (ws, !opened.reused, None, note)
        }
    };
    let started = panes
        .spawn_pane(pb::SpawnPaneRequest {
            workspace_id: workspace.id.clone(),
            tab_id: String::new(),
            argv: spawn.argv,
            cwd: String::new(),
            env: spawn.env.into_iter().collect(),
            cols: u32::from(spawn.cols),
            rows: u32::from(spawn.rows),
            title: spawn.title,
            skip_hook_install: false,
        })
        .await
        .map(|r| r.into_inner().pane);
    let error = match started {
        Ok(Some(pane)) => {
            return Ok(GitReply::SpawnedInWorktree {
                workspace: Box::new(workspace),
                tab_id: pane.tab_id,
                pane_id: pane.id,
                note,
            });
        }
        Ok(None) => missing("pane"),
        Err(status) => describe(&status),
    };
    let mut undone = Vec::new();
    if close {
        match workspaces
            .close_workspace(pb::CloseWorkspaceRequest {
                workspace_id: workspace.id.clone(),
            })
            .await
        {
            Ok(_) => undone.push("its workspace closed".to_owned()),
            Err(s) => undone.push(format!("its workspace is left open ({})", describe(&s))),
        }
    }
    if let Some(path) = remove {
        match git
            .remove_worktree(pb::RemoveWorktreeRequest {
                workspace_id: spawn.workspace_id,
                path: path.clone(),
            })
            .await
        {
            Ok(_) => undone.push("the worktree removed (its branch kept)".to_owned()),
            Err(s) => undone.push(format!(
                "the worktree {} is left ({})",
                crate::git::display(&path),
                describe(&s)
            )),
        }
    }
    if undone.is_empty() {
        Err(format!("the pane did not start: {error}"))
    } else {
        Err(format!(
            "the pane did not start: {error}; {}",
            undone.join(", ")
        ))
    }
}

/// Answers a decision on this machine (`None`) or on a remote one, through the local server.
async fn answer(
    channel: Channel,
    machine: Option<&str>,
    pane_id: String,
    decision_id: String,
    option_id: String,
) -> Result<Vec<Reply>, tonic::Status> {
    DecisionServiceClient::new(channel)
        .answer_decision(crate::machine_request::on(
            machine,
            pb::AnswerDecisionRequest {
                pane_id,
                decision_id,
                option_id,
                message: String::new(),
            },
        ))
        .await?;
    Ok(vec![Reply::Done])
}
