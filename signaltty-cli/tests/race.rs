//! `signaltty race …` end to end: the real CLI and server, a real git repository in a temp dir,
//! and fake agents — a bash script installed as `claude` on the server's PATH that fires the
//! real hook events through `signaltty hook-event` and edits files. What each fake entry does
//! is steered per entry (its number is in its worktree's name) by files in a control dir:
//! `gate-N` (a FIFO: starts only once the test writes a line), `ask-N` (first asks for a
//! permission and waits for the answer), `edit-N.sh` (sourced in the worktree on each prompt),
//! `hold-N` (a FIFO: the turn ends only once the test writes a line). Each prompt it receives
//! is appended to `log-N`, and input that arrived before it said it was ready to `early-N`.
//!
//! Needs `cargo build -p signaltty-server` first (see `common/mod.rs`).

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{TestEnv, WAIT, wait_for};
use serde_json::Value;

const FAKE_AGENT: &str = r#"#!/bin/bash
# A fake Claude Code: real hook events through the real CLI, edits from the test.
SIG="__SIG__"
CTRL="__CTRL__"
n=$(basename "$PWD" | sed -E 's/^race-[^-]+-([0-9]+)-.*$/\1/')
sid="sess-$n"
hook() {
  printf '%s' "$2" | "$SIG" hook-event --agent claude --event "$1" --pane "$SIGNALTTY_PANE" \
    >/dev/null 2>>"$CTRL/hook-err-$n"
}
echo "fake agent $n in $PWD ($*)"
if [ -e "$CTRL/ask-$n" ]; then
  rm -f "$CTRL/ask-$n"
  printf '%s' '{"hook_event_name":"PermissionRequest","session_id":"'$sid'","tool_name":"Bash","tool_input":{"command":"ls"}}' \
    | "$SIG" hook-event --agent claude --event PermissionRequest --pane "$SIGNALTTY_PANE" \
      --wait-for-answer --timeout 120 >/dev/null 2>>"$CTRL/hook-err-$n"
  if read -t 0; then echo early >> "$CTRL/early-$n"; fi
  hook Stop '{"hook_event_name":"Stop","session_id":"'$sid'"}'
else
  if [ -p "$CTRL/gate-$n" ]; then read -r _ < "$CTRL/gate-$n"; fi
  if read -t 0; then echo early >> "$CTRL/early-$n"; fi
  hook SessionStart '{"hook_event_name":"SessionStart","session_id":"'$sid'","source":"startup"}'
fi
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$CTRL/log-$n"
  hook UserPromptSubmit '{"hook_event_name":"UserPromptSubmit","session_id":"'$sid'","prompt":"task"}'
  if [ -f "$CTRL/edit-$n.sh" ]; then . "$CTRL/edit-$n.sh"; fi
  if [ -p "$CTRL/hold-$n" ]; then read -r _ < "$CTRL/hold-$n"; fi
  hook Stop '{"hook_event_name":"Stop","session_id":"'$sid'"}'
done
"#;

