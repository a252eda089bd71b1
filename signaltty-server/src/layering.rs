//! The hub's layering, checked on its source: `hub` returns domain values and never names `rpc`
//! (which encodes them), nor a proto or tonic type. (The domain below it, `model`, is the crate
//! `signaltty-model`: cargo keeps it from naming the server or proto, so it needs no check here.)
//!
//! A unit test rather than a check in `.ci/run`: it runs wherever `cargo test -p
//! signaltty-server` runs (every engineer's loop, not only CI), it needs no grep whose patterns
//! would drift from Rust's syntax, and it understands grouped imports (`use crate::{a, b}`),
//! `super::` paths that climb out of the layer, and comments (a doc comment may *mention*
//! another module). It reads the files at test time, from `CARGO_MANIFEST_DIR`.

use std::path::{Path, PathBuf};

/// A layer: the files under `src/<name>.rs` and `src/<name>/`, and what they may not name.
struct Layer {
    name: &'static str,
    /// Crate modules it may not name.
    denied_modules: &'static [&'static str],
    /// External crates it may not name.
    denied_crates: &'static [&'static str],
}

const LAYERS: [Layer; 1] = [Layer {
    name: "hub",
    denied_modules: &["rpc"],
    denied_crates: &["signaltty_proto", "tonic"],
}];

