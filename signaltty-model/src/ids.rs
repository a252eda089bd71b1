//! Prefixed, opaque ids (`ws_…`, `tab_…`, `pane_…`, `notif_…`, `dec_…`). Each kind is its own newtype
//! so a pane id can never be passed where a tab id is expected.
//!
//! An id is an `Arc<str>`: ids are copied into every record that refers to another, into every
//! event and into layouts, and a copy must cost a reference count, not an allocation (issue 18:
//! the clones of id strings were a visible share of a spawn's memory).

use std::fmt;
use std::sync::Arc;

macro_rules! prefixed_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(Arc<str>);

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let raw = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                Ok(Self(Arc::from(raw.as_ref())))
            }
        }

        impl $name {
            /// The prefix every id of this kind starts with.
            pub const PREFIX: &'static str = $prefix;

            /// A fresh random id.
            pub fn new() -> Self {
                Self(Arc::from(format!("{}{}", $prefix, uuid::Uuid::new_v4().simple())))
            }

            /// Accepts a client-supplied id if it has this kind's prefix and a sane body.
            /// Returns `None` for anything else, so callers answer BAD_PARAMS.
            pub fn parse(s: &str) -> Option<Self> {
                let body = s.strip_prefix($prefix)?;
                let ok = !body.is_empty()
                    && body.len() <= 64
                    && body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
                ok.then(|| Self(Arc::from(s)))
            }

            /// The id as sent on the wire.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

prefixed_id!(
    /// Identifies a workspace.
    WorkspaceId,
    "ws_"
);
prefixed_id!(
    /// Identifies a tab.
    TabId,
    "tab_"
);
prefixed_id!(
    /// Identifies a pane.
    PaneId,
    "pane_"
);
prefixed_id!(
    /// Identifies a stored notification.
    NotificationId,
    "notif_"
);
prefixed_id!(
    /// Identifies a pending decision (permission request).
    DecisionId,
    "dec_"
);
prefixed_id!(
    /// Identifies a race (`RaceService`).
    RaceId,
    "race_"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_carry_their_prefix_and_parse_back() {
        let id = PaneId::new();
        assert!(id.as_str().starts_with("pane_"));
        assert_eq!(PaneId::parse(id.as_str()), Some(id));
    }

    #[test]
    fn foreign_or_malformed_ids_are_refused() {
        assert_eq!(PaneId::parse("tab_abc"), None);
        assert_eq!(PaneId::parse("pane_"), None);
        assert_eq!(PaneId::parse("pane_a b"), None);
        assert_eq!(TabId::parse(&"tab_x".repeat(30)), None);
    }
}
