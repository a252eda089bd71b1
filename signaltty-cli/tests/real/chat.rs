//! A fake OpenAI chat-completions API on 127.0.0.1 for the real OpenCode (an OpenAI-compatible
//! custom provider): every `POST …/chat/completions` is answered by the scenario's script as
//! streamed `chat.completion.chunk`s (a tool call, or text), or as an HTTP error. `GET`s (the
//! model list) list one model. Each request is recorded, as in `responses.rs`.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

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

type Script = dyn Fn(&Seen) -> Reply + Send + Sync;

/// The server; it stops serving (accepting) when dropped.
pub struct FakeChat {
    pub port: u16,
    seen: Arc<(Mutex<Vec<Seen>>, Condvar)>,
    listener: Arc<TcpListener>,
}

impl FakeChat {
    /// Starts serving `script` on a free loopback port.
    pub fn start(script: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> FakeChat {
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
        FakeChat {
            port,
            seen,
            listener,
        }
    }

    /// The base URL OpenCode's provider points at.
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

impl Drop for FakeChat {
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
        let text = r#"{"object":"list","data":[{"id":"fake-model","object":"model"}]}"#;
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
