//! `signaltty decision list | decision answer PANE DECISION OPTION [--message M]`: agents'
//! pending permission requests, answerable from any terminal.

use clap::{Args, Subcommand};
use signaltty_client::present::json::{self, JsonDecision};
use signaltty_client::present::names::name;
use signaltty_client::present::text;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::decision_service_client::DecisionServiceClient;

use super::Ctx;
use crate::error::CliResult;
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
        #[arg(long, value_name = "WS")]
        workspace: Option<String>,
    },
    /// Answer a pending decision with one of its options (e.g. once, deny).
    Answer {
        /// The pane whose decision it is.
        pane: String,
        /// The decision's id.
        decision: String,
        /// The option's id.
        option: String,
        /// A message passed to the agent with a deny.
        #[arg(long)]
        message: Option<String>,
    },
}

/// Runs `signaltty decision …`.
pub async fn cmd_decision(ctx: &Ctx, args: DecisionArgs) -> CliResult {
    let mut client = DecisionServiceClient::new(ctx.channel().await?);
    match args.command {
        DecisionCommand::List { workspace } => {
            let request = pb::ListPendingDecisionsRequest {
                workspace_id: workspace.unwrap_or_default(),
            };
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
            pane,
            decision,
            option,
            message,
        } => {
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
