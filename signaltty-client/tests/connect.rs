//! Connecting to the real server: auto-start, reuse of a running server, reconnect with backoff,
//! and the attach driver end to end (snapshot, output, resize, exit).

mod common;

use std::time::Duration;

use common::{World, step};
use signaltty_client::{AttachEvent, AttachStart, AutoStart, Backoff, ClientError};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_start_starts_one_server_and_later_connects_reuse_it() {
    let world = World::new();
    let err = signaltty_client::connect(&world.target, AutoStart::No)
        .await
        .expect_err("no server yet");
    assert!(matches!(err, ClientError::NoServer { .. }), "{err:?}");

    let client = world.start().await;
    let first = step(client.status()).await.expect("status");
    assert!(first.pid > 0);
    assert_eq!(client.socket(), world.target.socket);

    let again = step(signaltty_client::connect(&world.target, AutoStart::Yes))
        .await
        .expect("connect to the running server");
    let second = step(again.status()).await.expect("status");
    assert_eq!(second.pid, first.pid, "a second server was started");
    world.stop(&client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnect_retries_until_a_server_answers() {
    let world = World::new();
    let ms = Duration::from_millis;
    let mut backoff = Backoff::with_limits(ms(20), ms(200), 11);
    let mut waits = 0;
    let target = world.target.clone();
    let client = step(signaltty_client::reconnect(
        &world.target,
        AutoStart::No,
        &mut backoff,
        |err, _delay| {
            assert!(err.is_retryable(), "{err:?}");
            waits += 1;
            // The server comes back while the client waits (as after a restart).
            if waits == 2 {
                let target = target.clone();
                tokio::spawn(
                    async move { signaltty_client::autostart::start_server(&target).await },
                );
            }
        },
    ))
    .await
    .expect("reconnected");
    assert!(waits >= 2, "connected before the server was started");
    assert_eq!(backoff.attempts(), 0, "a success resets the backoff");
    let status = step(client.status()).await.expect("status");
    *world.pid_slot() = Some(status.pid);
    world.stop(&client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_attach_driver_yields_snapshot_output_resize_and_exit() {
    let world = World::new();
    let client = world.start().await;
    let pane_id = world.cat_pane(&client, "attach").await.id;

    let bad = step(client.attach(AttachStart::new("pane_nope", 80, 24))).await;
    let Err(ClientError::Server { reason, .. }) = bad else {
        panic!("attaching to no pane must fail with the server's reason: {bad:?}")
    };
    assert!(reason.is_some(), "the server gives a stable reason");

    let (mut events, input) = step(client.attach(AttachStart::new(&pane_id, 80, 24)))
        .await
        .expect("attach")
        .split();
    let Some(AttachEvent::Snapshot(snapshot)) = step(events.next()).await.expect("first event")
    else {
        panic!("the first event is a Snapshot")
    };
    assert_eq!((snapshot.cols, snapshot.rows), (80, 24));
    let mut offset = snapshot.offset;

    input.input(b"hello driver\r".to_vec()).await;
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains("hello driver") {
        match step(events.next()).await.expect("event") {
            Some(AttachEvent::Output { data, end_offset }) => {
                assert_eq!(end_offset, offset + data.len() as u64, "output has no gaps");
                offset = end_offset;
                seen.extend_from_slice(&data);
            }
            Some(other) => panic!("unexpected {other:?}"),
            None => panic!("the stream ended"),
        }
    }

    input.resize(100, 30).await;
    loop {
        match step(events.next()).await.expect("event") {
            Some(AttachEvent::Resized { cols, rows }) => {
                assert_eq!((cols, rows), (100, 30));
                break;
            }
            Some(AttachEvent::Output { .. }) => {}
            other => panic!("unexpected {other:?}"),
        }
    }

    // Ctrl-D at the start of a line ends `cat`.
    input.input(vec![0x04]).await;
    loop {
        match step(events.next()).await.expect("event") {
            Some(AttachEvent::Exited { code }) => {
                assert_eq!(code, 0);
                break;
            }
            Some(AttachEvent::Output { .. } | AttachEvent::Resized { .. }) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    world.stop(&client).await;
}

/// The default socket's directory (`/tmp/signaltty-$UID`) does not exist before the first
/// server: that is "no server", so auto-start runs, and the server creates it private.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_start_works_when_the_socket_directory_does_not_exist_yet() {
    use std::os::unix::fs::MetadataExt;
    let mut world = World::new();
    let dir = world.dir.path().join("signaltty-run");
    world.target.socket = dir.join("signaltty.sock");
    let client = world.start().await;
    let meta = std::fs::metadata(&dir).expect("the server made the directory");
    assert_eq!(meta.mode() & 0o777, 0o700);
    world.stop(&client).await;
}

/// A server that dies under an attach ends the events with something a client can retry on,
/// and `reconnect` (with auto-start) brings a new server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_ends_the_attach_retryably_and_reconnect_recovers() {
    let world = World::new();
    let client = world.start().await;
    let pane = world.cat_pane(&client, "kill").await;
    let mut attach = step(client.attach(AttachStart::new(&pane.id, 80, 24)))
        .await
        .expect("attach");
    assert!(matches!(
        step(attach.events.next()).await,
        Ok(Some(AttachEvent::Snapshot(_)))
    ));

    let old_pid = world.pid_slot().take().expect("a server pid");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(old_pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill the server");
    loop {
        match step(attach.events.next()).await {
            Ok(Some(AttachEvent::Output { .. })) => {}
            Ok(None) => break,
            Err(err) => {
                assert!(err.is_retryable(), "{err:?}");
                break;
            }
            Ok(Some(other)) => panic!("unexpected {other:?}"),
        }
    }

    let ms = Duration::from_millis;
    let mut backoff = Backoff::with_limits(ms(10), ms(100), 1);
    let again = step(signaltty_client::reconnect(
        &world.target,
        AutoStart::Yes,
        &mut backoff,
        |_, _| {},
    ))
    .await
    .expect("a new server");
    let status = step(again.status()).await.expect("status");
    *world.pid_slot() = Some(status.pid);
    assert_ne!(status.pid, old_pid);
    world.stop(&again).await;
}
