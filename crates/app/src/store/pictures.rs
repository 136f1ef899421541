//! The campaign file's pictures: each imported image's bytes under the SHA-256 of them.
//!
//! Guarantees: a picture is stored under the digest of exactly its bytes (computed here, never
//! taken from the caller); nothing here is read when a file opens — a picture's bytes are read
//! only when one is asked for by digest; a file of schema 2 gains the table (and becomes
//! version 3) inside the transaction that stores its first picture, so a failed import leaves
//! the file as it was.

use super::{Store, StoreError, PICTURES_V3, SCHEMA_VERSION};
use rusqlite::{params, OptionalExtension};
use sha2::{Digest, Sha256};

/// The SHA-256 of a picture's bytes, as the table names it.
pub fn digest_of(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

impl Store {
    /// Adds the `pictures` table to a file of an older schema (inside the caller's write).
    pub(crate) fn add_pictures_table(&mut self) -> Result<(), StoreError> {
        if self.version >= 3 {
            return Ok(());
        }
        self.conn.execute_batch(PICTURES_V3)?;
        Ok(())
    }

    /// Stores a picture's bytes under their digest (inside a write the caller began with
    /// [`Store::begin_write`], with the event that adds the picture); returns the digest. A file
    /// of an older schema is brought to this one in the same write.
    pub fn put_picture(&mut self, bytes: &[u8]) -> Result<String, StoreError> {
        if self.conn.is_autocommit() {
            return Err(StoreError::Sqlite("a picture is stored only with the event that adds it".into()));
        }
        if self.version < 3 {
            self.add_pictures_table()?;
            self.set_meta("schema_version", &SCHEMA_VERSION.to_string())?;
        }
        let digest = digest_of(bytes);
        self.conn.execute("INSERT OR IGNORE INTO pictures (digest, bytes) VALUES (?1, ?2)", params![digest, bytes])?;
        Ok(digest)
    }

    /// Marks the file as of the current schema once a write that stored a picture is kept.
    pub fn pictures_kept(&mut self) {
        self.version = self.version.max(3);
    }

    /// A picture's bytes, by digest (None when the file holds none under it).
    /// (A connection opened before the file gained the table reads it all the same.)
    pub fn picture(&self, digest: &str) -> Result<Option<Vec<u8>>, StoreError> {
        if !self.has_pictures()? {
            return Ok(None);
        }
        let sql = "SELECT bytes FROM pictures WHERE digest = ?1";
        Ok(self.conn.query_row(sql, [digest], |r| r.get(0)).optional()?)
    }

    /// Whether the file has the `pictures` table (schema 3 on; a file may gain it while open).
    fn has_pictures(&self) -> Result<bool, StoreError> {
        let sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'pictures'";
        Ok(self.conn.query_row(sql, [], |r| r.get::<_, i64>(0))? == 1)
    }

    /// Every stored picture's digest with the SHA-256 of its bytes as stored (`verify`), one
    /// picture in memory at a time.
    pub fn each_picture(&self, mut f: impl FnMut(&str, &[u8])) -> Result<(), StoreError> {
        if !self.has_pictures()? {
            return Ok(());
        }
        let mut s = self.conn.prepare("SELECT digest, bytes FROM pictures ORDER BY digest")?;
        let mut rows = s.query([])?;
        while let Some(r) = rows.next()? {
            let (digest, bytes): (String, Vec<u8>) = (r.get(0)?, r.get(1)?);
            f(&digest, &bytes);
        }
        Ok(())
    }
}
