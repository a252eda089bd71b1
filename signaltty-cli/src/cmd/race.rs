//! `signaltty race start|show|list|wait|compare|review|keep|close`: one task given to several
//! agents, each on a branch and worktree of its own (`RaceService`). RACE is a race id, a unique
//! prefix of one (with or without `race_`), or nothing for the newest race. What is printed is
//! `race_show.rs`.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::race_service_client::RaceServiceClient;
use tonic::transport::Channel;

use super::Ctx;
use super::race_show;
use crate::error::{CliError, CliResult};

/// `signaltty race …`
#[derive(Debug, Args)]
pub struct RaceArgs {
    #[command(subcommand)]
    command: RaceCommand,
}

/// How `race keep` merges.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Mode {
    /// Fast-forward only.
    Ff,
    /// A merge commit.
    Merge,
    /// One squashed commit.
    Squash,
}

#[derive(Debug, Subcommand)]
enum RaceCommand {
    /// Start a race: each agent (times -n) gets a branch and worktree from the base, and the
    /// prompt once it is ready for input.
    ///
    /// `signaltty race start --prompt-file task.md --agent claude --agent codex -n 2`
    Start {
        /// A file holding the task.
        #[arg(long, value_name = "FILE", conflicts_with = "prompt")]
        prompt_file: Option<PathBuf>,
        /// The task itself.
        #[arg(long, value_name = "TEXT")]
        prompt: Option<String>,
        /// An agent: claude, codex, opencode, cursor, or generic:COMMAND; repeat for more.
        #[arg(long = "agent", value_name = "AGENT", required = true)]
        agents: Vec<String>,
        /// Entries per agent.
        #[arg(short = 'n', long, default_value_t = 1)]
        copies: u32,
        /// Branch every entry from this revision [default: HEAD].
        #[arg(long, value_name = "REV")]
        base: Option<String>,
        /// Branch from the working tree as it is: refused when it has uncommitted changes.
        #[arg(long)]
        from_working_tree: bool,
        /// A file to copy from the base checkout into every worktree (e.g. `.env`); repeat.
        #[arg(long = "copy", value_name = "FILE")]
        copy_files: Vec<String>,
        /// A command run in every worktree before its agent starts (e.g. `npm ci`).
        #[arg(long, value_name = "CMD")]
        setup: Option<String>,
        /// A command `race compare --check` runs in every worktree (tests, a linter).
        #[arg(long, value_name = "CMD")]
        check: Option<String>,
        /// The workspace to race from [default: the one containing the current directory].
        #[arg(long, visible_alias = "ws", value_name = "WS")]
        workspace: Option<String>,
    },
    /// Show a race: each entry's agent state, elapsed time, pending decision, changes.
    Show {
        /// The race [default: the newest].
        race: Option<String>,
    },
    /// List races.
    #[command(visible_alias = "ls")]
    List,
    /// Wait until every entry's turn (the one the race or a review started) has ended, or
    /// one failed (exit status 1).
    Wait {
        /// The race [default: the newest].
        race: Option<String>,
        /// Longest wait, in seconds.
        #[arg(long, default_value_t = 600)]
        timeout: u32,
    },
    /// Compare the entries: a per-file matrix of `+/-` against the base, each entry's totals,
    /// and with --check the check command's result in each worktree.
    Compare {
        /// The race [default: the newest].
        race: Option<String>,
        /// Run the race's check command in every worktree.
        #[arg(long)]
        check: bool,
        /// Print each entry's whole diff, one after another.
        #[arg(long)]
        patch: bool,
    },
    /// Send review comments to an entry's agent, as one prompt once it is ready.
    ///
    /// `signaltty race review --entry 2 --comment 'src/lib.rs:14:handle the empty case'`
    Review {
        /// The race [default: the newest].
        race: Option<String>,
        /// The entry (its number in `race show`).
        #[arg(long, value_name = "N")]
        entry: u32,
        /// PATH:LINE:TEXT (LINE 0 or left out: the whole file); repeat.
        #[arg(long = "comment", value_name = "PATH:LINE:TEXT", required = true)]
        comments: Vec<String>,
    },
    /// Merge an entry into the base branch, then close the others.
    Keep {
        /// The race [default: the newest].
        race: Option<String>,
        /// The entry to keep.
        #[arg(long, value_name = "N")]
        entry: u32,
        /// How to merge it.
        #[arg(long, value_enum, default_value = "merge")]
        mode: Mode,
        /// Commit message (merge and squash).
        #[arg(long, short)]
        message: Option<String>,
        /// Delete the other entries' branches too.
        #[arg(long)]
        delete_branches: bool,
        /// Remove the other entries' worktrees even when they have changes.
        #[arg(long)]
        force: bool,
    },
    /// Close entries (all by default): stop their agents, remove their worktrees.
    Close {
        /// The race [default: the newest].
        race: Option<String>,
        /// Only this entry; repeat.
        #[arg(long = "entry", value_name = "N")]
        entries: Vec<u32>,
        /// Delete their branches too.
        #[arg(long)]
        delete_branches: bool,
        /// Remove worktrees even when they have changes (never a locked one).
        #[arg(long)]
        force: bool,
    },
}

