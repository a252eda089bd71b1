//! `signaltty pane send|read|wait`: typing into a pane, capturing its text, and waiting for its
//! state.
//!
//! `send` ends the text with Enter as a terminal's Enter key sends it: a carriage return (`\r`),
//! which cooked-mode programs (shells) read as a newline and raw-mode programs (agents' TUIs) read
//! as Enter. A program that turned bracketed paste on (mode 2004: Codex, Claude Code, OpenCode,
//! bash's readline) gets the text as a paste (`ESC[200~ … ESC[201~`) and the Enter after it: a
//! TUI that sees text and `\r` arrive in one read takes it all for a paste and the `\r` for a
//! newline in it (Codex does), whereas a paste that says where it ends leaves the Enter a key. `--stdin` sends stdin's bytes unchanged, in 1 MiB writes (the server's limit per
//! write).

use std::io::Read;
use std::time::Duration;

use crate::present::json::JsonPane;
use crate::present::names;
use clap::{ArgGroup, Args};
use serde::Serialize;
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::pane_service_client::PaneServiceClient;
use tonic::transport::Channel;

use super::Ctx;
use crate::error::{CliError, CliResult, ErrorKind};

/// The server's limit on one WriteInput.
const MAX_WRITE: usize = 1 << 20;
/// What `send` appends unless `--no-newline`: the Enter key.
const ENTER: &str = "\r";

/// `signaltty pane send`
#[derive(Debug, Args)]
#[command(
    group(ArgGroup::new("input").required(true).args(["text", "stdin"])),
    // clap would list the required group before PANE; this is the order it accepts.
    override_usage = "signaltty pane send [OPTIONS] <PANE> <TEXT>...\n       signaltty pane send [OPTIONS] --stdin <PANE>"
)]
pub struct SendArgs {
    /// The pane: an id, a unique id prefix or title, or `-` for the last one used.
    pub(crate) pane: String,
    /// The text; several words are joined with spaces (put text starting with `-` after `--`).
    text: Vec<String>,
    /// Do not press Enter after the text.
    #[arg(long)]
    no_newline: bool,
    /// Send stdin's bytes as they are (no Enter added) instead of TEXT.
    #[arg(long, conflicts_with = "text")]
    stdin: bool,
}

/// `signaltty pane read`
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// The pane: an id, a unique id prefix or title, or `-`/nothing for the last one used.
    pub(crate) pane: Option<String>,
    /// The scrollback history followed by the screen, instead of the screen only.
    #[arg(long)]
    scrollback: bool,
    /// Only the last N lines of the scrollback and screen (implies --scrollback).
    #[arg(long, value_name = "N")]
    lines: Option<u32>,
    /// Keep colours and attributes as ANSI escape sequences.
    #[arg(long)]
    ansi: bool,
}

/// `signaltty pane wait`
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("states").required(true).multiple(true).args(["until", "attention"])))]
pub struct WaitArgs {
    /// The pane: an id, a unique id prefix or title, or `-` for the last one used.
    pub(crate) pane: String,
    /// States to wait for, comma-separated: lifecycles (unknown idle working blocked done failed
    /// exited) or attentions (none unread warning input_required permission_required error).
    #[arg(long, value_name = "STATES", value_parser = parse_states)]
    until: Option<States>,
    /// Attention states to wait for, comma-separated.
    #[arg(long, value_name = "STATES", value_parser = parse_attentions)]
    attention: Option<AttentionList>,
    /// Only count changes after this event seq (0: a state that already holds ends the wait).
    #[arg(long, value_name = "SEQ", default_value_t = 0)]
    after_seq: u64,
    /// Give up after this many seconds (at most 3600) [default: the server's, 60].
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
}

/// Lifecycle and attention states named by `--until`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct States {
    /// Lifecycle states.
    pub lifecycles: Vec<pb::Lifecycle>,
    /// Attention states.
    pub attentions: Vec<pb::Attention>,
}

/// Parses a comma list of lifecycle or attention names (the two sets share no name).
pub fn parse_states(text: &str) -> Result<States, String> {
    let mut states = States::default();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if let Ok(lifecycle) = names::parse::<pb::Lifecycle>(part) {
            states.lifecycles.push(lifecycle);
        } else if let Ok(attention) = names::parse::<pb::Attention>(part) {
            states.attentions.push(attention);
        } else {
            return Err(format!(
                "unknown state {part:?}; expected a lifecycle ({}) or an attention ({})",
                names::all_names::<pb::Lifecycle>().join(", "),
                names::all_names::<pb::Attention>().join(", ")
            ));
        }
    }
    Ok(states)
}

/// A parsed `--attention` list (a newtype: clap would read a bare `Vec` as repeated values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttentionList(pub Vec<pb::Attention>);

