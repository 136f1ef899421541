//! The `rules` check: the sources the file carries are the ones the log last committed to, and
//! the text of every version the log ever committed to is still in the file. A file from before
//! the rules were recorded file by file is held to the one digest its log kept.

use super::{fail, pass, Check, Event, KnownSeeds, Step, Tally};
use crate::pinned::{self, Stored};
use crate::store::{Store, StoreError};
use houserule_core::event::Body;
use houserule_core::table::Change;
use std::collections::{BTreeMap, BTreeSet, HashSet};

const NAME: &str = "rules";

/// The meta key under which a player's copy lists the events whose rules item it withheld (a
/// JSON array of event numbers): they put in force a house rule the GM keeps secret.
pub const WITHHELD_KEY: &str = "copy_withheld_rules";

/// The events a player's copy withheld the rules item of (none for any other file).
fn withheld_seqs(store: &Store) -> Result<Vec<u64>, StoreError> {
    match store.meta(WITHHELD_KEY)? {
        None => Ok(Vec::new()),
        Some(text) => serde_json::from_str(&text)
            .map_err(|e| StoreError::Corrupt(format!("the copy's list of withheld rules does not read: {e}"))),
    }
}

pub(super) fn start<'a>(store: &'a Store, _: &'a KnownSeeds) -> Box<dyn Step + 'a> {
    Box::new(Rules { store, events: Vec::new() })
}

struct Rules<'a> {
    store: &'a Store,
    /// The rules each rules event put in force (public items, so a player's copy has them too).
    events: Vec<(u64, BTreeMap<String, String>)>,
}

impl Step for Rules<'_> {
    fn event(&mut self, e: &Event) -> Option<Check> {
        for item in e.items {
            if let Some(Body::Change { change: Change::Rules { sources } }) = &item.body {
                self.events.push((e.seq, sources.clone()));
            }
        }
        None
    }

    fn finish(self: Box<Self>, _: &mut Tally) -> Check {
        let stored = match pinned::stored(self.store) {
            Ok(s) => s,
            Err(e) => return fail(NAME, None, e.to_string()),
        };
        let withheld = match withheld_seqs(self.store) {
            Ok(w) => w.last().copied(),
            Err(e) => return fail(NAME, None, e.to_string()),
        };
        match (self.events.last(), withheld) {
            (last, Some(w)) if last.is_none_or(|(seq, _)| *seq < w) => withheld_since(self.store, &self.events, w),
            (None, _) => older_file(self.store, &stored),
            (Some((seq, last)), _) => {
                match pinned::compare(last, &pinned::digests(&stored.ruleset, &stored.house_files)) {
                    Err(m) => fail(NAME, Some(*seq), m.0),
                    Ok(()) => every_version_kept(self.store, &self.events),
                }
            }
        }
    }
}

/// A file from before the rules were recorded file by file: the whole ruleset by one digest.
fn older_file(store: &Store, stored: &Stored) -> Check {
    match pinned::v1_commitment(store).map(|v1| (v1.seq, pinned::compare_v1(&v1, stored))) {
        Ok((seq, Ok(()))) => pass(
            NAME,
            format!("the rules the file carries are the ones event {seq} committed to (an older file: the whole ruleset by one digest)"),
        ),
        Ok((seq, Err(m))) => fail(NAME, Some(seq), m.0),
        Err(e) => fail(NAME, None, e.to_string()),
    }
}

/// A player's copy whose rules in force since event `since` include a house rule the GM keeps
/// secret: the copy carries the other files, and every version the events it shows put in force.
fn withheld_since(store: &Store, events: &[(u64, BTreeMap<String, String>)], since: u64) -> Check {
    let kept = every_version_kept(store, events);
    match kept.ok {
        false => kept,
        true => pass(
            NAME,
            format!("every version of the rules this copy shows is kept; the rules in force since event {since} include a house rule the GM keeps secret, which the copy leaves out (check it against the full file to cover that rule)"),
        ),
    }
}

/// The text of every version of the rules the log committed to is in the file.
fn every_version_kept(store: &Store, events: &[(u64, BTreeMap<String, String>)]) -> Check {
    let blobs = match store.blob_texts() {
        Ok(b) => b,
        Err(e) => return fail(NAME, None, e.to_string()),
    };
    // Every (file, digest) some blob gives, for the file names the log mentions.
    let names: BTreeSet<&str> =
        events.iter().flat_map(|(_, s)| s.keys()).map(|k| k.split_once('/').map_or(k.as_str(), |p| p.1)).collect();
    let kept: HashSet<String> =
        names.iter().flat_map(|n| blobs.iter().map(move |b| houserule_core::plugin::file_digest(n, b))).collect();
    for (seq, sources) in events {
        if let Some((file, _)) = sources.iter().find(|(_, digest)| !kept.contains(*digest)) {
            return fail(NAME, Some(*seq), format!("{file} as event {seq} put it in force is no longer in the file"));
        }
    }
    let (last, n) = (events.last().map_or(0, |e| e.0), events.len());
    pass(NAME, format!("the rules the file carries are the ones event {last} committed to; all {n} version(s) of the rules are kept"))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{file_with, first, items_event, RULES_FILE};
    use super::super::verify;
    use super::*;

    fn rules_check(store: &Store) -> Check {
        verify(store, &KnownSeeds::new()).checks.into_iter().find(|c| c.name == NAME).unwrap()
    }

    #[test]
    fn the_rules_committed_to_are_the_ones_carried() {
        let store = file_with(&[first(), items_event(vec![])]);
        let check = rules_check(&store);
        assert!(check.ok && check.detail.contains("event 1 committed to"), "{check:?}");
    }

    #[test]
    fn a_swapped_source_is_named() {
        let store = file_with(&[first()]);
        store.connection().execute("UPDATE blobs SET content = 'fn x(t, p) { 6 }'", []).unwrap();
        let check = rules_check(&store);
        assert!(!check.ok && check.event == Some(1), "{check:?}");
        assert!(check.detail.contains(&format!("ruleset/{}", RULES_FILE.0)), "{check:?}");
    }

    #[test]
    fn an_older_version_no_longer_kept_is_named() {
        let store = file_with(&[first()]);
        let events = vec![(1, BTreeMap::from([("ruleset/gone.rhai".to_string(), "0".repeat(64))]))];
        let check = every_version_kept(&store, &events);
        assert!(!check.ok && check.detail.contains("ruleset/gone.rhai as event 1"), "{check:?}");
    }
}
