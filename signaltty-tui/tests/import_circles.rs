//! No import circle between the TUI's files: the state the app holds sits below `app.rs`, and the
//! behaviour over it above (see `docs/architecture.md`, "TUI module layers"). No module is exempt:
//! a new circle fails here with the modules and edges that make it.

#[path = "../../tools/import_graph.rs"]
mod import_graph;

#[test]
fn no_module_is_in_an_import_circle() {
    import_graph::assert_no_circles_but(env!("CARGO_MANIFEST_DIR"), &[]);
}
