//! Errors a client can read (issue 14 §3 and §5), against a real in-process server: malformed
//! protobuf is INVALID_ARGUMENT, oversized input is RESOURCE_EXHAUSTED whatever its size, error
//! messages quote at most ~100 characters of the input, attach misuse ends the stream with an
//! explicit error, and connections past the cap are refused clearly.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use bytes::{Buf, BufMut};
use common::{TestServer, WAIT, attach, spawn};
use signaltty_proto::v1 as pb;
use tonic::Code;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic_types::StatusExt;

/// Sends and receives message bodies as raw bytes, to put bytes on the wire no encoder would.
#[derive(Clone, Copy, Default)]
struct Raw;

impl Codec for Raw {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = Raw;
    type Decoder = Raw;
    fn encoder(&mut self) -> Raw {
        Raw
    }
    fn decoder(&mut self) -> Raw {
        Raw
    }
}

impl Encoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), tonic::Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for Raw {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, tonic::Status> {
        let v = src.chunk().to_vec();
        src.advance(v.len());
        Ok(Some(v))
    }
}

fn reason(status: &tonic::Status) -> String {
    status
        .get_error_details()
        .error_info()
        .map(|i| i.reason.clone())
        .unwrap_or_default()
}

async fn raw_call(srv: &TestServer, path: &'static str, body: Vec<u8>) -> tonic::Status {
    let mut grpc = tonic::client::Grpc::new(srv.channel.clone());
    grpc.ready().await.unwrap();
    grpc.unary(
        tonic::Request::new(body),
        tonic::codegen::http::uri::PathAndQuery::from_static(path),
        Raw,
    )
    .await
    .expect_err("refused")
}

#[tokio::test]
async fn malformed_protobuf_is_invalid_argument_with_a_reason() {
    let srv = TestServer::start().await;
    // A string field (1) holding bytes that are not UTF-8, and plain garbage.
    for body in [vec![0x0a, 0x02, 0xff, 0xfe], vec![0xff; 12]] {
        for path in [
            "/signaltty.v1.NotificationService/Notify",
            "/signaltty.v1.PaneService/GetPane",
            "/signaltty.v1.WorkspaceService/CreateWorkspace",
        ] {
            let status = raw_call(&srv, path, body.clone()).await;
            assert_eq!(status.code(), Code::InvalidArgument, "{path}: {status:?}");
            assert_eq!(reason(&status), "BAD_ENCODING", "{path}");
        }
    }
}

#[tokio::test]
async fn write_input_over_the_limit_is_resource_exhausted_at_any_size() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let pane = spawn(&srv, &ws.id, &["sh", "-c", "exec sleep 600"]).await;
    for len in [(1 << 20) + 1, 5 << 20, 17 << 20] {
        let status = srv
            .write_input(&pane.id, &vec![b'x'; len])
            .await
            .expect_err("too large");
        assert_eq!(status.code(), Code::ResourceExhausted, "{len}: {status:?}");
        assert_eq!(reason(&status), "INPUT_TOO_LARGE", "{len}");
    }
}

#[tokio::test]
async fn error_messages_quote_at_most_about_100_characters_of_the_input() {
    let srv = TestServer::start().await;
    let huge = "\u{1b}]0;evil\u{7}".to_owned() + &"x".repeat(1 << 20);
    let status = srv
        .panes()
        .get_pane(pb::GetPaneRequest {
            pane_id: huge.clone(),
        })
        .await
        .expect_err("bad id");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(
        status.message().len() < 400,
        "{} bytes",
        status.message().len()
    );
    assert!(!status.message().contains('\u{1b}'), "escaped, never raw");
    let status = srv
        .workspaces()
        .create_workspace(pb::CreateWorkspaceRequest {
            name: "w".into(),
            cwd: huge,
            ..Default::default()
        })
        .await
        .expect_err("bad cwd");
    assert!(status.message().len() < 400, "{}", status.message().len());
}

async fn attach_error(
    srv: &TestServer,
    pane: &str,
    read_only: bool,
    msg: pb::attach_request::Kind,
) -> tonic::Status {
    let (mut client, _) = attach(srv, pane, 80, 24, read_only).await;
    client
        .tx
        .send(pb::AttachRequest { kind: Some(msg) })
        .await
        .unwrap();
    loop {
        match tokio::time::timeout(WAIT, client.rx.message()).await {
            Ok(Ok(Some(_))) => continue,
            Ok(Ok(None)) => panic!("the stream ended with OK"),
            Ok(Err(status)) => return status,
            Err(_) => panic!("no error in time"),
        }
    }
}

