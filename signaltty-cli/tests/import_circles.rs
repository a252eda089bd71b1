//! No import circle between the CLI's files (what several commands share sits below them, as
//! `cmd/show.rs` does for printing records).

#[path = "../../tools/import_graph.rs"]
mod import_graph;

#[test]
fn no_module_is_in_an_import_circle() {
    // What several commands share sits below them: `cmd/show.rs` (printing records),
    // `cmd/attach_options.rs` (the attach's options, end and status line).
    import_graph::assert_no_circles_but(env!("CARGO_MANIFEST_DIR"), &[]);
}
