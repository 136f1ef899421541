//! What a file carries besides its events, read only within the bounds Houserule itself writes.
//!
//! A fact of the campaign (`meta`), a secret row, a script text and a snapshot of the table are
//! each measured inside SQLite before their text is read: one over its bound is refused as
//! [`StoreError::Oversized`], naming what it is and the bound, and its text never reaches
//! memory. Houserule writes none larger: a snapshot over [`MAX_TABLE_BYTES`] is not written (the
//! table is rebuilt from the events before it instead), scripts are refused at load over the
//! sandbox's script limit, and secrets are a seed, read marks and join links.

use super::{Store, StoreError};
use houserule_core::engine::Limits;

/// The most a snapshot of the table, or a fact of the campaign (a player's copy keeps that
/// player's view of the table as one), may take as stored.
pub const MAX_TABLE_BYTES: u64 = 64 << 20;

/// The most a secret row may take as stored.
pub const MAX_SECRET_BYTES: u64 = 64 << 10;

/// The most a script text may take as stored: what the sandbox loads.
fn max_script_bytes() -> u64 {
    Limits::default().max_script_bytes as u64
}

/// The columns that read `column` only within `limit` (`NULL` over it), then its size.
fn within(column: &str, limit: u64) -> String {
    format!("CASE WHEN octet_length({column}) <= {limit} THEN {column} END, octet_length({column})")
}

/// The text read by [`within`] at `index` (size at `index + 1`), refused over `limit`.
fn text_at(r: &rusqlite::Row, index: usize, limit: u64, what: impl FnOnce() -> String) -> Result<String, StoreError> {
    match r.get::<_, Option<String>>(index)? {
        Some(text) => Ok(text),
        None => {
            let bytes: i64 = r.get(index + 1)?;
            Err(StoreError::Oversized { what: what(), bytes: bytes.max(0) as u64, limit })
        }
    }
}

/// Runs `sql` (whose rows [`Row`](rusqlite::Row) `read` turns into values) with `params`.
fn rows<T, P: rusqlite::Params>(
    store: &Store,
    sql: &str,
    params: P,
    read: impl Fn(&rusqlite::Row) -> Result<T, StoreError>,
) -> Result<Vec<T>, StoreError> {
    let mut statement = store.conn.prepare_cached(sql)?;
    let mut found = statement.query(params)?;
    let mut out = Vec::new();
    while let Some(r) = found.next()? {
        out.push(read(r)?);
    }
    Ok(out)
}

impl Store {
    /// A fact of the campaign.
    pub fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        let sql = format!("SELECT {} FROM meta WHERE key = ?1", within("value", MAX_TABLE_BYTES));
        let found =
            rows(self, &sql, [key], |r| text_at(r, 0, MAX_TABLE_BYTES, || format!("the campaign's `{key}` fact")))?;
        Ok(found.into_iter().next())
    }

    /// A secret value.
    pub fn secret(&self, key: &str) -> Result<Option<String>, StoreError> {
        let sql = format!("SELECT {} FROM secrets WHERE key = ?1", within("value", MAX_SECRET_BYTES));
        let found = rows(self, &sql, [key], |r| text_at(r, 0, MAX_SECRET_BYTES, || format!("the secret row {key}")))?;
        Ok(found.into_iter().next())
    }

    /// The secret values whose keys start with `prefix`, by key.
    pub fn secrets_with_prefix(&self, prefix: &str) -> Result<Vec<(String, String)>, StoreError> {
        let sql = format!(
            "SELECT key, {} FROM secrets WHERE substr(key, 1, length(?1)) = ?1 ORDER BY key",
            within("value", MAX_SECRET_BYTES)
        );
        rows(self, &sql, [prefix], |r| {
            let key: String = r.get(0)?;
            let value = text_at(r, 1, MAX_SECRET_BYTES, || format!("the secret row {key}"))?;
            Ok((key, value))
        })
    }

    /// The files of one source layer (`ruleset` or `house`), path → content.
    pub fn sources(&self, layer: &str) -> Result<Vec<(String, String)>, StoreError> {
        let sql = format!(
            "SELECT s.path, {} FROM sources s JOIN blobs b ON b.hash = s.hash WHERE s.layer = ?1 ORDER BY s.path",
            within("b.content", max_script_bytes())
        );
        rows(self, &sql, [layer], |r| {
            let path: String = r.get(0)?;
            let text = text_at(r, 1, max_script_bytes(), || format!("the {layer} file {path}"))?;
            Ok((path, text))
        })
    }

    /// A source by its content hash (any version the campaign was played with).
    pub fn blob(&self, hash: &str) -> Result<Option<String>, StoreError> {
        let sql = format!("SELECT {} FROM blobs WHERE hash = ?1", within("content", max_script_bytes()));
        let found =
            rows(self, &sql, [hash], |r| text_at(r, 0, max_script_bytes(), || format!("the script kept as {hash}")))?;
        Ok(found.into_iter().next())
    }

    /// The text of every source version the file keeps.
    pub fn blob_texts(&self) -> Result<Vec<String>, StoreError> {
        let sql = format!("SELECT hash, {} FROM blobs ORDER BY hash", within("content", max_script_bytes()));
        rows(self, &sql, [], |r| {
            let hash: String = r.get(0)?;
            text_at(r, 1, max_script_bytes(), || format!("the script kept as {hash}"))
        })
    }

    /// The latest snapshot at or before `seq`, as stored (JSON text).
    pub fn snapshot_before(&self, seq: u64) -> Result<Option<(u64, String)>, StoreError> {
        let sql = format!(
            "SELECT seq, {} FROM snapshots WHERE seq <= ?1 ORDER BY seq DESC LIMIT 1",
            within("state", MAX_TABLE_BYTES)
        );
        let found = rows(self, &sql, [seq as i64], |r| {
            let at = r.get::<_, i64>(0)? as u64;
            Ok((at, text_at(r, 1, MAX_TABLE_BYTES, || format!("the snapshot of the table at event {at}"))?))
        })?;
        Ok(found.into_iter().next())
    }
}

/// Each part of a file besides its events: its table, the words naming one row (SQL), the
/// column read, and its bound.
fn parts() -> [(&'static str, &'static str, &'static str, u64); 4] {
    [
        ("meta", "'the campaign''s `' || key || '` fact'", "value", MAX_TABLE_BYTES),
        ("secrets", "'the secret row ' || key", "value", MAX_SECRET_BYTES),
        (
            "blobs",
            "coalesce((SELECT 'the ' || layer || ' file ' || path FROM sources s WHERE s.hash = blobs.hash LIMIT 1), 'the script kept as ' || hash)",
            "content",
            max_script_bytes(),
        ),
        ("snapshots", "'the snapshot of the table at event ' || seq", "state", MAX_TABLE_BYTES),
    ]
}

impl Store {
    /// The first part of the file besides its events that is over its bound, if any (measured,
    /// never read).
    pub fn first_oversized(&self) -> Result<Option<StoreError>, StoreError> {
        for (table, what, column, limit) in parts() {
            let sql = format!(
                "SELECT {what}, octet_length({column}) FROM {table} WHERE octet_length({column}) > {limit} LIMIT 1"
            );
            let found = rows(self, &sql, [], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
            if let Some((what, bytes)) = found.into_iter().next() {
                return Ok(Some(StoreError::Oversized { what, bytes: bytes.max(0) as u64, limit }));
            }
        }
        Ok(None)
    }
}

/// Whether a table of `bytes` as JSON may be kept as a snapshot.
pub fn fits_snapshot(bytes: usize) -> bool {
    bytes as u64 <= MAX_TABLE_BYTES
}
