//! The campaign file: one SQLite database.
//!
//! Tables: `meta` (schema version, campaign id, ruleset …), `blobs` (script sources by
//! SHA-256, so every version a campaign was played with stays in the file), `sources` (which
//! blob is in force for each ruleset and house-rule file), `events` (the hash-chained log),
//! `snapshots` (the table every [`SNAPSHOT_EVERY`] events) and `secrets` (the dice seed;
//! never copied into a player's copy).
//!
//! The file uses WAL with `synchronous=FULL`; each append is one transaction, so a crash
//! loses at most the action in flight. Opening refuses a file that is not a campaign, holds
//! anything Houserule does not create (a trigger, a view, another table: see `schema`), fails
//! SQLite's own check, or has a newer schema than this build reads. An older file opens as it
//! is; the campaign brings it up to date (see `Campaign::open`), writing the new version in the
//! same transaction as the event that records the change.
//!
//! Schema versions: 1, the first; 2, every event that puts rules in force records each file's
//! digest in the table (the `rules` change), and a file from version 1 gains a `migrated` event;
//! 3, the `pictures` table (imported images by SHA-256, see `pictures`): a file from version 2
//! becomes version 3 in the transaction that imports its first picture.

use houserule_core::event::{Hash, Header, Item};
use houserule_core::table::Table;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use std::path::{Path, PathBuf};

mod bounded;
pub mod pictures;
mod schema;
pub use bounded::{fits_snapshot, MAX_SECRET_BYTES, MAX_TABLE_BYTES};

/// The schema this build writes.
pub const SCHEMA_VERSION: i64 = 3;
/// The oldest schema this build opens.
pub const OLDEST_SCHEMA: i64 = 1;
/// A snapshot of the table is written every this many events. Opening a file folds the events
/// since the last one (about 10 µs each): at 200, a command opens any campaign in about the
/// same time, for a snapshot (the table's JSON, a few KB) per 200 events (about 150 KB).
/// Files written with another spacing open all the same.
pub const SNAPSHOT_EVERY: u64 = 200;

const SCHEMA_V1: &str = "
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE blobs (hash TEXT PRIMARY KEY, content TEXT NOT NULL);
CREATE TABLE sources (layer TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL REFERENCES blobs(hash), PRIMARY KEY (layer, path));
CREATE TABLE events (seq INTEGER PRIMARY KEY, hash BLOB NOT NULL, header TEXT NOT NULL, items TEXT NOT NULL, commitments BLOB NOT NULL);
CREATE TABLE snapshots (seq INTEGER PRIMARY KEY, state TEXT NOT NULL);
CREATE TABLE secrets (key TEXT PRIMARY KEY, value TEXT NOT NULL);
";

/// The table version 3 adds: each imported picture's bytes under the SHA-256 of them.
const PICTURES_V3: &str = "
CREATE TABLE pictures (digest TEXT PRIMARY KEY, bytes BLOB NOT NULL);
";

/// The tables of each schema version this build reads. Version 2 changed what events hold
/// (the `rules` change), not the tables; version 3 adds `pictures`.
fn tables_of(version: i64) -> Option<String> {
    match version {
        1 | 2 => Some(SCHEMA_V1.to_string()),
        3 => Some(format!("{SCHEMA_V1}{PICTURES_V3}")),
        _ => None,
    }
}

/// Indexes: derived from the tables (SQLite's integrity check compares them), so any file gains
/// them without a schema change. `events_undo` finds the undo events without reading the log:
/// a plain text match on the header as this build writes it (no JSON parsing, which a hostile
/// header could make fail); what it finds is parsed and checked for its kind.
const INDEXES: &str = "
CREATE INDEX IF NOT EXISTS events_undo ON events (seq) WHERE instr(header, '\"kind\":\"undo\"') > 0;
";

