//! A fake OpenAI chat-completions API on 127.0.0.1 for the real OpenCode (an OpenAI-compatible
//! custom provider): every `POST …/chat/completions` is answered by the scenario's script as
//! streamed `chat.completion.chunk`s (a tool call, text, or an endless stream), or as an HTTP
//! error. `GET`s (the
//! model list) list one model. Each request is recorded, as in `responses.rs`.

#![allow(dead_code)]

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

use super::loopback::{Recorded, Server, read_request, write_error, write_json, write_stream_head};

/// The system prompt of OpenCode's title agent.
const TITLE_AGENT: &str = "You are a title generator";

/// What the model answers to one request.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A `bash` tool call.
    Shell { call_id: String, command: String },
    /// A final assistant message.
    Text(String),
    /// An HTTP error with an OpenAI-style error body of type `kind`: OpenCode retries a
    /// `server_error` (whatever the status) and gives up at once on an `invalid_request_error`.
    Error {
        status: u16,
        kind: String,
        message: String,
    },
    /// A `question` tool call (OpenCode's question tool) with one question and its options.
    Question {
        question: String,
        options: Vec<String>,
    },
    /// Text streamed a word every 100 ms until the client goes away (or ten minutes pass).
    Endless,
}

/// What a request carried, as the script sees it.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// The text of every user message, joined by newlines.
    pub user: String,
    /// The text of the last user message (the prompt of this turn).
    pub last_user: String,
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
    // OpenCode asks the same model for a title for each new session, beside the turn itself:
    // answered here, so that scripts see only the turns.
    let reply = if request.body.to_string().contains(TITLE_AGENT) {
        Reply::Text("A title".to_owned())
    } else {
        let reply = script(&request);
        seen.push(request);
        reply
    };
    match reply {
        Reply::Error {
            status,
            kind,
            message,
        } => write_error(&mut out, status, &kind, &message)?,
        Reply::Endless => {
            write_stream_head(&mut out)?;
            for word in 0..6000 {
                let chunk = chunk(
                    json!({"role": "assistant", "content": format!("word{word} ")}),
                    Value::Null,
                );
                // A write fails once OpenCode dropped the stream (an interruption).
                write!(out, "data: {chunk}\n\n")?;
                out.flush()?;
                std::thread::sleep(Duration::from_millis(100));
            }
        }
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
    let call = |id: &str, name: &str, arguments: Value| {
        vec![
            chunk(
                json!({"role": "assistant", "tool_calls": [{"index": 0, "id": id, "type": "function",
                    "function": {"name": name, "arguments": arguments.to_string()}}]}),
                Value::Null,
            ),
            chunk(json!({}), json!("tool_calls")),
        ]
    };
    match reply {
        Reply::Question { question, options } => call(
            "call_question",
            "question",
            json!({"questions": [{"question": question, "header": "Choice", "options":
                options.iter().map(|o| json!({"label": o, "description": o})).collect::<Vec<_>>()}]}),
        ),
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
        Reply::Error { .. } | Reply::Endless => Vec::new(),
    }
}

/// One streamed `chat.completion.chunk`.
fn chunk(delta: Value, finish: Value) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
        "model": "fake-model", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
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
                seen.last_user.clone_from(&text);
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
