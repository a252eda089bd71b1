//! `signaltty hook-event --agent A --event E [--wait-for-answer] [--timeout SECS] [PAYLOAD]`:
//! what the agents' hooks run. It reads the hook's JSON payload from stdin (at most 256 KiB) —
//! or from a last argument, as Codex's legacy `notify` program passes it (stdin closed) — and
//! attributes it with `$SIGNALTTY_PANE` (or `--pane`, else the server walks up from our pid)
//! and sends ReportHookEvent to the server of `$SIGNALTTY_SOCKET`.
//!
//! Contract with the agents: stdout stays EMPTY except for a verdict in the agent's hook-output
//! format when `--wait-for-answer` was given and a client answered (Claude Code and Codex share
//! the shape `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":
//! "allow"}}}`, with `"behavior":"deny","message":…` for a denial; Cursor gets
//! `{"permission":"allow"}` or `{"permission":"deny","user_message":…,"agent_message":…}`).
//! Whether a waiting hook is held at all is the server's call: a hook the agent awaits before
//! its own prompt returns at once unless the user opted in. The exit code is ALWAYS 0:
//! a missing server, a timeout or any error is reported on stderr only, so that the agent falls
//! back to its own prompt. It never starts a server. With `--json` the server's whole reply is
//! printed instead (for people debugging hooks; installed hooks never pass it).
//!
//! A hung server must not stall the agent, so every call is bounded whatever the server does
//! (docs/agents.md, "Hooks and a hung server"):
//! - a hook whose answer nobody waits for gets [`REPORT_DEADLINE`] for connecting and the report
//!   together, then gives up (the event is dropped, a line goes to stderr);
//! - a waiting hook first proves within the same deadline that the server answers at all
//!   (GetStatus), then waits at most `--timeout` (the server's wait) plus [`ANSWER_MARGIN`]. The
//!   installer passes a `--timeout` that keeps that sum under the agent's own hook timeout.

use std::io::{IsTerminal, Read};
use std::time::Duration;

use crate::present::json::non_empty;
use crate::present::names;
use clap::Args;
use serde::Serialize;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::agent_service_client::AgentServiceClient;
use signaltty_proto::v1::server_service_client::ServerServiceClient;

use super::Ctx;
use crate::error::{CliError, CliResult, ErrorKind};

/// The server's limit on a hook payload.
pub const MAX_PAYLOAD: usize = 256 * 1024;
/// How long to wait for the agent to finish writing the payload.
const STDIN_TIMEOUT: Duration = Duration::from_secs(10);
/// Bound on connecting and reporting an event nobody waits for (and on the liveness check of a
/// waiting hook): a healthy server answers in about a millisecond.
pub const REPORT_DEADLINE: Duration = Duration::from_millis(300);
/// What a waiting hook allows beyond the server's own wait before it gives up.
pub const ANSWER_MARGIN: Duration = Duration::from_secs(2);
/// The server's default wait for an answer.
const DEFAULT_WAIT: Duration = Duration::from_secs(120);
/// The environment variable naming the pane a hook runs in.
pub const PANE_ENV: &str = "SIGNALTTY_PANE";

/// `signaltty hook-event`
#[derive(Debug, Args)]
pub struct HookEventArgs {
    /// The agent: claude, codex, opencode, cursor (or cursor-agent), generic.
    #[arg(long)]
    agent: String,
    /// The hook event's name, e.g. PermissionRequest, Stop, session.idle.
    #[arg(long)]
    event: String,
    /// The pane the hook runs in [default: $SIGNALTTY_PANE].
    #[arg(long)]
    pane: Option<String>,
    /// Hold on until a client answers the permission request, then print the verdict.
    #[arg(long)]
    wait_for_answer: bool,
    /// How long to wait for an answer, in seconds (1–120) [default: 120].
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    /// Accepted for compatibility: the payload is always read from stdin when stdin is not a
    /// terminal.
    #[arg(long, hide = true)]
    payload_stdin: bool,
    /// The JSON payload as an argument instead of stdin (Codex's `notify` program appends it).
    #[arg(value_name = "PAYLOAD")]
    payload: Option<String>,
}