/// A test world: the env, a repository with one commit, the fake agent on the server's PATH.
struct World {
    env: TestEnv,
    repo: PathBuf,
    ctrl: PathBuf,
    path: String,
    ws: String,
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

impl World {
    fn new() -> World {
        let env = TestEnv::new();
        let root = env.dir.path().to_path_buf();
        let repo = root.join("repo");
        std::fs::create_dir_all(&repo).expect("repo");
        git(&repo, &["init", "-q", "-b", "main"]);
        git(&repo, &["config", "user.name", "Race Test"]);
        git(&repo, &["config", "user.email", "race@test"]);
        std::fs::write(repo.join("README.md"), "line one\nline two\nline three\n").expect("readme");
        std::fs::write(repo.join(".gitignore"), ".env\n").expect("ignore");
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "first"]);
        std::fs::write(repo.join(".env"), "SECRET=1\n").expect(".env");
        let ctrl = root.join("ctrl");
        let bin = root.join("bin");
        std::fs::create_dir_all(&ctrl).expect("ctrl");
        std::fs::create_dir_all(&bin).expect("bin");
        let script = FAKE_AGENT
            .replace("__SIG__", env!("CARGO_BIN_EXE_signaltty"))
            .replace("__CTRL__", ctrl.to_str().expect("utf-8"));
        let agent = bin.join("claude");
        std::fs::write(&agent, script).expect("agent");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut world = World {
            env,
            repo,
            ctrl,
            path,
            ws: String::new(),
        };
        world.start_server();
        world.ws = world.env.workspace_at(&world.repo);
        world
    }

    /// Starts the server with the fake agent on its PATH (panes inherit it).
    fn start_server(&self) {
        let out = self
            .env
            .command(&["server", "start"])
            .env("PATH", &self.path)
            .output()
            .expect("server start");
        assert!(out.status.success(), "server start: {out:?}");
    }

    fn fifo(&self, name: &str) -> PathBuf {
        let path = self.ctrl.join(name);
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600)).expect("fifo");
        path
    }

    fn release(&self, fifo: &Path) {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(fifo)
            .expect("open fifo");
        writeln!(f, "go").expect("write fifo");
    }

    fn edit(&self, n: u32, script: &str) {
        std::fs::write(self.ctrl.join(format!("edit-{n}.sh")), script).expect("edit script");
    }

    fn log(&self, n: u32) -> String {
        std::fs::read_to_string(self.ctrl.join(format!("log-{n}"))).unwrap_or_default()
    }

    fn show(&self, race: &str) -> Value {
        self.env.json(&["race", "show", race])
    }

    fn entry(&self, race: &str, n: u32) -> Value {
        self.show(race)["entries"][(n - 1) as usize].clone()
    }

    fn start(&self, extra: &[&str]) -> String {
        let prompt = self.ctrl.join("task.md");
        std::fs::write(&prompt, "Write the answer in answer.txt").expect("prompt");
        let mut args = vec![
            "race",
            "start",
            "--workspace",
            &self.ws,
            "--prompt-file",
            prompt.to_str().expect("utf-8"),
        ];
        args.extend_from_slice(extra);
        let race = self.env.json(&args);
        race["id"].as_str().expect("race id").to_owned()
    }

    fn wait_state(&self, race: &str, n: u32, state: &str) -> Value {
        wait_for(&format!("entry {n} {state}"), WAIT, || {
            let e = self.entry(race, n);
            (e["state"] == state).then_some(e)
        })
    }
}

