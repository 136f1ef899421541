//! Logs written by hand for the unit tests of each check: events chained as Houserule chains
//! them, in a store of their own.

use crate::store::{Row, Store};
use houserule_core::event::{self, Body, Event, EventKind, Header, Item, GENESIS};
use houserule_core::table::Change;
use houserule_core::{Role, Visibility};
use serde_json::Value;

/// The one ruleset file every test log carries.
pub const RULES_FILE: (&str, &str) = ("rules.rhai", "fn x(t, p) { }");

/// An event to write: its kind, its header's detail and its items.
pub struct Written {
    pub kind: EventKind,
    pub detail: Option<Value>,
    pub items: Vec<Item>,
}

pub fn items_event(items: Vec<Item>) -> Written {
    Written { kind: EventKind::Action, detail: None, items }
}

pub fn say(text: &str) -> Item {
    Item::new(Body::Say { text: text.into() }, Visibility::Public, None, None)
}

pub fn change(change: Change) -> Item {
    Item::new(Body::Change { change }, Visibility::Public, None, None)
}

/// The `rules` change that commits to [`RULES_FILE`].
pub fn rules_item() -> Item {
    let (name, text) = RULES_FILE;
    let ruleset = houserule_core::PluginSource { files: [(name.to_string(), text.to_string())].into() };
    change(Change::Rules { sources: crate::pinned::digests(&ruleset, &[]) })
}

/// The rows of a log of these events, chained from the first.
pub fn rows(events: &[Written]) -> Vec<Row> {
    let mut prev = GENESIS;
    let mut out = Vec::new();
    for (i, w) in events.iter().enumerate() {
        let seq = i as u64 + 1;
        let header = Header {
            seq,
            prev: hex::encode(prev),
            at: event::rfc3339(0),
            kind: w.kind,
            actor: Some(Role::Gm),
            action: None,
            detail: w.detail.clone(),
            state: None,
        };
        let e = Event { header, items: w.items.clone() };
        let hash = e.hash(&prev).expect("test events hash");
        out.push(Row {
            seq,
            hash: hash.to_vec(),
            header: e.header_json(),
            items: serde_json::to_string(&e.items).expect("items serialise"),
            commitments: e.commitments().expect("test events commit"),
        });
        prev = hash;
    }
    out
}

/// An in-memory file holding these events, its first one preceded by the rules change that
/// commits to the ruleset the file carries.
pub fn file_with(events: &[Written]) -> Store {
    let mut store = Store::in_memory().expect("an in-memory store");
    let (name, text) = RULES_FILE;
    let files = vec![(name.to_string(), text.to_string())];
    for (i, row) in rows(events).iter().enumerate() {
        let sources: Vec<(&str, &[(String, String)])> = if i == 0 { vec![("ruleset", &files)] } else { vec![] };
        store.append(row, None, &sources).expect("the test log is written");
    }
    store
}

/// The first event of a test log: it puts the rules in force.
pub fn first() -> Written {
    items_event(vec![rules_item()])
}
