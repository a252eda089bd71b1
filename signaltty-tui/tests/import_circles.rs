//! No import circle between the TUI's files: the state the app holds sits below `app.rs`, and the
//! behaviour over it above (see `docs/architecture.md`, "TUI module layers"). No module is exempt:
//! a new circle fails here with the modules and edges that make it.

#[path = "../../tools/import_graph.rs"]
mod import_graph;

#[test]
fn no_module_is_in_an_import_circle() {
    import_graph::assert_no_circles_but(env!("CARGO_MANIFEST_DIR"), &[]);
}

/// The reader on a crate made for it: grouped and nested imports, `super::`, a path in a comment,
/// a string that looks like one, and test code (inline, and in a file of its own) that would
/// close a circle.
#[test]
fn the_reader_follows_groups_and_super_and_leaves_out_comments_and_tests() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("b")).expect("src/b");
    let files = [
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        ("a.rs", "use crate::{b::{inner::X, Y}, c};\n"),
        ("b.rs", "pub mod inner;\nuse super::a::Z;\n"),
        (
            "b/inner.rs",
            "// crate::c\nconst S: &str = \"// not a comment\"; use super::super::a;\n",
        ),
        (
            "c.rs",
            "#[cfg(test)]\nmod tests {\n    use crate::a;\n}\n#[cfg(test)]\n#[path = \"c_tests.rs\"]\nmod more;\n",
        ),
        ("c_tests.rs", "use crate::b::inner;\n"),
    ];
    for (name, text) in files {
        std::fs::write(src.join(name), text).expect("write a source file");
    }
    let graph = import_graph::module_graph(&src);
    let names = |m: &str| graph[m].iter().map(String::as_str).collect::<Vec<_>>();
    assert_eq!(
        graph.keys().collect::<Vec<_>>(),
        ["a", "b", "b::inner", "c"]
    );
    assert_eq!(names("a"), ["b", "b::inner", "c"]);
    assert_eq!(names("b"), ["a"]);
    assert_eq!(names("b::inner"), ["a"]);
    assert!(names("c").is_empty());
    assert_eq!(
        import_graph::circles(&graph),
        [vec!["a".to_owned(), "b".to_owned(), "b::inner".to_owned()]]
    );
}
