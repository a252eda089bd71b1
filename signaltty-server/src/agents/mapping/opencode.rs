//! OpenCode events, as our plugins forward them (V1 bus events under `properties`, V2 events
//! under `data`; the plugins send `{session_id, …}` but the raw shapes are understood too).
//!
//! | event | lifecycle / attention |
//! |---|---|
//! | session.created | idle |
//! | session.status `busy` · `retry` · `idle` | working / none · working / warning, "retrying: <OpenCode's error>" · done / unread (not on an idle or failed pane) |
//! | session.execution.started (V2) | working / none |
//! | session.idle, session.execution.succeeded (V2) | done / unread (not on an idle or failed pane) |
//! | session.execution.interrupted (V2) | idle / none (a shutdown interruption changes nothing) |
//! | session.error `MessageAbortedError` (Esc) | idle / none, "interrupted" |
//! | session.error (other), session.execution.failed (V2) | failed / error |
//! | permission.asked (permission.updated in older V1) | blocked / permission_required, with a decision (answerable from signaltty when the plugin's report waits: the V1 plugin) |
//! | question.asked | blocked / input_required, the question and its options |
//! | permission.replied `reject` | idle / none, "rejected: <tool> <patterns>" |
//! | permission.replied (other), question.replied, question.rejected | settle them: working / none |
//!
//! OpenCode ends every turn with `session.status` idle and `session.idle`, also a turn that
//! failed, was interrupted or whose permission was rejected: those come right after the event that
//! told the truth, so it does not move a pane that event left `idle` or `failed`.

use serde_json::{Map, Value};

use super::{AskKind, HookEffect, HookError, HookNotice, Settle, ask, str_field, summary};
use crate::agents::payload::{obj_field, type_error};
use crate::model::lifecycle::{Attention, Lifecycle};
use crate::model::notification::{Severity, sanitize_text};

pub(super) fn map(event: &str, obj: Option<&Map<String, Value>>) -> Result<HookEffect, HookError> {
    Ok(match event {
        "session.created" => HookEffect {
            settles: Settle::No,
            ..HookEffect::state(Lifecycle::Idle, None)
        },
        "session.status" => match field_type(obj, "status")? {
            Some("busy") => {
                // Working has no message of its own: a retry's or an answered ask's goes.
                let mut e = HookEffect::state(Lifecycle::Working, Some(Attention::None));
                e.message = Some(String::new());
                e
            }
            // OpenCode retries a failing API for a while ("Cannot connect to API … retrying"):
            // still working, but the user should see why nothing comes.
            Some("retry") => {
                let mut e = HookEffect::state(Lifecycle::Working, Some(Attention::Warning));
                // The raw event carries the text inside `status`; our plugins lift it to the top.
                let status = holder(obj, "status")?
                    .and_then(|o| o.get("status"))
                    .and_then(Value::as_object);
                let why = match status
                    .and_then(|s| s.get("message"))
                    .and_then(Value::as_str)
                {
                    Some(m) => Some(m),
                    None => field(obj, "message")?,
                }
                .unwrap_or("the model's API failed");
                e.message = summary(&format!("retrying: {why}"));
                e
            }
            Some("idle") => turn_ended(),
            _ => HookEffect::default(),
        },
        "session.execution.started" => HookEffect::state(Lifecycle::Working, Some(Attention::None)),
        "session.idle" | "session.execution.succeeded" => turn_ended(),
        "session.execution.interrupted" => {
            // Shutting the background service down interrupts every session; they resume on
            // its next start, so nothing was interrupted by the user.
            if field(obj, "reason")? == Some("shutdown") {
                HookEffect::default()
            } else {
                interrupted()
            }
        }
        // Esc (twice) in OpenCode's TUI aborts the turn with this error: not a failure.
        "session.error" if error_name(obj)? == Some("MessageAbortedError") => interrupted(),
        "session.error" | "session.execution.failed" => {
            let mut e = HookEffect::state(Lifecycle::Failed, Some(Attention::Error));
            let text = error_text(obj)?;
            e.message = summary(text.unwrap_or("session error"));
            e.notice = Some(HookNotice {
                title: "OpenCode failed".to_owned(),
                body: text.unwrap_or("session error").to_owned(),
                severity: Severity::Error,
            });
            e
        }
        "permission.asked" | "permission.updated" => {
            let holder = holder(obj, "permission")?;
            let tool = str_field(holder, "permission")?
                .or(str_field(holder, "type")?)
                .or(str_field(holder, "title")?)
                .map(|t| sanitize_text(t, 200))
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "a tool".to_owned());
            let detail = patterns(holder)?;
            // OpenCode shows its dialog at once and our plugin reports beside it, so a held
            // report delays nothing: answerable from signaltty (the plugin replies to OpenCode).
            ask("OpenCode", tool, detail, AskKind::Raced)
        }
        "question.asked" => {
            let mut e = HookEffect::state(Lifecycle::Blocked, Some(Attention::InputRequired));
            e.settles = Settle::No;
            e.message = question_text(obj)?
                .and_then(|q| summary(&q))
                .or_else(|| Some("OpenCode asks a question".to_owned()));
            e
        }
        // A reject ends the turn (OpenCode goes idle next): not an ordinary finished turn, and
        // not the request any more. Our plugins add the rejected permission and its patterns.
        "permission.replied" if field(obj, "reply")? == Some("reject") => {
            let mut e = HookEffect::state(Lifecycle::Idle, Some(Attention::None));
            let holder = holder(obj, "reply")?;
            let what = [
                str_field(holder, "permission")?.map(str::to_owned),
                patterns(holder)?,
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
            e.message = summary(&if what.is_empty() {
                "rejected in OpenCode".to_owned()
            } else {
                format!("rejected: {what}")
            });
            e
        }
        "permission.replied" | "question.replied" | "question.rejected" => {
            HookEffect::state(Lifecycle::Working, Some(Attention::None))
        }
        _ => HookEffect::default(),
    })
}

