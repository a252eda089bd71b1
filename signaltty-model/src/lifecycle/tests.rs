use super::*;
use proptest::prelude::*;

fn t(secs: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
}

#[test]
fn names_round_trip_and_unknown_names_are_refused() {
    for l in Lifecycle::ALL {
        assert_eq!(Lifecycle::parse(l.as_str()), Ok(l));
        assert_eq!(
            serde_json::to_string(&l).expect("serialize"),
            format!("\"{l}\"")
        );
    }
    for a in Attention::ALL {
        assert_eq!(a.as_str().parse::<Attention>(), Ok(a));
        assert_eq!(
            serde_json::to_string(&a).expect("serialize"),
            format!("\"{a}\"")
        );
    }
    for c in ChangeSource::ALL {
        assert_eq!(ChangeSource::parse(c.as_str()), Ok(c));
    }
    assert!(Lifecycle::parse("Working").is_err());
    assert!(Attention::parse("permission").is_err());
    assert_eq!(
        Attention::PermissionRequired.as_str(),
        "permission_required"
    );
}

#[test]
fn attention_order_follows_severity() {
    let mut sorted = Attention::ALL;
    sorted.sort();
    assert_eq!(sorted, Attention::ALL);
    assert!(Attention::Error > Attention::PermissionRequired);
    assert!(Attention::InputRequired > Attention::Warning);
}

#[test]
fn same_lifecycle_is_not_a_change() {
    let mut s = PaneState::new(t(0));
    assert!(
        s.set_lifecycle(Lifecycle::Idle, ChangeSource::Hook, t(1))
            .is_some()
    );
    assert_eq!(
        s.set_lifecycle(Lifecycle::Idle, ChangeSource::Hook, t(2)),
        None
    );
    assert_eq!(s.lifecycle_since(), t(1));
}

#[test]
fn leaving_working_records_the_run() {
    let mut s = PaneState::new(t(0));
    s.set_lifecycle(Lifecycle::Working, ChangeSource::Hook, t(10));
    assert_eq!(s.working_since(), Some(t(10)));
    let change = s
        .set_lifecycle(Lifecycle::Done, ChangeSource::Hook, t(25))
        .expect("a change");
    assert_eq!(change.prev, Lifecycle::Working);
    assert_eq!(change.run_duration, Some(Duration::from_secs(15)));
    assert_eq!(s.last_run(), Some(Duration::from_secs(15)));
    assert_eq!(s.working_since(), None);
    let next = s
        .set_lifecycle(Lifecycle::Idle, ChangeSource::Hook, t(30))
        .expect("a change");
    assert_eq!(
        next.run_duration, None,
        "only leaving working records a run"
    );
}

#[test]
fn raise_takes_the_more_severe() {
    let mut s = PaneState::new(t(0));
    assert_eq!(
        s.raise_attention(Attention::Warning, t(1)),
        Some(AttentionChange {
            prev: Attention::None,
            new: Attention::Warning
        })
    );
    assert_eq!(s.raise_attention(Attention::Unread, t(2)), None);
    assert_eq!(s.attention(), Attention::Warning);
    assert_eq!(s.attention_since(), t(1));
}

#[test]
fn clear_keeps_permission_required_while_a_decision_is_pending() {
    let mut s = PaneState::new(t(0));
    s.raise_attention(Attention::Error, t(1));
    let c = s
        .clear_attention(true, t(2))
        .expect("error drops to the decision's level");
    assert_eq!(c.new, Attention::PermissionRequired);
    assert_eq!(s.clear_attention(true, t(3)), None);
    let c = s
        .clear_attention(false, t(4))
        .expect("the decision is gone");
    assert!(c.is_clear());
    assert_eq!(s.attention(), Attention::None);
    assert_eq!(s.clear_attention(false, t(5)), None);
}

#[test]
fn exit_demotes_required_attention_but_keeps_errors() {
    let mut s = PaneState::new(t(0));
    s.set_lifecycle(Lifecycle::Blocked, ChangeSource::Hook, t(1));
    s.raise_attention(Attention::PermissionRequired, t(1));
    let ch = s.exit(Lifecycle::Exited, Attention::Unread, t(2));
    assert_eq!(
        ch.lifecycle.expect("lifecycle changed").new,
        Lifecycle::Exited
    );
    assert_eq!(s.attention(), Attention::Unread);

    let mut s = PaneState::new(t(0));
    s.raise_attention(Attention::Error, t(1));
    let ch = s.exit(Lifecycle::Exited, Attention::Unread, t(2));
    assert_eq!(ch.attention, None);
    assert_eq!(s.attention(), Attention::Error);
}

#[derive(Clone, Debug)]
enum Op {
    Set(Lifecycle),
    Raise(Attention),
    Clear(bool),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..Lifecycle::ALL.len()).prop_map(|i| Op::Set(Lifecycle::ALL[i])),
        (0..Attention::ALL.len()).prop_map(|i| Op::Raise(Attention::ALL[i])),
        any::<bool>().prop_map(Op::Clear),
    ]
}

proptest! {
    #[test]
    fn attention_only_falls_through_clear(ops in proptest::collection::vec(op(), 0..64)) {
        let mut s = PaneState::new(t(0));
        for (i, op) in ops.into_iter().enumerate() {
            let now = t(i as u64 + 1);
            let before = s.attention();
            match op {
                Op::Set(l) => {
                    s.set_lifecycle(l, ChangeSource::Hook, now);
                    prop_assert_eq!(s.attention(), before);
                }
                Op::Raise(a) => {
                    let change = s.raise_attention(a, now);
                    prop_assert!(s.attention() >= before);
                    prop_assert_eq!(s.attention(), before.max(a));
                    prop_assert_eq!(change.is_some(), s.attention() != before);
                }
                Op::Clear(pending) => {
                    s.clear_attention(pending, now);
                    let expected = if pending { Attention::PermissionRequired } else { Attention::None };
                    prop_assert_eq!(s.attention(), expected);
                }
            }
        }
    }

    #[test]
    fn repeated_sets_emit_nothing(ops in proptest::collection::vec(op(), 0..64)) {
        let mut s = PaneState::new(t(0));
        for (i, op) in ops.into_iter().enumerate() {
            let now = t(i as u64 + 1);
            match op {
                Op::Set(l) => {
                    let before = s.lifecycle();
                    let first = s.set_lifecycle(l, ChangeSource::Hook, now);
                    prop_assert_eq!(first.is_some(), before != l);
                    prop_assert_eq!(s.set_lifecycle(l, ChangeSource::Hook, now), None);
                    prop_assert_eq!(s.lifecycle(), l);
                }
                Op::Raise(a) => {
                    s.raise_attention(a, now);
                    prop_assert_eq!(s.raise_attention(a, now), None);
                }
                Op::Clear(p) => {
                    s.clear_attention(p, now);
                    prop_assert_eq!(s.clear_attention(p, now), None);
                }
            }
        }
    }
}
