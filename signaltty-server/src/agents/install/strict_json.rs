//! Refusing JSON with duplicate keys. `serde_json` keeps the last of two equal keys in an object
//! and drops the other silently; rewriting such a file would lose the user's first value. So an
//! agent config with a duplicate key is refused untouched, like any other malformed file.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// Walks any JSON value, failing on the first object that repeats a key.
struct NoDuplicates;

impl<'de> DeserializeSeed<'de> for NoDuplicates {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NoDuplicates {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(NoDuplicates)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format!(
                    "the key {} appears twice in one object",
                    crate::error::quote(&key)
                )));
            }
            map.next_value_seed(NoDuplicates)?;
        }
        Ok(())
    }
}

/// `Err` with a message if `bytes` is not JSON or repeats a key within an object.
pub(super) fn check(bytes: &[u8]) -> Result<(), String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    NoDuplicates
        .deserialize(&mut de)
        .and_then(|()| de.end())
        .map_err(|e| format!("invalid JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        assert!(check(br#"{"a": 1, "b": {"c": [1, {"d": 2}]}}"#).is_ok());
        let err = check(br#"{"hooks": {"Stop": [], "Stop": []}}"#).unwrap_err();
        assert!(err.contains("\"Stop\" appears twice"), "{err}");
        assert!(check(br#"[{"x": 1, "x": 2}]"#).is_err());
        assert!(check(b"{} trailing").is_err());
    }
}
