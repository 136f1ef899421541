//! Whose turn it is, in the room: `!hr turn` answers it, and the referee tells the room when
//! a turn passes.
//!
//! Guarantees: what is said is the turn line of a view — the room's is the public one, so a
//! participant the public may not see is left out of it (or named only "someone", where the GM
//! chose so) exactly as on every other screen; a turn passing is noticed from the changes the
//! public may see of an event, never from what they may not.

use houserule_core::event::Body;
use houserule_core::render;
use houserule_core::table::Change;
use houserule_core::view::{LogEntry, View};

/// Whose turn it is, said for the room: the tracker's line, or that no encounter runs.
pub fn line(view: &View) -> String {
    match render::turn_line(view) {
        Some(line) => sentence(&line),
        None => "No encounter is running: nobody's turn.".to_string(),
    }
}

/// A turn line as a sentence ("Turn order, round 2: Dutch's turn — …").
fn sentence(line: &str) -> String {
    let mut chars = line.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Whether an event, as its reader sees it, started or ended an encounter or passed a turn.
pub fn moved(entry: &LogEntry) -> bool {
    entry
        .items
        .iter()
        .filter_map(|i| i.body())
        .any(|b| matches!(b, Body::Change { change: Change::Turn { .. } | Change::Encounter { .. } }))
}
