//! Git inside the multiplexer: GetWorkspaceDiff and the dirty check (RefreshGit) on a
//! generated repository of 10,000 files with 100 changed, against `git diff --numstat HEAD` and
//! `git status --porcelain` run on the same checkout in the same rounds (interleaved; medians),
//! and keystroke echo in another pane while diffs run back to back (the diff must stay on the
//! blocking pool, off the one async worker that carries echoes). The dirty check is timed again
//! after the edits are committed: it stops at the first change, so the clean checkout is its
//! whole-checkout case.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::json;
use signaltty_proto::v1::attach_response::Kind;
use signaltty_proto::v1::git_service_client::GitServiceClient;
use signaltty_proto::v1::workspace_service_client::WorkspaceServiceClient;
use signaltty_proto::v1::{GetWorkspaceDiffRequest, GitContext, RefreshGitRequest};
use tonic::transport::Channel;

use super::{median_ms, sh};
use crate::report::Row;
use crate::signaltty::{Attachment, SignalttyServer};
use crate::units::{ms, times};
use crate::{Bench, SectionOutput, stats};

/// Files in the generated repository.
const FILES: usize = 10_000;
/// Files changed in its checkout.
const CHANGED: usize = 100;
/// Timed rounds (each: one of every measurement).
const ROUNDS: usize = 7;
/// Keys typed for the idle echo measurement.
const KEYS: usize = 200;
/// Diffs run back to back while keys are typed.
const LOADED_DIFFS: u32 = 10;