#[tokio::test]
async fn attach_misuse_ends_the_stream_with_an_explicit_error() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let pane = spawn(&srv, &ws.id, &["sh", "-c", "exec sleep 600"]).await;
    let input = |data: Vec<u8>| pb::attach_request::Kind::Input(pb::attach_request::Input { data });

    let s = attach_error(&srv, &pane.id, false, input(vec![b'x'; (1 << 20) + 1])).await;
    assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
    assert_eq!(reason(&s), "INPUT_TOO_LARGE");

    let s = attach_error(&srv, &pane.id, true, input(b"ls\n".to_vec())).await;
    assert_eq!(s.code(), Code::InvalidArgument, "{s:?}");
    assert!(s.message().contains("read-only"), "{s:?}");

    let start = pb::attach_request::Kind::Start(pb::attach_request::Start {
        pane_id: pane.id.clone(),
        cols: 80,
        rows: 24,
        ..Default::default()
    });
    let s = attach_error(&srv, &pane.id, false, start).await;
    assert_eq!(s.code(), Code::InvalidArgument, "{s:?}");
    assert!(s.message().contains("already started"), "{s:?}");
}

#[tokio::test]
async fn connections_past_the_cap_are_refused_clearly() {
    let srv = TestServer::start_with(|c| c.max_connections = 2).await;
    // The harness's channel is one; one more fits.
    let second = signaltty_proto::connect(srv.socket()).await.unwrap();
    let mut ok = pb::server_service_client::ServerServiceClient::new(second);
    ok.get_status(pb::GetStatusRequest {})
        .await
        .expect("within the cap");
    let third = signaltty_proto::connect(srv.socket()).await.unwrap();
    let status = pb::server_service_client::ServerServiceClient::new(third)
        .get_status(pb::GetStatusRequest {})
        .await
        .expect_err("over the cap");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(reason(&status), "TOO_MANY_CONNECTIONS");
    assert!(
        status.message().contains("close idle clients"),
        "{status:?}"
    );
}

#[tokio::test]
async fn silent_connections_neither_fill_the_cap_nor_stay_open() {
    use tokio::io::AsyncReadExt;
    let srv = TestServer::start_with(|c| {
        c.max_connections = 4;
        c.preface_timeout = std::time::Duration::from_millis(500);
    })
    .await;
    // Far more connections than the cap, none of which ever says a word.
    let mut silent = Vec::new();
    for _ in 0..40 {
        silent.push(tokio::net::UnixStream::connect(srv.socket()).await.unwrap());
    }
    // A client that speaks is served: silent connections are not counted.
    let channel = signaltty_proto::connect(srv.socket()).await.unwrap();
    pb::server_service_client::ServerServiceClient::new(channel)
        .get_status(pb::GetStatusRequest {})
        .await
        .expect("a real client is not locked out by silent connections");
    // And every silent one is closed by the server once its preface is overdue.
    for mut raw in silent {
        // The server's own SETTINGS frame comes first, then the end.
        let mut got = Vec::new();
        let _ = tokio::time::timeout(WAIT, raw.read_to_end(&mut got))
            .await
            .expect("the server closes a connection that never sent the preface");
    }
}

#[tokio::test]
async fn get_status_says_how_many_panes_fit() {
    let srv = TestServer::start().await;
    let status = srv.status().await;
    assert!(status.fd_limit > 0);
    assert!(status.open_fds > 0 && status.open_fds < status.fd_limit);
    assert_eq!(
        u64::from(status.panes_that_fit),
        (status.fd_limit - status.open_fds).saturating_sub(64) / 4
    );
}

/// Reads from a raw connection that spoke the HTTP/2 preface and then went silent (never
/// acknowledging a ping) until the server closes it; returns whether it did within `within`.
async fn closed_within(srv: &TestServer, within: std::time::Duration) -> bool {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut raw = tokio::net::UnixStream::connect(srv.socket()).await.unwrap();
    raw.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .await
        .unwrap();
    // An empty SETTINGS frame: length 0, type 4, no flags, stream 0.
    raw.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).await.unwrap();
    let mut buf = [0u8; 4096];
    tokio::time::timeout(within, async {
        loop {
            match raw.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await
    .is_ok()
}

#[tokio::test]
async fn a_peer_that_stops_answering_pings_is_disconnected() {
    let quick = TestServer::start_with(|c| {
        c.keepalive_interval = std::time::Duration::from_millis(200);
        c.keepalive_timeout = std::time::Duration::from_millis(200);
    })
    .await;
    assert!(
        closed_within(&quick, WAIT).await,
        "a silent peer is closed after the keepalive timeout"
    );
    // With the default keepalive (60 s) the same peer is not closed at once: it was the ping.
    let default = TestServer::start().await;
    assert!(!closed_within(&default, std::time::Duration::from_secs(2)).await);
}
