//! `[fast_paths]`: the switches of the paths that take a process out of a keystroke's way (the
//! terminal hand-off of `signaltty attach`, the server painting the TUI's focused pane, keys
//! lent to the server, direct input). Each is on by default; turning one off falls back to the
//! plain gRPC path with the same behaviour — for A/B measurements and as an escape hatch.
//!
//! This is the one place they are read: every process takes the [`FastPaths`] of its
//! [`crate::Config`] (defaults filled in here, not at each use) and passes the flags it needs
//! down. The keys, their defaults and docs are in [`crate::schema::KEYS`] (section
//! `fast_paths`); a test checks that [`FastPaths::default`] agrees with them.

use std::time::Duration;

use serde::Serialize;

/// The fast-path switches, with the defaults applied. Serializes to the file's own keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FastPaths {
    /// CLI: `signaltty attach` hands its terminal to the server (else it attaches over gRPC).
    pub attach_handoff: bool,
    /// CLI: say on stderr why the server did not take the terminal (off: the gRPC attach that
    /// follows reports any real problem itself).
    pub report_handoff_refusal: bool,
    /// TUI: the server paints the focused pane into the TUI's terminal.
    pub server_paint: bool,
    /// TUI: while the server paints, it reads the TUI's plain keys itself.
    pub lend_keys: bool,
    /// TUI: typed bytes go straight to the pane's PTY, not over gRPC.
    pub direct_input: bool,
    /// Server: with a paint grant, a chunk is painted before the attach streams are woken.
    pub paint_first: bool,
    /// Server: while a pane is painted into a client, its attach streams hold its output until
    /// it has been quiet this long (zero: at once).
    #[serde(rename = "painted_output_delay_us", serialize_with = "micros")]
    pub painted_output_delay: Duration,
}

fn micros<S: serde::Serializer>(delay: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(delay.as_micros()).unwrap_or(u64::MAX))
}

/// [`FastPaths::painted_output_delay`]'s default: well under a frame, longer than the gap
/// between the keys of a burst.
pub const DEFAULT_PAINTED_OUTPUT_DELAY: Duration = Duration::from_millis(2);

impl Default for FastPaths {
    fn default() -> Self {
        FastPaths {
            attach_handoff: true,
            report_handoff_refusal: false,
            server_paint: true,
            lend_keys: true,
            direct_input: true,
            paint_first: true,
            painted_output_delay: DEFAULT_PAINTED_OUTPUT_DELAY,
        }
    }
}

impl FastPaths {
    /// Sets the switch `name` (a bool key); false when `name` is not one.
    pub(crate) fn set_bool(&mut self, name: &str, on: bool) -> bool {
        let field = match name {
            "attach_handoff" => &mut self.attach_handoff,
            "report_handoff_refusal" => &mut self.report_handoff_refusal,
            "server_paint" => &mut self.server_paint,
            "lend_keys" => &mut self.lend_keys,
            "direct_input" => &mut self.direct_input,
            "paint_first" => &mut self.paint_first,
            _ => return false,
        };
        *field = on;
        true
    }

    /// Sets the integer key `name`; false when `name` is not one.
    pub(crate) fn set_integer(&mut self, name: &str, n: u64) -> bool {
        match name {
            "painted_output_delay_us" => {
                self.painted_output_delay = Duration::from_micros(n);
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Kind, keys_of};

    /// The schema's documented defaults are the ones applied.
    #[test]
    fn the_defaults_are_the_documented_ones() {
        let mut documented = FastPaths {
            attach_handoff: false,
            report_handoff_refusal: true,
            server_paint: false,
            lend_keys: false,
            direct_input: false,
            paint_first: false,
            painted_output_delay: Duration::ZERO,
        };
        for key in keys_of("fast_paths") {
            let known = match key.kind {
                Kind::Bool => documented.set_bool(key.name, key.default == "true"),
                Kind::Integer { .. } => {
                    documented.set_integer(key.name, key.default.parse().expect(key.name))
                }
                _ => false,
            };
            assert!(known, "{} is not a field", key.name);
        }
        assert_eq!(documented, FastPaths::default());
    }

    #[test]
    fn the_file_sets_each_switch_and_a_bad_value_names_the_key() {
        let config = crate::parse(
            "[fast_paths]\nattach_handoff = false\nlend_keys = false\n\
             painted_output_delay_us = 0\n",
        )
        .expect("valid");
        let fast = config.fast_paths;
        assert!(!fast.attach_handoff && !fast.lend_keys);
        assert!(fast.server_paint && fast.direct_input && fast.paint_first);
        assert_eq!(fast.painted_output_delay, Duration::ZERO);
        assert_eq!(
            crate::parse("").expect("empty").fast_paths,
            FastPaths::default()
        );

        for (text, key, expected) in [
            (
                "server_paint = 0",
                "fast_paths.server_paint",
                "true or false",
            ),
            (
                "lend_keys = \"no\"",
                "fast_paths.lend_keys",
                "true or false",
            ),
            (
                "painted_output_delay_us = 99999",
                "fast_paths.painted_output_delay_us",
                "out of range",
            ),
            (
                "paint_later = true",
                "fast_paths.paint_later",
                "unknown key",
            ),
        ] {
            let problems = crate::parse(&format!("[fast_paths]\n{text}\n")).expect_err(text);
            assert_eq!(problems.len(), 1, "{text}: {problems:?}");
            assert_eq!(problems[0].key, key, "{text}");
            assert!(
                problems[0].message.contains(expected),
                "{text}: {}",
                problems[0].message
            );
        }
    }
}
