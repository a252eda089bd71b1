//! End to end: `signaltty worktree list|create|open|remove` (including the one-command "new
//! agent in its own worktree" flow) and `signaltty diff` (human and `--json`), with the real
//! binaries and a real repository. Needs `cargo build -p signaltty-server` first (see
//! tests/common).

mod common;

use std::path::Path;

use common::TestEnv;

fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

fn repo(env: &TestEnv) -> std::path::PathBuf {
    let repo = env.dir.path().join("app");
    std::fs::create_dir_all(&repo).expect("mkdir");
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "one\ntwo\nthree\n").expect("write");
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    std::fs::canonicalize(repo).expect("canonical")
}

#[test]
fn worktree_commands_and_the_agent_in_its_own_worktree_flow() {
    let env = TestEnv::new();
    let repo = repo(&env);
    let ws = env.workspace_at(&repo);

    // One command: checkout → workspace → pane running the agent there.
    let created = env.json(&[
        "worktree", "create", "agent-1", "--ws", &ws, "--spawn", "--", "sleep", "60",
    ]);
    assert_eq!(created["created_branch"], true, "{created}");
    let path = created["worktree"]["path"]
        .as_str()
        .expect("path")
        .to_owned();
    assert!(path.ends_with("app-worktrees/agent-1"), "{path}");
    let new_ws = created["workspace"]["id"].as_str().expect("ws").to_owned();
    assert_eq!(
        created["pane"]["workspace_id"],
        new_ws.as_str(),
        "{created}"
    );
    assert_eq!(created["pane"]["cwd"], path.as_str(), "{created}");

    let list = env.json(&["worktree", "list", "--ws", &ws]);
    let list = list.as_array().expect("array");
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["is_main"], true);
    assert_eq!(list[1]["workspace_ids"][0], new_ws.as_str());
    let table = env.ok(&["worktree", "list", "--ws", &ws]);
    assert!(
        table.contains("agent-1") && table.contains("main"),
        "{table}"
    );

    // In use: refused with its reason and exit code 1; nothing removed.
    let refused = env.fails(&["worktree", "remove", &path, "--ws", &ws], 1);
    assert!(refused.stderr.contains("WORKTREE_IN_USE"), "{refused:?}");
    let refused = env.fails(
        &[
            "worktree",
            "remove",
            repo.to_str().expect("utf-8"),
            "--ws",
            &ws,
        ],
        1,
    );
    assert!(refused.stderr.contains("WORKTREE_IS_MAIN"), "{refused:?}");
    assert!(Path::new(&path).exists());

    let opened = env.json(&["worktree", "open", &path, "--ws", &ws]);
    assert_eq!(opened["reused"], true);
    env.ok(&["workspace", "close", &new_ws]);
    env.ok(&["worktree", "remove", &path, "--ws", &ws]);
    assert!(!Path::new(&path).exists());
}

#[test]
fn diff_shows_changes_for_people_and_for_tools() {
    let env = TestEnv::new();
    let repo = repo(&env);
    let ws = env.workspace_at(&repo);
    std::fs::write(repo.join("a.txt"), "one\n2\nthree\n").expect("write");
    std::fs::write(repo.join("new.txt"), "fresh\n").expect("write");

    let json = env.json(&["diff", &ws]);
    let files = json["files"].as_array().expect("files");
    assert_eq!(files.len(), 2, "{json}");
    assert_eq!(files[0]["path"], "a.txt");
    assert_eq!(files[0]["kind"], "modified");
    assert_eq!(
        (files[0]["added"].as_u64(), files[0]["removed"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(files[1]["kind"], "added");
    assert_eq!(files[1]["untracked"], true);

    let file = env.json(&["diff", &ws, "--file", "a.txt"]);
    assert_eq!(file["kind"], "text");
    assert_eq!(file["hunks"][0]["lines"][1]["kind"], "removed");
    assert_eq!(file["hunks"][0]["lines"][1]["old_line"], 2);

    let text = env.ok(&["diff", &ws, "--color", "never"]);
    assert!(text.contains("M        +1 -1  a.txt"), "{text}");
    assert!(
        text.contains("@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"),
        "{text}"
    );
    assert!(text.contains("+fresh"), "{text}");
    let coloured = env.ok(&["diff", &ws, "--file", "a.txt", "--color", "always"]);
    assert!(coloured.contains("\x1b[31m-two\x1b[0m"), "{coloured:?}");

    let refused = env.fails(&["diff", &ws, "--file", "../etc/passwd"], 1);
    assert!(refused.stderr.contains("BAD_PARAMS"), "{refused:?}");
}
