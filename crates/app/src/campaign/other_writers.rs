//! What other programs write to the campaign file while this copy has it open (`houserule act`
//! while `serve` runs, a second window): read in on the chain's terms, and remembered until
//! someone is told. Every path that reads new events in — an action's retry as much as the
//! periodic look — adds them to one range that [`Campaign::take_written`] hands out once, so
//! none is folded in silently.

use super::log::check_items;
use super::*;

impl Campaign {
    /// Reads in the events another program appended to the file since this one last looked.
    /// Each must follow on the chain (its hash recomputed from its items) before it is folded
    /// in; an event that changes the rules, the seed or the file's format has the whole file
    /// opened again, with every check an open makes. Returns the new events' headers.
    pub fn catch_up(&mut self) -> Result<Vec<Header>, CampaignError> {
        let Some((seq, hash)) = self.store.head()? else { return Ok(vec![]) };
        if (seq, hash) == self.head {
            return Ok(vec![]);
        }
        if seq < self.head.0 {
            return Err(CampaignError::Chain {
                seq,
                message: format!("the file lost events since it was opened (it had {}, now {seq})", self.head.0),
            });
        }
        let (mut table, mut head, mut headers, mut reopen) = (Table::clone(&self.table), self.head, vec![], false);
        self.store.each_event(self.head.0 + 1, |row| {
            let header = row.parse_header()?;
            let items = row.parse_items()?;
            check_items(&row, &items)?;
            let expected = event::event_hash(&head.1, row.seq, &row.header, &row.commitments);
            if row.seq != head.0 + 1 || header.prev != hex::encode(head.1) || row.hash != expected {
                return Err(StoreError::Corrupt(format!(
                    "hash chain check failed at event {}: it does not follow the events before it",
                    row.seq
                )));
            }
            reopen |= !matches!(header.kind, EventKind::Action | EventKind::Permission | EventKind::Correction);
            event::fold(&mut table, &items).map_err(|m| StoreError::Corrupt(format!("event {}: {m}", row.seq)))?;
            head = (row.seq, expected);
            headers.push(header);
            Ok(())
        })?;
        let written = self.written;
        if reopen {
            let path =
                self.path().ok_or_else(|| StoreError::Corrupt("an in-memory campaign has no other writer".into()))?;
            *self = Campaign::open(&path)?;
        } else {
            self.table = Arc::new(table);
            self.head = head;
        }
        if let (Some(first), Some(last)) = (headers.first(), headers.last()) {
            self.written = Some((written.map_or(first.seq, |w| w.0), last.seq));
        }
        Ok(headers)
    }

    /// The events read in from other writers since the last call (first and last seq), if
    /// any: whoever takes them announces them.
    pub fn take_written(&mut self) -> Option<(u64, u64)> {
        self.written.take()
    }

    /// Whether the path still names the file this campaign holds; once it does not, nothing more
    /// is written to it and its write-ahead log no longer sits by the path (see
    /// [`Store::still_here`]).
    pub fn still_here(&mut self) -> bool {
        self.store.still_here().is_ok()
    }

    /// Why nothing more is written to the file (its path names another file, or none), the
    /// first time it is asked: whoever takes it announces it.
    pub fn take_gone(&mut self) -> Option<String> {
        self.store.take_gone()
    }
}
