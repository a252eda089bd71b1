//! A fake OpenAI Responses API on 127.0.0.1 for the real Codex: every `POST …/responses` is
//! answered by the scenario's script, as the streaming events Codex reads
//! (`response.created`, `response.output_item.added`/`done`, `response.output_text.delta`,
//! `response.completed`), or as an HTTP error. `GET`s (the model list) get an empty list. Each
//! request is recorded so that a test can wait for "the model was asked again" and read what the
//! tool returned.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

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

type Script = dyn Fn(&Seen) -> Reply + Send + Sync;

/// The server; it stops serving (accepting) when dropped.
pub struct FakeResponses {
    pub port: u16,
    seen: Arc<(Mutex<Vec<Seen>>, Condvar)>,
    listener: Arc<TcpListener>,
}

impl FakeResponses {
    /// Starts serving `script` on a free loopback port.
    pub fn start(script: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> FakeResponses {
        let listener = Arc::new(TcpListener::bind("127.0.0.1:0").expect("bind loopback"));
        let port = listener.local_addr().expect("local addr").port();
        let seen = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
        let script: Arc<Script> = Arc::new(script);
        let (l, s) = (listener.clone(), seen.clone());
        std::thread::spawn(move || {
            for stream in l.incoming() {
                let Ok(stream) = stream else { break };
                let (script, seen) = (script.clone(), s.clone());
                std::thread::spawn(move || {
                    let _ = serve(stream, &*script, &seen);
                });
            }
        });
        FakeResponses {
            port,
            seen,
            listener,
        }
    }

    /// The base URL Codex's provider points at.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.0.lock().expect("lock").clone()
    }

    /// Waits until a request satisfies `what`, and returns it.
    pub fn wait_for(&self, label: &str, timeout: Duration, what: impl Fn(&Seen) -> bool) -> Seen {
        let deadline = Instant::now() + timeout;
        let (lock, cond) = &*self.seen;
        let mut seen = lock.lock().expect("lock");
        loop {
            if let Some(s) = seen.iter().find(|s| what(s)) {
                return s.clone();
            }
            let left = deadline
                .checked_duration_since(Instant::now())
                .unwrap_or_else(|| panic!("timed out waiting for the model to see {label}"));
            seen = cond.wait_timeout(seen, left).expect("lock").0;
        }
    }
}

impl Drop for FakeResponses {
    fn drop(&mut self) {
        // Wake the accept loop so that it ends: it fails on the next accept once we connect.
        let _ = self.listener.set_nonblocking(true);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(
    stream: TcpStream,
    script: &Script,
    seen: &(Mutex<Vec<Seen>>, Condvar),
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let mut out = stream;
    if !request_line.starts_with("POST") {
        let text = r#"{"object":"list","data":[],"models":[]}"#;
        write!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
            text.len()
        )?;
        return Ok(());
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let request = read_seen(body);
    let reply = script(&request);
    {
        let (lock, cond) = seen;
        lock.lock().expect("lock").push(request);
        cond.notify_all();
    }
    match reply {
        Reply::Error { status, message } => {
            let text = json!({"error": {"message": message, "type": "server_error", "code": "server_error"}})
                .to_string();
            write!(
                out,
                "HTTP/1.1 {status} Error\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                text.len()
            )?;
        }
        reply => {
            write!(
                out,
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n"
            )?;
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
