//! The JSON shape of a tab layout, read by `tab set-layout` and printed by every `--json` output
//! that carries a layout:
//!
//! ```json
//! {"split": {"direction": "right", "ratio": 0.5,
//!            "first": {"pane": "pane_a"},
//!            "second": {"split": {"direction": "down", "ratio": 0.5,
//!                                 "first": {"pane": "pane_b"}, "second": {"pane": "pane_c"}}}}}
//! ```
//!
//! Parsing is strict (unknown keys and directions are refused) so that a typo fails here with a
//! clear message instead of reaching the server as a half-understood tree. Validation of the tree
//! against the tab's panes is the server's job.

use serde::{Deserialize, Serialize};
use signaltty_proto::v1 as pb;

/// A layout node: a leaf holding one pane, or a split of two sub-layouts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LayoutJson {
    /// A leaf: the pane's id.
    Pane(String),
    /// An inner node.
    Split(Box<SplitJson>),
}

/// A split of an area between two sub-layouts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitJson {
    /// Where `second` goes relative to `first`.
    pub direction: DirectionJson,
    /// Share of the area given to `first`.
    pub ratio: f32,
    /// The left or top part.
    pub first: LayoutJson,
    /// The right or bottom part.
    pub second: LayoutJson,
}

/// Split direction, named after where the second part goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DirectionJson {
    /// Side by side.
    Right,
    /// Stacked.
    Down,
}

/// A layout from the server that this client cannot represent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutFromProtoError {
    /// A node with neither a pane nor a split.
    EmptyNode,
    /// A split without a child.
    MissingChild,
    /// A direction this client does not know.
    UnknownDirection(i32),
}

impl std::fmt::Display for LayoutFromProtoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::EmptyNode => f.write_str("layout node with neither pane nor split"),
            Self::MissingChild => f.write_str("layout split with a missing child"),
            Self::UnknownDirection(d) => write!(f, "layout split with unknown direction {d}"),
        }
    }
}

impl std::error::Error for LayoutFromProtoError {}

/// Deepest layout JSON [`parse`] reads: a split nests two levels, and a tab of the most panes
/// the server allows (256) in one direction is 255 splits deep.
pub const MAX_JSON_DEPTH: usize = 600;

/// Parses the layout JSON format. serde_json's own nesting limit (128) would refuse the JSON of
/// a tab split ~60 times in one direction, which the CLI itself prints; the depth is bounded
/// here instead, before parsing, so that no input can exhaust the stack.
pub fn parse(text: &str) -> Result<LayoutJson, serde_json::Error> {
    if json_depth(text) > MAX_JSON_DEPTH {
        return Err(serde::de::Error::custom(format!(
            "layout nested deeper than {MAX_JSON_DEPTH} levels (a tab holds at most 256 panes)"
        )));
    }
    let mut reader = serde_json::Deserializer::from_str(text);
    reader.disable_recursion_limit();
    let layout = LayoutJson::deserialize(&mut reader)?;
    reader.end()?;
    Ok(layout)
}

