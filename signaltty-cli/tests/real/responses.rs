//! A fake OpenAI Responses API on 127.0.0.1 for the real Codex: every `POST …/responses` is
//! answered by the scenario's script, as the streaming events Codex reads
//! (`response.created`, `response.output_item.added`/`done`, `response.output_text.delta`,
//! `response.completed`), or as an HTTP error. `GET`s (the model list) get an empty list. Each
//! request is recorded so that a test can wait for "the model was asked again" and read what the
//! tool returned.

#![allow(dead_code)]

use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::loopback::{Recorded, Server, read_request, write_error, write_json, write_stream_head};

/// What the model answers to one request.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A shell tool call (`exec_command` with `cmd`).
    Shell { call_id: String, command: String },
    /// A final assistant message.
    Text(String),
    /// An HTTP error with an OpenAI-style error body.
    Error { status: u16, message: String },
    /// The start of a message, then nothing more: the stream stays open (keep-alive comments
    /// every 100 ms) until the client goes away or a minute passes — a turn to interrupt.
    Stall(String),
}

/// What a request carried, as the script sees it.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// The text of every user message, joined by newlines (Codex adds its own context).
    pub user: String,
    /// The output of the last tool call in the input, when the model gets one back.
    pub tool_output: Option<String>,
    /// The whole request body.
    pub body: Value,
}

/// The server; it stops serving (accepting) when dropped.
pub struct FakeResponses {
    server: Server,
    seen: Recorded<Seen>,
}

impl FakeResponses {
    /// Starts serving `script` on a free loopback port.
    pub fn start(script: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> FakeResponses {
        let seen = Recorded::new();
        let recorded = seen.clone();
        let server = Server::start(move |stream| {
            let _ = serve(stream, &script, &recorded);
        });
        FakeResponses { server, seen }
    }

    /// The base URL the agent's provider points at.
    pub fn base_url(&self) -> String {
        self.server.base_url()
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.all()
    }

    /// Waits until a request satisfies `what`, and returns it.
    pub fn wait_for(&self, label: &str, timeout: Duration, what: impl Fn(&Seen) -> bool) -> Seen {
        self.seen.wait_for(label, timeout, what)
    }
}

fn serve(
    mut out: TcpStream,
    script: &(impl Fn(&Seen) -> Reply + ?Sized),
    seen: &Recorded<Seen>,
) -> std::io::Result<()> {
    let request = read_request(&out)?;
    if !request.post {
        return write_json(&mut out, 200, r#"{"object":"list","data":[],"models":[]}"#);
    }
    let request = read_seen(request.body);
    let reply = script(&request);
    seen.push(request);
    match reply {
        Reply::Error { status, message } => {
            write_error(&mut out, status, "server_error", &message)?
        }
        reply => {
            write_stream_head(&mut out)?;
            for event in events(&reply) {
                let kind = event["type"].as_str().unwrap_or_default().to_owned();
                write!(out, "event: {kind}\ndata: {event}\n\n")?;
                out.flush()?;
            }
            if let Reply::Stall(_) = reply {
                let until = Instant::now() + Duration::from_secs(60);
                while Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(100));
                    write!(out, ": keep-alive\n\n")?;
                    out.flush()?;
                }
            }
        }
    }
    out.flush()
}

/// The streaming events of one reply.
fn events(reply: &Reply) -> Vec<Value> {
    let id = format!("resp_{}", std::process::id());
    let mut events = vec![json!({"type": "response.created", "response": {"id": id}})];
    match reply {
        Reply::Shell { call_id, command } => {
            let item = json!({
                "type": "function_call", "id": format!("fc_{call_id}"), "call_id": call_id,
                "name": "exec_command", "arguments": json!({"cmd": command}).to_string(),
            });
            events.push(
                json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
            );
            events.push(
                json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
            );
        }
        Reply::Text(text) => {
            let empty =
                json!({"type": "message", "id": "msg_1", "role": "assistant", "content": []});
            events.push(
                json!({"type": "response.output_item.added", "output_index": 0, "item": empty}),
            );
            events.push(
                json!({"type": "response.output_text.delta", "output_index": 0,
                "item_id": "msg_1", "content_index": 0, "delta": text}),
            );
            let item = json!({"type": "message", "id": "msg_1", "role": "assistant",
                "content": [{"type": "output_text", "text": text}]});
            events.push(
                json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
            );
        }
        Reply::Stall(text) => {
            let empty =
                json!({"type": "message", "id": "msg_1", "role": "assistant", "content": []});
            events.push(
                json!({"type": "response.output_item.added", "output_index": 0, "item": empty}),
            );
            events.push(
                json!({"type": "response.output_text.delta", "output_index": 0,
                "item_id": "msg_1", "content_index": 0, "delta": text}),
            );
            return events;
        }
        Reply::Error { .. } => {}
    }
    events.push(
        json!({"type": "response.completed", "response": {"id": id, "usage": {
        "input_tokens": 1, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2}}}),
    );
    events
}

fn read_seen(body: Value) -> Seen {
    let mut seen = Seen::default();
    let items = body["input"].as_array().cloned().unwrap_or_default();
    for item in &items {
        match item["type"].as_str() {
            Some("message") if item["role"] == "user" => {
                for part in item["content"].as_array().into_iter().flatten() {
                    if let Some(text) = part["text"].as_str() {
                        seen.user.push_str(text);
                        seen.user.push('\n');
                    }
                }
            }
            Some("function_call_output") => {
                seen.tool_output = Some(match &item["output"] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
            }
            _ => {}
        }
    }
    seen.body = body;
    seen
}
