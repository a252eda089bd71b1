//! Lower-case names for the proto enums, both ways: `LIFECYCLE_WORKING` ↔ `"working"`,
//! `ATTENTION_PERMISSION_REQUIRED` ↔ `"permission_required"`. One rule for every enum (strip the
//! enum's prefix, lower-case the rest), so human output, `--json` output and command-line values
//! always spell a state the same way.

use signaltty_proto::v1 as pb;

/// A generated proto enum with its buf-style value prefix.
pub trait ProtoEnum: Sized + Copy {
    /// The prefix every value name carries, e.g. `"LIFECYCLE_"`.
    const PREFIX: &'static str;
    /// The value for a wire number, if known.
    fn from_wire(value: i32) -> Option<Self>;
    /// The value's wire number.
    fn wire(self) -> i32;
    /// The proto name, e.g. `"LIFECYCLE_WORKING"`.
    fn proto_name(self) -> &'static str;
    /// The value for a proto name.
    fn from_proto_name(name: &str) -> Option<Self>;
}

macro_rules! proto_enum {
    ($($ty:ident => $prefix:literal),* $(,)?) => {$(
        impl ProtoEnum for pb::$ty {
            const PREFIX: &'static str = $prefix;
            fn from_wire(value: i32) -> Option<Self> {
                pb::$ty::try_from(value).ok()
            }
            fn wire(self) -> i32 {
                self as i32
            }
            fn proto_name(self) -> &'static str {
                self.as_str_name()
            }
            fn from_proto_name(name: &str) -> Option<Self> {
                pb::$ty::from_str_name(name)
            }
        }
    )*};
}

proto_enum! {
    Lifecycle => "LIFECYCLE_",
    Attention => "ATTENTION_",
    ChangeSource => "CHANGE_SOURCE_",
    PaneStatus => "PANE_STATUS_",
    Direction => "DIRECTION_",
    AgentKind => "AGENT_KIND_",
    Verdict => "VERDICT_",
    HookState => "HOOK_STATE_",
    Severity => "SEVERITY_",
    NotificationSource => "NOTIFICATION_SOURCE_",
    EventKind => "EVENT_KIND_",
    RaceState => "RACE_STATE_",
    RaceEntryState => "RACE_ENTRY_STATE_",
    MergeMode => "MERGE_MODE_",
    WaitRaceOutcome => "WAIT_RACE_OUTCOME_",
}

/// The lower-case name of a wire value, e.g. `name::<pb::Lifecycle>(3) == "working"`. A number
/// this client does not know (a newer server) prints as `"value_N"` rather than failing.
pub fn name<E: ProtoEnum>(value: i32) -> String {
    match E::from_wire(value) {
        Some(e) => short(e),
        None => format!("value_{value}"),
    }
}

/// The lower-case name of an enum value.
pub fn short<E: ProtoEnum>(value: E) -> String {
    let full = value.proto_name();
    full.strip_prefix(E::PREFIX)
        .unwrap_or(full)
        .to_ascii_lowercase()
}

/// Parses a lower-case (or any-case) name; `-` may stand for `_`. `unspecified` is refused, since
/// it never means anything on the command line.
pub fn parse<E: ProtoEnum>(text: &str) -> Result<E, String> {
    let wanted = format!(
        "{}{}",
        E::PREFIX,
        text.trim().to_ascii_uppercase().replace('-', "_")
    );
    match E::from_proto_name(&wanted) {
        Some(value) if value.wire() != 0 => Ok(value),
        _ => Err(format!(
            "unknown value {text:?}; expected one of: {}",
            all_names::<E>().join(", ")
        )),
    }
}

/// Parses a comma-separated list of names.
pub fn parse_list<E: ProtoEnum>(text: &str) -> Result<Vec<E>, String> {
    text.split(',')
        .filter(|part| !part.trim().is_empty())
        .map(parse::<E>)
        .collect()
}

/// Every meaningful name of an enum (all but the zero value), in wire order.
pub fn all_names<E: ProtoEnum>() -> Vec<String> {
    // Proto enums here are small and dense; 64 covers every one with room to grow.
    (1..64).filter_map(E::from_wire).map(short).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_strip_the_prefix_and_lowercase() {
        assert_eq!(
            name::<pb::Lifecycle>(pb::Lifecycle::Working as i32),
            "working"
        );
        assert_eq!(
            name::<pb::Attention>(pb::Attention::PermissionRequired as i32),
            "permission_required"
        );
        assert_eq!(
            name::<pb::PaneStatus>(pb::PaneStatus::Resumable as i32),
            "resumable"
        );
        assert_eq!(name::<pb::Lifecycle>(99), "value_99");
    }

    #[test]
    fn parse_accepts_any_case_and_dashes() {
        assert_eq!(
            parse::<pb::Lifecycle>("Working"),
            Ok(pb::Lifecycle::Working)
        );
        assert_eq!(
            parse::<pb::Attention>("input-required"),
            Ok(pb::Attention::InputRequired)
        );
        assert_eq!(parse::<pb::EventKind>("pane"), Ok(pb::EventKind::Pane));
    }

    #[test]
    fn parse_refuses_unknown_and_unspecified() {
        let err = parse::<pb::Severity>("loud").expect_err("not a severity");
        assert!(err.contains("info, warning, error"), "{err}");
        assert!(parse::<pb::Severity>("unspecified").is_err());
    }

    #[test]
    fn parse_list_splits_on_commas() {
        assert_eq!(
            parse_list::<pb::Lifecycle>("working, blocked,"),
            Ok(vec![pb::Lifecycle::Working, pb::Lifecycle::Blocked])
        );
    }
}