/// The deepest nesting of `{`/`[` outside strings (an upper bound of what parsing recurses).
fn json_depth(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0_usize, 0, false, false);
    for byte in text.bytes() {
        match (in_string, escaped, byte) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') | (false, _, b'"') => in_string = !in_string,
            (false, _, b'{' | b'[') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (false, _, b'}' | b']') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

impl LayoutJson {
    /// The proto layout to send to the server.
    pub fn to_proto(&self) -> pb::Layout {
        let node = match self {
            LayoutJson::Pane(id) => pb::layout::Node::PaneId(id.clone()),
            LayoutJson::Split(split) => pb::layout::Node::Split(Box::new(pb::Split {
                direction: match split.direction {
                    DirectionJson::Right => pb::Direction::Right,
                    DirectionJson::Down => pb::Direction::Down,
                } as i32,
                ratio: split.ratio,
                first: Some(Box::new(split.first.to_proto())),
                second: Some(Box::new(split.second.to_proto())),
            })),
        };
        pb::Layout { node: Some(node) }
    }

    /// The JSON form of a layout received from the server.
    pub fn from_proto(layout: &pb::Layout) -> Result<Self, LayoutFromProtoError> {
        match &layout.node {
            None => Err(LayoutFromProtoError::EmptyNode),
            Some(pb::layout::Node::PaneId(id)) => Ok(LayoutJson::Pane(id.clone())),
            Some(pb::layout::Node::Split(split)) => {
                let direction = match pb::Direction::try_from(split.direction) {
                    Ok(pb::Direction::Right) => DirectionJson::Right,
                    Ok(pb::Direction::Down) => DirectionJson::Down,
                    _ => return Err(LayoutFromProtoError::UnknownDirection(split.direction)),
                };
                let child = |c: &Option<Box<pb::Layout>>| match c {
                    Some(c) => Self::from_proto(c),
                    None => Err(LayoutFromProtoError::MissingChild),
                };
                Ok(LayoutJson::Split(Box::new(SplitJson {
                    direction,
                    ratio: split.ratio,
                    first: child(&split.first)?,
                    second: child(&split.second)?,
                })))
            }
        }
    }

    /// A tree drawing for humans, one node per line:
    ///
    /// ```text
    /// right 0.50
    /// ├─ pane_a
    /// └─ down 0.50
    ///    ├─ pane_b
    ///    └─ pane_c
    /// ```
    pub fn render_tree(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out, "", "");
        out
    }

    fn render_into(&self, out: &mut String, first_prefix: &str, rest_prefix: &str) {
        out.push_str(first_prefix);
        match self {
            LayoutJson::Pane(id) => {
                out.push_str(id);
                out.push('\n');
            }
            LayoutJson::Split(split) => {
                let dir = match split.direction {
                    DirectionJson::Right => "right",
                    DirectionJson::Down => "down",
                };
                out.push_str(&format!("{dir} {:.2}\n", split.ratio));
                split.first.render_into(
                    out,
                    &format!("{rest_prefix}├─ "),
                    &format!("{rest_prefix}│  "),
                );
                split.second.render_into(
                    out,
                    &format!("{rest_prefix}└─ "),
                    &format!("{rest_prefix}   "),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON of `splits` splits in one direction, as `--json` prints a tab split that often.
    fn chain_json(splits: usize) -> String {
        let mut json = r#"{"pane":"pane_end"}"#.to_string();
        for i in 0..splits {
            json = format!(
                r#"{{"split":{{"direction":"right","ratio":0.5,"first":{{"pane":"pane_{i}"}},"second":{json}}}}}"#
            );
        }
        json
    }

    #[test]
    fn the_layout_of_a_full_tab_in_one_direction_parses_and_deeper_input_is_refused() {
        let printed = chain_json(255);
        let layout = parse(&printed).expect("255 splits: serde_json's default limit refused it");
        assert_eq!(serde_json::to_string(&layout).expect("print"), printed);
        let err = parse(&chain_json(400)).expect_err("past the bound");
        assert!(err.to_string().contains("deeper than 600"), "{err}");
        // Brackets inside strings do not count; trailing input is still refused.
        assert!(parse(r#"{"pane":"[[[[{{{{\"]]"}"#).is_ok());
        assert!(parse(r#"{"pane":"pane_a"} x"#).is_err());
    }

    const NESTED: &str = r#"{"split":{"direction":"right","ratio":0.5,"first":{"pane":"pane_a"},
        "second":{"split":{"direction":"down","ratio":0.25,"first":{"pane":"pane_b"},"second":{"pane":"pane_c"}}}}}"#;

    #[test]
    fn json_round_trips_through_proto() {
        let parsed = parse(NESTED).expect("valid layout");
        let back = LayoutJson::from_proto(&parsed.to_proto()).expect("representable");
        assert_eq!(back, parsed);
        let reprinted: serde_json::Value = serde_json::to_value(&back).expect("serializable");
        let original: serde_json::Value = serde_json::from_str(NESTED).expect("valid JSON");
        assert_eq!(reprinted, original);
    }

    #[test]
    fn a_leaf_is_an_object_with_pane() {
        let leaf = parse(r#"{"pane":"pane_x"}"#).expect("valid leaf");
        assert_eq!(leaf, LayoutJson::Pane("pane_x".into()));
        assert_eq!(
            serde_json::to_string(&leaf).expect("serializable"),
            r#"{"pane":"pane_x"}"#
        );
        assert_eq!(
            leaf.to_proto().node,
            Some(pb::layout::Node::PaneId("pane_x".into()))
        );
    }

    #[test]
    fn proto_directions_map_both_ways() {
        let proto = parse(NESTED).expect("valid").to_proto();
        let Some(pb::layout::Node::Split(root)) = proto.node else {
            panic!("root is a split")
        };
        assert_eq!(root.direction, pb::Direction::Right as i32);
        assert_eq!(root.ratio, 0.5);
    }

    #[test]
    fn typos_are_refused() {
        assert!(parse(r#"{"pain":"pane_x"}"#).is_err());
        assert!(parse(r#"{"split":{"direction":"left","ratio":0.5,"first":{"pane":"a"},"second":{"pane":"b"}}}"#).is_err());
        assert!(
            parse(r#"{"split":{"direction":"down","ratio":0.5,"first":{"pane":"a"}}}"#).is_err()
        );
        assert!(parse(r#"{"split":{"direction":"down","ratio":0.5,"extra":1,"first":{"pane":"a"},"second":{"pane":"b"}}}"#).is_err());
        assert!(parse(r#"{"pane":"a","split":null}"#).is_err());
    }

    #[test]
    fn bad_proto_layouts_are_reported() {
        assert_eq!(
            LayoutJson::from_proto(&pb::Layout { node: None }),
            Err(LayoutFromProtoError::EmptyNode)
        );
        let split = pb::Layout {
            node: Some(pb::layout::Node::Split(Box::new(pb::Split {
                direction: 0,
                ratio: 0.5,
                first: None,
                second: None,
            }))),
        };
        assert_eq!(
            LayoutJson::from_proto(&split),
            Err(LayoutFromProtoError::UnknownDirection(0))
        );
    }

    #[test]
    fn render_tree_draws_the_nesting() {
        let tree = parse(NESTED).expect("valid").render_tree();
        assert_eq!(
            tree,
            "right 0.50\n├─ pane_a\n└─ down 0.25\n   ├─ pane_b\n   └─ pane_c\n"
        );
    }
}