#[test]
fn a_race_of_three_types_the_prompt_only_when_each_agent_is_ready() {
    let w = World::new();
    let gate = w.fifo("gate-2");
    std::fs::write(w.ctrl.join("ask-3"), "").expect("ask");
    w.edit(1, "printf 'line one\\nline two\\nline three\\nfrom one\\n' > README.md\nprintf 'a\\nb\\n' > a.txt\n");
    w.edit(2, "printf '42\\n' > answer.txt\n");
    w.edit(
        3,
        "printf 'line one\\nline three\\n' > README.md\ngit commit -qam 'drop line two'\n",
    );
    let race = w.start(&[
        "--agent",
        "claude",
        "-n",
        "3",
        "--copy",
        ".env",
        "--setup",
        "touch setup-ran",
        "--check",
        "test -f answer.txt",
    ]);

    // Entry 1 is ready at once; entry 2 starts slowly; entry 3 asks for a permission first.
    w.wait_state(&race, 1, "turn_ended");
    let asking = wait_for("entry 3's decision", WAIT, || {
        let e = w.entry(&race, 3);
        (e["pending_decision_id"] != "").then_some(e)
    });
    assert_eq!(asking["state"], "starting", "{asking}");
    assert_eq!(asking["turns"], 0, "{asking}");
    let slow = w.entry(&race, 2);
    assert_eq!(slow["state"], "starting", "{slow}");
    assert_eq!(slow["lifecycle"], "unknown", "{slow}");
    assert_eq!(w.log(2), "", "nothing typed into a starting agent");
    assert_eq!(w.log(3), "", "nothing typed into a blocked agent");
    let shown = w.env.ok(&["race", "show", &race]);
    assert!(shown.contains("Allow"), "the decision is shown: {shown}");

    let decision = asking["pending_decision_id"].as_str().expect("id");
    w.env.json(&["decision", "answer", decision, "once"]);
    w.release(&gate);
    let waited = w.env.json(&["race", "wait", &race, "--timeout", "120"]);
    for e in waited["entries"].as_array().expect("entries") {
        assert_eq!(e["state"], "turn_ended", "{waited}");
        assert_eq!(e["turns"], 1, "{e}");
        let n = e["index"].as_u64().expect("index");
        let path = PathBuf::from(e["path"].as_str().expect("path"));
        assert_eq!(
            std::fs::read_to_string(path.join(".env")).expect(".env copied"),
            "SECRET=1\n"
        );
        assert!(path.join("setup-ran").exists(), "setup ran in {path:?}");
        assert_eq!(
            w.log(n as u32),
            "Write the answer in answer.txt\n",
            "entry {n} got the prompt once"
        );
        assert!(
            !w.ctrl.join(format!("early-{n}")).exists(),
            "entry {n} got input before it was ready"
        );
    }

    // Compare: known edits, the per-file matrix, the check in each worktree.
    let compared = w.env.json(&["race", "compare", &race, "--check"]);
    let files = |n: usize| -> Vec<(String, u64, u64)> {
        compared[n]["files"]
            .as_array()
            .expect("files")
            .iter()
            .filter(|f| f["path"] != "setup-ran")
            .map(|f| {
                (
                    f["path"].as_str().expect("path").to_owned(),
                    f["added"].as_u64().expect("added"),
                    f["removed"].as_u64().expect("removed"),
                )
            })
            .collect()
    };
    assert_eq!(
        files(0),
        vec![("README.md".into(), 1, 0), ("a.txt".into(), 2, 0)],
        "{compared}"
    );
    assert_eq!(files(1), vec![("answer.txt".into(), 1, 0)], "{compared}");
    assert_eq!(files(2), vec![("README.md".into(), 0, 1)], "{compared}");
    assert_eq!(compared[0]["check"]["exit_code"], 1, "{compared}");
    assert_eq!(compared[1]["check"]["exit_code"], 0, "{compared}");
    let table = w.env.ok(&["race", "compare", &race]);
    let readme = table
        .lines()
        .find(|l| l.starts_with("README.md"))
        .expect("README row");
    let cells: Vec<&str> = readme.split_whitespace().collect();
    assert_eq!(cells, ["README.md", "+1/-0", "·", "+0/-1"], "{table}");

    // A review comment reaches entry 1's agent as one prompt and starts another turn.
    w.env.ok(&[
        "race",
        "review",
        &race,
        "--entry",
        "1",
        "--comment",
        "a.txt:2:say why b",
        "--comment",
        "README.md:4:drop this line",
    ]);
    let again = w.env.json(&["race", "wait", &race, "--timeout", "120"]);
    assert_eq!(again["entries"][0]["turns"], 2, "{again}");
    let log = w.log(1);
    let review = log.lines().nth(1).expect("a second prompt");
    assert!(
        review.contains("a.txt:2: say why b") && review.contains("README.md:4: drop this line"),
        "{log}"
    );

    // Keep entry 2 (squash); the others are closed, their branches deleted.
    let kept = w.env.json(&[
        "race",
        "keep",
        &race,
        "--entry",
        "2",
        "--mode",
        "squash",
        "--force",
        "--delete-branches",
    ]);
    assert_eq!(kept["race"]["state"], "kept", "{kept}");
    assert_eq!(
        std::fs::read_to_string(w.repo.join("answer.txt")).expect("merged"),
        "42\n"
    );
    let head_parents = git(&w.repo, &["log", "-1", "--format=%P"]);
    assert_eq!(
        head_parents.split_whitespace().count(),
        1,
        "a squash is one commit"
    );
    for c in kept["cleanup"].as_array().expect("cleanup") {
        assert_eq!(c["worktree_removed"], true, "{c}");
        assert_eq!(c["branch_deleted"], true, "{c}");
    }
    let branches = git(&w.repo, &["branch", "--list", "race/*"]);
    assert_eq!(
        branches.lines().count(),
        1,
        "only the kept branch: {branches}"
    );
    assert!(git(&w.repo, &["status", "--porcelain"]).trim().is_empty());
}