/// Runs `signaltty race …`.
pub async fn cmd_race(ctx: &Ctx, args: RaceArgs) -> CliResult {
    let conn = ctx.client().await?;
    let mut races = RaceServiceClient::new(conn.channel());
    match args.command {
        RaceCommand::Start {
            prompt_file,
            prompt,
            agents,
            copies,
            base,
            from_working_tree,
            copy_files,
            setup,
            check,
            workspace,
        } => {
            let prompt = match (prompt_file, prompt) {
                (Some(file), _) => std::fs::read_to_string(&file)
                    .map_err(|e| CliError::usage(format!("cannot read {}: {e}", file.display())))?,
                (None, Some(text)) => text,
                (None, None) => {
                    return Err(CliError::usage(
                        "give the task with --prompt-file FILE or --prompt TEXT",
                    ));
                }
            };
            let ws = super::worktree::resolve_workspace(ctx, &conn, workspace).await?;
            let race = races
                .start_race(pb::StartRaceRequest {
                    workspace_id: ws,
                    prompt,
                    agents,
                    copies,
                    base: base.unwrap_or_default(),
                    from_working_tree,
                    copy_files,
                    setup_command: setup.unwrap_or_default(),
                    check_command: check.unwrap_or_default(),
                })
                .await?
                .into_inner()
                .race
                .ok_or_else(no_race)?;
            race_show::print_race(ctx, &race)
        }
        RaceCommand::Show { race } => {
            let id = resolve(&mut races, race).await?;
            let race = get(&mut races, &id).await?;
            race_show::print_race(ctx, &race)
        }
        RaceCommand::List => {
            let list = races
                .list_races(pb::ListRacesRequest {})
                .await?
                .into_inner()
                .races;
            race_show::print_list(ctx, &list)
        }
        RaceCommand::Wait { race, timeout } => {
            let id = resolve(&mut races, race).await?;
            let reply = races
                .wait_race(pb::WaitRaceRequest {
                    race_id: id,
                    timeout_ms: timeout.saturating_mul(1000),
                })
                .await?
                .into_inner();
            let race = reply.race.ok_or_else(no_race)?;
            race_show::print_race(ctx, &race)?;
            if reply.outcome == pb::WaitRaceOutcome::EntryFailed as i32 {
                let failed: Vec<String> = race
                    .entries
                    .iter()
                    .filter(|e| e.state == pb::RaceEntryState::Failed as i32)
                    .map(|e| format!("entry {} failed: {}", e.index, e.error))
                    .collect();
                return Err(CliError::local(failed.join("; ")));
            }
            Ok(())
        }
        RaceCommand::Compare { race, check, patch } => {
            let id = resolve(&mut races, race).await?;
            let reply = races
                .compare_race(pb::CompareRaceRequest {
                    race_id: id,
                    run_check: check,
                    patch,
                })
                .await?
                .into_inner();
            race_show::print_compare(ctx, &reply.entries)
        }
        RaceCommand::Review {
            race,
            entry,
            comments,
        } => {
            let id = resolve(&mut races, race).await?;
            let comments = comments
                .iter()
                .map(|c| parse_comment(c))
                .collect::<CliResult<Vec<_>>>()?;
            let entry = races
                .review_race_entry(pb::ReviewRaceEntryRequest {
                    race_id: id,
                    index: entry,
                    comments,
                })
                .await?
                .into_inner()
                .entry
                .ok_or_else(no_race)?;
            if ctx.out.is_json() {
                return ctx.out.json(&race_show::entry_json(&entry));
            }
            ctx.out.line(format!(
                "entry {}: {} comment(s) queued; typed into its agent once it is ready",
                entry.index, entry.pending_comments
            ))
        }
        RaceCommand::Keep {
            race,
            entry,
            mode,
            message,
            delete_branches,
            force,
        } => {
            let id = resolve(&mut races, race).await?;
            let mode = match mode {
                Mode::Ff => pb::MergeMode::FastForward,
                Mode::Merge => pb::MergeMode::Merge,
                Mode::Squash => pb::MergeMode::Squash,
            };
            let reply = races
                .keep_race_entry(pb::KeepRaceEntryRequest {
                    race_id: id,
                    index: entry,
                    mode: mode as i32,
                    delete_branches,
                    force,
                    message: message.unwrap_or_default(),
                })
                .await?
                .into_inner();
            race_show::print_kept(ctx, &reply)
        }
        RaceCommand::Close {
            race,
            entries,
            delete_branches,
            force,
        } => {
            let id = resolve(&mut races, race).await?;
            let reply = races
                .close_race(pb::CloseRaceRequest {
                    race_id: id,
                    indexes: entries,
                    delete_branches,
                    force,
                })
                .await?
                .into_inner();
            race_show::print_cleanup(ctx, reply.race.as_ref(), &reply.cleanup)
        }
    }
}

