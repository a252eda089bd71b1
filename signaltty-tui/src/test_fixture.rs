//! A catalog fixture for unit tests: workspace `w` (cwd `/proj`, on branch `main`, dirty) with
//! tab `t1` (panes `a` | `b`, `a` an agent blocked on a permission) and tab `t2` (pane `c`).

use std::time::Instant;

use crate::catalog::{Catalog, FeedMsg};
use signaltty_proto::v1 as pb;
use signaltty_proto::v1::layout::Node;

use crate::app::{App, Attachment, Mode, Msg, PaneEvent};
use crate::keymap::Keymap;
use crate::update::update;

pub fn leaf(id: &str) -> pb::Layout {
    pb::Layout {
        node: Some(Node::PaneId(id.into())),
    }
}

pub fn split(direction: pb::Direction, ratio: f32, a: pb::Layout, b: pb::Layout) -> pb::Layout {
    pb::Layout {
        node: Some(Node::Split(Box::new(pb::Split {
            direction: direction as i32,
            ratio,
            first: Some(Box::new(a)),
            second: Some(Box::new(b)),
        }))),
    }
}

pub fn pane(id: &str, tab: &str, title: &str) -> pb::Pane {
    pb::Pane {
        id: id.into(),
        workspace_id: "w".into(),
        tab_id: tab.into(),
        title: title.into(),
        status: pb::PaneStatus::Live as i32,
        lifecycle: pb::Lifecycle::Unknown as i32,
        attention: pb::Attention::None as i32,
        cols: 80,
        rows: 24,
        ..Default::default()
    }
}

pub fn tab(id: &str, title: &str, layout: pb::Layout, panes: &[&str]) -> pb::Tab {
    let mut tab = pb::Tab {
        id: id.into(),
        workspace_id: "w".into(),
        title: title.into(),
        pane_ids: panes.iter().map(|p| p.to_string()).collect(),
        active_pane_id: panes[0].into(),
        ..Default::default()
    };
    signaltty_client::layout_tree::set(&mut tab, Some(layout));
    tab
}

pub fn decision() -> pb::Decision {
    pb::Decision {
        id: "dec_1".into(),
        pane_id: "a".into(),
        prompt: "Allow Bash?".into(),
        options: vec![
            pb::DecisionOption {
                id: "once".into(),
                label: "Allow once".into(),
            },
            pb::DecisionOption {
                id: "always".into(),
                label: "Always".into(),
            },
            pb::DecisionOption {
                id: "deny".into(),
                label: "Deny".into(),
            },
        ],
        answerable: true,
        received_at: None,
        tool_name: "Bash".into(),
        detail: "rm -rf build".into(),
    }
}

pub fn catalog() -> Catalog {
    let mut c = Catalog {
        seq: 10,
        ..Catalog::default()
    };
    c.workspaces.push(pb::Workspace {
        id: "w".into(),
        name: "api".into(),
        cwd: "/proj".into(),
        git: Some(pb::GitContext {
            is_repo: true,
            branch: "main".into(),
            dirty: true,
            ..Default::default()
        }),
        tab_ids: vec!["t1".into(), "t2".into()],
        active_tab_id: "t1".into(),
        ..Default::default()
    });
    c.tabs.insert(
        "t1".into(),
        tab(
            "t1",
            "agents",
            split(pb::Direction::Right, 0.5, leaf("a"), leaf("b")),
            &["a", "b"],
        ),
    );
    c.tabs
        .insert("t2".into(), tab("t2", "tests", leaf("c"), &["c"]));
    let mut a = pane("a", "t1", "claude");
    a.agent = Some(pb::AgentInfo {
        kind: pb::AgentKind::Claude as i32,
        ..Default::default()
    });
    a.lifecycle = pb::Lifecycle::Blocked as i32;
    a.attention = pb::Attention::PermissionRequired as i32;
    a.pending_decision = Some(decision());
    c.panes.insert("a".into(), a);
    let mut b = pane("b", "t1", "bash");
    b.lifecycle = pb::Lifecycle::Done as i32;
    b.last_run_seconds = 125.0;
    c.panes.insert("b".into(), b);
    c.panes.insert("c".into(), pane("c", "t2", "cargo test"));
    c
}

/// An app of 100×30 that has loaded the fixture catalog (effects of the load dropped).
pub fn app() -> App {
    app_with(crate::keymap::Preset::Modal, (100, 30))
}

/// An app with a preset's keymap, of a size, that has loaded the fixture catalog.
pub fn app_with(preset: crate::keymap::Preset, size: (u16, u16)) -> App {
    let mut app = App::new(Keymap::preset(preset), size, "/proj".into());
    update(
        &mut app,
        Msg::Feed(FeedMsg::Loaded(Box::new(catalog()))),
        Instant::now(),
    );
    app
}

/// Gives tab `t1` four panes, `a` | (`b` / (`d` | `e`)) — the nested split the frame tests
/// draw; the caller adds panes `d` and `e` to the catalog with the titles it wants.
pub fn four_pane_layout(app: &mut App) {
    let layout = split(
        pb::Direction::Right,
        0.4,
        leaf("a"),
        split(
            pb::Direction::Down,
            0.5,
            leaf("b"),
            split(pb::Direction::Right, 0.5, leaf("d"), leaf("e")),
        ),
    );
    if let Some(t1) = app.catalog.tabs.get_mut("t1") {
        signaltty_client::layout_tree::set(t1, Some(layout));
        t1.pane_ids = ["a", "b", "d", "e"].map(String::from).to_vec();
    }
}

/// The frame as text, one line per row, trailing blanks trimmed (for insta snapshots).
pub fn render(app: &App) -> String {
    let (w, h) = app.size;
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("terminal");
    terminal.draw(|f| crate::view::view(app, f)).expect("draw");
    let buf = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        let mut line = String::new();
        for x in 0..w {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The fixture with four panes in tab `t1` (`a` | (`b` / (`d` | `e`))), each attached at its
/// drawn size with a model of that size.
pub fn four_panes() -> App {
    let mut app = app();
    four_pane_layout(&mut app);
    for id in ["d", "e"] {
        app.catalog.panes.insert(id.into(), pane(id, "t1", id));
    }
    update(&mut app, Msg::Tick, Instant::now());
    for id in ["a", "b", "d", "e"] {
        let (cols, rows) = match app.attached.get(id) {
            Some(Attachment::Interactive { cols, rows }) => (*cols, *rows),
            other => panic!("{id} attached as {other:?}"),
        };
        let event = PaneEvent::Snapshot {
            screen: Vec::new(),
            cols,
            rows,
        };
        let pane_id = id.to_owned();
        update(&mut app, Msg::Pane { pane_id, event }, Instant::now());
    }
    app.mode = Mode::Insert;
    app
}
