//! No import circle between the TUI's files: the state the app holds sits below `app.rs`, and the
//! behaviour over it above (see `docs/architecture.md`, "Module layers"). The modules still in
//! circles are listed; the list may only shrink (the check fails when one leaves every circle).

#[path = "../../tools/import_graph.rs"]
mod import_graph;

#[test]
fn no_module_is_in_an_import_circle_but_those_still_listed() {
    import_graph::assert_no_circles_but(
        env!("CARGO_MANIFEST_DIR"),
        &[
            "diff",
            "input::csi",
            "input::parse",
            "names",
            "outer_notify",
            "race_diff",
            "regions",
            "view",
            "view::diff",
            "view::overlays",
            "view::picker",
            "view::race_diff",
            "view::spawn",
        ],
    );
}
