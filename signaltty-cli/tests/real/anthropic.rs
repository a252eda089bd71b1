//! A fake Anthropic Messages API on 127.0.0.1, so that the real Claude Code runs offline.
//!
//! Only what Claude Code needs: `POST /v1/messages` (streamed as server-sent events, or one JSON
//! body when `stream` is false) and `POST /v1/messages/count_tokens`; everything else is a 404.
//! Each request that offers tools is a turn of the main conversation and goes to the scenario's
//! [`Script`], which picks the reply from the latest user message (a new prompt, or the result of
//! the tool the previous reply called). Requests without tools (titles, summaries) get a short
//! text. Every main request is recorded, so a test can check what Claude told the model (e.g.
//! the tool result after a question was answered).
//!
//! Plain `std::net` and one thread per connection: the test process owns the whole server, and
//! [`FakeApi::restart`] can stop it and listen again on the same port while Claude runs.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// What the model "says" to one main request.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A final text answer (`end_turn`).
    Text { text: String },
    /// One tool call (`tool_use`), the turn goes on after its result.
    ToolUse { name: String, input: Value },
    /// A text streamed one word per `every` until the client goes away (never ends by itself):
    /// a model busy answering, to be interrupted.
    Endless { every: Duration },
    /// An HTTP error with an Anthropic error body, e.g. 400 `invalid_request_error`.
    Error {
        status: u16,
        kind: String,
        message: String,
    },
}

/// The latest user turn of a main request, as the script sees it.
#[derive(Clone, Debug)]
pub enum Turn {
    /// The user typed a prompt (its text, system reminders left out).
    Prompt(String),
    /// Claude sends the result of the tool the model called: its text and whether it is an error.
    ToolResult { text: String, is_error: bool },
}

/// The scenario: a reply for each main request.
pub type Script = Arc<dyn Fn(&Turn) -> Reply + Send + Sync>;

/// A running fake API. Dropping it stops listening.
pub struct FakeApi {
    addr: SocketAddr,
    script: Script,
    seen: Arc<Mutex<Vec<Turn>>>,
    stop: Arc<AtomicBool>,
}

impl FakeApi {
    /// Listens on a free loopback port.
    pub fn start(script: Script) -> FakeApi {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the fake API");
        let addr = listener.local_addr().expect("fake API address");
        let api = FakeApi {
            addr,
            script,
            seen: Arc::new(Mutex::new(Vec::new())),
            stop: Arc::new(AtomicBool::new(false)),
        };
        api.serve(listener);
        api
    }

    /// `ANTHROPIC_BASE_URL` for Claude.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The main requests so far, oldest first.
    pub fn turns(&self) -> Vec<Turn> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Stops answering (open streams end, the port closes), then listens again on the same port:
    /// the API server restarted under a running Claude.
    pub fn restart(&mut self) {
        self.shutdown();
        let listener = crate::common::wait_for("the fake API's port again", WAIT_PORT, || {
            TcpListener::bind(self.addr).ok()
        });
        self.stop = Arc::new(AtomicBool::new(false));
        self.serve(listener);
    }

    fn shutdown(&self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so that it sees the flag and drops the listener.
        let _ = TcpStream::connect(self.addr);
    }

    fn serve(&self, listener: TcpListener) {
        let script = self.script.clone();
        let seen = self.seen.clone();
        let stop = self.stop.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (script, seen, stop) = (script.clone(), seen.clone(), stop.clone());
                std::thread::spawn(move || {
                    let _ = handle(stream, &script, &seen, &stop);
                });
            }
        });
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.shutdown();
    }
}

const WAIT_PORT: Duration = Duration::from_secs(10);