/// The end of a turn: done, but not of a pane that the turn's last event left idle (interrupted,
/// rejected) or failed (see the module docs).
fn turn_ended() -> HookEffect {
    HookEffect {
        unless: &[Lifecycle::Idle, Lifecycle::Failed],
        ..HookEffect::state(Lifecycle::Done, Some(Attention::Unread))
    }
}

/// The user stopped the turn.
fn interrupted() -> HookEffect {
    let mut e = HookEffect::state(Lifecycle::Idle, Some(Attention::None));
    e.message = Some("interrupted".to_owned());
    e
}

/// The `name` of an error event's error object (`MessageAbortedError`, `APIError`, …).
fn error_name(obj: Option<&Map<String, Value>>) -> Result<Option<&str>, HookError> {
    match holder(obj, "error")?.and_then(|o| o.get("error")) {
        Some(Value::Object(m)) => str_field(Some(m), "name"),
        _ => Ok(None),
    }
}

/// The object holding an event's fields: the payload itself when it has `key`, else its V1
/// `properties` or V2 `data`.
fn holder<'a>(
    obj: Option<&'a Map<String, Value>>,
    key: &str,
) -> Result<Option<&'a Map<String, Value>>, HookError> {
    if obj.is_some_and(|o| o.contains_key(key)) {
        return Ok(obj);
    }
    match obj_field(obj, "properties")? {
        Some(p) => Ok(Some(p)),
        None => obj_field(obj, "data"),
    }
}

fn field<'a>(obj: Option<&'a Map<String, Value>>, key: &str) -> Result<Option<&'a str>, HookError> {
    str_field(holder(obj, key)?, key)
}

/// A field that is a string, or an object whose `type` is that string (`status: {type: busy}`).
fn field_type<'a>(
    obj: Option<&'a Map<String, Value>>,
    key: &str,
) -> Result<Option<&'a str>, HookError> {
    match holder(obj, key)?.and_then(|o| o.get(key)) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(Value::Object(m)) => str_field(Some(m), "type"),
        Some(_) => Err(type_error(key, "a string or an object")),
    }
}

/// The error text of an error event: a string, or `{name, data:{message}}`.
fn error_text(obj: Option<&Map<String, Value>>) -> Result<Option<&str>, HookError> {
    match holder(obj, "error")?.and_then(|o| o.get("error")) {
        None | Some(Value::Null) => field(obj, "message"),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(Value::Object(m)) => {
            let data = obj_field(Some(m), "data")?;
            Ok(str_field(data, "message")?
                .or(str_field(Some(m), "message")?)
                .or(str_field(Some(m), "name")?))
        }
        Some(_) => Err(type_error("error", "a string or an object")),
    }
}

/// A permission's patterns (`["git push *"]`) or pattern, joined.
fn patterns(holder: Option<&Map<String, Value>>) -> Result<Option<String>, HookError> {
    let joined = match holder.and_then(|o| o.get("patterns").or_else(|| o.get("pattern"))) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        Some(_) => return Err(type_error("patterns", "a string or an array of strings")),
    };
    let clean = sanitize_text(&joined, 500);
    Ok((!clean.is_empty()).then_some(clean))
}

/// The first question's text (`questions[0].question`) with its options' labels, or a
/// top-level `question`.
fn question_text(obj: Option<&Map<String, Value>>) -> Result<Option<String>, HookError> {
    let holder = holder(obj, "questions")?;
    if let Some(Value::Array(qs)) = holder.and_then(|o| o.get("questions")) {
        let Some(first) = qs.first() else {
            return Ok(None);
        };
        let text = first
            .get("question")
            .or_else(|| first.get("header"))
            .and_then(Value::as_str);
        // The options are what the user chooses among: "Which colour? (Red / Blue)".
        let options: Vec<&str> = first
            .get("options")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|o| o.get("label").and_then(Value::as_str))
            .collect();
        return Ok(text.map(|t| {
            if options.is_empty() {
                t.to_owned()
            } else {
                format!("{t} ({})", options.join(" / "))
            }
        }));
    }
    Ok(field(obj, "question")?.map(str::to_owned))
}