fn parse_attentions(text: &str) -> Result<AttentionList, String> {
    names::parse_list::<pb::Attention>(text).map(AttentionList)
}

/// How the pane's program takes typed text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Typing {
    /// As keys (bracketed paste is off or unknown).
    Keys,
    /// As a bracketed paste.
    BracketedPaste,
}

impl Typing {
    /// From the pane's modes, when they could be read.
    pub fn of_screen(screen: Option<&super::screen_state::ScreenState>) -> Typing {
        if screen.is_some_and(|s| s.modes.contains(&"bracketed_paste")) {
            Typing::BracketedPaste
        } else {
            Typing::Keys
        }
    }
}

const PASTE_START: &str = "\x1b[200~";
const PASTE_END: &str = "\x1b[201~";

/// The bytes `send` writes for TEXT: with Enter, and as a bracketed paste when the program takes
/// one (see the module docs); a paste-end sequence inside the text is dropped, so the text cannot
/// end the paste early.
pub fn text_input(words: &[String], press_enter: bool, typing: Typing) -> Vec<u8> {
    let text = words.join(" ");
    let mut out = match typing {
        Typing::BracketedPaste if press_enter && !text.is_empty() => {
            format!("{PASTE_START}{}{PASTE_END}", text.replace(PASTE_END, ""))
        }
        _ => text,
    };
    if press_enter {
        out.push_str(ENTER);
    }
    out.into_bytes()
}

/// `pane send`.
pub async fn send(
    ctx: &Ctx,
    client: &mut PaneServiceClient<Channel>,
    args: SendArgs,
    typing: Typing,
) -> CliResult {
    let data = if args.stdin {
        let mut data = Vec::new();
        std::io::stdin().read_to_end(&mut data)?;
        data
    } else {
        text_input(&args.text, !args.no_newline, typing)
    };
    let mut written = 0u64;
    // An empty `--stdin` still makes one (empty) call, so a bad pane id is reported.
    for chunk in data
        .chunks(MAX_WRITE)
        .chain(data.is_empty().then_some(&[][..]))
    {
        let request = pb::WriteInputRequest {
            pane_id: args.pane.clone(),
            data: chunk.to_vec(),
            timeout_ms: 0,
        };
        written += client
            .write_input(request)
            .await?
            .into_inner()
            .bytes_written;
    }
    if ctx.out.is_json() {
        return ctx
            .out
            .json(&serde_json::json!({ "pane_id": args.pane, "bytes_written": written }));
    }
    Ok(())
}

#[derive(Serialize)]
struct JsonRead {
    pane_id: String,
    lines: Vec<String>,
    output_offset: u64,
    cols: u32,
    rows: u32,
    /// The cursor (`{"row", "col"}`, from 0) and the modes that are on, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    cursor: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modes: Option<Vec<&'static str>>,
}

/// Largest ReadPane reply the CLI accepts: well above a full scrollback (the server keeps at most
/// 4 MiB of history per pane by default) rendered with its SGR sequences.
const READ_REPLY_LIMIT: usize = 64 * 1024 * 1024;

/// `pane read`.
pub async fn read(
    ctx: &Ctx,
    client: &mut PaneServiceClient<Channel>,
    pane: String,
    args: ReadArgs,
    screen: Option<super::screen_state::ScreenState>,
) -> CliResult {
    let mode = if args.scrollback || args.lines.is_some() {
        pb::ReadMode::Scrollback
    } else {
        pb::ReadMode::Screen
    };
    let request = pb::ReadPaneRequest {
        pane_id: pane.clone(),
        mode: mode as i32,
        lines: args.lines.unwrap_or(0),
        keep_ansi: args.ansi,
    };
    // A full scrollback kept with its colours can exceed tonic's default 4 MiB reply limit
    // (the history alone holds up to 4 MiB, plus the screen and framing): accept what the
    // server's caps can produce.
    let mut client = client.clone().max_decoding_message_size(READ_REPLY_LIMIT);
    let reply = client.read_pane(request).await?.into_inner();
    if ctx.out.is_json() {
        return ctx.out.json(&JsonRead {
            pane_id: pane,
            lines: reply.lines,
            output_offset: reply.output_offset,
            cols: reply.cols,
            rows: reply.rows,
            cursor: screen.as_ref().map(super::screen_state::cursor_json),
            modes: screen.map(|s| s.modes),
        });
    }
    let mut text = reply.lines.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    if args.ansi {
        // Leave the caller's terminal in the default rendition whatever the last line set.
        text.push_str("\x1b[0m");
        // The colours are what was asked for.
        return ctx.out.raw_text(&text);
    }
    ctx.out.text(&text)
}