/// Why the file could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {message}")]
    Open { path: String, message: String },
    #[error("{0} already exists; choose another name or remove it first")]
    Exists(String),
    #[error("{path}: not a Houserule campaign file ({reason})")]
    NotACampaign { path: String, reason: String },
    /// The file holds something Houserule does not create: it is never run and never copied.
    #[error("{path}: schema check failed: {what}; Houserule runs and copies only the tables it creates itself")]
    Foreign { path: String, what: String },
    #[error("{path}: integrity check failed: {detail}")]
    Integrity { path: String, detail: String },
    #[error("{path}: schema check failed: made by a newer Houserule (campaign schema {found}; this build reads up to {supported}); update Houserule to open it")]
    Newer { path: String, found: i64, supported: i64 },
    #[error("storage: {0}")]
    Sqlite(String),
    /// The path no longer names the file that was opened: nothing more is written.
    #[error("{0}")]
    Gone(String),
    #[error("{0}")]
    Corrupt(String),
    /// A stored event larger than any event an action can make: it is not read.
    #[error("event {seq}: its {part} take {bytes} bytes as stored, more than an event can hold ({limit} bytes); it is not read")]
    TooLarge { seq: u64, part: &'static str, bytes: u64, limit: u64 },
    /// A part of the file besides its events larger than Houserule ever writes there: it is not read.
    #[error(
        "{what} takes {bytes} bytes as stored, more than Houserule ever writes there ({limit} bytes); it is not read"
    )]
    Oversized { what: String, bytes: u64, limit: u64 },
    /// Another program appended to the file since this one last read it.
    #[error("another program added event {found} to the campaign at the same moment; read it first")]
    Behind { found: u64 },
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Sqlite(e.to_string())
    }
}

/// A stored event row.
#[derive(Debug, Clone)]
pub struct Row {
    pub seq: u64,
    pub hash: Vec<u8>,
    pub header: String,
    pub items: String,
    pub commitments: Vec<u8>,
}

