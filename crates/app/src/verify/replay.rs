//! The `replay` check: every change applies to the table before it, in order, and replaying
//! the log gives every stored snapshot and every state digest an event records. A player's
//! copy is not replayed: its GM-only changes are redacted.

use super::{fail, pass, Check, Event, KnownSeeds, Step, Tally};
use crate::store::Store;
use houserule_core::event;
use houserule_core::table::Table;

const NAME: &str = "replay";

pub(super) fn start<'a>(store: &'a Store, _: &'a KnownSeeds) -> Box<dyn Step + 'a> {
    let copy = store.meta("copy_for").ok().flatten().is_some();
    Box::new(Replay { store, copy, snapshots: store.snapshot_seqs().unwrap_or_default(), table: Table::default() })
}

struct Replay<'a> {
    store: &'a Store,
    /// A player's copy: nothing to replay.
    copy: bool,
    /// The events a snapshot is stored at.
    snapshots: Vec<u64>,
    table: Table,
}

impl Step for Replay<'_> {
    fn event(&mut self, e: &Event) -> Option<Check> {
        if self.copy {
            return None;
        }
        let seq = e.seq;
        if let Err(m) = event::fold(&mut self.table, e.items) {
            return Some(fail(NAME, Some(seq), format!("event {seq} does not apply to the state before it: {m}")));
        }
        if !self.snapshots.contains(&seq) {
            return None;
        }
        let replayed = serde_json::to_string(&self.table).expect("tables serialise");
        self.snapshot_matches(seq, &replayed).or_else(|| state_matches(e, &replayed))
    }

    fn finish(self: Box<Self>, _: &mut Tally) -> Check {
        if self.copy {
            pass(NAME, "not replayed: this is a player's copy, whose GM-only changes are redacted")
        } else {
            pass(NAME, format!("all changes apply in order; {} snapshot(s) match", self.snapshots.len()))
        }
    }
}

impl Replay<'_> {
    /// The snapshot stored at `seq` is the replayed table.
    fn snapshot_matches(&self, seq: u64, replayed: &str) -> Option<Check> {
        match self.store.snapshot_before(seq) {
            Ok(Some((s, snap))) if s == seq && snap != replayed => {
                Some(fail(NAME, Some(seq), format!("the snapshot at event {seq} differs from replaying the log")))
            }
            Err(e) => Some(fail(NAME, Some(seq), e.to_string())),
            _ => None,
        }
    }
}

/// The state digest the event records is the replayed table's.
fn state_matches(e: &Event, replayed: &str) -> Option<Check> {
    let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(replayed.as_bytes()));
    (e.header.state.as_deref() != Some(digest.as_str())).then(|| {
        let seq = e.seq;
        fail(NAME, Some(seq), format!("event {seq} records a state digest that replaying the log does not give"))
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{change, file_with, first, items_event};
    use super::super::{verify, KnownSeeds};
    use super::*;
    use houserule_core::table::Change;

    fn replay_check(store: &Store) -> Check {
        verify(store, &KnownSeeds::new()).checks.into_iter().find(|c| c.name == NAME).unwrap()
    }

    #[test]
    fn changes_that_apply_in_order_pass() {
        let store = file_with(&[first(), items_event(vec![change(Change::Round { round: 1 })])]);
        let check = replay_check(&store);
        assert!(check.ok, "{check:?}");
    }

    #[test]
    fn a_change_that_does_not_apply_is_named_with_its_event() {
        let gone = change(Change::Remove { id: "nobody".into() });
        let store = file_with(&[first(), items_event(vec![]), items_event(vec![gone])]);
        let check = replay_check(&store);
        assert!(!check.ok && check.event == Some(3), "{check:?}");
        assert!(check.detail.contains("does not apply"), "{check:?}");
    }

    #[test]
    fn a_snapshot_that_is_not_the_replayed_table_is_found() {
        let store = file_with(&[first(), items_event(vec![change(Change::Round { round: 1 })])]);
        store
            .connection()
            .execute(
                "INSERT INTO snapshots (seq, state) VALUES (2, ?1)",
                [serde_json::to_string(&Table::default()).unwrap()],
            )
            .unwrap();
        let check = replay_check(&store);
        assert!(!check.ok && check.event == Some(2), "{check:?}");
        assert!(check.detail.contains("snapshot at event 2 differs"), "{check:?}");
    }

    #[test]
    fn a_players_copy_is_not_replayed() {
        let gone = change(Change::Remove { id: "nobody".into() });
        let store = file_with(&[first(), items_event(vec![gone])]);
        store.set_meta("copy_for", "player:ann").unwrap();
        let check = replay_check(&store);
        assert!(check.ok && check.detail.contains("player's copy"), "{check:?}");
    }
}
