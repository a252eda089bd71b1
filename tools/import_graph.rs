//! A crate's module graph read from its sources, for the tests that keep its layers: the server's
//! `src/layering.rs` (the hub never names `rpc`) and the CLI's and TUI's `tests/import_circles.rs`
//! (no import circle between their files). Included by path (`#[path = "../../tools/
//! import_graph.rs"]`): the crates share no test crate, and each sits one level below the
//! repository's root.
//!
//! It reads what cargo does not check inside one crate: which module names which. It understands
//! grouped imports (`use crate::{a, b::{c, d}}`), `super::` chains and comments (a doc comment may
//! *mention* another module; a `//` inside a string is not a comment); test code (`#[cfg(test)]`
//! modules, inline or in their own files) is left out, since a test may use anything.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The code of a Rust file without its comments (line, doc and block comments), so that prose
/// naming a module is not taken for a use of it. String literals (plain and raw) and the char
/// literal `'"'` are skipped over intact: a false alarm there is cheap to see, a missed import
/// is not.
pub fn strip_comments(src: &str) -> String {
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

pub fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier that starts `s` (empty when none does).
pub fn leading_ident(s: &str) -> &str {
    let end = s.find(|c: char| !is_ident_char(c)).unwrap_or(s.len());
    &s[..end]
}

/// The items of a `{…}` group that starts `s` (after the `{`), each from its first character.
fn group_items(s: &str) -> Vec<&str> {
    let mut items = Vec::new();
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
                items.push(&s[i..]);
                at_item_start = false;
            }
            _ => {}
        }
    }
    items
}

/// Every path `rest` names, each as segments after `prefix`: `a::b`, `a::{b, c::d}`, nested.
fn paths_after(prefix: &[String], rest: &str, out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    let mut rest = rest;
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            for item in group_items(group) {
                paths_after(&path, item, out);
            }
            return;
        }
        let ident = leading_ident(rest);
        if ident.is_empty() || ident == "self" {
            break;
        }
        path.push(ident.to_owned());
        match rest[ident.len()..].strip_prefix("::") {
            Some(more) => rest = more,
            None => break,
        }
    }
    out.push(path);
}

/// Every crate path `code` (a file of module `module`, comments stripped) names through
/// `crate::…` or `super::…`, as segments from the crate root.
pub fn crate_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let starts_path =
        |i: usize| i == 0 || !(is_ident_char(bytes[i - 1] as char) || bytes[i - 1] == b':');
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        if starts_path(i) {
            paths_after(&[], &code[i + "crate::".len()..], &mut out);
        }
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
        if starts_path(start) && hops <= module.len() {
            paths_after(&module[..module.len() - hops], &code[end..], &mut out);
        }
        i = end;
    }
    out
}

/// Whether `code` names the external crate `name` as a path root.
pub fn names_crate(code: &str, name: &str) -> bool {
    let bytes = code.as_bytes();
    code.match_indices(name).any(|(i, _)| {
        let before_ok = i == 0 || (!is_ident_char(bytes[i - 1] as char) && bytes[i - 1] != b':');
        let after = &code[i + name.len()..];
        before_ok && (after.starts_with("::") || after.starts_with(';'))
    })
}

/// Every `.rs` file under `dir`, recursively.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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

/// `code` without its `#[cfg(test)]` items (inline test modules, test-only functions), and the
/// files of the test modules it declares (`#[cfg(test)] mod x;`, with or without `#[path]`).
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut kept = String::with_capacity(code.len());
    let mut test_files = Vec::new();
    let mut rest = code;
    while let Some(found) = rest.find("#[cfg(test)]") {
        kept.push_str(&rest[..found]);
        let item = &rest[found + "#[cfg(test)]".len()..];
        let path_attr = item
            .trim_start()
            .strip_prefix("#[path = \"")
            .and_then(|p| p.split_once('"'));
        // The item ends at its first `;` outside braces, or at the brace closing its body.
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, c) in item.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    let decl = item[..i].trim();
                    if let Some(name) = decl.rsplit("mod ").next().filter(|_| decl.contains("mod "))
                    {
                        match path_attr {
                            Some((file, _)) => test_files.push(file.to_owned()),
                            None => test_files.push(format!("{}.rs", name.trim())),
                        }
                    }
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    kept.push_str(rest);
    (kept, test_files)
}

