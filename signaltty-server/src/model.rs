//! The pure domain: ids, workspace/tab/pane records, the layout tree, the lifecycle and attention
//! axes. No I/O and no proto types here, so every rule can be unit- and property-tested.

pub mod decision;
pub mod ids;
pub mod lifecycle;
pub mod notification;
