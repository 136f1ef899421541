//! The `caps` check: every event the file carries is one an action could have made — no row
//! larger as stored than an event can be (refused before its text is read), and its items
//! within the bounds a transaction is held to, their names and text held to the one rule for
//! text ([`houserule_core::caps`], [`houserule_core::text`]); and the rest of the file (facts,
//! secret rows, scripts, snapshots) within what Houserule writes there, measured, never read.

use super::{fail, pass, Check, Event, KnownSeeds, Step, Tally};
use crate::store::{Store, StoreError};
use houserule_core::caps::Caps;

pub(super) const NAME: &str = "caps";

pub(super) fn start<'a>(store: &'a Store, _: &'a KnownSeeds) -> Box<dyn Step + 'a> {
    Box::new(Bounds { store, caps: Caps::default(), events: 0 })
}

struct Bounds<'a> {
    store: &'a Store,
    caps: Caps,
    events: u64,
}

impl Step for Bounds<'_> {
    fn event(&mut self, e: &Event) -> Option<Check> {
        self.events += 1;
        let (i, cap) = self.caps.event(e.items).err()?;
        Some(fail(NAME, Some(e.seq), format!("event {}, item {}: {cap}", e.seq, i + 1)))
    }

    fn finish(self: Box<Self>, _: &mut Tally) -> Check {
        match self.store.first_oversized() {
            Ok(None) => pass(
                NAME,
                format!("all {} events are within what an action can make, and the rest of the file within what Houserule writes", self.events),
            ),
            Ok(Some(over)) | Err(over) => fail(NAME, None, over.to_string()),
        }
    }
}

/// The check when a stored row was too large to read at all.
pub(super) fn unread(e: &StoreError) -> Option<(u64, Check)> {
    match e {
        StoreError::TooLarge { seq, .. } => Some((*seq, fail(NAME, Some(*seq), e.to_string()))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{file_with, first, items_event, say};
    use super::super::{verify, KnownSeeds};
    use super::*;

    fn caps_check(store: &Store) -> Check {
        verify(store, &KnownSeeds::new()).checks.into_iter().find(|c| c.name == NAME).unwrap()
    }

    #[test]
    fn events_an_action_could_make_pass() {
        let check = caps_check(&file_with(&[first(), items_event(vec![say("The goblins charge.")])]));
        assert!(check.ok && check.detail.contains("all 2 events"), "{check:?}");
    }

    #[test]
    fn an_item_over_a_bound_or_against_the_text_rule_is_named() {
        let store = file_with(&[first(), items_event(vec![say("fine"), say(&"x".repeat(9 * 1024))])]);
        let check = caps_check(&store);
        assert!(!check.ok && check.event == Some(2) && check.detail.contains("item 2"), "{check:?}");
        let check = caps_check(&file_with(&[first(), items_event(vec![say("\u{1b}]0;title\u{7}")])]));
        assert!(!check.ok && check.detail.contains("U+001B"), "{check:?}");
    }

    #[test]
    fn a_row_too_large_to_read_fails_here_and_stops_the_chain() {
        let store = file_with(&[first(), items_event(vec![say("a")]), items_event(vec![say("b")])]);
        let huge = format!("[{}]", "0,".repeat(4 << 20) + "0");
        store.connection().execute("UPDATE events SET items = ?1 WHERE seq = 2", [huge]).unwrap();
        let report = verify(&store, &KnownSeeds::new());
        let failed: Vec<(&str, Option<u64>)> =
            report.checks.iter().filter(|c| !c.ok).map(|c| (c.name.as_str(), c.event)).collect();
        assert_eq!(failed, vec![("caps", Some(2)), ("chain", Some(2))], "{:?}", report.checks);
        assert_eq!(report.events, 1, "only event 1 was read");
    }
}
