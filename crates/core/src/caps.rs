//! Bounds on what an action may put on the table and in the log.
//!
//! Every value a script hands the engine — a field, a variable, an entity it creates, a line of
//! narration, what an action returns — passes [`Caps`] before it joins the transaction, and the
//! transaction keeps a running [`Budget`] of its event. So an event the engine commits is never
//! deeper than [`Caps::max_value_depth`] (far under what the JSON reader accepts, so it always
//! reads back), never larger than [`Caps::max_event_bytes`], and carries at most
//! [`Caps::max_narration_bytes`] of narration. A value over a bound is refused with the bound's
//! name; nothing is cut short silently.
//!
//! The text an item carries is held to the one rule for text ([`crate::text`]): names hold no
//! control character, narration and text values none but line breaks and tabs.
//!
//! What a file carries is held to the same bounds ([`items`]): every event read from a file —
//! opening it, verifying it, paging through its log — must be one an action could have made,
//! and an event's stored size is checked before its text is parsed at all
//! ([`Caps::max_stored_event_bytes`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub mod items;
pub mod scene;

/// The bounds. The defaults leave room for any ruleset's bookkeeping and none for a flood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Caps {
    /// Levels of nesting in one value (a list in a map is two).
    pub max_value_depth: usize,
    /// Bytes of one value or one change, as JSON.
    pub max_value_bytes: usize,
    /// Bytes of one line of narration.
    pub max_line_bytes: usize,
    /// Bytes of narration in one event.
    pub max_narration_bytes: usize,
    /// Bytes of one event's items, as JSON.
    pub max_event_bytes: usize,
    /// Items in one event.
    pub max_event_items: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            max_value_depth: 32,
            max_value_bytes: 64 * 1024,
            max_line_bytes: 8 * 1024,
            max_narration_bytes: 64 * 1024,
            max_event_bytes: 1024 * 1024,
            max_event_items: 5_000,
        }
    }
}

/// What one stored item may carry besides its body: its visibility, owner, label (an entity's
/// name at most, with a few words), salt, public facts and digest.
pub const ITEM_FRAME_BYTES: usize = 1024;

/// The most an event's header may take as stored (JSON): the creation event's details carry
/// the ruleset, the settings and the house-rule files by name.
pub const MAX_HEADER_BYTES: usize = 256 * 1024;

/// The JSON reader's own nesting limit; every bound here stays far below it.
pub const READER_DEPTH: usize = 128;

/// A value over one of the bounds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what}: {detail}")]
pub struct CapError {
    /// What was refused ("a field value", "narration").
    pub what: String,
    /// Which bound, and by how much.
    pub detail: String,
}

/// How deeply a JSON value nests (a scalar is 1), counted without recursion.
pub fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 1usize)];
    while let Some((v, d)) = stack.pop() {
        deepest = deepest.max(d);
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            Value::Object(m) => stack.extend(m.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    deepest
}

impl Caps {
    /// The most an event's items may take as stored (JSON): its bodies within
    /// [`Caps::max_event_bytes`], and what each item carries besides its body (visibility,
    /// owner, label, salt, digest) within [`ITEM_FRAME_BYTES`].
    pub fn max_stored_event_bytes(&self) -> usize {
        self.max_event_bytes + self.max_event_items * ITEM_FRAME_BYTES
    }

    /// Checks one value's nesting, size and text: its strings are text of several lines, the
    /// keys of its maps names.
    pub fn value(&self, what: &str, value: &Value) -> Result<usize, CapError> {
        items::value_text(what, value)?;
        let d = depth(value);
        if d > self.max_value_depth {
            return Err(CapError {
                what: what.into(),
                detail: format!("nested {d} levels deep; the limit is {}", self.max_value_depth),
            });
        }
        let bytes = serde_json::to_vec(value).map(|v| v.len()).unwrap_or(usize::MAX);
        if bytes > self.max_value_bytes {
            return Err(CapError {
                what: what.into(),
                detail: format!("{bytes} bytes; the limit is {} bytes", self.max_value_bytes),
            });
        }
        Ok(bytes)
    }
}

/// What one event has used of its bounds so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Budget {
    pub items: usize,
    pub bytes: usize,
    pub narration: usize,
}

impl Budget {
    /// Counts one more item of `bytes` (and `narration` bytes of it), or refuses it.
    pub fn take(&mut self, caps: &Caps, bytes: usize, narration: usize) -> Result<(), CapError> {
        self.check(caps, bytes, narration)?;
        self.items += 1;
        self.bytes += bytes;
        self.narration += narration;
        Ok(())
    }

    /// Whether one more item of `bytes` (and `narration` bytes of it) fits.
    pub fn check(&self, caps: &Caps, bytes: usize, narration: usize) -> Result<(), CapError> {
        if narration > caps.max_line_bytes {
            return Err(CapError {
                what: "a line of narration".into(),
                detail: format!("{narration} bytes; the limit is {} bytes", caps.max_line_bytes),
            });
        }
        if self.narration + narration > caps.max_narration_bytes {
            return Err(CapError {
                what: "the narration of one action".into(),
                detail: format!("more than {} bytes in one event", caps.max_narration_bytes),
            });
        }
        if self.items + 1 > caps.max_event_items {
            return Err(CapError {
                what: "one action".into(),
                detail: format!("more than {} changes, rolls and lines in one event", caps.max_event_items),
            });
        }
        if self.bytes + bytes > caps.max_event_bytes {
            return Err(CapError {
                what: "one action".into(),
                detail: format!("more than {} bytes in one event", caps.max_event_bytes),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn nested(levels: usize) -> Value {
        let mut v = json!(1);
        for _ in 1..levels {
            v = json!([v]);
        }
        v
    }

    #[test]
    fn depth_counts_levels_without_recursing() {
        assert_eq!(depth(&json!(1)), 1);
        assert_eq!(depth(&json!({"a": [1, {"b": 2}]})), 4);
        assert_eq!(depth(&nested(1_000)), 1_000, "a deep value is measured without recursion");
    }

    #[test]
    fn values_over_the_bounds_are_refused_by_name() {
        let caps = Caps::default();
        assert!(caps.value("a field", &nested(32)).is_ok());
        let e = caps.value("a field", &nested(33)).unwrap_err();
        assert_eq!(e.to_string(), "a field: nested 33 levels deep; the limit is 32");
        let e = caps.value("a variable", &json!("x".repeat(70_000))).unwrap_err();
        assert!(e.detail.contains("the limit is 65536 bytes"), "{e}");
    }

    #[test]
    fn the_budget_bounds_narration_items_and_bytes() {
        let caps = Caps::default();
        let mut b = Budget::default();
        for _ in 0..8 {
            b.take(&caps, 8 * 1024, 8 * 1024).unwrap();
        }
        let e = b.take(&caps, 10, 10).unwrap_err();
        assert!(e.what.contains("narration"), "{e}");
        let mut b = Budget::default();
        let e = b.take(&caps, 10, 9 * 1024).unwrap_err();
        assert!(e.what.contains("a line"), "{e}");
        let mut b = Budget::default();
        for _ in 0..caps.max_event_items {
            b.take(&caps, 1, 0).unwrap();
        }
        assert!(b.take(&caps, 1, 0).is_err(), "the item count is bounded");
    }
}
