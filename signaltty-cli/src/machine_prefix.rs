//! The `NAME:` machine prefix on object words: `signaltty attach gpu:ws_12/tab_3/pane_9` is
//! `signaltty --remote gpu attach ws_12/tab_3/pane_9`. It is taken off the command line before
//! clap sees it, so every command's own word parsing (ids, prefixes, names: `crate::resolve`)
//! stays the one parser and runs on the remote's objects.
//!
//! A word is rewritten only when what precedes the `:` is a remote in the config file, the word
//! comes before any `--` (a pane's command words are never touched) and does not start with
//! `-`. Text for a pane (`pane send PANE "gpu: hi"`) could match: such a word is left alone when
//! its rest holds a space, and `--remote` is always the unambiguous spelling.

use std::collections::BTreeSet;
use std::ffi::OsString;

/// Commands whose words are never object paths.
const UNTOUCHED: [&str; 4] = ["remote", "hook-event", "bridge", "notify"];

/// `args` (program name first) with the first `NAME:` prefix of a known remote taken off and
/// `--remote NAME` added; an error when words name two different machines.
pub fn rewrite(args: Vec<OsString>, remotes: &BTreeSet<String>) -> Result<Vec<OsString>, String> {
    if remotes.is_empty() {
        return Ok(args);
    }
    let words: Vec<Option<&str>> = args.iter().map(|a| a.to_str()).collect();
    if words
        .iter()
        .any(|w| matches!(w, Some("--remote")) || w.is_some_and(|w| w.starts_with("--remote=")))
    {
        return Ok(args);
    }
    if words
        .iter()
        .any(|w| w.is_some_and(|w| UNTOUCHED.contains(&w)))
    {
        return Ok(args);
    }
    let mut machine: Option<String> = None;
    let mut out = Vec::with_capacity(args.len() + 2);
    let mut after_dashes = false;
    for (i, arg) in args.iter().enumerate() {
        let word = arg.to_str();
        if word == Some("--") {
            after_dashes = true;
        }
        let split = match word {
            Some(w) if i > 0 && !after_dashes && !w.starts_with('-') => w
                .split_once(':')
                .filter(|(name, rest)| remotes.contains(*name) && !rest.contains(' ')),
            _ => None,
        };
        match split {
            Some((name, rest)) => {
                if let Some(other) = &machine
                    && other != name
                {
                    return Err(format!(
                        "one command talks to one machine: {other}: and {name}: both given"
                    ));
                }
                machine = Some(name.to_owned());
                out.push(OsString::from(rest));
            }
            None => out.push(arg.clone()),
        }
    }
    if let Some(name) = machine {
        out.insert(1, OsString::from("--remote"));
        out.insert(2, OsString::from(name));
    }
    Ok(out)
}

/// The remote names in the user's config file (none when it is absent or broken: the command
/// then reports the file itself if it needs it).
pub fn configured_remotes() -> BTreeSet<String> {
    signaltty_config::load_located(None)
        .map(|loaded| loaded.config.remotes.into_keys().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Vec<String>, String> {
        let remotes: BTreeSet<String> = ["gpu".to_owned(), "vm".to_owned()].into();
        let args = args.iter().map(OsString::from).collect();
        rewrite(args, &remotes).map(|v| {
            v.into_iter()
                .map(|a| a.into_string().unwrap_or_default())
                .collect()
        })
    }

    #[test]
    fn a_known_prefix_becomes_remote() {
        assert_eq!(
            run(&["signaltty", "attach", "gpu:ws/tab/pane"]),
            Ok(
                vec!["signaltty", "--remote", "gpu", "attach", "ws/tab/pane"]
                    .into_iter()
                    .map(String::from)
                    .collect()
            )
        );
    }

    #[test]
    fn unknown_prefixes_pane_commands_and_text_are_left_alone() {
        let same = |args: &[&str]| {
            assert_eq!(
                run(args),
                Ok(args.iter().map(|a| (*a).to_owned()).collect())
            )
        };
        same(&["signaltty", "attach", "other:pane"]);
        same(&["signaltty", "pane", "spawn", "ws", "--", "ssh", "gpu:x"]);
        same(&["signaltty", "pane", "send", "p", "gpu: hello there"]);
        same(&["signaltty", "remote", "add", "gpu", "gpu:22"]);
    }

    #[test]
    fn two_machines_in_one_command_is_an_error() {
        let err = run(&["signaltty", "pane", "move", "gpu:p1", "vm:tab"]).expect_err("two");
        assert!(err.contains("gpu") && err.contains("vm"), "{err}");
    }
}