fn handle(
    stream: TcpStream,
    script: &Script,
    seen: &Mutex<Vec<Turn>>,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let path = request_line.split_whitespace().nth(1).unwrap_or("");
    if !request_line.starts_with("POST ") || !path.starts_with("/v1/messages") {
        return respond_json(
            &mut out,
            404,
            &json!({"type": "error", "error": {"type": "not_found_error", "message": "no such endpoint"}}),
        );
    }
    if path.starts_with("/v1/messages/count_tokens") {
        return respond_json(&mut out, 200, &json!({"input_tokens": 10}));
    }
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let model = request["model"]
        .as_str()
        .unwrap_or("claude-fake")
        .to_owned();
    let streaming = request["stream"].as_bool().unwrap_or(false);
    let main = request["tools"].as_array().is_some_and(|t| !t.is_empty());
    let reply = if main {
        let turn = latest_turn(&request);
        if let Ok(mut s) = seen.lock() {
            s.push(turn.clone());
        }
        script(&turn)
    } else {
        Reply::Text {
            text: "Fake title".to_owned(),
        }
    };
    if let Reply::Error {
        status,
        kind,
        message,
    } = &reply
    {
        return respond_json(
            &mut out,
            *status,
            &json!({"type": "error", "error": {"type": kind, "message": message}}),
        );
    }
    if !streaming {
        let content = match &reply {
            Reply::ToolUse { name, input } => {
                json!([{"type": "tool_use", "id": "toolu_fake_1", "name": name, "input": input}])
            }
            Reply::Text { text } => json!([{"type": "text", "text": text}]),
            _ => json!([{"type": "text", "text": "…"}]),
        };
        let stop_reason = if matches!(reply, Reply::ToolUse { .. }) {
            "tool_use"
        } else {
            "end_turn"
        };
        return respond_json(
            &mut out,
            200,
            &json!({"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
                    "content": content, "stop_reason": stop_reason, "stop_sequence": null,
                    "usage": {"input_tokens": 5, "output_tokens": 5}}),
        );
    }
    out.write_all(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
    )?;
    event(
        &mut out,
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_fake", "type": "message",
                "role": "assistant", "model": model, "content": [], "stop_reason": null,
                "stop_sequence": null, "usage": {"input_tokens": 5, "output_tokens": 1}}}),
    )?;
    let stop_reason = match &reply {
        Reply::ToolUse { name, input } => {
            // A fresh id per call, so that the hooks' tool_use_id tells calls apart.
            let id = format!("toolu_fake_{}", seen.lock().map(|s| s.len()).unwrap_or(0));
            event(
                &mut out,
                "content_block_start",
                &json!({"type": "content_block_start", "index": 0,
                        "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
            )?;
            event(
                &mut out,
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": 0,
                        "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
            )?;
            "tool_use"
        }
        Reply::Text { text } => {
            text_start(&mut out)?;
            text_delta(&mut out, text)?;
            "end_turn"
        }
        Reply::Endless { every } => {
            text_start(&mut out)?;
            let mut n = 0u64;
            // Ends when Claude closes the stream (Esc) or the server stops.
            while !stop.load(Ordering::SeqCst) {
                text_delta(&mut out, &format!("word{n} "))?;
                n += 1;
                std::thread::sleep(*every);
            }
            return Ok(());
        }
        Reply::Error { .. } => unreachable!("answered above"),
    };
    event(
        &mut out,
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": 0}),
    )?;
    event(
        &mut out,
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                "usage": {"output_tokens": 5}}),
    )?;
    event(&mut out, "message_stop", &json!({"type": "message_stop"}))?;
    out.flush()
}

fn text_start(out: &mut TcpStream) -> std::io::Result<()> {
    event(
        out,
        "content_block_start",
        &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    )
}

fn text_delta(out: &mut TcpStream, text: &str) -> std::io::Result<()> {
    event(
        out,
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
    )
}

fn event(out: &mut TcpStream, name: &str, data: &Value) -> std::io::Result<()> {
    out.write_all(format!("event: {name}\ndata: {data}\n\n").as_bytes())?;
    out.flush()
}

fn respond_json(out: &mut TcpStream, status: u16, body: &Value) -> std::io::Result<()> {
    let body = body.to_string();
    let reason = if status == 200 { "OK" } else { "Error" };
    out.write_all(
        format!(
            "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )?;
    out.flush()
}

/// The last user message's last meaningful block: a tool result, or the prompt text (system
/// reminders and interruption markers, which Claude adds to user messages, left out).
fn latest_turn(request: &Value) -> Turn {
    let empty = Vec::new();
    let messages = request["messages"].as_array().unwrap_or(&empty);
    let Some(user) = messages.iter().rev().find(|m| m["role"] == "user") else {
        return Turn::Prompt(String::new());
    };
    let blocks: Vec<Value> = match &user["content"] {
        Value::String(s) => vec![json!({"type": "text", "text": s})],
        Value::Array(a) => a.clone(),
        _ => Vec::new(),
    };
    let meaningful = blocks.iter().rev().find(|b| {
        let text = b["text"].as_str().unwrap_or("");
        !(b["type"] == "text"
            && (text.starts_with("<system-reminder>") || text.starts_with("[Request interrupted")))
    });
    match meaningful {
        Some(b) if b["type"] == "tool_result" => Turn::ToolResult {
            text: match &b["content"] {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|p| p["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            },
            is_error: b["is_error"].as_bool().unwrap_or(false),
        },
        Some(b) => Turn::Prompt(b["text"].as_str().unwrap_or("").to_owned()),
        None => Turn::Prompt(String::new()),
    }
}
