//! Races: the time from `StartRace` with 8 entries to the last prompt typed into its agent, on
//! a generated repository of 2,000 files, against `git worktree add` × 8 run on the same
//! repository in the same rounds (interleaved; medians). Worktree creation is most of a race's
//! start, so the second figure is its floor. The agents are a fake `claude` (a bash script that
//! fires the real SessionStart / UserPromptSubmit / Stop hooks through the real CLI), so no
//! agent's own start-up is counted; the prompt is typed only after each one's SessionStart.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail};
use serde_json::json;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::race_service_client::RaceServiceClient;

use super::median_ms;
use crate::report::Row;
use crate::signaltty::SignalttyServer;
use crate::units::{ms, times};
use crate::{Bench, SectionOutput};

/// Files in the generated repository.
const FILES: usize = 2_000;
/// Entries per race.
const ENTRIES: u32 = 8;
/// Timed rounds.
const ROUNDS: usize = 3;

const FAKE_AGENT: &str = r#"#!/bin/bash
hook() {
  printf '%s' "$2" | "__SIG__" hook-event --agent claude --event "$1" --pane "$SIGNALTTY_PANE" >/dev/null 2>&1
}
hook SessionStart '{"hook_event_name":"SessionStart","session_id":"bench-'$$'"}'
while IFS= read -r line; do
  hook UserPromptSubmit '{"hook_event_name":"UserPromptSubmit","session_id":"bench-'$$'"}'
  hook Stop '{"hook_event_name":"Stop","session_id":"bench-'$$'"}'
done
"#;

/// Runs the section.
pub async fn run(bench: &Bench) -> anyhow::Result<SectionOutput> {
    if !bench.with_signaltty {
        return Ok(SectionOutput {
            rows: Vec::new(),
            details: json!({}),
            notes: Vec::new(),
        });
    }
    let root = bench.dir.join(bench.unique("race"));
    let repo = root.join("repo");
    let bin = root.join("bin");
    {
        let (repo, bin, cli) = (repo.clone(), bin.clone(), bench.cli_bin.clone());
        tokio::task::spawn_blocking(move || prepare(&repo, &bin, &cli)).await??;
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (server, _) = SignalttyServer::start_with_env(
        &bench.server_bin,
        &bench.dir,
        &bench.unique("race"),
        &[("PATH", path)],
    )
    .await?;
    let ws = server.create_workspace(&repo).await?;
    let channel = signaltty_proto::connect(server.socket()).await?;
    let mut races = RaceServiceClient::new(channel);

    let (mut race_times, mut git_times) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        git_times.push(worktrees_by_hand(&repo, round).await?);
        race_times.push(one_race(&mut races, &ws).await?);
    }
    let (race, git) = (median_ms(&race_times), median_ms(&git_times));
    let rows = vec![
        Row::new(format!("race of {ENTRIES}: start → last prompt typed"))
            .signaltty(ms(race))
            .raw(ms(git))
            .ratio(times(race / git.max(f64::MIN_POSITIVE))),
    ];
    Ok(SectionOutput {
        rows,
        details: json!({
            "files": FILES,
            "entries": ENTRIES,
            "race_ms": race_times.iter().map(|d| d.as_secs_f64() * 1e3).collect::<Vec<_>>(),
            "git_worktree_add_x8_ms": git_times.iter().map(|d| d.as_secs_f64() * 1e3).collect::<Vec<_>>(),
        }),
        notes: vec![format!(
            "race: StartRace with {ENTRIES} fake claude entries on a {FILES}-file repository until the last entry's prompt was typed (its `prompt_delivered_at`); raw column: `git worktree add -b` × {ENTRIES} on the same repository, one after another; {ROUNDS} rounds interleaved, medians"
        )],
    })
}

/// The repository and the fake agent.
fn prepare(repo: &Path, bin: &Path, cli: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(repo)?;
    std::fs::create_dir_all(bin)?;
    let agent = bin.join("claude");
    std::fs::write(
        &agent,
        FAKE_AGENT.replace("__SIG__", &cli.display().to_string()),
    )?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755))?;
    git(repo, &["init", "-q", "-b", "main"])?;
    for i in 0..FILES {
        let dir = repo.join(format!("d{:02}", i % 50));
        std::fs::create_dir_all(&dir)?;
        let body: String = (0..40)
            .map(|l| format!("file {i} line {l}: some source text\n"))
            .collect();
        std::fs::write(dir.join(format!("f{i}.txt")), body)?;
    }
    git(repo, &["add", "-A"])?;
    git(repo, &["commit", "-q", "-m", "generated"])?;
    Ok(())
}

fn git(repo: &Path, args: &[&str]) -> anyhow::Result<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@localhost")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@localhost")
        .output()?;
    if !out.status.success() {
        bail!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `git worktree add -b` × 8, timed, then removed again (not timed).
async fn worktrees_by_hand(repo: &Path, round: usize) -> anyhow::Result<Duration> {
    let repo = repo.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let parent = repo.with_file_name("by-hand");
        let started = Instant::now();
        for i in 0..ENTRIES {
            let path = parent.join(format!("r{round}-{i}"));
            let branch = format!("hand/{round}/{i}");
            git(
                &repo,
                &[
                    "worktree",
                    "add",
                    "-q",
                    "-b",
                    &branch,
                    path.to_str().context("path")?,
                ],
            )?;
        }
        let took = started.elapsed();
        for i in 0..ENTRIES {
            let path = parent.join(format!("r{round}-{i}"));
            git(
                &repo,
                &[
                    "worktree",
                    "remove",
                    "--force",
                    path.to_str().context("path")?,
                ],
            )?;
        }
        Ok(took)
    })
    .await?
}

/// One race: started, waited for, timed to its last prompt, closed.
async fn one_race(
    races: &mut RaceServiceClient<tonic::transport::Channel>,
    ws: &str,
) -> anyhow::Result<Duration> {
    let started = SystemTime::now();
    let race = races
        .start_race(pb::StartRaceRequest {
            workspace_id: ws.to_owned(),
            prompt: "bench task".into(),
            agents: vec!["claude".into()],
            copies: ENTRIES,
            ..Default::default()
        })
        .await?
        .into_inner()
        .race
        .context("no race")?;
    let waited = races
        .wait_race(pb::WaitRaceRequest {
            race_id: race.id.clone(),
            timeout_ms: 300_000,
        })
        .await?
        .into_inner();
    let done = waited.race.context("no race")?;
    if waited.outcome != pb::WaitRaceOutcome::AllEnded as i32 {
        bail!("an entry failed: {:?}", done.entries);
    }
    let last = done
        .entries
        .iter()
        .filter_map(|e| e.prompt_delivered_at.as_ref())
        .map(|t| SystemTime::UNIX_EPOCH + Duration::new(t.seconds as u64, t.nanos as u32))
        .max()
        .context("no prompt typed")?;
    let took = last.duration_since(started).unwrap_or_default();
    races
        .close_race(pb::CloseRaceRequest {
            race_id: race.id,
            indexes: Vec::new(),
            delete_branches: true,
            force: true,
        })
        .await?;
    Ok(took)
}
