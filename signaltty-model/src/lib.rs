//! The pure domain: ids, workspace/tab/pane records, the layout tree, the lifecycle and attention
//! axes, decisions, notifications, events, and `State` (the only code that changes records). No
//! I/O and no proto types here, so every rule can be unit- and property-tested.

pub mod agent;
pub mod agent_kind;
pub mod decision;
pub mod event;
pub mod ids;
pub mod layout;
pub mod lifecycle;
pub mod names;
pub mod notification;
pub mod pane;
pub mod race;
pub mod session_id;
pub mod state;
pub mod steady_title;
pub mod tab;
pub mod tab_list;
pub mod workspace;