#[test]
fn keep_merges_in_each_mode_and_a_conflict_leaves_the_base_unchanged() {
    let w = World::new();
    w.edit(
        1,
        "printf 'line one by agent\\nline two\\nline three\\n' > README.md\n",
    );
    w.edit(
        2,
        "printf 'b\\n' > b.txt\ngit add b.txt\ngit commit -qm 'b'\n",
    );
    let race = w.start(&["--agent", "claude", "-n", "2"]);
    w.env.json(&["race", "wait", &race, "--timeout", "120"]);

    // The base branch moves: entry 1 now conflicts, and cannot be fast-forwarded.
    std::fs::write(
        w.repo.join("README.md"),
        "line one by base\nline two\nline three\n",
    )
    .expect("edit");
    git(&w.repo, &["commit", "-qam", "base moves"]);
    let before = git(&w.repo, &["rev-parse", "HEAD"]);
    let conflict = w.env.fails(
        &["race", "keep", &race, "--entry", "1", "--mode", "merge"],
        1,
    );
    assert!(
        conflict.stderr.contains("(RACE_MERGE_CONFLICT)") && conflict.stderr.contains("README.md"),
        "{conflict:?}"
    );
    let ff = w
        .env
        .fails(&["race", "keep", &race, "--entry", "2", "--mode", "ff"], 1);
    assert!(ff.stderr.contains("fast-forward"), "{ff:?}");
    assert_eq!(
        git(&w.repo, &["rev-parse", "HEAD"]),
        before,
        "the base did not move"
    );
    assert!(git(&w.repo, &["status", "--porcelain"]).trim().is_empty());
    assert_eq!(w.show(&race)["state"], "running");

    // A merge commit of entry 2; entry 1 has an untracked file, so it stays until --force.
    let first = PathBuf::from(w.entry(&race, 1)["path"].as_str().expect("path"));
    std::fs::write(first.join("scratch"), "notes\n").expect("scratch");
    let kept = w
        .env
        .json(&["race", "keep", &race, "--entry", "2", "--mode", "merge"]);
    let parents = git(&w.repo, &["log", "-1", "--format=%P"]);
    assert_eq!(parents.split_whitespace().count(), 2, "a merge commit");
    assert!(w.repo.join("b.txt").exists());
    let dirty = &kept["cleanup"][0];
    assert_eq!(dirty["worktree_removed"], false, "{kept}");
    assert!(
        dirty["problem"]
            .as_str()
            .expect("problem")
            .contains("--force"),
        "{kept}"
    );
    let closed = w
        .env
        .json(&["race", "close", &race, "--entry", "1", "--force"]);
    assert_eq!(closed["cleanup"][0]["worktree_removed"], true, "{closed}");

    // Fast-forward: a new race from the moved base.
    w.edit(
        1,
        "printf 'c\\n' > c.txt\ngit add c.txt\ngit commit -qm 'c'\n",
    );
    let second = w.start(&["--agent", "claude"]);
    w.env.json(&["race", "wait", &second, "--timeout", "120"]);
    let branch = w.entry(&second, 1)["branch"]
        .as_str()
        .expect("branch")
        .to_owned();
    let tip = git(&w.repo, &["rev-parse", &branch]);
    w.env
        .json(&["race", "keep", &second, "--entry", "1", "--mode", "ff"]);
    assert_eq!(git(&w.repo, &["rev-parse", "HEAD"]), tip, "fast-forwarded");
}

#[test]
fn a_restart_mid_race_restores_the_race_and_types_the_prompt_again() {
    let w = World::new();
    let hold = w.fifo("hold-1");
    let race = w.start(&["--agent", "claude"]);
    let working = w.wait_state(&race, 1, "working");
    let pane = working["pane_id"].as_str().expect("pane").to_owned();
    wait_for("the prompt", WAIT, || (!w.log(1).is_empty()).then_some(()));

    w.env.ok(&["server", "stop", "--force"]);
    w.start_server();
    let restored = w.entry(&race, 1);
    assert_eq!(restored["state"], "starting", "{restored}");
    assert_eq!(restored["pane_id"], pane.as_str(), "{restored}");
    assert_eq!(w.show(&race)["state"], "running");

    std::fs::remove_file(&hold).expect("no more holding");
    w.env.ok(&["pane", "resume", &pane]);
    let waited = w.env.json(&["race", "wait", &race, "--timeout", "120"]);
    assert_eq!(waited["entries"][0]["state"], "turn_ended", "{waited}");
    assert_eq!(
        w.log(1),
        "Write the answer in answer.txt\nWrite the answer in answer.txt\n",
        "the cut turn was started again"
    );
}

#[test]
fn bad_input_is_refused_clearly_and_creates_nothing() {
    let w = World::new();
    let prompt = w.ctrl.join("p.md");
    std::fs::write(&prompt, "task").expect("prompt");
    let p = prompt.to_str().expect("utf-8");
    let base = ["race", "start", "--workspace", &w.ws, "--prompt-file", p];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let run = |args: Vec<String>| {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        w.env.fails(&refs, 1)
    };
    let unknown = run(with(&["--agent", "gpt-pilot"]));
    assert!(
        unknown.stderr.contains("unknown agent") && unknown.stderr.contains("(BAD_PARAMS)"),
        "{unknown:?}"
    );
    let no_commit = run(with(&["--agent", "claude", "--base", "no-such-branch"]));
    assert!(
        no_commit.stderr.contains("not a commit") && no_commit.stderr.contains("(BAD_PARAMS)"),
        "{no_commit:?}"
    );
    std::fs::write(w.repo.join("README.md"), "changed\n").expect("dirty");
    let dirty = run(with(&["--agent", "claude", "--from-working-tree"]));
    assert!(dirty.stderr.contains("(RACE_BASE_DIRTY)"), "{dirty:?}");
    let missing = w.env.fails(&["race", "show", "race_nope"], 1);
    assert!(missing.stderr.contains("(NO_SUCH_RACE)"), "{missing:?}");

    assert_eq!(w.env.json(&["race", "list"]), serde_json::json!([]));
    assert_eq!(git(&w.repo, &["worktree", "list"]).lines().count(), 1);
    assert_eq!(git(&w.repo, &["branch"]).trim(), "* main");
    assert!(!w.env.dir.path().join("repo-worktrees").exists());
}