/// The bounds on a stored event's parts, in bytes: no event an action makes is larger, so a
/// row over one is refused before its text is read (see [`houserule_core::caps`]).
fn stored_limits() -> [(&'static str, u64); 4] {
    let caps = houserule_core::caps::Caps::default();
    [
        ("hash", 32),
        ("header", houserule_core::caps::MAX_HEADER_BYTES as u64),
        ("items", caps.max_stored_event_bytes() as u64),
        ("commitments", caps.max_event_items as u64 * 32),
    ]
}

/// The columns of an event row, each part read only within its bound (`NULL` over it), then
/// each part's size as stored.
fn row_columns(parts: &[&str]) -> String {
    let limits = stored_limits();
    let bound = |part: &str| limits.iter().find(|(p, _)| *p == part).map_or(0, |(_, l)| *l);
    let read: Vec<String> =
        parts.iter().map(|p| format!("CASE WHEN octet_length({p}) <= {} THEN {p} END", bound(p))).collect();
    let sizes: Vec<String> = parts.iter().map(|p| format!("octet_length({p})")).collect();
    format!("seq, {}, {}", read.join(", "), sizes.join(", "))
}

/// The part of row `r` at `index` (of `parts`), refused when it is over its bound.
fn part<T: rusqlite::types::FromSql>(r: &rusqlite::Row, parts: &[&'static str], index: usize) -> Result<T, StoreError> {
    let value: Option<T> = r.get(index + 1)?;
    match value {
        Some(v) => Ok(v),
        None => {
            let seq = r.get::<_, i64>(0)? as u64;
            let bytes: i64 = r.get(1 + parts.len() + index)?;
            let limit = stored_limits().iter().find(|(p, _)| *p == parts[index]).map_or(0, |(_, l)| *l);
            Err(StoreError::TooLarge { seq, part: parts[index], bytes: bytes.max(0) as u64, limit })
        }
    }
}

/// The parts of an event row.
const ROW_PARTS: [&str; 4] = ["hash", "header", "items", "commitments"];

impl Row {
    /// A row read with [`row_columns`] of [`ROW_PARTS`].
    fn read(r: &rusqlite::Row) -> Result<Row, StoreError> {
        Ok(Row {
            seq: r.get::<_, i64>(0)? as u64,
            hash: part(r, &ROW_PARTS, 0)?,
            header: part(r, &ROW_PARTS, 1)?,
            items: part(r, &ROW_PARTS, 2)?,
            commitments: part(r, &ROW_PARTS, 3)?,
        })
    }

    pub fn parse_header(&self) -> Result<Header, StoreError> {
        serde_json::from_str(&self.header)
            .map_err(|e| StoreError::Corrupt(format!("event {}: the header does not parse: {e}", self.seq)))
    }
    pub fn parse_items(&self) -> Result<Vec<Item>, StoreError> {
        serde_json::from_str(&self.items)
            .map_err(|e| StoreError::Corrupt(format!("event {}: the items do not parse: {e}", self.seq)))
    }
}

/// An open campaign file.
pub struct Store {
    conn: Connection,
    path: Option<PathBuf>,
    /// The schema version the file is at.
    version: i64,
    /// The file's device and inode when it was opened: an append is acknowledged only while the
    /// path still names this file (see [`Store::still_here`]).
    identity: Option<(u64, u64)>,
    /// Why nothing more is written: the path stopped naming the file this store holds.
    gone: Option<String>,
    /// Whoever announces it was told (see [`Store::take_gone`]).
    gone_told: bool,
    /// The write-ahead log was taken out of the way once the file was gone.
    wal_left: bool,
}

impl Store {
    /// Settings of this connection (nothing is written to the file).
    fn configure(conn: &Connection) -> Result<(), StoreError> {
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        Ok(())
    }

    /// Puts the file in WAL mode (kept in the file: a no-op once it is).
    fn use_wal(&self) -> Result<(), StoreError> {
        self.conn.pragma_update(None, "journal_mode", "WAL")?;
        Ok(())
    }

    /// Creates a new campaign file; refuses to overwrite one, or to write through a link (even
    /// a dangling one) at `path`.
    pub fn create(path: &Path) -> Result<Store, StoreError> {
        if std::fs::symlink_metadata(path).is_ok() {
            return Err(StoreError::Exists(path.display().to_string()));
        }
        let conn = Connection::open_with_flags(path, OpenFlags::default() | OpenFlags::SQLITE_OPEN_NOFOLLOW)
            .map_err(|e| StoreError::Open { path: path.display().to_string(), message: e.to_string() })?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        Self::configure(&conn)?;
        Self::init(conn, Some(path.to_path_buf()))
    }

    /// An in-memory campaign (scenario tests, benchmarks).
    pub fn in_memory() -> Result<Store, StoreError> {
        let conn = Connection::open_in_memory()?;
        Self::init(conn, None)
    }

    fn init(mut conn: Connection, path: Option<PathBuf>) -> Result<Store, StoreError> {
        let tx = conn.transaction()?;
        tx.execute_batch(&tables_of(SCHEMA_VERSION).expect("this build's own version"))?;
        tx.execute_batch(INDEXES)?;
        tx.execute("INSERT INTO meta (key, value) VALUES ('schema_version', ?1)", [SCHEMA_VERSION.to_string()])?;
        tx.execute("INSERT INTO meta (key, value) VALUES ('format', 'houserule-campaign')", [])?;
        tx.commit()?;
        let identity = path.as_deref().and_then(crate::checked::identity);
        Ok(Store { conn, path, version: SCHEMA_VERSION, identity, gone: None, gone_told: false, wal_left: false })
    }

    /// Opens an existing campaign file with SQLite's full integrity check first (a file that is
    /// not a database, or is damaged or cut short, fails before anything else reads it), then
    /// checks it is a campaign with a schema this build reads.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let store = Self::open_unchecked(path)?;
        store.check_integrity()?;
        store.ready()?;
        Ok(store)
    }

    /// Opens a campaign file without SQLite's scan of the whole file (see [`crate::checked`]:
    /// the campaign decides whether it needs one, then calls [`Store::check_integrity`]) and
    /// without writing to it; [`Store::ready`] then puts it in WAL mode for playing.
    pub fn open_unchecked(path: &Path) -> Result<Store, StoreError> {
        let shown = path.display().to_string();
        if !path.is_file() {
            return Err(StoreError::Open { path: shown, message: "no such file".into() });
        }
        let conn =
            Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                .map_err(|e| StoreError::Open { path: shown.clone(), message: e.to_string() })?;
        let damaged = |e: StoreError| {
            let text = e.to_string();
            if text.contains("not a database") {
                StoreError::NotACampaign { path: shown.clone(), reason: "it is not an SQLite database".into() }
            } else if text.contains("malformed") || text.contains("corrupt") {
                StoreError::Integrity { path: shown.clone(), detail: format!("the file is damaged or cut short ({e})") }
            } else {
                StoreError::NotACampaign { path: shown.clone(), reason: text }
            }
        };
        Self::configure(&conn).map_err(damaged)?;
        // Before anything reads a table: a trigger or a view must never run.
        let versions = schema::check(&conn, &shown).map_err(|e| match e {
            StoreError::Sqlite(_) => damaged(e),
            other => other,
        })?;
        let format: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = 'format'", [], |r| r.get(0))
            .optional()
            .map_err(|e| damaged(e.into()))?;
        if format.as_deref() != Some("houserule-campaign") {
            return Err(StoreError::NotACampaign { path: shown, reason: "it has no Houserule format marker".into() });
        }
        let identity = crate::checked::identity(path);
        let mut store = Store {
            conn,
            path: Some(path.to_path_buf()),
            version: 0,
            identity,
            gone: None,
            gone_told: false,
            wal_left: false,
        };
        let version: i64 = store.meta("schema_version")?.and_then(|v| v.parse().ok()).ok_or_else(|| {
            StoreError::NotACampaign { path: shown.clone(), reason: "it has no schema version".into() }
        })?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::Newer { path: shown, found: version, supported: SCHEMA_VERSION });
        }
        if version < OLDEST_SCHEMA {
            return Err(StoreError::NotACampaign {
                path: shown,
                reason: format!("schema version {version} is not valid"),
            });
        }
        if !versions.contains(&version) {
            let what = format!("its tables are not the ones schema version {version} has");
            return Err(StoreError::Foreign { path: shown, what });
        }
        store.version = version;
        Ok(store)
    }

    /// Holds the file's tables, indexes and columns to the ones this build creates (what
    /// [`Store::open_unchecked`] checks before anything else reads the file).
    pub fn check_schema(&self) -> Result<(), StoreError> {
        let shown = self.path.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
        let versions = schema::check(&self.conn, &shown)?;
        if versions.contains(&self.version) {
            return Ok(());
        }
        let what = format!("its tables are not the ones schema version {} has", self.version);
        Err(StoreError::Foreign { path: shown, what })
    }

    /// Refuses the first event whose items are larger as stored than any event an action can
    /// make (their size is read, not their text).
    pub fn check_sizes(&self) -> Result<(), StoreError> {
        let limit = stored_limits()[2].1;
        let sql = "SELECT seq, octet_length(items) FROM events WHERE octet_length(items) > ?1 ORDER BY seq LIMIT 1";
        let found: Option<(i64, i64)> =
            self.conn.query_row(sql, [limit as i64], |r| Ok((r.get(0)?, r.get(1)?))).optional()?;
        match found {
            None => Ok(()),
            Some((seq, bytes)) => {
                Err(StoreError::TooLarge { seq: seq as u64, part: "items", bytes: bytes as u64, limit })
            }
        }
    }

    /// SQLite's full integrity check, as an error naming what is wrong.
    pub fn check_integrity(&self) -> Result<(), StoreError> {
        let shown = self.path.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
        match self.integrity_check() {
            Ok(lines) if lines.is_empty() => Ok(()),
            Ok(lines) => Err(StoreError::Integrity {
                path: shown,
                detail: lines.into_iter().take(5).collect::<Vec<_>>().join("; "),
            }),
            Err(e) if e.to_string().contains("not a database") => {
                Err(StoreError::NotACampaign { path: shown, reason: "it is not an SQLite database".into() })
            }
            Err(e) => {
                Err(StoreError::Integrity { path: shown, detail: format!("the file is damaged or cut short ({e})") })
            }
        }
    }

    /// Makes an opened file ready to play: WAL mode (kept in the file; a no-op once it is).
    pub fn ready(&self) -> Result<(), StoreError> {
        self.use_wal()
    }

    /// Adds the indexes this build reads through to an older file (a read-only file is read
    /// without them).
    pub fn add_indexes(&self) -> Result<(), StoreError> {
        match self.conn.execute_batch(INDEXES) {
            Err(e) if !e.to_string().contains("readonly") => Err(e.into()),
            _ => Ok(()),
        }
    }

    /// The schema version of the file.
    pub fn version(&self) -> i64 {
        self.version
    }

    /// Records that the file was brought up to `version` (the caller wrote it to `meta` in the
    /// same transaction as the change).
    pub fn set_version(&mut self, version: i64) {
        self.version = version;
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The file this store opened (device and inode), as its path named it then.
    pub fn identity(&self) -> Option<(u64, u64)> {
        self.identity
    }

    /// SQLite's full integrity check: the problems it finds (none: sound).
    pub fn integrity_check(&self) -> Result<Vec<String>, StoreError> {
        let mut s = self.conn.prepare("PRAGMA integrity_check")?;
        let lines = s.query_map([], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
        Ok(if lines.len() == 1 && lines[0] == "ok" { vec![] } else { lines })
    }

    // ---- meta, secrets and sources ----------------------------------------------------------

    pub fn set_meta(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?;
        Ok(())
    }

    /// Removes every meta value whose key starts with `prefix`.
    pub fn forget_meta(&self, prefix: &str) -> Result<(), StoreError> {
        self.conn.execute("DELETE FROM meta WHERE substr(key, 1, length(?1)) = ?1", [prefix])?;
        Ok(())
    }

    pub fn set_secret(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO secrets (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?;
        Ok(())
    }

    /// Removes a secret value; whether there was one.
    pub fn remove_secret(&self, key: &str) -> Result<bool, StoreError> {
        Ok(self.conn.execute("DELETE FROM secrets WHERE key = ?1", [key])? > 0)
    }

    // ---- events ---------------------------------------------------------------------------

    /// Appends an event (and optionally a snapshot, and layer sources to put in force) in one
    /// transaction.
    pub fn append(
        &mut self,
        row: &Row,
        snapshot: Option<&str>,
        sources: &[(&str, &[(String, String)])],
    ) -> Result<(), StoreError> {
        self.append_with(row, snapshot, sources, &[], &[])
    }

    /// As [`Store::append`], also setting meta and secret values in the same transaction.
    pub fn append_with(
        &mut self,
        row: &Row,
        snapshot: Option<&str>,
        sources: &[(&str, &[(String, String)])],
        meta: &[(&str, &str)],
        secrets: &[(&str, &str)],
    ) -> Result<(), StoreError> {
        // IMMEDIATE takes the write lock before anything is read, so the head seen next is the
        // head this event is appended to: a second writer waits, then finds itself behind.
        // Inside [`Store::begin_write`] the lock is already held: a savepoint nests in it.
        self.still_here()?;
        if !self.conn.is_autocommit() {
            let tx = self.conn.savepoint()?;
            Self::write_event(&tx, row, snapshot, sources, meta, secrets)?;
            tx.commit()?;
            return self.still_here();
        }
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        Self::write_event(&tx, row, snapshot, sources, meta, secrets)?;
        tx.commit()?;
        // Checked again once written: an event that went into a file deleted or replaced meanwhile
        // is not acknowledged (the caller keeps its table as it was).
        self.still_here()
    }

    /// Whether the path still names the file this store opened (device and inode). Once it does
    /// not — deleted, renamed away, or another file moved over it — every later append is
    /// refused with the same reason, so nothing is acknowledged into a file nobody will read.
    pub fn still_here(&mut self) -> Result<(), StoreError> {
        if let Some(why) = self.gone.clone() {
            self.leave_wal();
            return Err(StoreError::Gone(why));
        }
        let (Some(path), Some(was)) = (&self.path, self.identity) else { return Ok(()) };
        let what = match crate::checked::identity(path) {
            Some(now) if now == was => return Ok(()),
            Some(_) => "replaced by another file",
            None => "deleted or moved away",
        };
        let why = format!(
            "{}: the campaign file was {what} while it was open; the last action was not kept and \
             nothing more is written here. Put the file back, or open the file now at that path, and play on",
            path.display()
        );
        self.gone = Some(why.clone());
        self.leave_wal();
        Err(StoreError::Gone(why))
    }

    /// Once the file is gone: the write-ahead log sits beside the path, not the file, and left
    /// there it would be read into whatever file is at the path now (a replaced campaign would
    /// gain the old one's pages). A truncating checkpoint, outside any transaction, writes it
    /// into the file this store holds and leaves the log at the path empty (other connections
    /// of this process may stay open; leaving WAL mode would need them all closed).
    fn leave_wal(&mut self) {
        if !self.wal_left && self.conn.is_autocommit() {
            let busy = self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get::<_, i64>(0));
            self.wal_left = matches!(busy, Ok(0));
        }
    }

    /// Why nothing more is written to this file, the first time it is asked after the path
    /// stopped naming it (whoever asks announces it); None before and after.
    pub fn take_gone(&mut self) -> Option<String> {
        if self.gone_told {
            return None;
        }
        self.gone_told = self.gone.is_some();
        self.gone.clone()
    }

    /// Takes the file's write lock (other writers wait for it, up to the busy timeout) until
    /// [`Store::end_write`]; appends in between join this one transaction.
    pub fn begin_write(&mut self) -> Result<(), StoreError> {
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        Ok(())
    }

    /// Ends what [`Store::begin_write`] began: commits it (`keep`) or rolls it back. Nothing
    /// happens if no write is open.
    pub fn end_write(&mut self, keep: bool) -> Result<(), StoreError> {
        if !self.conn.is_autocommit() {
            self.conn.execute_batch(if keep { "COMMIT" } else { "ROLLBACK" })?;
            let here = self.still_here();
            if keep {
                return here;
            }
        }
        Ok(())
    }

    fn write_event(
        tx: &Connection,
        row: &Row,
        snapshot: Option<&str>,
        sources: &[(&str, &[(String, String)])],
        meta: &[(&str, &str)],
        secrets: &[(&str, &str)],
    ) -> Result<(), StoreError> {
        let last: i64 = tx.query_row("SELECT COALESCE(MAX(seq), 0) FROM events", [], |r| r.get(0))?;
        if last as u64 + 1 != row.seq {
            return Err(StoreError::Behind { found: last as u64 });
        }
        for (k, v) in meta {
            tx.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![k, v],
            )?;
        }
        for (k, v) in secrets {
            tx.execute("INSERT INTO secrets (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value", params![k, v])?;
        }
        for (layer, files) in sources {
            tx.execute("DELETE FROM sources WHERE layer = ?1", [layer])?;
            for (path, content) in files.iter() {
                let hash = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(content.as_bytes()));
                tx.execute("INSERT OR IGNORE INTO blobs (hash, content) VALUES (?1, ?2)", params![hash, content])?;
                tx.execute("INSERT INTO sources (layer, path, hash) VALUES (?1, ?2, ?3)", params![layer, path, hash])?;
            }
        }
        tx.execute(
            "INSERT INTO events (seq, hash, header, items, commitments) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![row.seq as i64, row.hash, row.header, row.items, row.commitments],
        )?;
        if let Some(state) = snapshot {
            tx.execute(
                "INSERT OR REPLACE INTO snapshots (seq, state) VALUES (?1, ?2)",
                params![row.seq as i64, state],
            )?;
        }
        Ok(())
    }

    /// The last event's sequence number and hash.
    pub fn head(&self) -> Result<Option<(u64, Hash)>, StoreError> {
        let row: Option<(i64, Vec<u8>)> = self
            .conn
            .query_row("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        match row {
            None => Ok(None),
            Some((seq, h)) => Ok(Some((
                seq as u64,
                h.try_into()
                    .map_err(|_| StoreError::Corrupt(format!("event {seq}: the stored hash is not 32 bytes")))?,
            ))),
        }
    }

    pub fn event_count(&self) -> Result<u64, StoreError> {
        Ok(self.conn.query_row("SELECT COUNT(*) FROM events", [], |r| r.get::<_, i64>(0))? as u64)
    }

    /// Calls `f` with each event row from `from_seq` (inclusive), in order.
    pub fn each_event(
        &self,
        from_seq: u64,
        mut f: impl FnMut(Row) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let sql = format!("SELECT {} FROM events WHERE seq >= ?1 ORDER BY seq", row_columns(&ROW_PARTS));
        let mut s = self.conn.prepare_cached(&sql)?;
        let mut rows = s.query([from_seq as i64])?;
        while let Some(r) = rows.next()? {
            f(Row::read(r)?)?;
        }
        Ok(())
    }

    /// Calls `f` with (seq, hash, header, commitments) of each event, without reading items.
    pub fn each_header(
        &self,
        f: impl FnMut(u64, Vec<u8>, String, Vec<u8>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.each_header_from(1, f)
    }

    /// As [`Store::each_header`], from event `from_seq` on.
    pub fn each_header_from(
        &self,
        from_seq: u64,
        mut f: impl FnMut(u64, Vec<u8>, String, Vec<u8>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        const PARTS: [&str; 3] = ["hash", "header", "commitments"];
        let sql = format!("SELECT {} FROM events WHERE seq >= ?1 ORDER BY seq", row_columns(&PARTS));
        let mut s = self.conn.prepare_cached(&sql)?;
        let mut rows = s.query([from_seq as i64])?;
        while let Some(r) = rows.next()? {
            f(r.get::<_, i64>(0)? as u64, part(r, &PARTS, 0)?, part(r, &PARTS, 1)?, part(r, &PARTS, 2)?)?;
        }
        Ok(())
    }

    /// The headers of the undo events, in order (through the `events_undo` index).
    pub fn undo_headers(&self) -> Result<Vec<String>, StoreError> {
        let sql = format!(
            "SELECT header FROM events WHERE octet_length(header) <= {} AND instr(header, '\"kind\":\"undo\"') > 0 ORDER BY seq",
            houserule_core::caps::MAX_HEADER_BYTES
        );
        let mut s = self.conn.prepare_cached(&sql)?;
        let rows = s.query_map([], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The newest `limit` event rows with `from <= seq < before`, oldest first: a page of the
    /// log read through the primary key, costing the page, not the log.
    pub fn page(&self, from: u64, before: u64, limit: usize) -> Result<Vec<Row>, StoreError> {
        let sql = format!(
            "SELECT {} FROM events WHERE seq >= ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3",
            row_columns(&ROW_PARTS)
        );
        let mut s = self.conn.prepare_cached(&sql)?;
        let mut rows = s.query(params![
            from.min(i64::MAX as u64) as i64,
            before.min(i64::MAX as u64) as i64,
            limit.min(i64::MAX as usize) as i64
        ])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            out.push(Row::read(r)?);
        }
        out.reverse();
        Ok(out)
    }

    /// One event row.
    pub fn event(&self, seq: u64) -> Result<Option<Row>, StoreError> {
        let sql = format!("SELECT {} FROM events WHERE seq = ?1", row_columns(&ROW_PARTS));
        let mut s = self.conn.prepare_cached(&sql)?;
        let mut rows = s.query([seq as i64])?;
        rows.next()?.map(Row::read).transpose()
    }

    /// The event of the latest snapshot at or before `seq`.
    pub fn snapshot_seq_before(&self, seq: u64) -> Result<Option<u64>, StoreError> {
        let row: Option<i64> = self
            .conn
            .query_row("SELECT seq FROM snapshots WHERE seq <= ?1 ORDER BY seq DESC LIMIT 1", [seq as i64], |r| {
                r.get(0)
            })
            .optional()?;
        Ok(row.map(|s| s as u64))
    }

    /// Parses a stored snapshot.
    pub fn parse_snapshot(seq: u64, text: &str) -> Result<Table, StoreError> {
        serde_json::from_str(text)
            .map_err(|e| StoreError::Corrupt(format!("the snapshot at event {seq} does not parse: {e}")))
    }

    /// Sequence numbers of all snapshots.
    pub fn snapshot_seqs(&self) -> Result<Vec<u64>, StoreError> {
        let mut s = self.conn.prepare("SELECT seq FROM snapshots ORDER BY seq")?;
        let rows = s.query_map([], |r| r.get::<_, i64>(0))?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows.into_iter().map(|s| s as u64).collect())
    }

    /// Direct access for tests that tamper with a file, and for sharing.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}
