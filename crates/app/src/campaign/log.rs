//! Reading the log back: each entry checked against the commitments its hash covers and held to
//! the caps an action is held to before it is shown, redacted for the viewer, and marked with the undo that voided it; a post the
//! viewer may not read is left out. A page is a keyset read by sequence number: it costs the
//! page, not the log.

use super::*;
use std::collections::BTreeSet;

impl Campaign {
    /// The log as `role` may see it, from event `from` on. An event whose items no longer match
    /// what was recorded is reported, never shown.
    pub fn log(&self, role: &Role, from: u64) -> Result<Vec<LogEntry>, CampaignError> {
        let mut out = Vec::new();
        self.each_log_entry(role, from, |entry| {
            out.push(entry);
            Ok(())
        })?;
        Ok(out)
    }

    /// As [`Campaign::log`], handing each entry to `each` as it is read (nothing is held).
    pub fn each_log_entry(
        &self,
        role: &Role,
        from: u64,
        mut each: impl FnMut(LogEntry) -> Result<(), StoreError>,
    ) -> Result<(), CampaignError> {
        let secret = secret_from(&self.store, role)?;
        self.store.each_event(from.max(1), |row| {
            let entry = log_entry(&row, &self.voided, role, &secret)?;
            if entry.is_left_out() {
                return Ok(());
            }
            each(entry)
        })?;
        Ok(())
    }

    /// A page of the log as `role` may see it: the newest `limit` events with
    /// `from <= seq < before`, oldest first (see [`log_page`]).
    pub fn log_page(&self, role: &Role, from: u64, before: u64, limit: usize) -> Result<Vec<LogEntry>, CampaignError> {
        log_page(&self.store, &self.voided, role, from, before.min(self.head.0 + 1), limit)
    }

    /// The events undone so far, each with the undo that voided it.
    pub fn voided_map(&self) -> &std::collections::BTreeMap<u64, u64> {
        &self.voided
    }
}

/// A page of the log of the file `store` reads: the newest `limit` events with
/// `from <= seq < before`, oldest first, as `role` may see them, each checked against the
/// commitments its hash covers. It costs the page, not the log (keyset on the sequence number).
pub fn log_page(
    store: &Store,
    voided: &std::collections::BTreeMap<u64, u64>,
    role: &Role,
    from: u64,
    before: u64,
    limit: usize,
) -> Result<Vec<LogEntry>, CampaignError> {
    let mut out = Vec::new();
    let secret = secret_from(store, role)?;
    for row in store.page(from.max(1), before, limit)? {
        let entry = log_entry(&row, voided, role, &secret)?;
        if !entry.is_left_out() {
            out.push(entry);
        }
    }
    Ok(out)
}

/// As [`log_page`], each entry as the JSON text a page sends (remembered in `seen`): the page
/// is mostly copying once its entries were read for `role` before.
pub fn log_page_text(
    store: &Store,
    voided: &std::collections::BTreeMap<u64, u64>,
    role: &Role,
    from: u64,
    before: u64,
    limit: usize,
    seen: &crate::entries::Entries,
) -> Result<Vec<String>, CampaignError> {
    let mut out = Vec::new();
    let secret = secret_from(store, role)?;
    for row in store.page(from.max(1), before, limit)? {
        let (json, unread) = seen.get_text(&row, role, || checked_entry(&row, role, &secret))?;
        if unread {
            continue;
        }
        out.push(match voided.get(&row.seq) {
            // The entry is a JSON object: its last character closes it.
            Some(undo) => format!("{},\"voided_by\":{undo}}}", &json[..json.len() - 1]),
            None => json.to_string(),
        });
    }
    Ok(out)
}

/// The secret house rules `role` may not be told of (none for the GM).
fn secret_from(store: &Store, role: &Role) -> Result<BTreeSet<String>, StoreError> {
    if role.is_gm() {
        return Ok(BTreeSet::new());
    }
    crate::reload::secret_names(store)
}

/// One stored event as `role` may see it in the log.
fn log_entry(
    row: &Row,
    voided: &std::collections::BTreeMap<u64, u64>,
    role: &Role,
    secret: &BTreeSet<String>,
) -> Result<LogEntry, StoreError> {
    let mut entry = checked_entry(row, role, secret)?;
    entry.voided_by = voided.get(&row.seq).copied();
    Ok(entry)
}

/// One stored event as `role` may see it, checked against its commitments (not yet marked
/// with the undo that voided it), without the `secret` house rules.
fn checked_entry(row: &Row, role: &Role, secret: &BTreeSet<String>) -> Result<LogEntry, StoreError> {
    let header = row.parse_header()?;
    let items = row.parse_items()?;
    check_items(row, &items)?;
    let mut entry = view::log_entry(&header, &items, &hex::encode(&row.hash), role);
    crate::reload::hide_secret(&mut entry, secret);
    Ok(entry)
}

/// Checks that an event's items are the ones its hash committed to, and that they are what an
/// action could have made: within the caps, their names and text held to the one rule for text.
pub(super) fn check_items(row: &Row, items: &[Item]) -> Result<(), StoreError> {
    houserule_core::caps::Caps::default().event(items).map_err(|(i, e)| {
        StoreError::Corrupt(format!(
            "event {}, item {}: {e}; a file carries only what an action can make",
            row.seq,
            i + 1
        ))
    })?;
    let mut commitments = Vec::with_capacity(items.len() * 32);
    for (i, item) in items.iter().enumerate() {
        commitments.extend_from_slice(
            &item.commitment(i).map_err(|e| StoreError::Corrupt(format!("event {}: {e}", row.seq)))?,
        );
    }
    if commitments != row.commitments {
        return Err(StoreError::Corrupt(format!(
            "hash chain check failed: event {} was edited: its items do not match its hash",
            row.seq
        )));
    }
    Ok(())
}
