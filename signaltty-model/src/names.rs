//! Validation of user-given names and titles (workspaces, tabs, panes).

/// Longest accepted name, in characters.
pub const MAX_NAME_CHARS: usize = 200;

/// Trims `raw` and checks it is 1–200 characters with no control characters. The error message
/// names `what` so the client can show it as is.
pub fn validate_name(what: &str, raw: &str) -> Result<String, String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(format!("{what} must not be empty"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(format!("{what} is longer than {MAX_NAME_CHARS} characters"));
    }
    if name.chars().any(char::is_control) {
        return Err(format!("{what} must not contain control characters"));
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_checked() {
        assert_eq!(validate_name("name", "  api  ").as_deref(), Ok("api"));
        assert!(validate_name("name", "   ").is_err());
        assert!(validate_name("name", "a\u{1b}[31m").is_err());
        assert!(validate_name("name", &"x".repeat(201)).is_err());
        assert!(validate_name("name", &"é".repeat(200)).is_ok());
    }
}
