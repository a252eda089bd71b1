//! WorkspaceService, TabService and ServerService against a real server over its socket.

mod clients;
mod common;

use common::{TestServer, assert_error};
use signaltty_proto::v1 as pb;
use tonic::Code;

#[tokio::test]
async fn workspace_lifecycle_create_list_get_rename_close() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("api").await;
    assert!(ws.id.starts_with("ws_"));
    assert_eq!(ws.name, "api");
    let mut client = srv.workspaces();

    assert_eq!(srv.list_workspaces().await.len(), 1);

    let renamed = client
        .rename_workspace(pb::RenameWorkspaceRequest {
            workspace_id: ws.id.clone(),
            name: "  backend ".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .workspace
        .unwrap();
    assert_eq!(renamed.name, "backend");

    let tab = srv
        .tabs()
        .create_tab(pb::CreateTabRequest {
            workspace_id: ws.id.clone(),
            title: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .tab
        .unwrap();
    let got = srv.get_workspace(&ws.id).await;
    assert_eq!(got.tabs.len(), 1);
    assert_eq!(got.tabs[0].id, tab.id);
    assert_eq!(got.workspace.unwrap().active_tab_id, tab.id);

    client
        .close_workspace(pb::CloseWorkspaceRequest {
            workspace_id: ws.id.clone(),
        })
        .await
        .unwrap();
    assert_error(
        client
            .get_workspace(pb::GetWorkspaceRequest {
                workspace_id: ws.id.clone(),
            })
            .await,
        Code::NotFound,
        "NO_SUCH_WORKSPACE",
    );
    let status = srv.status().await;
    assert_eq!((status.workspace_count, status.tab_count), (0, 0));
    assert!(status.head_seq >= 4);
}

#[tokio::test]
async fn workspace_bad_input_is_refused_with_reasons_and_changes_nothing() {
    let srv = TestServer::start().await;
    let mut client = srv.workspaces();
    let file = srv.dir_path().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    for cwd in [
        String::new(),
        "relative/dir".to_owned(),
        file.display().to_string(),
        srv.dir_path().join("missing").display().to_string(),
    ] {
        assert_error(
            client
                .create_workspace(pb::CreateWorkspaceRequest {
                    name: "x".into(),
                    cwd,
                    settings: None,
                })
                .await,
            Code::InvalidArgument,
            "BAD_PARAMS",
        );
    }
    let ws = srv.workspace("keep").await;
    assert_error(
        client
            .rename_workspace(pb::RenameWorkspaceRequest {
                workspace_id: ws.id.clone(),
                name: "bad\u{7}name".into(),
            })
            .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    assert_error(
        client
            .get_workspace(pb::GetWorkspaceRequest {
                workspace_id: "ws_doesnotexist".into(),
            })
            .await,
        Code::NotFound,
        "NO_SUCH_WORKSPACE",
    );
    assert_error(
        client
            .get_workspace(pb::GetWorkspaceRequest {
                workspace_id: "tab_wrongkind".into(),
            })
            .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    let list = srv.list_workspaces().await;
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].name, "keep");
}

#[tokio::test]
async fn git_context_is_read_on_create_and_refresh() {
    let srv = TestServer::start().await;
    let repo = srv.dir_path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&repo)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "one\n").unwrap();
    git(&["add", "a.txt"]);
    git(&["commit", "-q", "-m", "init"]);
    let ws = srv
        .workspaces()
        .create_workspace(pb::CreateWorkspaceRequest {
            name: String::new(),
            cwd: repo.display().to_string(),
            settings: None,
        })
        .await
        .unwrap()
        .into_inner()
        .workspace
        .unwrap();
    assert_eq!(ws.name, "repo");
    let ctx = ws.git.unwrap();
    assert!(ctx.is_repo);
    assert_eq!(ctx.repo_name, "repo");
    assert_eq!(ctx.branch, "main");
    assert!(!ctx.dirty);

    std::fs::write(repo.join("a.txt"), "two\n").unwrap();
    let ctx = srv
        .workspaces()
        .refresh_git(pb::RefreshGitRequest {
            workspace_id: ws.id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .git
        .unwrap();
    assert!(ctx.dirty);
}

#[tokio::test]
async fn tab_create_rename_close_and_bad_ids() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let mut tabs = srv.tabs();
    let tab = tabs
        .create_tab(pb::CreateTabRequest {
            workspace_id: ws.id.clone(),
            title: "agents".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .tab
        .unwrap();
    assert_eq!(tab.title, "agents");
    assert!(tab.flat_layout.is_none());
    let renamed = tabs
        .rename_tab(pb::RenameTabRequest {
            tab_id: tab.id.clone(),
            title: "tests".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .tab
        .unwrap();
    assert_eq!(renamed.title, "tests");
    assert_error(
        tabs.create_tab(pb::CreateTabRequest {
            workspace_id: "ws_nope".into(),
            title: String::new(),
        })
        .await,
        Code::NotFound,
        "NO_SUCH_WORKSPACE",
    );
    assert_error(
        tabs.set_ratio(pb::SetRatioRequest {
            tab_id: tab.id.clone(),
            path: vec![],
            ratio: 0.5,
        })
        .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    tabs.close_tab(pb::CloseTabRequest {
        tab_id: tab.id.clone(),
    })
    .await
    .unwrap();
    assert_error(
        tabs.close_tab(pb::CloseTabRequest {
            tab_id: tab.id.clone(),
        })
        .await,
        Code::NotFound,
        "NO_SUCH_TAB",
    );
}

#[tokio::test]
async fn git_service_answers_for_unknown_workspaces_with_not_found() {
    let srv = TestServer::start().await;
    assert_error(
        srv.git()
            .list_worktrees(pb::ListWorktreesRequest {
                workspace_id: "ws_x".into(),
            })
            .await,
        Code::NotFound,
        "NO_SUCH_WORKSPACE",
    );
}

#[tokio::test]
async fn shutdown_stops_the_server_and_removes_the_socket() {
    let srv = TestServer::start().await;
    srv.server()
        .shutdown(pb::ShutdownRequest { force: false })
        .await
        .unwrap();
    tokio::time::timeout(common::WAIT, srv.daemon.wait())
        .await
        .expect("stops");
    assert!(!srv.socket().exists());
}
