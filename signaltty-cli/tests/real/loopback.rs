//! What the fake OpenAI-style model APIs (`responses.rs`, `chat.rs`) share: a loopback HTTP/1.1
//! server with a thread per connection, reading one request each, the requests the scripts saw
//! recorded for tests to wait on, and the plain JSON answers (model list, error).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// One request: a `POST` with its JSON body (`Null` when it is none), or anything else.
pub struct Request {
    pub post: bool,
    pub body: Value,
}

/// A server on a free loopback port; it stops accepting when dropped.
pub struct Server {
    pub port: u16,
    listener: Arc<TcpListener>,
}

impl Server {
    /// Serves every connection with `serve`, each on a thread of its own.
    pub fn start(serve: impl Fn(TcpStream) + Send + Sync + 'static) -> Server {
        let listener = Arc::new(TcpListener::bind("127.0.0.1:0").expect("bind loopback"));
        let port = listener.local_addr().expect("local addr").port();
        let serve = Arc::new(serve);
        let l = listener.clone();
        std::thread::spawn(move || {
            for stream in l.incoming() {
                let Ok(stream) = stream else { break };
                let serve = serve.clone();
                std::thread::spawn(move || serve(stream));
            }
        });
        Server { port, listener }
    }

    /// The base URL an OpenAI-compatible provider points at.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Wake the accept loop so that it ends: it fails on the next accept once we connect.
        let _ = self.listener.set_nonblocking(true);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Reads one request (request line, headers, a `content-length` body).
pub fn read_request(stream: &TcpStream) -> std::io::Result<Request> {
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
    Ok(Request {
        post: request_line.starts_with("POST"),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    })
}

/// Writes a whole JSON answer with `status`.
pub fn write_json(out: &mut TcpStream, status: u16, text: &str) -> std::io::Result<()> {
    write!(
        out,
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        if status == 200 { "OK" } else { "Error" },
        text.len()
    )
}

/// Writes an OpenAI-style error answer of type `kind` (`server_error`, `invalid_request_error`).
pub fn write_error(
    out: &mut TcpStream,
    status: u16,
    kind: &str,
    message: &str,
) -> std::io::Result<()> {
    let text = json!({"error": {"message": message, "type": kind, "code": kind}}).to_string();
    write_json(out, status, &text)
}

/// Starts a server-sent event stream.
pub fn write_stream_head(out: &mut TcpStream) -> std::io::Result<()> {
    write!(
        out,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n"
    )
}

/// What the model was asked, in order, for tests to read and wait on.
pub struct Recorded<S>(Arc<(Mutex<Vec<S>>, Condvar)>);

impl<S> Clone for Recorded<S> {
    fn clone(&self) -> Self {
        Recorded(self.0.clone())
    }
}

impl<S: Clone> Recorded<S> {
    pub fn new() -> Recorded<S> {
        Recorded(Arc::new((Mutex::new(Vec::new()), Condvar::new())))
    }

    /// Records one request and wakes the waiters.
    pub fn push(&self, seen: S) {
        let (lock, cond) = &*self.0;
        lock.lock().expect("lock").push(seen);
        cond.notify_all();
    }

    /// Every request so far.
    pub fn all(&self) -> Vec<S> {
        self.0.0.lock().expect("lock").clone()
    }

    /// Waits until a request satisfies `what`, and returns it.
    pub fn wait_for(&self, label: &str, timeout: Duration, what: impl Fn(&S) -> bool) -> S {
        let deadline = Instant::now() + timeout;
        let (lock, cond) = &*self.0;
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
