//! Every request and reply, with descriptors, through a real socket pair: what is sent is what
//! is received.

use std::os::fd::AsFd;

use proptest::prelude::*;
use tokio::net::UnixStream;

use super::*;

fn pane() -> impl Strategy<Value = String> {
    "[a-z0-9_]{1,24}"
}

fn text() -> impl Strategy<Value = String> {
    "[^\n\r]{0,60}"
}

fn rect() -> impl Strategy<Value = Rect> {
    (any::<u16>(), any::<u16>(), 1..=u16::MAX, 1..=u16::MAX).prop_map(|(col, row, cols, rows)| {
        Rect {
            col,
            row,
            cols,
            rows,
        }
    })
}

fn request() -> impl Strategy<Value = Request> {
    prop_oneof![
        ("[^\n\r]{1,40}", any::<bool>(), any::<bool>(), any::<u8>()).prop_map(
            |(pane, read_only, mark_seen, detach_key)| Request::HandOff(HandOff {
                pane,
                read_only,
                mark_seen,
                detach_key,
            })
        ),
        pane().prop_map(|pane| Request::Input { pane }),
        (pane(), rect()).prop_map(|(pane, rect)| Request::Paint { pane, rect }),
        Just(Request::Go),
        Just(Request::Resize),
        Just(Request::Stop),
        Just(Request::Resume),
        "\\PC{0,40}".prop_map(|excluded| Request::Lend { excluded }),
        Just(Request::Release),
    ]
}

fn reply() -> impl Strategy<Value = Reply> {
    prop_oneof![
        Just(Reply::Ready),
        text().prop_map(Reply::Refused),
        Just(Reply::End(End::Detached)),
        any::<i32>().prop_map(|code| Reply::End(End::Exited(code))),
        Just(Reply::End(End::Closed)),
        Just(Reply::End(End::Shutdown)),
        text().prop_map(|why| Reply::End(End::Failed(why))),
        Just(Reply::Notice(Notice::Skipped)),
        Just(Reply::Notice(Notice::Stopped)),
        Just(Reply::Notice(Notice::Damaged)),
        prop::collection::vec(any::<u8>(), 0..=MAX_BYTES).prop_map(Reply::Back),
    ]
}

/// Sends every message of `messages` with `fds` descriptors (of /dev/null) each, back to back,
/// and reads them on the other end: the same messages, each with its own descriptors, open.
fn round_trip<M: Message + Clone + PartialEq + std::fmt::Debug>(messages: &[M], fds: usize) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let (a, b) = UnixStream::pair().expect("pair");
        let (a, mut b) = (Conn::new(a), Conn::new(b));
        let files: Vec<std::fs::File> = (0..fds)
            .map(|_| std::fs::File::open("/dev/null").expect("/dev/null"))
            .collect();
        let borrowed: Vec<_> = files.iter().map(AsFd::as_fd).collect();
        let send = async {
            for message in messages {
                a.send(message, &borrowed).await.expect("send");
            }
            drop(a);
        };
        let receive = async {
            let mut got = Vec::new();
            while let Some((message, fds)) = b.recv_with_fds::<M>().await.expect("receive") {
                for fd in &fds {
                    nix::sys::stat::fstat(fd).expect("an open descriptor");
                }
                got.push((message, fds.len()));
            }
            got
        };
        let ((), got) = tokio::join!(send, receive);
        let expected: Vec<_> = messages.iter().map(|m| (m.clone(), fds)).collect();
        assert_eq!(got, expected);
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn requests_round_trip_with_descriptors(
        requests in prop::collection::vec(request(), 1..4),
        fds in 0usize..=3,
    ) {
        round_trip(&requests, fds);
    }

    #[test]
    fn replies_round_trip_with_descriptors(
        replies in prop::collection::vec(reply(), 1..4),
        fds in 0usize..=3,
    ) {
        round_trip(&replies, fds);
    }
}

#[tokio::test]
async fn a_terminal_travels_with_its_request_and_the_answer_is_awaited() {
    let (client, server) = UnixStream::pair().expect("pair");
    let (mut client, mut server) = (Conn::new(client), Conn::new(server));
    let pty = nix::pty::openpty(None, None).expect("openpty");
    let asked = Request::Paint {
        pane: "pane_9".into(),
        rect: Rect {
            col: 7,
            row: 3,
            cols: 80,
            rows: 24,
        },
    };
    let serve = async {
        let (request, fds) = server
            .recv_with_fds::<Request>()
            .await
            .expect("recv")
            .expect("a request");
        assert_eq!(request, asked);
        assert_eq!(fds.len(), 1);
        assert!(nix::unistd::isatty(&fds[0]).expect("isatty"));
        // A notice right behind `ready` (one write) stays for the client's next read.
        server
            .send_bytes(b"ready\nskipped\n", &[])
            .await
            .expect("ready");
    };
    let terminal = [pty.slave.as_fd()];
    let (granted, ()) = tokio::join!(
        client.ask(&asked, &terminal, std::time::Duration::from_secs(2)),
        serve
    );
    assert!(granted.expect("granted").is_empty());
    assert_eq!(
        client.recv::<Reply>().await.expect("read"),
        Some(Reply::Notice(Notice::Skipped))
    );
}

#[tokio::test]
async fn a_line_that_does_not_parse_says_why() {
    let (a, b) = UnixStream::pair().expect("pair");
    let (a, mut b) = (Conn::new(a), Conn::new(b));
    a.send_bytes(b"paint 1 p 0 0 0 5\n", &[])
        .await
        .expect("send");
    let err = b.recv::<Request>().await.expect_err("refused");
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
    assert!(err.to_string().contains("1×1"), "{err}");
}
