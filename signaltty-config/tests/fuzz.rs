//! Fuzz target for the config file parser. Stable-Rust harness (see
//! `signaltty-term/tests/fuzz.rs` for why not `cargo fuzz`): the checked-in corpus
//! (`fuzz/corpus/config/`), then mutated corpus files and random files built from the schema's
//! sections, keys and values of every type, at `SIGNALTTY_FUZZ_CASES` cases (256 by default,
//! what CI runs).
//!
//! Properties: `parse` never panics; a file it refuses gets at least one problem, each on a line
//! and column of the file (1-based, at most one past the line's end) with a message, in file
//! order; a file it accepts, written back as TOML (`Config` serializes to the file's own
//! shape), parses to the same configuration, which writes the same text; a detach key written
//! out parses back to itself.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use signaltty_config::schema;
use signaltty_config::{DetachKey, parse};

#[path = "../../fuzz/harness.rs"]
mod harness;

use harness::cases;

fn check(text: &str) {
    match parse(text) {
        Ok(config) => {
            let written = toml::to_string(&config).expect("a configuration serializes");
            let again = parse(&written).expect("a written configuration parses");
            // Compared as written: a `nan` under `[tui]` is not equal to itself.
            assert_eq!(
                toml::to_string(&again).expect("serializes"),
                written,
                "{text:?}"
            );
            if !written.contains("nan") {
                assert_eq!(again, config, "{text:?} written as {written:?}");
            }
            if let Some(key) = config.attach.detach_key {
                assert_eq!(key.to_string().parse::<DetachKey>(), Ok(key));
            }
        }
        Err(problems) => {
            assert!(!problems.is_empty(), "{text:?}");
            let lines: Vec<&str> = text.split('\n').collect();
            for p in &problems {
                assert!(!p.message.trim().is_empty(), "{p:?}");
                assert!(p.line >= 1 && p.line <= lines.len(), "{p:?} in {text:?}");
                let width = lines[p.line - 1].chars().count();
                assert!(p.column >= 1 && p.column <= width + 1, "{p:?} in {text:?}");
            }
            assert!(
                problems
                    .windows(2)
                    .all(|w| (w[0].line, w[0].column) <= (w[1].line, w[1].column)),
                "not in file order: {problems:?}"
            );
        }
    }
}

/// A `key = value` line, `[section]` header or noise, from the schema's names and values of
/// every TOML type (in and out of range).
fn config_line() -> impl Strategy<Value = String> {
    let mut names: Vec<String> = schema::KEYS.iter().map(|k| k.name.to_owned()).collect();
    names.extend(["detach", "theme", "\"quoted key\"", "a.b"].map(str::to_owned));
    let headers = prop::sample::select(vec![
        "[server]",
        "[agents]",
        "[agents.claude]",
        "[agents.generic]",
        "[agents.nope]",
        "[policy]",
        "[attach]",
        "[tui]",
        "[tui.keymap]",
        "[[server]]",
        "[server.nested]",
        "[colours]",
        "[",
    ]);
    let values = prop::sample::select(vec![
        "0",
        "1",
        "-1",
        "16",
        "1000001",
        "0x10",
        "1_000",
        "18446744073709551616",
        "1e3",
        "nan",
        "true",
        "false",
        "\"\"",
        "\"/bin/sh\"",
        "\"ctrl-a\"",
        "\"^\\\\\"",
        "\"0x1c\"",
        "\"0xfff\"",
        "\"C-ß\"",
        "'lit'",
        "[1, 2]",
        "{ a = 1 }",
        "1979-05-27",
        "\"unterminated",
        "",
    ]);
    prop_oneof![
        2 => headers.prop_map(str::to_owned),
        6 => (prop::sample::select(names), values)
            .prop_map(|(name, value)| format!("{name} = {value}")),
        1 => "[ -~é\t]{0,20}",
    ]
}

/// A corpus file with some bytes replaced or inserted (as text: the file is read as UTF-8).
fn mutated() -> impl Strategy<Value = String> {
    let inputs = harness::corpus("config", &[]);
    let alphabet: Vec<char> = "=[]{}\"'.,#\n\r\t 0123456789_-xabé".chars().collect();
    (
        prop::sample::select(inputs),
        prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                prop::sample::select(alphabet),
                any::<bool>(),
            ),
            0..8,
        ),
    )
        .prop_map(|(input, edits)| {
            let mut chars: Vec<char> = String::from_utf8_lossy(&input).chars().collect();
            for (at, c, insert) in edits {
                if chars.is_empty() || insert {
                    let i = at.index(chars.len() + 1);
                    chars.insert(i, c);
                } else {
                    let i = at.index(chars.len());
                    chars[i] = c;
                }
            }
            chars.into_iter().collect()
        })
}

#[test]
fn corpus_config() {
    for input in harness::corpus("config", &[]) {
        check(&String::from_utf8_lossy(&input));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn fuzz_config_lines(lines in prop::collection::vec(config_line(), 0..16)) {
        check(&lines.join("\n"));
    }

    #[test]
    fn fuzz_config_mutated(text in mutated()) {
        check(&text);
    }

    #[test]
    fn fuzz_detach_key(text in "(ctrl-|ctrl\\+|C-|\\^|0x|0X)?[ -~]{0,3}") {
        if let Ok(key) = text.parse::<DetachKey>() {
            prop_assert_eq!(key.to_string().parse::<DetachKey>(), Ok(key));
        }
    }
}