/// Runs `signaltty hook-event`; never fails (see the module docs).
pub async fn cmd_hook_event(ctx: &Ctx, args: HookEventArgs) -> CliResult {
    match report(ctx, &args).await {
        Ok(reply) => {
            if ctx.out.is_json() {
                let _ = ctx.out.json(&JsonHookReply::from(&reply));
            } else if args.wait_for_answer
                && let Some(verdict) = verdict_for(&args.agent, &args.event, &reply)
            {
                let _ = ctx.out.line(verdict);
            }
        }
        Err(err) => eprintln!("signaltty hook-event: {err}"),
    }
    Ok(())
}

async fn report(ctx: &Ctx, args: &HookEventArgs) -> CliResult<pb::ReportHookEventResponse> {
    let agent = parse_agent(&args.agent)?;
    let payload = match &args.payload {
        Some(arg) if arg.len() > MAX_PAYLOAD => {
            return Err(CliError::with_reason(
                ErrorKind::Usage,
                format!("the hook payload is larger than {} KiB", MAX_PAYLOAD / 1024),
                "INPUT_TOO_LARGE",
            ));
        }
        Some(arg) => arg.clone().into_bytes(),
        None => read_stdin_payload()?,
    };
    let timeout = match args.timeout {
        Some(secs) if secs.is_finite() && secs > 0.0 => Some(Duration::from_secs_f64(secs)),
        Some(secs) => return Err(CliError::usage(format!("bad --timeout {secs}"))),
        None => None,
    };
    let request = pb::ReportHookEventRequest {
        agent: agent as i32,
        event: args.event.clone(),
        payload,
        pane_id: args
            .pane
            .clone()
            .or_else(|| std::env::var(PANE_ENV).ok())
            .unwrap_or_default(),
        client_pid: std::process::id(),
        wait_for_answer: args.wait_for_answer,
        timeout_ms: timeout
            .map(|t| t.as_millis().min(u32::MAX as u128) as u32)
            .unwrap_or(0),
    };
    let deadline_passed = || {
        CliError::with_reason(
            ErrorKind::Server,
            format!(
                "the server did not answer within {} ms; the event was dropped",
                REPORT_DEADLINE.as_millis()
            ),
            "TIMEOUT",
        )
    };
    if !args.wait_for_answer {
        let call = async {
            let mut client = AgentServiceClient::new(ctx.existing_channel().await?);
            Ok::<_, CliError>(client.report_hook_event(request).await?.into_inner())
        };
        return tokio::time::timeout(REPORT_DEADLINE, call)
            .await
            .map_err(|_| deadline_passed())?;
    }
    // Waiting: a server that does not answer a status request at once is not asked to hold the
    // agent at all.
    let probe = async {
        let channel = ctx.existing_channel().await?;
        ServerServiceClient::new(channel.clone())
            .get_status(pb::GetStatusRequest {})
            .await?;
        Ok::<_, CliError>(channel)
    };
    let channel = tokio::time::timeout(REPORT_DEADLINE, probe)
        .await
        .map_err(|_| deadline_passed())??;
    let bound = timeout.unwrap_or(DEFAULT_WAIT) + ANSWER_MARGIN;
    let mut client = AgentServiceClient::new(channel);
    match tokio::time::timeout(bound, client.report_hook_event(request)).await {
        Ok(reply) => Ok(reply?.into_inner()),
        Err(_) => Err(CliError::with_reason(
            ErrorKind::Server,
            "the server did not answer in time",
            "TIMEOUT",
        )),
    }
}

/// Parses an agent name; `cursor-agent` is Cursor's binary name.
pub fn parse_agent(text: &str) -> CliResult<pb::AgentKind> {
    let text = if text.eq_ignore_ascii_case("cursor-agent") {
        "cursor"
    } else {
        text
    };
    names::parse::<pb::AgentKind>(text).map_err(|e| CliError::usage(format!("--agent: {e}")))
}

