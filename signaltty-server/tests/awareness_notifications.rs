//! Attention from a pane's own output and from the API, against a real server with real panes:
//! OSC notifications and bells raise attention, MarkSeen and attach-with-mark_seen clear it (but
//! never a pending decision's), Notify raises by severity, NextUnread ranks panes, WaitPane
//! waits on the event stream, and a pane flooding OSC notifications is rate limited.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod clients;
mod common;

use common::{TestServer, WAIT, assert_error, spawn, until_event};
use signaltty_proto::v1 as pb;
use tonic::Code;

/// MarkSeen of `pane`; the call must succeed.
async fn mark_seen(srv: &TestServer, pane: &str) -> pb::MarkSeenResponse {
    srv.panes()
        .mark_seen(pb::MarkSeenRequest {
            pane_id: pane.into(),
        })
        .await
        .expect("MarkSeen")
        .into_inner()
}

/// The next AttentionChanged of `pane` on `events`.
async fn attention_change(
    events: &mut tonic::Streaming<pb::SubscribeResponse>,
    pane: &str,
) -> pb::AttentionChanged {
    until_event(events, |k| match k {
        pb::event::Kind::AttentionChanged(a) if a.pane_id == pane => Some(a.clone()),
        _ => None,
    })
    .await
}

async fn notify(
    srv: &TestServer,
    pane: &str,
    body: &str,
    severity: pb::Severity,
) -> pb::Notification {
    srv.notifications()
        .notify(pb::NotifyRequest {
            pane_id: pane.into(),
            title: "t".into(),
            body: body.into(),
            severity: severity as i32,
        })
        .await
        .expect("notify")
        .into_inner()
        .notification
        .expect("notification")
}

