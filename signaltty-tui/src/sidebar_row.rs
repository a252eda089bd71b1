//! One row of the sidebar's tree: its own module so that the modules that build rows (`app`,
//! `machines`) need not import each other.

/// One row of the sidebar tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Row {
    /// A workspace.
    Workspace(String),
    /// A tab.
    Tab(String),
    /// A pane.
    Pane(String),
    /// Option `n` (1-based) of the pane's pending decision, listed under the pane: a click
    /// answers it, and so does Enter on the highlighted row.
    Option(String, u8),
    /// A machine's header (only when remotes are configured): `local`, or a remote's name
    /// with its link's state.
    Machine(String),
    /// A row of a remote machine's tree (never `Machine` or `Remote` inside): its ids are
    /// that machine's (`crate::machines`).
    Remote(String, Box<Row>),
}