/// The hook output for a verdict in `agent`'s format: Cursor's `{"permission": …}`, OpenCode's
/// `{"reply": "once"|"reject"}` (our plugin passes it to OpenCode's permission reply), else
/// Claude Code's and Codex's (see [`verdict_output`]).
pub fn verdict_for(
    agent: &str,
    event: &str,
    reply: &pb::ReportHookEventResponse,
) -> Option<String> {
    let kind = parse_agent(agent).ok();
    if kind != Some(pb::AgentKind::Cursor) && kind != Some(pb::AgentKind::Opencode) {
        return verdict_output(event, reply);
    }
    let message = if reply.message.is_empty() {
        "Denied in signaltty"
    } else {
        reply.message.as_str()
    };
    let verdict = pb::Verdict::try_from(reply.verdict).ok()?;
    if kind == Some(pb::AgentKind::Opencode) {
        let output = match verdict {
            pb::Verdict::Allow => serde_json::json!({ "reply": "once" }),
            pb::Verdict::Deny => serde_json::json!({ "reply": "reject", "message": message }),
            pb::Verdict::Unspecified => return None,
        };
        return Some(output.to_string());
    }
    let output = match verdict {
        pb::Verdict::Allow => serde_json::json!({ "permission": "allow" }),
        pb::Verdict::Deny => serde_json::json!({
            "permission": "deny",
            "user_message": message,
            "agent_message": message,
        }),
        pb::Verdict::Unspecified => return None,
    };
    Some(output.to_string())
}

/// The hook output for a verdict, in the agent's format; `None` when there is no verdict (the
/// agent then falls back to its own prompt).
pub fn verdict_output(event: &str, reply: &pb::ReportHookEventResponse) -> Option<String> {
    let decision = match pb::Verdict::try_from(reply.verdict).ok()? {
        pb::Verdict::Allow => HookDecision {
            behavior: "allow",
            message: None,
        },
        pb::Verdict::Deny => HookDecision {
            behavior: "deny",
            message: Some(if reply.message.is_empty() {
                "Denied in signaltty"
            } else {
                reply.message.as_str()
            }),
        },
        pb::Verdict::Unspecified => return None,
    };
    let output = HookOutput {
        hook_specific_output: HookSpecificOutput {
            hook_event_name: event,
            decision,
        },
    };
    serde_json::to_string(&output).ok()
}

/// Claude Code's (and Codex's) hook output; field order as the agents document it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HookOutput<'a> {
    hook_specific_output: HookSpecificOutput<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HookSpecificOutput<'a> {
    hook_event_name: &'a str,
    decision: HookDecision<'a>,
}

#[derive(Serialize)]
struct HookDecision<'a> {
    behavior: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

/// Reads the payload from stdin unless it is a terminal (a person running the command by hand).
/// The read happens on a plain thread so that an agent that never closes stdin cannot hold the
/// hook past [`STDIN_TIMEOUT`].
fn read_stdin_payload() -> CliResult<Vec<u8>> {
    if std::io::stdin().is_terminal() {
        return Ok(Vec::new());
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(read_capped(std::io::stdin().lock(), MAX_PAYLOAD));
    });
    match rx.recv_timeout(STDIN_TIMEOUT) {
        Ok(result) => result,
        Err(_) => Err(CliError::local(format!(
            "stdin was not closed within {}s; the hook payload is incomplete",
            STDIN_TIMEOUT.as_secs()
        ))),
    }
}

/// Reads all of `reader` if it holds at most `cap` bytes.
pub fn read_capped(reader: impl Read, cap: usize) -> CliResult<Vec<u8>> {
    let mut data = Vec::new();
    reader.take(cap as u64 + 1).read_to_end(&mut data)?;
    if data.len() > cap {
        return Err(CliError::with_reason(
            ErrorKind::Usage,
            format!("the hook payload is larger than {} KiB", cap / 1024),
            "INPUT_TOO_LARGE",
        ));
    }
    Ok(data)
}

#[derive(Serialize)]
struct JsonHookReply {
    pane_id: Option<String>,
    decision_id: Option<String>,
    verdict: Option<String>,
    message: Option<String>,
    wait_end_reason: Option<String>,
}