#[tokio::test]
async fn an_osc_notification_raises_unread_and_mark_seen_clears_it_but_not_a_decision() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let mut events = srv
        .subscribe(&[pb::EventKind::Notification, pb::EventKind::Attention])
        .await;
    let pane = spawn(
        &srv,
        &ws.id,
        &[
            "sh",
            "-c",
            r"printf '\033]777;notify;Build;done\007'; exec sleep 600",
        ],
    )
    .await;
    let n = until_event(&mut events, |k| match k {
        pb::event::Kind::NotificationCreated(n) => n.notification.clone(),
        _ => None,
    })
    .await;
    assert_eq!(n.pane_id, pane.id);
    assert_eq!(n.workspace_id, ws.id);
    assert_eq!((n.title.as_str(), n.body.as_str()), ("Build", "done"));
    assert_eq!(n.source, pb::NotificationSource::Osc as i32);
    assert_eq!(n.severity, pb::Severity::Info as i32);
    let change = attention_change(&mut events, &pane.id).await;
    assert_eq!(change.new, pb::Attention::Unread as i32);
    assert_eq!(change.source, pb::ChangeSource::Osc as i32);
    let p = srv.pane(&pane.id).await;
    assert_eq!(p.attention, pb::Attention::Unread as i32);
    assert_eq!(p.last_message, "Build: done");

    let seen = mark_seen(&srv, &pane.id).await;
    assert_eq!(seen.pane.unwrap().attention, pb::Attention::None as i32);
    let cleared = attention_change(&mut events, &pane.id).await;
    assert_eq!(
        (cleared.new, cleared.source),
        (pb::Attention::None as i32, pb::ChangeSource::Api as i32)
    );
    let unread = srv
        .notifications()
        .list_notifications(pb::ListNotificationsRequest {
            unread_only: true,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        unread.notifications.is_empty(),
        "MarkSeen reads the pane's notifications"
    );

    // A permission request nobody waits for: a read-only decision that MarkSeen keeps.
    let reply = srv
        .agents()
        .report_hook_event(pb::ReportHookEventRequest {
            agent: pb::AgentKind::Claude as i32,
            event: "PermissionRequest".into(),
            payload: br#"{"tool_name":"Bash","tool_input":{"command":"make"}}"#.to_vec(),
            pane_id: pane.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(reply.decision_id.starts_with("dec_"), "{reply:?}");
    assert_eq!(reply.verdict, pb::Verdict::Unspecified as i32);
    assert_eq!(reply.wait_end_reason, "");
    let seen = mark_seen(&srv, &pane.id).await;
    let p = seen.pane.unwrap();
    assert_eq!(p.attention, pb::Attention::PermissionRequired as i32);
    let d = p.pending_decision.expect("the decision survives MarkSeen");
    assert_eq!(d.id, reply.decision_id);
    assert!(!d.answerable);
    assert_eq!(
        (d.prompt.as_str(), d.tool_name.as_str(), d.detail.as_str()),
        ("Allow Bash?\nmake", "Bash", "make")
    );
    // Attaching with mark_seen is the same explicit act, with the same exception.
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    tx.send(pb::AttachRequest {
        kind: Some(pb::attach_request::Kind::Start(pb::attach_request::Start {
            pane_id: pane.id.clone(),
            cols: 80,
            rows: 24,
            mark_seen: true,
            read_only: true,
        })),
    })
    .await
    .unwrap();
    let mut attached = srv
        .panes()
        .attach(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    common::next(&mut attached).await;
    assert_eq!(
        srv.pane(&pane.id).await.attention,
        pb::Attention::PermissionRequired as i32
    );
}

#[tokio::test]
async fn a_bell_raises_unread_and_attach_with_mark_seen_clears_it() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let mut events = srv.subscribe(&[pb::EventKind::Attention]).await;
    let pane = spawn(
        &srv,
        &ws.id,
        &["sh", "-c", r"printf 'ding\a'; exec sleep 600"],
    )
    .await;
    let raised = attention_change(&mut events, &pane.id).await;
    assert_eq!(
        (raised.new, raised.source),
        (pb::Attention::Unread as i32, pb::ChangeSource::Bell as i32)
    );
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    tx.send(pb::AttachRequest {
        kind: Some(pb::attach_request::Kind::Start(pb::attach_request::Start {
            pane_id: pane.id.clone(),
            cols: 80,
            rows: 24,
            mark_seen: true,
            read_only: false,
        })),
    })
    .await
    .unwrap();
    let _attached = srv
        .panes()
        .attach(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap();
    let cleared = attention_change(&mut events, &pane.id).await;
    assert_eq!(
        (cleared.new, cleared.source),
        (pb::Attention::None as i32, pb::ChangeSource::Client as i32)
    );
}

#[tokio::test]
async fn notify_raises_by_severity_and_next_unread_ranks_by_severity_then_recency() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let other = srv.workspace("other").await;
    let a = spawn(&srv, &ws.id, &["sleep", "600"]).await;
    let b = spawn(&srv, &ws.id, &["sleep", "600"]).await;
    let c = spawn(&srv, &other.id, &["sleep", "600"]).await;
    let next = |ws: &str| {
        let mut client = srv.notifications();
        let ws = ws.to_owned();
        async move {
            client
                .next_unread(pb::NextUnreadRequest { workspace_id: ws })
                .await
                .unwrap()
                .into_inner()
        }
    };
    assert!(next("").await.pane.is_none(), "nobody needs the user yet");

    notify(&srv, &a.id, "careful", pb::Severity::Warning).await;
    let failed = notify(&srv, &b.id, "failed", pb::Severity::Error).await;
    notify(&srv, &c.id, "fyi", pb::Severity::Unspecified).await;
    assert_eq!(
        srv.pane(&a.id).await.attention,
        pb::Attention::Warning as i32
    );
    assert_eq!(srv.pane(&b.id).await.attention, pb::Attention::Error as i32);
    assert_eq!(
        srv.pane(&c.id).await.attention,
        pb::Attention::Unread as i32
    );

    let top = next("").await;
    assert_eq!(top.pane.unwrap().id, b.id, "error beats warning");
    assert_eq!(top.notification.unwrap().id, failed.id);
    assert_eq!(
        next(&other.id).await.pane.unwrap().id,
        c.id,
        "filtered by workspace"
    );

    mark_seen(&srv, &b.id).await;
    assert_eq!(next("").await.pane.unwrap().id, a.id);
    // Equal severity: the most recent change wins.
    notify(&srv, &c.id, "broke", pb::Severity::Error).await;
    notify(&srv, &a.id, "broke too", pb::Severity::Error).await;
    assert_eq!(next("").await.pane.unwrap().id, a.id);
    notify(&srv, &c.id, "again", pb::Severity::Error).await;
    assert_eq!(
        next("").await.pane.unwrap().id,
        a.id,
        "an error on an already-error pane is no new change"
    );
    mark_seen(&srv, &a.id).await;
    assert_eq!(next("").await.pane.unwrap().id, c.id);

    // Listing: newest first, filters, limit; marking read by id and by pane.
    let list = |unread_only: bool, pane: &str, ws: &str, limit: u32| {
        let mut client = srv.notifications();
        let req = pb::ListNotificationsRequest {
            unread_only,
            pane_id: pane.into(),
            workspace_id: ws.into(),
            limit,
        };
        async move {
            client
                .list_notifications(req)
                .await
                .unwrap()
                .into_inner()
                .notifications
        }
    };
    let all = list(false, "", "", 0).await;
    assert_eq!(all.len(), 6);
    assert_eq!(all[0].body, "again");
    assert_eq!(list(false, "", "", 2).await.len(), 2);
    assert_eq!(list(false, "", &other.id, 0).await.len(), 3);
    assert_eq!(list(true, "", "", 0).await.len(), 3, "a and b were seen");
    let marked = srv
        .notifications()
        .mark_notification_read(pb::MarkNotificationReadRequest {
            notification_id: all[0].id.clone(),
            pane_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(marked.marked, 1);
    let marked = srv
        .notifications()
        .mark_notification_read(pb::MarkNotificationReadRequest {
            notification_id: String::new(),
            pane_id: c.id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(marked.marked, 2);
    assert!(list(true, "", "", 0).await.is_empty());
    assert_eq!(
        srv.pane(&c.id).await.attention,
        pb::Attention::Error as i32,
        "reading notifications is not MarkSeen"
    );

    assert_error(
        srv.notifications()
            .mark_notification_read(pb::MarkNotificationReadRequest::default())
            .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    assert_error(
        srv.notifications()
            .notify(pb::NotifyRequest {
                body: " ".into(),
                ..Default::default()
            })
            .await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    assert_error(
        srv.notifications()
            .notify(pb::NotifyRequest {
                pane_id: "pane_gone".into(),
                body: "x".into(),
                ..Default::default()
            })
            .await,
        Code::NotFound,
        "NO_SUCH_PANE",
    );
    let global = notify(&srv, "", "server-wide", pb::Severity::Warning).await;
    assert_eq!(
        (global.pane_id.as_str(), global.workspace_id.as_str()),
        ("", "")
    );
}

#[tokio::test]
async fn wait_pane_waits_on_transitions_with_baselines_and_deadlines() {
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let pane = spawn(
        &srv,
        &ws.id,
        &["sh", "-c", r"read x; printf '\a'; read y; exit 0"],
    )
    .await;
    let wait = |until_attention: Vec<pb::Attention>,
                until_lifecycle: Vec<pb::Lifecycle>,
                after_seq: u64,
                timeout_ms: u32| {
        let mut client = srv.panes();
        let req = pb::WaitPaneRequest {
            pane_id: pane.id.clone(),
            until_lifecycle: until_lifecycle.into_iter().map(|l| l as i32).collect(),
            until_attention: until_attention.into_iter().map(|a| a as i32).collect(),
            after_seq,
            timeout_ms,
        };
        async move { client.wait_pane(req).await }
    };
    assert_error(
        wait(vec![], vec![], 0, 0).await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    assert_error(
        wait(vec![pb::Attention::Unspecified], vec![], 0, 0).await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );
    // Nothing happens: the deadline answers.
    assert_error(
        wait(vec![pb::Attention::Unread], vec![], 0, 300).await,
        Code::DeadlineExceeded,
        "TIMEOUT",
    );

    let before_bell = srv.head().await;
    let waiter = tokio::spawn(wait(
        vec![pb::Attention::Unread],
        vec![],
        before_bell,
        20_000,
    ));
    srv.write_input(&pane.id, b"\n").await.unwrap();
    let done = tokio::time::timeout(WAIT, waiter)
        .await
        .unwrap()
        .unwrap()
        .unwrap()
        .into_inner();
    assert!(done.seq > before_bell);
    assert_eq!(done.pane.unwrap().attention, pb::Attention::Unread as i32);
    let bell_seq = done.seq;

    // The state holds now: without a baseline that is enough; with one it is not.
    let now = wait(vec![pb::Attention::Unread], vec![], 0, 300)
        .await
        .unwrap()
        .into_inner();
    assert!(now.seq >= bell_seq);
    assert_error(
        wait(vec![pb::Attention::Unread], vec![], bell_seq, 300).await,
        Code::DeadlineExceeded,
        "TIMEOUT",
    );
    // A baseline before the transition replays it.
    let replayed = wait(vec![pb::Attention::Unread], vec![], before_bell, 300)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(replayed.seq, bell_seq);
    assert_error(
        wait(vec![pb::Attention::Unread], vec![], u64::MAX / 2, 300).await,
        Code::InvalidArgument,
        "BAD_PARAMS",
    );

    // The exit ends a wait for something else.
    let waiter = tokio::spawn(wait(
        vec![],
        vec![pb::Lifecycle::Working],
        srv.head().await,
        20_000,
    ));
    srv.write_input(&pane.id, b"\n").await.unwrap();
    let exited = tokio::time::timeout(WAIT, waiter)
        .await
        .unwrap()
        .unwrap()
        .unwrap()
        .into_inner();
    let p = exited.pane.unwrap();
    assert_eq!(p.status, pb::PaneStatus::Exited as i32);
    assert_eq!(
        p.lifecycle,
        pb::Lifecycle::Done as i32,
        "a plain command that exits 0 is done"
    );
    assert_error(
        srv.panes()
            .wait_pane(pb::WaitPaneRequest {
                pane_id: "pane_nothere".into(),
                until_lifecycle: vec![pb::Lifecycle::Done as i32],
                ..Default::default()
            })
            .await,
        Code::NotFound,
        "NO_SUCH_PANE",
    );
}

#[tokio::test]
async fn a_pane_flooding_osc_notifications_is_rate_limited() {
    use signaltty_server::pane::notify_limit::{BURST, PER_SECOND};
    let srv = TestServer::start().await;
    let ws = srv.workspace("w").await;
    let mut events = srv.subscribe(&[pb::EventKind::Notification]).await;
    let started = std::time::Instant::now();
    // 300 notifications as fast as sh can print them, then one more after the bucket refilled.
    let pane = spawn(
        &srv,
        &ws.id,
        &[
            "sh",
            "-c",
            r#"i=0; while [ $i -lt 300 ]; do printf '\033]9;n%d\007' $i; i=$((i+1)); done
               sleep 1; printf '\033]9;after\007'; exec sleep 600"#,
        ],
    )
    .await;
    // The late one arrives (the subscriber was not pushed out by the flood), and the actor
    // reports in output order, so every flood notification it kept is stored by now.
    until_event(&mut events, |k| match k {
        pb::event::Kind::NotificationCreated(n) => n
            .notification
            .as_ref()
            .filter(|n| n.body == "after")
            .map(drop),
        _ => None,
    })
    .await;
    let elapsed = started.elapsed().as_secs_f64();
    let listed = srv
        .notifications()
        .list_notifications(pb::ListNotificationsRequest {
            pane_id: pane.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .notifications;
    let flood = listed.iter().filter(|n| n.body.starts_with('n')).count();
    let most = BURST as usize + (elapsed * f64::from(PER_SECOND)).ceil() as usize;
    assert!(
        (BURST as usize..=most).contains(&flood),
        "{flood} of 300 flood notifications kept in {elapsed:.1} s (burst {BURST}, {PER_SECOND}/s)"
    );
    // The first ones are the ones kept.
    assert!(listed.iter().any(|n| n.body == "n0"));
}