/// The code of a Rust file without its comments (line, doc and block comments), so that prose
/// naming a module is not taken for a use of it. String literals (plain and raw) and the char
/// literal `'"'` are skipped over intact: a false alarm there is cheap to see, a missed import
/// is not.
fn strip_comments(src: &str) -> String {
    let chars: Vec<char> = src.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            continue;
        }
        if c == '\'' && at(i + 1) == '"' && at(i + 2) == '\'' {
            i += 3;
        } else if c == '\'' && at(i + 1) == '\\' && at(i + 2) == '"' && at(i + 3) == '\'' {
            i += 4;
        } else if c == 'r'
            && (at(i + 1) == '"' || at(i + 1) == '#')
            && (i == 0 || !is_ident_char(chars[i - 1]))
        {
            // A raw string: r"…", r#"…"#, … (or an identifier that starts with r).
            let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
            if at(i + 1 + hashes) != '"' {
                i += 1;
            } else {
                i += 2 + hashes;
                while i < chars.len()
                    && !(chars[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#'))
                {
                    i += 1;
                }
                i = (i + 1 + hashes).min(chars.len());
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(chars.len());
        } else {
            i += 1;
        }
        out.extend(&chars[start..i]);
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier that starts `s` (empty when none does).
fn leading_ident(s: &str) -> &str {
    let end = s.find(|c: char| !is_ident_char(c)).unwrap_or(s.len());
    &s[..end]
}

/// The top-level module names inside a `{…}` group that starts `s` (after the `{`).
fn group_heads(s: &str) -> Vec<&str> {
    let mut heads = Vec::new();
    let mut depth = 0usize;
    let mut at_item_start = true;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_item_start = true,
            c if c.is_whitespace() => {}
            _ if at_item_start && depth == 0 => {
                heads.push(leading_ident(&s[i..]));
                at_item_start = false;
            }
            _ => {}
        }
    }
    heads
}

/// Every crate-root module `code` names: `crate::x`, `crate::{x, y::z}`, and `super::` chains
/// long enough (`depth` or more) to reach the crate root from a file `depth` modules deep.
fn crate_modules_named(code: &str, depth: usize) -> Vec<String> {
    let mut named = Vec::new();
    let bytes = code.as_bytes();
    let mut push_after = |rest: &str| {
        if let Some(group) = rest.strip_prefix('{') {
            named.extend(group_heads(group).into_iter().map(str::to_owned));
        } else {
            named.push(leading_ident(rest).to_owned());
        }
    };
    for (i, _) in code.match_indices("crate::") {
        if i > 0 && is_ident_char(bytes[i - 1] as char) {
            continue; // `signaltty_crate::…` is not `crate::`
        }
        push_after(&code[i + "crate::".len()..]);
    }
    let mut i = 0;
    while let Some(found) = code[i..].find("super::") {
        let start = i + found;
        let mut end = start;
        let mut hops = 0;
        while code[end..].starts_with("super::") {
            end += "super::".len();
            hops += 1;
        }
        if (start == 0 || !is_ident_char(bytes[start - 1] as char)) && hops >= depth {
            push_after(&code[end..]);
        }
        i = end;
    }
    named
}

/// Whether `code` names the external crate `name` as a path root.
fn names_crate(code: &str, name: &str) -> bool {
    let bytes = code.as_bytes();
    code.match_indices(name).any(|(i, _)| {
        let before_ok = i == 0 || (!is_ident_char(bytes[i - 1] as char) && bytes[i - 1] != b':');
        let after = &code[i + name.len()..];
        before_ok && (after.starts_with("::") || after.starts_with(';'))
    })
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// What `layer`'s file `rel` (relative to `src/`) breaks, one line per offence.
fn offences(layer: &Layer, rel: &Path, src: &str) -> Vec<String> {
    // src/hub.rs is module `hub` (depth 1); src/hub/panes/spawn.rs is depth 3.
    let depth = rel.components().count();
    let code = strip_comments(src);
    let mut found = Vec::new();
    for module in crate_modules_named(&code, depth) {
        let allowed = !layer.denied_modules.contains(&module.as_str());
        // `crate::*`-style globs and `self` are not module names.
        if !allowed && !module.is_empty() && module != "self" {
            found.push(format!("{}: names crate::{module}", rel.display()));
        }
    }
    for krate in layer.denied_crates {
        if names_crate(&code, krate) {
            found.push(format!("{}: names {krate}", rel.display()));
        }
    }
    found
}

#[test]
fn hub_keeps_its_layering() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    for layer in &LAYERS {
        let mut files = Vec::new();
        let root = src.join(format!("{}.rs", layer.name));
        assert!(root.is_file(), "{} is missing", root.display());
        files.push(root);
        rust_files(&src.join(layer.name), &mut files);
        assert!(files.len() > 3, "{}: too few files found", layer.name);
        for file in files {
            let text = std::fs::read_to_string(&file).expect("readable source");
            let rel = file.strip_prefix(&src).expect("under src");
            all.extend(offences(layer, rel, &text));
        }
    }
    assert!(
        all.is_empty(),
        "layering broken (see the module docs of src/layering.rs):\n{}",
        all.join("\n")
    );
}

#[test]
fn the_scanner_sees_every_way_of_naming_a_module() {
    let hub = &LAYERS[0];
    let deep = Path::new("hub/panes/spawn.rs");
    let offending = [
        "use crate::rpc::convert;",
        "use crate::{model::ids::PaneId, rpc::status};",
        "use crate::{\n    agents,\n    rpc,\n};",
        "fn f() -> crate::rpc::Service { todo!() }",
        "use super::super::super::rpc::convert;",
        "use signaltty_proto::v1 as pb;",
        "let s: tonic::Status;",
    ];
    for code in offending {
        assert!(!offences(hub, deep, code).is_empty(), "missed: {code}");
    }
    let fine = [
        "use crate::model::ids::PaneId;",
        "use crate::{agents, model::ids::PaneId, term::sanitize};",
        "use super::super::rpc::convert;",
        "/// Encoded by `crate::rpc::convert`.\nuse super::*;",
        "/* crate::rpc */ let x = 1; // crate::rpc",
        "let s = \"http://x\"; // crate::rpc",
        "let q = '\"'; // crate::rpc\nlet r = r#\"a \" // \"#; // crate::rpc",
    ];
    for code in fine {
        assert_eq!(offences(hub, deep, code), Vec::<String>::new(), "{code}");
    }
    let hub_file = Path::new("hub/panes.rs");
    assert!(!offences(hub, hub_file, "use crate::rpc::convert;").is_empty());
    assert!(!offences(hub, hub_file, "use super::super::rpc::status;").is_empty());
}