/// Runs the section.
pub async fn run(bench: &Bench) -> anyhow::Result<SectionOutput> {
    if !bench.with_signaltty {
        return Ok(SectionOutput {
            rows: Vec::new(),
            details: json!({}),
            notes: Vec::new(),
        });
    }
    let repo = bench.dir.join(bench.unique("gitrepo"));
    eprintln!("generating a {FILES}-file repository…");
    {
        let repo = repo.clone();
        tokio::task::spawn_blocking(move || generate(&repo)).await??;
    }
    let (server, _) =
        SignalttyServer::start(&bench.server_bin, &bench.dir, &bench.unique("git")).await?;
    let ws = server.create_workspace(&repo).await?;
    let channel = signaltty_proto::connect(server.socket()).await?;
    let mut git = GitServiceClient::new(channel.clone());
    let mut workspaces = WorkspaceServiceClient::new(channel.clone());

    let mut rounds = Samples::default();
    for _ in 0..ROUNDS {
        let (took, listed) = timed_diff(&mut git, &ws).await?;
        if listed != CHANGED {
            bail!("GetWorkspaceDiff listed {listed} files, {CHANGED} changed");
        }
        rounds.diff.push(took);
        let numstat = timed_git(&repo, &["diff", "--numstat", "HEAD"]).await?;
        rounds.numstat.push(numstat);
        let (took, context) = timed_refresh(&mut workspaces, &ws).await?;
        if !context.dirty || context.dirty_unknown {
            bail!("the dirty check said {context:?}");
        }
        rounds.dirty.push(took);
        let status = timed_git(&repo, &["status", "--porcelain"]).await?;
        rounds.status.push(status);
        // GetWorkspaceDiff's whole work in git's terms: the tracked changes and the untracked
        // files (two processes, as a script would run them).
        rounds.status_numstat.push(numstat + status);
    }

    // Echo in another pane: idle, then while diffs run back to back on another connection.
    let pane = server
        .spawn_pane(&ws, &sh("stty raw -echo; printf READY; exec cat"))
        .await?;
    let (mut attachment, snapshot) = server.attach(&pane.id).await?;
    if memchr::memmem::find(&snapshot.screen, b"READY").is_none() {
        tokio::time::timeout(Duration::from_secs(10), attachment.until(b"READY")).await??;
    }
    let idle = echo(&mut attachment, KEYS).await?;
    // Keys typed 2 ms apart for as long as it takes the loader to finish LOADED_DIFFS diffs.
    let done = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let loader = {
        let (mut git, ws, done) = (git.clone(), ws.clone(), done.clone());
        tokio::spawn(async move {
            for _ in 0..LOADED_DIFFS {
                timed_diff(&mut git, &ws).await?;
                done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            anyhow::Ok(())
        })
    };
    let mut loaded = Vec::new();
    while done.load(std::sync::atomic::Ordering::Relaxed) < LOADED_DIFFS {
        loaded.extend(echo(&mut attachment, 1).await?);
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    loader.await??;
    let diffs_during = LOADED_DIFFS;

    // The dirty check stops at the first change; on a clean checkout it must look at every
    // file, as `git status` always does. Commit the edits and time both again.
    git_ok(&repo, &["commit", "-q", "-a", "-m", "edits"]).await?;
    for _ in 0..ROUNDS {
        let (took, context) = timed_refresh(&mut workspaces, &ws).await?;
        if context.dirty || context.dirty_unknown {
            bail!("the dirty check of a clean checkout said {context:?}");
        }
        rounds.clean.push(took);
        rounds
            .clean_status
            .push(timed_git(&repo, &["status", "--porcelain"]).await?);
        // The dirty check's own work in git's terms: tracked files only, no untracked walk.
        rounds
            .clean_status_uno
            .push(timed_git(&repo, &["status", "--porcelain", "--untracked-files=no"]).await?);
    }

    let compared =
        |name: String, ours: &[Duration], theirs: &[Duration], git: &str, target: bool| {
            let (ours, theirs) = (median_ms(ours), median_ms(theirs));
            let row = Row::new(name)
                .signaltty(ms(ours))
                .raw(format!("{git} {}", ms(theirs)))
                .ratio(format!("{} git", times(ours / theirs)));
            if target {
                row.target("≤ git".to_owned(), Some(ours <= theirs))
            } else {
                row
            }
        };
    let p = |v: &[Duration], q: f64| stats::percentile(&stats::millis(v), q).unwrap_or(0.0);
    let r = &rounds;
    let rows = vec![
        compared(
            format!("GetWorkspaceDiff, {FILES} files / {CHANGED} changed (median)"),
            &r.diff,
            &r.numstat,
            "git diff --numstat HEAD",
            true,
        ),
        compared(
            "GetWorkspaceDiff vs git doing the same (tracked + untracked)".to_owned(),
            &r.diff,
            &r.status_numstat,
            "git status --porcelain + git diff --numstat HEAD",
            false,
        ),
        compared(
            "dirty check (RefreshGit, median)".to_owned(),
            &r.dirty,
            &r.status,
            "git status --porcelain",
            true,
        ),
        compared(
            "dirty check, clean checkout (RefreshGit, median)".to_owned(),
            &r.clean,
            &r.clean_status,
            "git status --porcelain",
            true,
        ),
        compared(
            "dirty check, clean checkout, vs git without untracked walk".to_owned(),
            &r.clean,
            &r.clean_status_uno,
            "git status --porcelain -uno",
            false,
        ),
        Row::new(format!(
            "echo p50/p99 while diffs run ({diffs_during} diffs)"
        ))
        .signaltty(format!(
            "{} / {}",
            ms(p(&loaded, 50.0)),
            ms(p(&loaded, 99.0))
        ))
        .raw(format!(
            "idle {} / {}",
            ms(p(&idle, 50.0)),
            ms(p(&idle, 99.0))
        )),
    ];
    Ok(SectionOutput {
        rows,
        details: json!({
            "files": FILES,
            "changed": CHANGED,
            "diff_ms": stats::millis(&r.diff),
            "git_diff_numstat_ms": stats::millis(&r.numstat),
            "git_status_plus_numstat_ms": stats::millis(&r.status_numstat),
            "dirty_ms": stats::millis(&r.dirty),
            "git_status_porcelain_ms": stats::millis(&r.status),
            "dirty_clean_ms": stats::millis(&r.clean),
            "git_status_porcelain_clean_ms": stats::millis(&r.clean_status),
            "git_status_porcelain_uno_clean_ms": stats::millis(&r.clean_status_uno),
            "echo_idle_ms": stats::millis(&idle),
            "echo_during_diffs_ms": stats::millis(&loaded),
            "diffs_during_echo": diffs_during,
        }),
        notes: vec![
            "git: GetWorkspaceDiff and RefreshGit are timed end to end over gRPC (request → \
             answer); git is timed as a process (spawn → exit). `git diff --numstat HEAD` \
             compares with HEAD like GetWorkspaceDiff, which also lists untracked files and \
             pairs renames: the row \"vs git doing the same\" adds `git status --porcelain` \
             (the untracked walk) to it. The dirty check ignores untracked files; `git status \
             --porcelain` walks them too, `-uno` does not (its row). The dirty check stops at \
             the first change, so it is also timed on the checkout after the edits are \
             committed (every file looked at)."
                .into(),
        ],
    })
}

/// One list of samples per measurement, a sample per round.
#[derive(Default)]
struct Samples {
    diff: Vec<Duration>,
    numstat: Vec<Duration>,
    status_numstat: Vec<Duration>,
    dirty: Vec<Duration>,
    status: Vec<Duration>,
    clean: Vec<Duration>,
    clean_status: Vec<Duration>,
    clean_status_uno: Vec<Duration>,
}

/// Times one GetWorkspaceDiff; returns how many files it listed.
async fn timed_diff(
    git: &mut GitServiceClient<Channel>,
    ws: &str,
) -> anyhow::Result<(Duration, usize)> {
    let started = Instant::now();
    let reply = git
        .get_workspace_diff(GetWorkspaceDiffRequest {
            workspace_id: ws.to_owned(),
        })
        .await
        .context("GetWorkspaceDiff")?
        .into_inner();
    Ok((started.elapsed(), reply.files.len()))
}

/// Times one RefreshGit (the dirty check); returns the context it read.
async fn timed_refresh(
    workspaces: &mut WorkspaceServiceClient<Channel>,
    ws: &str,
) -> anyhow::Result<(Duration, GitContext)> {
    let started = Instant::now();
    let reply = workspaces
        .refresh_git(RefreshGitRequest {
            workspace_id: ws.to_owned(),
        })
        .await
        .context("RefreshGit")?
        .into_inner();
    Ok((started.elapsed(), reply.git.unwrap_or_default()))
}

/// `git -C repo args…` with a fixed identity (for commits).
fn git_command(repo: &Path, args: &[&str]) -> std::process::Command {
    let mut command = std::process::Command::new("git");
    command
        .arg("-C")
        .arg(repo)
        .args(args)
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@localhost")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@localhost");
    command
}

/// Runs git in `repo` and times it (spawn → exit); fails when git does.
async fn timed_git(repo: &Path, args: &[&str]) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let out = tokio::process::Command::from(git_command(repo, args))
        .output()
        .await
        .context("run git")?;
    let took = started.elapsed();
    if !out.status.success() {
        bail!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(took)
}

/// Runs git in `repo`; fails when git does.
async fn git_ok(repo: &Path, args: &[&str]) -> anyhow::Result<()> {
    timed_git(repo, args).await.map(drop)
}

/// Echo latencies of `count` keys typed one at a time into a raw `cat`.
async fn echo(attachment: &mut Attachment, count: usize) -> anyhow::Result<Vec<Duration>> {
    let mut latencies = Vec::with_capacity(count);
    for i in 0..count {
        let key = b"vwxyz"[i % 5];
        let keystroke: Vec<u8> = if i % 60 == 59 {
            vec![b'\r', key]
        } else {
            vec![key]
        };
        let start = Instant::now();
        attachment.input(&keystroke).await?;
        let wait = async {
            loop {
                match attachment.next().await? {
                    Kind::Output(o) if memchr::memchr(key, &o.data).is_some() => break,
                    Kind::Snapshot(s) if memchr::memchr(key, &s.screen).is_some() => break,
                    _ => {}
                }
            }
            anyhow::Ok(())
        };
        tokio::time::timeout(Duration::from_secs(10), wait).await??;
        latencies.push(start.elapsed());
    }
    Ok(latencies)
}

/// `git init`, FILES files of 40 lines in 100 directories, one commit, then CHANGED files edited
/// (two lines replaced, one added each).
fn generate(repo: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(repo)?;
    let git = |args: &[&str]| -> anyhow::Result<()> {
        let out = git_command(repo, args).output()?;
        if !out.status.success() {
            bail!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(())
    };
    git(&["init", "-q", "-b", "main"])?;
    let body = |i: usize| -> String {
        (0..40)
            .map(|l| format!("file {i} line {l}: some source text of a typical length\n"))
            .collect()
    };
    for i in 0..FILES {
        let dir = repo.join(format!("d{:02}", i % 100));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("f{i}.txt")), body(i))?;
    }
    git(&["add", "-A"])?;
    git(&["commit", "-q", "-m", "generated"])?;
    for i in (0..FILES).step_by(FILES / CHANGED) {
        let text = body(i)
            .replace("line 10:", "LINE 10:")
            .replace("line 30:", "LINE 30:")
            + "an added line\n";
        std::fs::write(repo.join(format!("d{:02}/f{i}.txt", i % 100)), text)?;
    }
    // Let the index's stat data settle as after a normal edit session: one `git status` (git's
    // own runs would refresh it anyway).
    git(&["status", "--porcelain"])?;
    Ok(())
}