/// `pane wait`.
pub async fn wait(ctx: &Ctx, client: &mut PaneServiceClient<Channel>, args: WaitArgs) -> CliResult {
    let until = args.until.unwrap_or_default();
    let mut attentions = until.attentions;
    attentions.extend(args.attention.map(|a| a.0).unwrap_or_default());
    let timeout_ms = match args.timeout {
        Some(secs) if !(secs.is_finite() && secs > 0.0) => {
            return Err(CliError::usage(format!(
                "--timeout must be a positive number, got {secs}"
            )));
        }
        Some(secs) => (secs * 1000.0).min(3_600_000.0) as u32,
        None => 0,
    };
    let request = pb::WaitPaneRequest {
        pane_id: args.pane.clone(),
        until_lifecycle: until.lifecycles.iter().map(|l| *l as i32).collect(),
        until_attention: attentions.iter().map(|a| *a as i32).collect(),
        after_seq: args.after_seq,
        timeout_ms,
    };
    // The server enforces the timeout; this local bound only protects against a server that
    // never answers.
    let server_timeout = Duration::from_millis(if timeout_ms == 0 {
        60_000
    } else {
        timeout_ms.into()
    });
    let call = client.wait_pane(request);
    let reply = match tokio::time::timeout(server_timeout + Duration::from_secs(10), call).await {
        Ok(reply) => reply?.into_inner(),
        Err(_) => {
            return Err(CliError::with_reason(
                ErrorKind::Server,
                format!("the server did not end the wait on {}", args.pane),
                "TIMEOUT",
            ));
        }
    };
    let pane = reply.pane.unwrap_or_default();
    if ctx.out.is_json() {
        return ctx.out.json(&serde_json::json!({
            "seq": reply.seq,
            "pane": JsonPane::from(&pane),
        }));
    }
    ctx.out.line(format_args!(
        "{} {} / {} (seq {})",
        pane.id,
        names::name::<pb::Lifecycle>(pane.lifecycle),
        names::name::<pb::Attention>(pane.attention),
        reply.seq
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use clap::Parser;

    #[test]
    fn until_mixes_lifecycles_and_attentions() {
        let states = parse_states("working,permission_required,done").expect("valid");
        assert_eq!(
            states.lifecycles,
            [pb::Lifecycle::Working, pb::Lifecycle::Done]
        );
        assert_eq!(states.attentions, [pb::Attention::PermissionRequired]);
        assert!(parse_states("sleeping").is_err());
    }

    #[test]
    fn wait_needs_a_state() {
        assert!(Cli::try_parse_from(["signaltty", "pane", "wait", "pane_1"]).is_err());
        assert!(
            Cli::try_parse_from([
                "signaltty",
                "pane",
                "wait",
                "pane_1",
                "--attention",
                "error"
            ])
            .is_ok()
        );
        assert!(
            Cli::try_parse_from([
                "signaltty",
                "pane",
                "wait",
                "pane_1",
                "--until",
                "done",
                "--timeout",
                "2.5"
            ])
            .is_ok()
        );
    }

    #[test]
    fn send_presses_enter_unless_told_not_to() {
        let words = vec!["echo".to_string(), "hi".to_string()];
        assert_eq!(text_input(&words, true, Typing::Keys), b"echo hi\r");
        assert_eq!(text_input(&words, false, Typing::Keys), b"echo hi");
    }

    #[test]
    fn a_program_that_takes_pastes_gets_the_text_as_one_then_enter() {
        let words = vec!["fix".to_string(), "it".to_string()];
        assert_eq!(
            text_input(&words, true, Typing::BracketedPaste),
            b"\x1b[200~fix it\x1b[201~\r"
        );
        // Without Enter the text is typed as it is; an empty line is just Enter.
        assert_eq!(text_input(&words, false, Typing::BracketedPaste), b"fix it");
        assert_eq!(text_input(&[], true, Typing::BracketedPaste), b"\r");
        // The text cannot end the paste early.
        let sneaky = vec!["a\x1b[201~b".to_string()];
        assert_eq!(
            text_input(&sneaky, true, Typing::BracketedPaste),
            b"\x1b[200~ab\x1b[201~\r"
        );
    }

    #[test]
    fn send_takes_text_or_stdin_but_not_both() {
        assert!(Cli::try_parse_from(["signaltty", "pane", "send", "pane_1"]).is_err());
        assert!(
            Cli::try_parse_from(["signaltty", "pane", "send", "pane_1", "x", "--stdin"]).is_err()
        );
        assert!(Cli::try_parse_from(["signaltty", "pane", "send", "pane_1", "--stdin"]).is_ok());
        assert!(
            Cli::try_parse_from(["signaltty", "pane", "send", "pane_1", "--", "ls", "-la"]).is_ok()
        );
    }
}
