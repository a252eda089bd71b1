//! Shared by the web tests: a running `signaltty web` (the real CLI, killed on drop) and a
//! plain HTTP/1.1 client over a `TcpStream`, so each test sends exactly the headers it means
//! to (a `Host` of its choosing, an `Origin`, a cookie or none) and reads the raw answer.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Stdio};
use std::time::Duration;

use prost::Message;
use serde_json::Value;

use crate::common::TestEnv;

/// `signaltty web --json` running for a test.
pub struct Web {
    pub child: Child,
    pub addr: SocketAddr,
    pub url: String,
    pub token: String,
    pub token_id: String,
}

impl Web {
    /// Starts `signaltty web` with `extra` flags and reads the line it prints.
    pub fn start(env: &TestEnv, extra: &[&str]) -> Web {
        let mut args = vec!["--json", "web"];
        args.extend_from_slice(extra);
        let mut child = env
            .command(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn signaltty web");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read the URL line");
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("signaltty web printed {line:?}: {e}"));
        let url = v["url"].as_str().expect("url").to_string();
        let token = url
            .split("token=")
            .nth(1)
            .expect("token in the URL")
            .to_string();
        Web {
            addr: v["addr"]
                .as_str()
                .expect("addr")
                .parse()
                .expect("socket addr"),
            token_id: v["token_id"].as_str().expect("token id").to_string(),
            url,
            token,
            child,
        }
    }

    /// `Host` as the browser would send it.
    pub fn host(&self) -> String {
        self.addr.to_string()
    }
}

impl Drop for Web {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A raw answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The gRPC status: the header of a trailers-only answer, else the trailer frame's.
    pub fn grpc_status(&self) -> Option<String> {
        if let Some(s) = self.header("grpc-status") {
            return Some(s.to_string());
        }
        let mut rest = &self.body[..];
        while rest.len() >= 5 {
            let len = u32::from_be_bytes([rest[1], rest[2], rest[3], rest[4]]) as usize;
            let frame = &rest[5..5 + len.min(rest.len() - 5)];
            if rest[0] & 0x80 != 0 {
                let text = String::from_utf8_lossy(frame);
                return text
                    .lines()
                    .find_map(|l| l.strip_prefix("grpc-status:").map(|s| s.trim().to_string()));
            }
            rest = &rest[(5 + len).min(rest.len())..];
        }
        None
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends one request and reads the whole answer (`Connection: close`).
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Answer {
    let mut stream = send(addr, method, path, headers, body);
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the answer");
    parse(&raw)
}

/// Sends one request and returns the stream, for an answer that does not end (Attach).
pub fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> TcpStream {
    let mut stream = TcpStream::connect(addr).expect("connect to signaltty web");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("send head");
    stream.write_all(body).expect("send body");
    stream
}

/// Reads from `stream` until the head and at least `want` body bytes (chunked framing left in)
/// have come.
pub fn read_head_and_some(stream: &mut TcpStream, want: usize) -> (u16, String) {
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = stream.read(&mut buf).expect("read");
        assert!(n > 0, "the answer ended: {}", String::from_utf8_lossy(&raw));
        raw.extend_from_slice(&buf[..n]);
        if let Some(end) = find(&raw, b"\r\n\r\n")
            && raw.len() >= end + 4 + want
        {
            let head = String::from_utf8_lossy(&raw[..end]).into_owned();
            let status = head[9..12].parse().expect("status");
            return (status, head);
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn parse(raw: &[u8]) -> Answer {
    let end = find(raw, b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no head in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..end]).into_owned();
    let mut lines = head.lines();
    let status = lines.next().expect("status line")[9..12]
        .parse()
        .expect("status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[end + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Answer {
        status,
        headers,
        body,
    }
}

fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = find(raw, b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&raw[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.extend_from_slice(&raw[eol + 2..eol + 2 + size]);
        raw = &raw[eol + 2 + size + 2..];
    }
    out
}

/// A gRPC-web call's body: one message in a frame.
pub fn frame(msg: &impl Message) -> Vec<u8> {
    let bytes = msg.encode_to_vec();
    let mut out = vec![0u8];
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(&bytes);
    out
}

/// Calls `/signaltty.v1.<method>` as the page does, with `cookie` (a token, or none).
pub fn grpc_web(web: &Web, method: &str, cookie: Option<&str>, msg: &impl Message) -> Answer {
    let host = web.host();
    let origin = format!("http://{host}");
    let cookie = cookie.map(|c| format!("signaltty_token={c}"));
    let mut headers = vec![
        ("Host", host.as_str()),
        ("Origin", origin.as_str()),
        ("Content-Type", "application/grpc-web+proto"),
        ("X-Grpc-Web", "1"),
    ];
    if let Some(c) = &cookie {
        headers.push(("Cookie", c));
    }
    request(
        web.addr,
        "POST",
        &format!("/signaltty.v1.{method}"),
        &headers,
        &frame(msg),
    )
}

/// Socket inodes of TCP sockets in LISTEN state (IPv4 and IPv6).
pub fn listening_inodes() -> Vec<String> {
    let mut out = Vec::new();
    for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            if cols.len() > 9 && cols[3] == "0A" {
                out.push(cols[9].to_string());
            }
        }
    }
    out
}

/// Whether process `pid` holds a TCP socket that listens.
pub fn listens(pid: u32) -> bool {
    let listening = listening_inodes();
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(Result::ok)
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .filter_map(|l| {
            l.to_str()
                .and_then(|s| s.strip_prefix("socket:["))
                .map(|s| s.trim_end_matches(']').to_string())
        })
        .any(|inode| listening.contains(&inode))
}
