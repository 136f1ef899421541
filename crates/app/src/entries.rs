//! Log entries as each viewer sees them, remembered between pages.
//!
//! Reading a log entry means parsing the stored event, checking its items against the
//! commitments its hash covers, and redacting it for the viewer: about 10 µs an entry, which a
//! browser joining the table pays for every entry of its first page. An event never changes
//! once written, so [`Entries`] keeps what each viewer saw of it, as the JSON text a page
//! sends, with the exact stored text it was made from: an entry is given again only while the row read from the file is byte for
//! byte the row it was checked from (so an edit to the file is still caught and reported,
//! never covered by what was remembered). Who undid an event is not kept: it is set from the
//! campaign's undo map on every read, so a page read again is mostly copying. At most [`CAPACITY`] entries are kept; beyond that the
//! cache starts again empty.

use crate::store::{Row, StoreError};
use houserule_core::view::LogEntry;
use houserule_core::Role;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The most entries remembered (a few pages for each of a table's viewers).
pub const CAPACITY: usize = 4096;

struct Kept {
    hash: Vec<u8>,
    header: String,
    items: String,
    commitments: Vec<u8>,
    /// Whether the entry is left out of the viewer's pages (a post they may not read, a scene they see nothing of).
    unread: bool,
    /// The entry as JSON (without `voided_by`, which is set on every read).
    json: Arc<str>,
}

/// What viewers saw of the log of one file.
#[derive(Default)]
pub struct Entries {
    kept: Mutex<HashMap<(u64, Role), Kept>>,
}

impl Entries {
    /// The entry `row` is for `role`, as the JSON text a page sends (without `voided_by`),
    /// and whether it is a post the viewer may not read (left out of pages): remembered if the
    /// row is the one it was made from, else made by `make` (which checks it) and remembered.
    pub fn get_text(
        &self,
        row: &Row,
        role: &Role,
        make: impl FnOnce() -> Result<LogEntry, StoreError>,
    ) -> Result<(Arc<str>, bool), StoreError> {
        let key = (row.seq, role.clone());
        {
            let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(k) = kept.get(&key) {
                if k.hash == row.hash
                    && k.header == row.header
                    && k.items == row.items
                    && k.commitments == row.commitments
                {
                    return Ok((k.json.clone(), k.unread));
                }
            }
        }
        let mut entry = make()?;
        entry.voided_by = None;
        let json: Arc<str> =
            serde_json::to_string(&entry).map_err(|e| StoreError::Corrupt(format!("event {}: {e}", row.seq)))?.into();
        let unread = entry.is_left_out();
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() >= CAPACITY {
            kept.clear();
        }
        let k = Kept {
            hash: row.hash.clone(),
            header: row.header.clone(),
            items: row.items.clone(),
            commitments: row.commitments.clone(),
            unread,
            json: json.clone(),
        };
        kept.insert(key, k);
        Ok((json, unread))
    }

    /// Forgets everything (another campaign is in play).
    pub fn clear(&self) {
        self.kept.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}
