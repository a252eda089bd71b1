//! The hub's layering, checked on its source: `hub` returns domain values and never names `rpc`
//! (which encodes them), nor a proto or tonic type; `machines` (calls forwarded to other
//! machines) names neither `hub` nor `rpc`; and a concern's handle (`hub.git()`, …: see the
//! hub section of `docs/architecture.md`) never names `Hub`, so it reaches the rest of the
//! server only through the fields it holds. (The domain below it, `model`, is the crate
//! `signaltty-model`: cargo keeps it from naming the server or proto, so it needs no check here.)
//!
//! A unit test rather than a check in `.ci/run`: it runs wherever `cargo test -p
//! signaltty-server` runs (every engineer's loop, not only CI), and it needs no grep whose
//! patterns would drift from Rust's syntax: the reading of paths (grouped imports, `super::`
//! chains that climb out of the layer, comments) is `tools/import_graph.rs`, shared with the
//! CLI's and TUI's import-circle tests. It reads the files at test time, from
//! `CARGO_MANIFEST_DIR`.

use std::path::Path;

#[path = "../../tools/import_graph.rs"]
mod import_graph;

use import_graph::{
    crate_paths, is_ident_char, module_of, names_crate, rust_files, strip_comments,
};

/// A layer: the files under `src/<name>.rs` and `src/<name>/`, and what they may not name.
struct Layer {
    name: &'static str,
    /// Crate modules it may not name.
    denied_modules: &'static [&'static str],
    /// External crates it may not name.
    denied_crates: &'static [&'static str],
    /// At least this many files (a wrong path would find none and pass).
    min_files: usize,
}

const LAYERS: [Layer; 2] = [
    Layer {
        name: "hub",
        denied_modules: &["rpc"],
        denied_crates: &["signaltty_proto", "tonic"],
        min_files: 4,
    },
    // Other machines are reached beside the hub, never through it: the machine table keeps
    // its own state and knows no pane, workspace or service.
    Layer {
        name: "machines",
        denied_modules: &["hub", "rpc"],
        denied_crates: &[],
        min_files: 3,
    },
];

/// What `layer`'s file `rel` (relative to `src/`) breaks, one line per offence.
fn offences(layer: &Layer, rel: &Path, src: &str) -> Vec<String> {
    let code = strip_comments(src);
    let mut found = Vec::new();
    for path in crate_paths(&code, &module_of(rel)) {
        // Only the crate-root module a path starts from matters here.
        let Some(module) = path.first() else { continue };
        if layer.denied_modules.contains(&module.as_str()) {
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
        assert!(
            files.len() >= layer.min_files,
            "{}: too few files found",
            layer.name
        );
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

/// The files of each concern's handle, relative to `src/`: none of them may name `Hub`.
const HANDLES: [(&str, &[&str]); 9] = [
    ("git", &["hub/git.rs", "hub/git_watch.rs"]),
    ("persistence", &["hub/persistence.rs"]),
    ("decisions", &["hub/decisions.rs"]),
    ("notifications", &["hub/notifications.rs"]),
    ("arrangement", &["hub/arrange.rs"]),
    ("guard", &["hub/guard.rs"]),
    (
        "races",
        &[
            "hub/race/records.rs",
            "hub/race/wait.rs",
            "hub/race/compare.rs",
            "hub/race/git.rs",
        ],
    ),
    ("agents", &["hub/agents/hooks.rs"]),
    ("panes", &["hub/panes/actors.rs", "hub/resources.rs"]),
];

/// Whether `code` (comments stripped) names the identifier `word`.
fn names_word(code: &str, word: &str) -> bool {
    let bytes = code.as_bytes();
    code.match_indices(word).any(|(i, _)| {
        let end = i + word.len();
        (i == 0 || !is_ident_char(bytes[i - 1] as char))
            && (end == code.len() || !is_ident_char(bytes[end] as char))
    })
}

#[test]
fn handles_never_name_the_hub() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    for (handle, files) in HANDLES {
        for rel in files {
            let text = std::fs::read_to_string(src.join(rel)).expect("readable source");
            if names_word(&strip_comments(&text), "Hub") {
                all.push(format!("{rel} (the {handle} handle) names Hub"));
            }
        }
    }
    assert!(
        all.is_empty(),
        "a handle reaches the hub (see the module docs of src/layering.rs):\n{}",
        all.join("\n")
    );
    assert!(names_word("use super::Hub;", "Hub"));
    assert!(!names_word("struct HubLike; let hub = 1;", "Hub"));
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