impl From<&pb::ReportHookEventResponse> for JsonHookReply {
    fn from(r: &pb::ReportHookEventResponse) -> Self {
        JsonHookReply {
            pane_id: non_empty(&r.pane_id),
            decision_id: non_empty(&r.decision_id),
            verdict: (r.verdict != 0).then(|| names::name::<pb::Verdict>(r.verdict)),
            message: non_empty(&r.message),
            wait_end_reason: non_empty(&r.wait_end_reason),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(verdict: pb::Verdict, message: &str) -> pb::ReportHookEventResponse {
        pb::ReportHookEventResponse {
            verdict: verdict as i32,
            message: message.into(),
            ..Default::default()
        }
    }

    #[test]
    fn allow_prints_the_claude_permission_shape() {
        let out = verdict_output("PermissionRequest", &reply(pb::Verdict::Allow, ""));
        assert_eq!(
            out.as_deref(),
            Some(
                r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#
            )
        );
    }

    #[test]
    fn deny_carries_a_message() {
        let out = verdict_output("PermissionRequest", &reply(pb::Verdict::Deny, "not now"))
            .expect("a verdict");
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(
            v["hookSpecificOutput"]["hookEventName"],
            "PermissionRequest"
        );
        assert_eq!(v["hookSpecificOutput"]["decision"]["behavior"], "deny");
        assert_eq!(v["hookSpecificOutput"]["decision"]["message"], "not now");
        let fallback =
            verdict_output("PermissionRequest", &reply(pb::Verdict::Deny, "")).expect("a verdict");
        assert!(fallback.contains("Denied in signaltty"));
    }

    #[test]
    fn cursor_gets_its_permission_shape() {
        let allow = verdict_for(
            "cursor",
            "beforeShellExecution",
            &reply(pb::Verdict::Allow, ""),
        )
        .expect("a verdict");
        assert_eq!(allow, r#"{"permission":"allow"}"#);
        let deny = verdict_for(
            "cursor-agent",
            "beforeMCPExecution",
            &reply(pb::Verdict::Deny, ""),
        )
        .expect("a verdict");
        let v: serde_json::Value = serde_json::from_str(&deny).expect("JSON");
        assert_eq!(v["permission"], "deny");
        assert_eq!(v["user_message"], "Denied in signaltty");
        assert_eq!(
            verdict_for(
                "cursor",
                "beforeShellExecution",
                &reply(pb::Verdict::Unspecified, "")
            ),
            None
        );
    }

    #[test]
    fn opencode_gets_its_reply_shape() {
        let allow = verdict_for(
            "opencode",
            "permission.asked",
            &reply(pb::Verdict::Allow, ""),
        );
        assert_eq!(allow.as_deref(), Some(r#"{"reply":"once"}"#));
        let deny = verdict_for(
            "opencode",
            "permission.asked",
            &reply(pb::Verdict::Deny, "no"),
        )
        .expect("a verdict");
        let v: serde_json::Value = serde_json::from_str(&deny).expect("JSON");
        assert_eq!(v, serde_json::json!({"reply": "reject", "message": "no"}));
    }

    #[test]
    fn codex_notify_passes_the_payload_as_the_last_argument() {
        use crate::cli::Cli;
        use clap::Parser;
        let cli = Cli::try_parse_from([
            "signaltty",
            "hook-event",
            "--agent",
            "codex",
            "--event",
            "notify",
            r#"{"type":"agent-turn-complete","thread-id":"t1"}"#,
        ]);
        assert!(cli.is_ok(), "{cli:?}");
    }

    #[test]
    fn no_verdict_prints_nothing() {
        assert_eq!(
            verdict_output("PermissionRequest", &reply(pb::Verdict::Unspecified, "")),
            None
        );
    }

    #[test]
    fn payloads_over_the_cap_are_refused() {
        assert_eq!(read_capped(&b"{}"[..], 4).expect("small"), b"{}");
        assert_eq!(
            read_capped(&b"1234"[..], 4).expect("exactly the cap"),
            b"1234"
        );
        assert!(read_capped(&b"12345"[..], 4).is_err());
    }

    #[test]
    fn agents_parse_with_the_cursor_alias() {
        assert_eq!(parse_agent("claude").expect("known"), pb::AgentKind::Claude);
        assert_eq!(
            parse_agent("cursor-agent").expect("known"),
            pb::AgentKind::Cursor
        );
        assert!(parse_agent("hal9000").is_err());
    }

    #[test]
    fn the_compat_flag_is_accepted() {
        use crate::cli::Cli;
        use clap::Parser;
        let cli = Cli::try_parse_from([
            "signaltty",
            "hook-event",
            "--agent",
            "claude",
            "--event",
            "Stop",
            "--payload-stdin",
        ]);
        assert!(cli.is_ok());
    }
}
