//! A fake OpenAI chat-completions API on 127.0.0.1 for the real OpenCode (an OpenAI-compatible
//! custom provider): every `POST …/chat/completions` is answered by the scenario's script as
//! streamed `chat.completion.chunk`s (a tool call, or text), or as an HTTP error. `GET`s (the
//! model list) list one model. Each request is recorded, as in `responses.rs`.

#![allow(dead_code)]

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

use super::loopback::{Recorded, Server, read_request, write_error, write_json, write_stream_head};

/// What the model answers to one request.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A `bash` tool call.
    Shell { call_id: String, command: String },
    /// A final assistant message.
    Text(String),
    /// An HTTP error with an OpenAI-style error body.
    Error { status: u16, message: String },
}

/// What a request carried, as the script sees it.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// The text of every user message, joined by newlines.
    pub user: String,
    /// The output of the last tool call in the input, when the model gets one back.
    pub tool_output: Option<String>,
    /// The whole request body.
    pub body: Value,
}

/// The server; it stops serving (accepting) when dropped.
pub struct FakeChat {
    server: Server,
    seen: Recorded<Seen>,
}

impl FakeChat {
    /// Starts serving `script` on a free loopback port.
    pub fn start(script: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> FakeChat {
        let seen = Recorded::new();
        let recorded = seen.clone();
        let server = Server::start(move |stream| {
            let _ = serve(stream, &script, &recorded);
        });
        FakeChat { server, seen }
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
        return write_json(
            &mut out,
            200,
            r#"{"object":"list","data":[{"id":"fake-model","object":"model"}]}"#,
        );
    }
    let request = read_seen(request.body);
    let reply = script(&request);
    seen.push(request);
    match reply {
        Reply::Error { status, message } => write_error(&mut out, status, &message)?,
        reply => {
            write_stream_head(&mut out)?;
            for event in events(&reply) {
                write!(out, "data: {event}\n\n")?;
                out.flush()?;
            }
            write!(out, "data: [DONE]\n\n")?;
        }
    }
    out.flush()
}

/// The streamed chunks of one reply, then `[DONE]`.
fn events(reply: &Reply) -> Vec<Value> {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
            "model": "fake-model", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    match reply {
        Reply::Shell { call_id, command } => vec![
            chunk(
                json!({"role": "assistant", "tool_calls": [{"index": 0, "id": call_id, "type": "function",
                    "function": {"name": "bash", "arguments":
                        json!({"command": command, "description": "run it"}).to_string()}}]}),
                Value::Null,
            ),
            chunk(json!({}), json!("tool_calls")),
        ],
        Reply::Text(text) => vec![
            chunk(json!({"role": "assistant", "content": text}), Value::Null),
            chunk(json!({}), json!("stop")),
        ],
        Reply::Error { .. } => Vec::new(),
    }
}

fn read_seen(body: Value) -> Seen {
    let mut seen = Seen::default();
    for message in body["messages"].as_array().into_iter().flatten() {
        let text = match &message["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        match message["role"].as_str() {
            Some("user") => {
                seen.user.push_str(&text);
                seen.user.push('\n');
            }
            Some("tool") => seen.tool_output = Some(text),
            _ => {}
        }
    }
    seen.body = body;
    seen
}
