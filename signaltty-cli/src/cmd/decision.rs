//! `signaltty decision list | decision answer DECISION OPTION [--message M]`: agents'
//! pending permission requests, answerable from any terminal. The decision is named by its id
//! or a unique prefix of it; its pane is looked up (the older form `answer PANE DECISION
//! OPTION` still works).

use crate::present::json::{self, JsonDecision};
use crate::present::names::name;
use crate::present::text;
use clap::{Args, Subcommand};
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::decision_service_client::DecisionServiceClient;

use super::Ctx;
use crate::error::{CliError, CliResult, ErrorKind};
use crate::table::Table;

/// `signaltty decision …`
#[derive(Debug, Args)]
pub struct DecisionArgs {
    #[command(subcommand)]
    command: DecisionCommand,
}

#[derive(Debug, Subcommand)]
enum DecisionCommand {
    /// List pending decisions, oldest first.
    #[command(visible_alias = "ls")]
    List {
        /// Only this workspace's.
        #[arg(long, visible_alias = "ws", value_name = "WS")]
        workspace: Option<String>,
    },
    /// Answer a pending decision with one of its options (e.g. once, deny).
    Answer {
        /// The decision: its id or a unique prefix of it (`decision list` shows them).
        decision: String,
        /// The option's id (e.g. once, deny).
        option: String,
        /// With three words, the older form PANE DECISION OPTION.
        #[arg(hide = true)]
        legacy_option: Option<String>,
        /// A message passed to the agent with a deny.
        #[arg(long)]
        message: Option<String>,
    },
}

/// Runs `signaltty decision …`.
pub async fn cmd_decision(ctx: &Ctx, args: DecisionArgs) -> CliResult {
    let conn = ctx.client().await?;
    let mut client = DecisionServiceClient::new(conn.channel());
    match args.command {
        DecisionCommand::List { workspace } => {
            let workspace_id = match workspace {
                Some(word) => {
                    ctx.resolve(&conn, crate::resolve::Kind::Workspace, Some(&word))
                        .await?
                }
                None => String::new(),
            };
            let request = pb::ListPendingDecisionsRequest { workspace_id };
            let decisions = client
                .list_pending_decisions(request)
                .await?
                .into_inner()
                .decisions;
            if ctx.out.is_json() {
                return ctx.out.json(&json::list::<_, JsonDecision>(&decisions));
            }
            let mut table = Table::new(&[
                "DECISION",
                "PANE",
                "AGE",
                "TOOL",
                "OPTIONS",
                "ANSWERABLE",
                "PROMPT",
            ])
            .max_width(6, 60);
            for d in &decisions {
                let options: Vec<&str> = d.options.iter().map(|o| o.id.as_str()).collect();
                table.row([
                    d.id.clone(),
                    d.pane_id.clone(),
                    text::age(&d.received_at),
                    text::or_dash(&d.tool_name),
                    options.join("|"),
                    if d.answerable { "yes" } else { "no" }.to_string(),
                    d.prompt.lines().next().unwrap_or("").to_string(),
                ]);
            }
            ctx.out.text(&table.render())
        }
        DecisionCommand::Answer {
            decision,
            option,
            legacy_option,
            message,
        } => {
            let (pane, decision, option) = match legacy_option {
                Some(third) => (decision, option, third),
                None => {
                    let pending = client
                        .list_pending_decisions(pb::ListPendingDecisionsRequest::default())
                        .await?
                        .into_inner()
                        .decisions;
                    let found = find_decision(&pending, &decision)?;
                    if !found.answerable {
                        return Err(read_only(found));
                    }
                    (found.pane_id.clone(), found.id.clone(), option)
                }
            };
            let request = pb::AnswerDecisionRequest {
                pane_id: pane,
                decision_id: decision.clone(),
                option_id: option,
                message: message.unwrap_or_default(),
            };
            let verdict = client.answer_decision(request).await?.into_inner().verdict;
            let verdict = name::<pb::Verdict>(verdict);
            if ctx.out.is_json() {
                return ctx.out.json(&serde_json::json!({
                    "decision_id": decision, "verdict": verdict,
                }));
            }
            ctx.out.line(format_args!("{decision}: {verdict}"))
        }
    }
}

/// A decision that is shown but cannot be answered from here: what it is and what to do.
fn read_only(decision: &pb::Decision) -> CliError {
    CliError::with_reason(
        ErrorKind::Server,
        format!(
            "decision {id} is read-only (ANSWERABLE no in `signaltty decision list`): the agent \
             in pane {pane} asks in its own terminal and no hook is waiting for an answer from \
             signaltty, so it is shown here only to tell you. Answer it in the agent: `signaltty \
             attach {pane}`. (To answer such prompts from signaltty, set \
             `wait_for_answer = true` under `[agents.<agent>]` in the config file: see \
             docs/agents.md.)",
            id = decision.id,
            pane = decision.pane_id,
        ),
        "DECISION_NOT_ANSWERABLE",
    )
}

/// The pending decision `word` names (its id, or a unique prefix with or without `dec_`).
fn find_decision<'a>(pending: &'a [pb::Decision], word: &str) -> CliResult<&'a pb::Decision> {
    let full = if word.starts_with("dec_") {
        word.to_owned()
    } else {
        format!("dec_{word}")
    };
    if let Some(exact) = pending.iter().find(|d| d.id == word) {
        return Ok(exact);
    }
    let matches: Vec<&pb::Decision> = pending.iter().filter(|d| d.id.starts_with(&full)).collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(CliError::with_reason(
            ErrorKind::Server,
            format!("no pending decision {word}; list pending ones with `signaltty decision list`"),
            "NO_SUCH_DECISION",
        )),
        many => Err(CliError::usage(format!(
            "{word:?} names {} pending decisions; give more of the id: {}",
            many.len(),
            many.iter()
                .map(|d| d.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}