fn no_race() -> CliError {
    CliError::local("the server's reply carried no race")
}

async fn get(races: &mut RaceServiceClient<Channel>, id: &str) -> CliResult<pb::Race> {
    races
        .get_race(pb::GetRaceRequest {
            race_id: id.to_owned(),
        })
        .await?
        .into_inner()
        .race
        .ok_or_else(no_race)
}

/// The race a word names: an id, a unique prefix (with or without `race_`), or the newest.
async fn resolve(
    races: &mut RaceServiceClient<Channel>,
    word: Option<String>,
) -> CliResult<String> {
    let list = races
        .list_races(pb::ListRacesRequest {})
        .await?
        .into_inner()
        .races;
    let Some(word) = word else {
        return list
            .last()
            .map(|r| r.id.clone())
            .ok_or_else(|| CliError::usage("no race yet; start one with `signaltty race start`"));
    };
    if list.iter().any(|r| r.id == word) {
        return Ok(word);
    }
    let body = word.strip_prefix("race_").unwrap_or(&word);
    let found: Vec<&pb::Race> = list
        .iter()
        .filter(|r| r.id.trim_start_matches("race_").starts_with(body))
        .collect();
    match found.as_slice() {
        [one] => Ok(one.id.clone()),
        [] => Ok(word), // the server says NO_SUCH_RACE
        _ => Err(CliError::usage(format!(
            "{word:?} names {} races; give more of the id (`signaltty race list`)",
            found.len()
        ))),
    }
}

/// `PATH:LINE:TEXT`, `PATH:TEXT` (the whole file).
fn parse_comment(raw: &str) -> CliResult<pb::ReviewComment> {
    let bad = || {
        CliError::usage(format!(
            "comment {raw:?} is not PATH:LINE:TEXT (e.g. `src/lib.rs:14:handle the empty case`)"
        ))
    };
    let (path, rest) = raw.split_once(':').ok_or_else(bad)?;
    let (line, text) = match rest.split_once(':') {
        Some((line, text)) if line.trim().parse::<u32>().is_ok() => {
            (line.trim().parse::<u32>().map_err(|_| bad())?, text)
        }
        _ => (0, rest),
    };
    if path.is_empty() || text.trim().is_empty() {
        return Err(bad());
    }
    Ok(pb::ReviewComment {
        path: path.to_owned(),
        line,
        text: text.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_name_a_path_an_optional_line_and_a_text() {
        let c = parse_comment("src/a.rs:14:use a match: here").expect("comment");
        assert_eq!((c.path.as_str(), c.line), ("src/a.rs", 14));
        assert_eq!(c.text, "use a match: here");
        let whole = parse_comment("README.md:say why").expect("comment");
        assert_eq!((whole.line, whole.text.as_str()), (0, "say why"));
        assert!(parse_comment("no-colon").is_err());
        assert!(parse_comment("a.rs:3:").is_err());
    }
}
