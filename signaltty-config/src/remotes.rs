//! `[remotes.<name>]`: other machines whose signaltty server the clients reach over `ssh`.
//!
//! ```toml
//! [remotes.gpu]
//! host = "me@gpu.example.org"        # as ssh takes it; an alias from ~/.ssh/config works
//! ssh_options = ["-p", "2222"]        # extra ssh arguments (optional)
//! command = "/opt/bin/signaltty"      # signaltty on that machine (default: signaltty)
//! ```
//!
//! [`add`] and [`remove`] edit the file in place (comments and order kept, written to a temporary
//! file and renamed over it), and only when the file as it is parses cleanly: a broken file is
//! reported, never rewritten.

use std::path::Path;

use serde::Serialize;

/// One remote machine.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RemoteConfig {
    /// `[user@]host`.
    pub host: String,
    /// Extra `ssh` arguments.
    pub ssh_options: Vec<String>,
    /// The remote signaltty command (`None`: `signaltty`).
    pub command: Option<String>,
}

/// The remote command when none is configured.
pub const DEFAULT_COMMAND: &str = "signaltty";

/// A remote's name: 1–32 of `a-z A-Z 0-9 - _`, starting with a letter or digit, and not
/// `local` (the name of this machine in listings). Names prefix object paths (`gpu:ws/tab`), so
/// they hold no `:` or `/`.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    let starts_well = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    if name.is_empty() || name.len() > 32 || !ok_chars || !starts_well {
        return Err(format!(
            "bad remote name {name:?}: use 1 to 32 letters, digits, '-' or '_', starting with a \
             letter or digit (e.g. gpu, build-box)"
        ));
    }
    if name == "local" {
        return Err("\"local\" names this machine: choose another remote name".to_owned());
    }
    Ok(())
}

/// A `host` or `command` value: non-empty, one line, no NUL; a host does not start with `-`
/// (ssh would read it as an option).
pub fn check_text(field: &str, value: &str) -> Result<(), String> {
    if value.trim().is_empty() || value.contains(['\0', '\n', '\r']) {
        return Err(format!("{field} must be a non-empty single line"));
    }
    if field == "host" && (value.starts_with('-') || value.contains(char::is_whitespace)) {
        return Err(format!(
            "bad host {value:?}: give [user@]host as ssh takes it (no spaces, not starting with '-')"
        ));
    }
    Ok(())
}

/// Adds `[remotes.<name>]` to the file at `path` (created if absent). Fails, writing nothing,
/// on a bad name or value, a name already there, or a file that does not parse.
pub fn add(path: &Path, name: &str, remote: &RemoteConfig) -> Result<(), String> {
    check_name(name)?;
    check_text("host", &remote.host)?;
    if let Some(command) = &remote.command {
        check_text("command", command)?;
    }
    if remote.ssh_options.iter().any(|o| o.contains('\0')) {
        return Err("an ssh option holds a NUL byte".to_owned());
    }
    let (mut doc, config) = read(path)?;
    if config.remotes.contains_key(name) {
        return Err(format!(
            "a remote named {name:?} exists already (host {}): `signaltty remote remove {name}` \
             first, or choose another name",
            config.remotes[name].host
        ));
    }
    let remotes = doc
        .entry("remotes")
        .or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        })
        .as_table_mut()
        .ok_or("`remotes` in the config file is not a table")?;
    let mut table = toml_edit::Table::new();
    table.insert("host", toml_edit::value(remote.host.as_str()));
    if !remote.ssh_options.is_empty() {
        let options: toml_edit::Array = remote.ssh_options.iter().map(String::as_str).collect();
        table.insert("ssh_options", toml_edit::value(options));
    }
    if let Some(command) = &remote.command {
        table.insert("command", toml_edit::value(command.as_str()));
    }
    remotes.insert(name, toml_edit::Item::Table(table));
    write(path, &doc.to_string())
}

/// Removes `[remotes.<name>]` from the file at `path`. Fails, writing nothing, when there is no
/// such remote.
pub fn remove(path: &Path, name: &str) -> Result<RemoteConfig, String> {
    let (mut doc, config) = read(path)?;
    let Some(old) = config.remotes.get(name).cloned() else {
        let known: Vec<&str> = config.remotes.keys().map(String::as_str).collect();
        return Err(format!(
            "no remote named {name:?} (known: {})",
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        ));
    };
    if let Some(remotes) = doc.get_mut("remotes").and_then(|r| r.as_table_like_mut()) {
        remotes.remove(name);
    }
    write(path, &doc.to_string())?;
    Ok(old)
}

/// The file's text as an editable document and as a checked configuration.
fn read(path: &Path) -> Result<(toml_edit::DocumentMut, crate::Config), String> {
    let loaded = crate::load(path, crate::Missing::Default).map_err(|problems| {
        format!(
            "{} has mistakes; fix them first (`signaltty config check`):\n{problems}",
            path.display()
        )
    })?;
    let doc = loaded
        .source
        .parse::<toml_edit::DocumentMut>()
        .map_err(|e| format!("cannot edit {}: {e}", path.display()))?;
    Ok((doc, loaded.config))
}

/// Writes `text` to `path` through a temporary file in the same directory.
fn write(path: &Path, text: &str) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let tmp = path.with_extension(format!("toml.tmp{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu() -> RemoteConfig {
        RemoteConfig {
            host: "me@gpu".into(),
            ssh_options: vec!["-p".into(), "2222".into()],
            command: Some("/opt/signaltty".into()),
        }
    }

    #[test]
    fn add_then_remove_keeps_the_rest_of_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "# mine\n[server]\nmax_panes = 9\n").expect("write");
        add(&path, "gpu", &gpu()).expect("add");
        let loaded = crate::load(&path, crate::Missing::Required).expect("parses");
        assert_eq!(loaded.config.remotes["gpu"], gpu());
        assert_eq!(loaded.config.server.max_panes, Some(9));
        assert!(loaded.source.starts_with("# mine\n"), "{}", loaded.source);
        let err = add(&path, "gpu", &gpu()).expect_err("twice");
        assert!(err.contains("exists already"), "{err}");
        remove(&path, "gpu").expect("remove");
        let loaded = crate::load(&path, crate::Missing::Required).expect("parses");
        assert!(loaded.config.remotes.is_empty());
        assert!(
            remove(&path, "gpu")
                .expect_err("gone")
                .contains("no remote named")
        );
    }

    #[test]
    fn bad_names_and_hosts_write_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        for name in ["", "a:b", "a/b", "-x", "local", &"x".repeat(33)] {
            assert!(add(&path, name, &gpu()).is_err(), "{name:?}");
        }
        let bad_host = RemoteConfig {
            host: "-oProxyCommand=x".into(),
            ..gpu()
        };
        assert!(add(&path, "gpu", &bad_host).is_err());
        assert!(!path.exists());
    }

    #[test]
    fn a_broken_file_is_not_rewritten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "[server]\nnope = 1\n").expect("write");
        let err = add(&path, "gpu", &gpu()).expect_err("broken");
        assert!(err.contains("fix them first"), "{err}");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            "[server]\nnope = 1\n"
        );
    }

    #[test]
    fn the_parser_checks_remotes() {
        let err = crate::parse("[remotes.gpu]\nssh_options = [1]\n").expect_err("no host");
        assert!(err.len() >= 2, "{err:?}");
        let err = crate::parse("[remotes.\"a:b\"]\nhost = \"h\"\n").expect_err("name");
        assert!(err[0].message.contains("bad remote name"), "{err:?}");
    }
}
