//! The `chain` check: each event follows the one before it, and its hash is recomputed from its
//! header and from every item, so an edited, deleted or reordered event, or an edited item,
//! is found. Every other check of the log sees only the events the chain vouched for.

use super::{fail, pass, Check};
use crate::store::Row;
use houserule_core::event::{self, Hash, Header, Item, GENESIS};

const NAME: &str = "chain";

/// The chain as far as it has been followed.
pub(super) struct Chain {
    /// The hash of the last event that followed.
    pub prev: Hash,
    /// The last event that followed.
    pub seq: u64,
}

impl Default for Chain {
    fn default() -> Self {
        Chain { prev: GENESIS, seq: 0 }
    }
}

impl Chain {
    /// Takes the next stored row: its header and items if it follows, or why it does not.
    pub fn follow(&mut self, row: &Row) -> Result<(Header, Vec<Item>), Check> {
        let seq = row.seq;
        if seq != self.seq + 1 {
            let missing = self.seq + 1;
            return Err(fail(
                NAME,
                Some(missing),
                format!("event {missing} is missing (the next stored event is {seq})"),
            ));
        }
        let header = row.parse_header().map_err(|e| fail(NAME, Some(seq), e.to_string()))?;
        let items = row.parse_items().map_err(|e| fail(NAME, Some(seq), e.to_string()))?;
        if header.seq != seq || header.prev != hex::encode(self.prev) {
            let detail = format!("event {seq} does not follow event {} (it was moved or replaced)", self.seq);
            return Err(fail(NAME, Some(seq), detail));
        }
        let commitments = commitments(seq, &items)?;
        if commitments != row.commitments {
            let detail = format!("event {seq} was edited: its items no longer match what was recorded");
            return Err(fail(NAME, Some(seq), detail));
        }
        let hash = event::event_hash(&self.prev, seq, &row.header, &commitments);
        if hash.as_slice() != row.hash.as_slice() {
            return Err(fail(NAME, Some(seq), format!("event {seq} was edited: its hash does not match")));
        }
        self.prev = hash;
        self.seq = seq;
        Ok((header, items))
    }

    /// The check, once every row followed.
    pub fn finish(&self) -> Check {
        match self.seq {
            0 => fail(NAME, None, "the file has no events"),
            n => pass(NAME, format!("{n} events, each hash recomputed from its header and items")),
        }
    }
}

/// The commitments of an event's items, in order.
fn commitments(seq: u64, items: &[Item]) -> Result<Vec<u8>, Check> {
    let mut out = Vec::with_capacity(items.len() * 32);
    for (i, item) in items.iter().enumerate() {
        let c = item.commitment(i).map_err(|e| fail(NAME, Some(seq), format!("event {seq}: {e}")))?;
        out.extend_from_slice(&c);
    }
    Ok(out)
}

/// The chain's check when another check refused to read event `seq` any further.
pub(super) fn not_read(seq: u64, by: &str) -> Check {
    let detail = format!("followed up to event {}; event {seq} was not read (see the {by} check)", seq - 1);
    fail(NAME, Some(seq), detail)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{items_event, rows, say};
    use super::*;

    fn followed(rows: &[Row]) -> Result<Chain, Check> {
        let mut chain = Chain::default();
        for row in rows {
            chain.follow(row)?;
        }
        Ok(chain)
    }

    #[test]
    fn an_untouched_log_follows_and_says_how_long_it_is() {
        let chain = followed(&rows(&[items_event(vec![say("a")]), items_event(vec![say("b")])])).unwrap();
        let check = chain.finish();
        assert!(check.ok && check.detail.starts_with("2 events"), "{check:?}");
        assert!(!Chain::default().finish().ok, "a log without events does not verify");
    }

    #[test]
    fn a_missing_moved_or_edited_event_is_named() {
        let log = rows(&[items_event(vec![say("a")]), items_event(vec![say("b")]), items_event(vec![say("c")])]);
        let e = followed(&[log[0].clone(), log[2].clone()]).err().unwrap();
        assert_eq!((e.event, e.detail.contains("event 2 is missing")), (Some(2), true), "{e:?}");
        let e = followed(&[log[1].clone()]).err().unwrap();
        assert!(e.detail.contains("event 1 is missing"), "{e:?}");
        let mut edited = log.clone();
        edited[1].items = edited[1].items.replace("\"b\"", "\"B\"");
        let e = followed(&edited).err().unwrap();
        assert!(e.event == Some(2) && e.detail.contains("no longer match"), "{e:?}");
        let mut rehashed = log.clone();
        rehashed[2].hash[0] ^= 1;
        let e = followed(&rehashed).err().unwrap();
        assert!(e.event == Some(3) && e.detail.contains("hash does not match"), "{e:?}");
        let mut reheaded = log;
        reheaded[1].header = reheaded[1].header.replace("\"seq\":2", "\"seq\":7");
        let e = followed(&reheaded).err().unwrap();
        assert!(e.event == Some(2) && e.detail.contains("does not follow"), "{e:?}");
    }
}
