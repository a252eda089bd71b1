//! Hook payloads are untrusted JSON: this module caps their size, parses them, and reads fields
//! strictly — a field we read must have the expected type (absent or `null` means "not given"),
//! while fields we do not read are ignored whatever they hold.

use serde_json::{Map, Value};

/// Largest accepted hook payload, in bytes.
pub const MAX_PAYLOAD_BYTES: usize = 256 * 1024;

/// Why a hook report was refused. The RPC layer maps every variant to BAD_PARAMS.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HookError {
    /// The payload is larger than [`MAX_PAYLOAD_BYTES`].
    #[error("hook payload is {size} bytes, more than the {max}-byte limit")]
    PayloadTooLarge {
        /// Its size.
        size: usize,
        /// The limit.
        max: usize,
    },
    /// Not JSON.
    #[error("hook payload is not valid JSON: {0}")]
    InvalidJson(String),
    /// JSON, but not an object.
    #[error("hook payload must be a JSON object")]
    NotAnObject,
    /// A field we read has the wrong type.
    #[error("hook payload field {field:?} must be {expected}")]
    FieldType {
        /// Dotted path of the field.
        field: String,
        /// What it should have been.
        expected: &'static str,
    },
    /// A session id with characters that could not safely become a resume argument.
    #[error(transparent)]
    InvalidSessionId(#[from] crate::model::session_id::InvalidSessionId),
}

/// Refuses a payload of `len` bytes above the cap. Call it before reading the body fully when
/// the length is known up front.
pub fn check_payload_size(len: usize) -> Result<(), HookError> {
    if len > MAX_PAYLOAD_BYTES {
        return Err(HookError::PayloadTooLarge {
            size: len,
            max: MAX_PAYLOAD_BYTES,
        });
    }
    Ok(())
}

/// Parses raw hook bytes: size-capped, must be a JSON object. Empty or whitespace-only input is an
/// empty object (hooks without stdin).
pub fn parse_payload(bytes: &[u8]) -> Result<Value, HookError> {
    check_payload_size(bytes.len())?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(Map::new()));
    }
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| HookError::InvalidJson(e.to_string()))?;
    if !value.is_object() {
        return Err(HookError::NotAnObject);
    }
    Ok(value)
}

/// The payload as an object; `null` counts as an empty object, anything else is refused.
pub(crate) fn as_object(payload: &Value) -> Result<Option<&Map<String, Value>>, HookError> {
    match payload {
        Value::Null => Ok(None),
        Value::Object(map) => Ok(Some(map)),
        _ => Err(HookError::NotAnObject),
    }
}

/// A string field: absent/null → `None`, a string → `Some`, anything else → error.
pub(crate) fn str_field<'a>(
    obj: Option<&'a Map<String, Value>>,
    key: &str,
) -> Result<Option<&'a str>, HookError> {
    match obj.and_then(|o| o.get(key)) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(type_error(key, "a string")),
    }
}

/// An object field: absent/null → `None`, an object → `Some`, anything else → error.
pub(crate) fn obj_field<'a>(
    obj: Option<&'a Map<String, Value>>,
    key: &str,
) -> Result<Option<&'a Map<String, Value>>, HookError> {
    match obj.and_then(|o| o.get(key)) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(_) => Err(type_error(key, "an object")),
    }
}

pub(crate) fn type_error(field: &str, expected: &'static str) -> HookError {
    HookError::FieldType {
        field: field.to_owned(),
        expected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_cap_is_enforced() {
        assert!(check_payload_size(MAX_PAYLOAD_BYTES).is_ok());
        assert_eq!(
            check_payload_size(MAX_PAYLOAD_BYTES + 1),
            Err(HookError::PayloadTooLarge {
                size: MAX_PAYLOAD_BYTES + 1,
                max: MAX_PAYLOAD_BYTES
            })
        );
        let mut big = b"{\"a\":\"".to_vec();
        big.resize(MAX_PAYLOAD_BYTES + 10, b'x');
        assert!(matches!(
            parse_payload(&big),
            Err(HookError::PayloadTooLarge { .. })
        ));
    }

    #[test]
    fn parse_accepts_objects_only() {
        assert_eq!(parse_payload(b"  \n"), Ok(Value::Object(Map::new())));
        assert!(parse_payload(br#"{"session_id":"x","extra":[1,2]}"#).is_ok());
        assert_eq!(parse_payload(b"[1]"), Err(HookError::NotAnObject));
        assert!(matches!(
            parse_payload(b"{nope"),
            Err(HookError::InvalidJson(_))
        ));
    }

    #[test]
    fn fields_are_typed_strictly() {
        let v = serde_json::json!({"s": "x", "n": 3, "z": null, "o": {}});
        let o = as_object(&v).expect("object");
        assert_eq!(str_field(o, "s"), Ok(Some("x")));
        assert_eq!(str_field(o, "z"), Ok(None));
        assert_eq!(str_field(o, "missing"), Ok(None));
        assert_eq!(str_field(o, "n"), Err(type_error("n", "a string")));
        assert!(obj_field(o, "o").expect("object field").is_some());
        assert!(obj_field(o, "s").is_err());
    }
}