/// A module's path from its file (relative to `src/`): `a/b.rs` and `a/b/mod.rs` are `a::b`.
pub fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    parts
}

/// The crate under `src`'s files (as module paths, `a::b`) and the files each names, test code
/// left out; the crate root (`lib.rs`, `main.rs`) is left out too, since it only declares.
pub fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut code_of = BTreeMap::new();
    let mut test_files = BTreeSet::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable source");
        let (code, tests) = without_tests(&strip_comments(&text));
        let dir = file.parent().expect("a file's directory");
        // `#[path]` is relative to the declaring file's directory; a plain `mod x;` in `a.rs`
        // is `a/x.rs`.
        for test in tests {
            test_files.insert(dir.join(&test));
            let stem = file.file_stem().expect("a file name");
            test_files.insert(dir.join(stem).join(&test));
        }
        code_of.insert(file.clone(), code);
    }
    let modules: BTreeMap<Vec<String>, PathBuf> = files
        .iter()
        .filter(|f| !test_files.contains(*f))
        .map(|f| {
            (
                module_of(f.strip_prefix(src).expect("under src")),
                f.clone(),
            )
        })
        .filter(|(m, _)| !m.is_empty())
        .collect();
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        let mut named = BTreeSet::new();
        for path in crate_paths(&code_of[file], module) {
            // The longest prefix of the path that is a file module.
            let target = (1..=path.len())
                .rev()
                .map(|n| &path[..n])
                .find(|p| modules.contains_key(*p));
            if let Some(target) = target {
                let inside = |a: &[String], b: &[String]| a.len() > b.len() && a.starts_with(b);
                if target != module.as_slice() && !inside(target, module) && !inside(module, target)
                {
                    named.insert(target.join("::"));
                }
            }
        }
        graph.insert(module.join("::"), named);
    }
    graph
}

/// The import circles of `graph`: its strongly connected components of more than one module,
/// each sorted, in order (Tarjan's algorithm).
pub fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a str) {
        let n = w.index.len();
        w.index.insert(v, n);
        w.low.insert(v, n);
        w.stack.push(v);
        for next in w.graph.get(v).into_iter().flatten() {
            let next = next.as_str();
            if !w.index.contains_key(next) {
                visit(w, next);
                let low = w.low[v].min(w.low[next]);
                w.low.insert(v, low);
            } else if w.stack.contains(&next) {
                let low = w.low[v].min(w.index[next]);
                w.low.insert(v, low);
            }
        }
        if w.low[v] == w.index[v] {
            let mut component = Vec::new();
            while let Some(top) = w.stack.pop() {
                component.push(top.to_owned());
                if top == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                w.found.push(component);
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            visit(&mut walk, v);
        }
    }
    walk.found.sort();
    walk.found
}

/// What a crate's `tests/import_circles.rs` asserts: no module of the crate under `manifest_dir`
/// is in an import circle but those in `not_yet` (circles still to break), and every module in
/// `not_yet` still is in one (so the list only shrinks).
pub fn assert_no_circles_but(manifest_dir: &str, not_yet: &[&str]) {
    let graph = module_graph(&Path::new(manifest_dir).join("src"));
    assert!(
        graph.len() > 5,
        "too few modules found under {manifest_dir}/src"
    );
    let found = circles(&graph);
    let in_circles: BTreeSet<&str> = found.iter().flatten().map(String::as_str).collect();
    let allowed: BTreeSet<&str> = not_yet.iter().copied().collect();
    let new: Vec<&&str> = in_circles.difference(&allowed).collect();
    let broken: Vec<&&str> = allowed.difference(&in_circles).collect();
    let show = |c: &Vec<String>| {
        let edges: Vec<String> = c
            .iter()
            .map(|m| {
                let to: Vec<&str> = graph[m]
                    .iter()
                    .filter(|t| c.contains(t))
                    .map(String::as_str)
                    .collect();
                format!("  {m} → {}", to.join(", "))
            })
            .collect();
        edges.join("\n")
    };
    assert!(
        new.is_empty(),
        "modules in an import circle: {new:?}; the circles:\n{}",
        found.iter().map(show).collect::<Vec<_>>().join("\n\n")
    );
    assert!(
        broken.is_empty(),
        "{broken:?} are in no circle any more: take them off the list"
    );
}
