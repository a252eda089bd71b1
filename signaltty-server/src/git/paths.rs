//! Checks a client-given path before any file is read: relative, inside the checkout, and not
//! through a symbolic link (a link to `/etc` inside the checkout must not make `link/passwd`
//! readable). The last component may itself be a link: its "content" is the link's target
//! text, which is what git stores, and nothing outside is read.

use std::path::{Component, Path};

use super::GitError;

/// Returns `raw` as a `/`-separated path relative to `root` once it is safe to read.
pub fn checked_rel_path(root: &Path, raw: &str) -> Result<String, GitError> {
    let bad = |why: &str| GitError::BadPath(format!("path {raw:?} {why}"));
    if raw.is_empty() {
        return Err(bad("is empty: give a path relative to the repository root"));
    }
    if raw.contains('\0') {
        return Err(bad("contains a NUL byte"));
    }
    let path = Path::new(raw);
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => {
                if part == ".git" {
                    return Err(bad("is inside .git: give a file of the checkout"));
                }
                parts.push(part.to_string_lossy().into_owned());
            }
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(bad("contains `..`: give a path inside the checkout"));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(bad(
                    "is absolute: give a path relative to the repository root",
                ));
            }
        }
    }
    if parts.is_empty() {
        return Err(bad("names the repository root, not a file"));
    }
    // Every directory on the way must be a real directory, not a link (which may point out).
    let mut at = root.to_path_buf();
    for part in &parts[..parts.len() - 1] {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(bad(
                    "goes through a symbolic link: give the path inside the checkout",
                ));
            }
            // Missing or not a directory: nothing to follow; the file is simply absent here.
            _ => {}
        }
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_escapes_and_accepts_plain_paths() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir(root.join("src")).expect("mkdir");
        std::os::unix::fs::symlink("/etc", root.join("out")).expect("symlink");
        assert_eq!(checked_rel_path(root, "src/a.rs").expect("ok"), "src/a.rs");
        assert_eq!(
            checked_rel_path(root, "./src//a.rs").expect("ok"),
            "src/a.rs"
        );
        // The link itself is a file for git (its target text).
        assert_eq!(checked_rel_path(root, "out").expect("ok"), "out");
        for raw in [
            "",
            "../x",
            "src/../../x",
            "/etc/passwd",
            ".git/config",
            "out/passwd",
            ".",
        ] {
            assert!(
                matches!(checked_rel_path(root, raw), Err(GitError::BadPath(_))),
                "{raw:?} accepted"
            );
        }
    }
}
